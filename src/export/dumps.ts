import { sqlString, type Db, type DbConnection } from '../store/db.js';
import { FORMULA_START } from '../api/csv.js';
import type { FileEntry, ReleaseWriter } from './writer.js';
import { ANALYSED, exportSql } from './sql.js';
import { DUMP_VIEWS_HTTP_PATH, DUMP_VIEWS_PATH, dumpViewsHttpSql, dumpViewsSql, type DumpView } from './dump-views.js';

/**
 * Bulk dumps (docs/static-hosting.md, every column in docs/dumps.md): the published
 * tables as Parquet and gzipped CSV, each the query of
 * src/export/sql/dump-<name>.sql over the analysed_* views and the a_*
 * tables only, so a dump never holds a row above the analysed height.
 * Amounts stay integer litoshi (`*_litoshi` columns) so bulk consumers
 * never round.
 */
export interface Dump {
  name: string;
  /**
   * The column with the block height a row belongs to: what a height
   * partition splits on (for clusters, the height the cluster first funded
   * a peg-in). null for tables of labelled addresses and entities, which no
   * block bounds (a new label can change any of their rows).
   */
  height: string | null;
  /**
   * What can change a partition below the tip: nothing but a reorg (chain
   * data, null); a dirty peg of this side in it (dirty.sql: a changed
   * attribution, a later peg to a reused address); or, for `rows`, any later
   * block (a peg-in can grow or merge an old cluster): such a partition is
   * never final, and is carried over when its rows are those of the
   * previous release's file.
   */
  dirtyBy: 'pegin' | 'pegout' | 'rows' | null;
  /** LIST columns: Parquet keeps the list, the CSV joins its items with LIST_SEPARATOR. */
  lists: readonly string[];
  /**
   * Partitions of this dump in one of PARTITION_BLOCKS blocks (default 1). Every new
   * block adds rows to the chain tables' open partition and to nothing
   * else, so ten times smaller partitions keep that upload small: `blocks`
   * (a row with its hash for every block) took 1.9 MB a block at the
   * mainnet preset with 20,000 blocks, and `pegins` with `pegin_inputs`
   * 7.5 MB a block at x10.
   */
  splits?: number;
}

/**
 * The chain tables' partitions are this many times finer (Dump.splits), and
 * so are those of the analysed tables whose rows change below the tip (a new
 * link or score within the horizon): a few changed rows rewrite their whole
 * partition, which a mirror uploads (docs/performance.md).
 */
const CHAIN_SPLITS = 10;

export const DUMPS: readonly Dump[] = [
  { name: 'blocks', height: 'height', dirtyBy: null, lists: [], splits: CHAIN_SPLITS },
  { name: 'pegins', height: 'height', dirtyBy: null, lists: [], splits: CHAIN_SPLITS },
  { name: 'pegin_inputs', height: 'height', dirtyBy: null, lists: [], splits: CHAIN_SPLITS },
  { name: 'pegouts', height: 'height', dirtyBy: null, lists: [], splits: CHAIN_SPLITS },
  { name: 'links', height: 'pegout_height', dirtyBy: 'pegout', lists: ['reasons'], splits: CHAIN_SPLITS },
  { name: 'reuse', height: 'pegout_height', dirtyBy: 'pegout', lists: [], splits: CHAIN_SPLITS },
  { name: 'pegin_scores', height: 'height', dirtyBy: 'pegin', lists: ['reasons'], splits: CHAIN_SPLITS },
  { name: 'pegout_scores', height: 'height', dirtyBy: 'pegout', lists: ['reasons'], splits: CHAIN_SPLITS },
  { name: 'clusters', height: 'first_height', dirtyBy: 'rows', lists: [] },
  { name: 'attribution', height: null, dirtyBy: null, lists: [] },
  { name: 'labels', height: null, dirtyBy: null, lists: [] },
  { name: 'entity_flows', height: null, dirtyBy: null, lists: [] },
];

/** What the CSV puts between the items of a list; a link's reason sentences never contain it (an entity name a score reason quotes may). */
export const LIST_SEPARATOR = '; ';

/** zlib's level for the CSV dumps: at mainnet level 6 took 2.4 s for 39.6 MB, level 1 1.1 s for 42.0 MB (DuckDB's gzip: 4.7 s for 41.4 MB). */
const CSV_GZIP_LEVEL = 6;

/** Blocks per dump partition (about 35 days): 30 partitions at the mainnet preset, 2 files each per table. */
export const PARTITION_BLOCKS = 20_000;

/** Blocks per partition of a dump, from the blocks per partition of the others. */
export const partitionBlocksOf = (dump: Dump, partitionBlocks = PARTITION_BLOCKS): number => Math.max(1, Math.floor(partitionBlocks / (dump.splits ?? 1)));

/** Blocks per partition of the finest dump a dirty peg changes: the dirty partitions (DumpOptions.dirty) are taken at this size. */
export const dirtyPartitionBlocks = (partitionBlocks = PARTITION_BLOCKS): number =>
  Math.min(...DUMPS.filter((d) => d.dirtyBy === 'pegin' || d.dirtyBy === 'pegout').map((d) => partitionBlocksOf(d, partitionBlocks)));

/** One height partition: [from, to], final when every block in it is more than two horizons below the analysed height. */
export interface Partition { from: number; to: number; final: boolean }

/** The partitions from the first analysed block to the analysed height; `finalUpTo` is the highest height whose documents are final. */
export function partitionsOf(firstHeight: number, asOfHeight: number, finalUpTo: number, size = PARTITION_BLOCKS): Partition[] {
  const partitions: Partition[] = [];
  for (let start = Math.floor(firstHeight / size) * size; start <= asOfHeight; start += size) {
    partitions.push({ from: start, to: start + size - 1, final: start + size - 1 <= finalUpTo });
  }
  return partitions;
}

const pad = (height: number): string => String(height).padStart(8, '0');
/** dumps/<name>/<name>-<from>-<to>.<ext>, heights zero-padded so names sort by height. */
export const partitionPath = (name: string, p: Partition, ext: 'parquet' | 'csv.gz'): string =>
  `dumps/${name}/${name}-${pad(p.from)}-${pad(p.to)}.${ext}`;
/** Every file of a dump in one pattern (what DuckDB's read_parquet takes): a directory of partitions, or one file. */
export const dumpGlob = (dump: Dump, ext: 'parquet' | 'csv.gz'): string =>
  dump.height ? `dumps/${dump.name}/*.${ext}` : `dumps/${dump.name}.${ext}`;

/** dumps-metadata.sql: the variables the key-value metadata reads. */
const METADATA_VARIABLES = exportSql('dumps-metadata');
const kvMetadata = (entries: [string, string][]): string =>
  `{${entries.map(([key, value]) => `"pegscope.${key}": ${value}`).join(', ')}}`;
/** A whole table: which chain, which heights, and the analysis that last changed its rows (a stamp), up to whose height it reaches. */
const tableMetadata = (stamp: DumpStamp): string => kvMetadata([
  ['network', "getvariable('dump_network')"], ['from_height', "getvariable('dump_from_height')"], ['to_height', stamp.as_of_height],
  ['as_of_height', stamp.as_of_height], ['updated_at', stamp.updated_at],
]);
/**
 * Whether a partition names an analysis in its metadata: only while it is
 * still filling (its last block above the analysed height), and then the
 * analysis that last changed its rows. A partition below the tip keeps its
 * bytes from release to release while its rows do, so the export carries
 * it over instead of writing it again; so does the one at the tip while no
 * new block adds to it.
 */
const namesAnalysis = (p: Partition, analysedHeight: number): boolean => p.to > analysedHeight;

/** The analysis a partition at the tip or a whole table names: SQL expressions of its height and time. */
interface DumpStamp { as_of_height: string; updated_at: string }
const THIS_ANALYSIS: DumpStamp = { as_of_height: "getvariable('dump_to_height')", updated_at: "getvariable('dump_updated_at')" };
/** The analysis a digest was recorded with (the one that last changed the rows), as a DumpStamp. */
const recordedStamp = (digest: RecordedDigest): DumpStamp => ({ as_of_height: `'${digest.stamp.height}'`, updated_at: `'${digest.stamp.time}'` });

/** A partition: its own heights, and the analysis (namesAnalysis) when there is one. */
const partitionMetadata = (p: Partition, stamp: DumpStamp | null): string => kvMetadata([
  ['network', "getvariable('dump_network')"], ['from_height', `'${p.from}'`], ['to_height', `'${p.to}'`], ['final', `'${p.final}'`],
  ...(stamp ? [['as_of_height', stamp.as_of_height], ['updated_at', stamp.updated_at]] as [string, string][] : []),
]);

/** A text cell a spreadsheet would read as a formula gets a leading `'`, as in the API's CSVs; Parquet keeps the raw text. */
const guarded = (text: string): string => `CASE WHEN regexp_matches(${text}, ${sqlString(FORMULA_START.source)}) THEN '''' || ${text} ELSE ${text} END`;

/** The CSV of a dump's Parquet file: lists joined, and every text column (names, entities, reasons) guarded against formulas. */
const csvSelect = (dump: Dump, parquet: string, textColumns: readonly string[]): string => {
  const replaced = [
    ...dump.lists.map((column) => `${guarded(`array_to_string(${column}, ${sqlString(LIST_SEPARATOR)})`)} AS ${column}`),
    ...textColumns.map((column) => `${guarded(`"${column}"`)} AS "${column}"`),
  ];
  return `SELECT *${replaced.length ? ` REPLACE (${replaced.join(', ')})` : ''} FROM read_parquet(${sqlString(parquet)})`;
};

/** The VARCHAR columns of a Parquet file the dumps wrote. */
async function textColumnsOf(conn: DbConnection, parquet: string): Promise<string[]> {
  const columns = await conn.all<{ column_name: string; column_type: string }>(`DESCRIBE SELECT * FROM read_parquet(${sqlString(parquet)})`);
  return columns.filter((c) => c.column_type === 'VARCHAR').map((c) => c.column_name);
}

/** The rows of a partition in x_dump (in the dump's order: ORDER BY rowid). */
const partitionRows = (dump: Dump, p: Partition): string => `SELECT * FROM x_dump WHERE ${dump.height} BETWEEN ${p.from} AND ${p.to}`;

/** The digest of the rows `t` (a group of them), as decimal text. */
const ROWS_DIGEST = "md5_number(concat_ws(':', count(*), sum(hash(t)), sum(hash(t, 'row'))))::VARCHAR";
/**
 * The digest of each partition's rows from height `from` on (the dump's
 * order is total, so equal rows make an equal file), by the partition's
 * first height: a count and two sums of 64-bit row hashes (sums, unlike xor,
 * keep equal rows from cancelling out), as one md5. hash() may differ in
 * another DuckDB version: every partition then counts as changed once.
 */
const partitionDigests = (dump: Dump, size: number, query: string, from: number): string =>
  `SELECT (${dump.height} // ${size}) * ${size} AS part_from, ${ROWS_DIGEST} AS h FROM (${unordered(query)}) t WHERE ${dump.height} >= ${from} GROUP BY ALL`;
/**
 * A dump's query without its ORDER BY, the last clause of every dump-*.sql:
 * DuckDB sorts a subquery even when a sum over it needs no order (the
 * clusters' digests took 34 ms sorted, 9 ms not, at the mainnet preset).
 */
export function unordered(query: string): string {
  const rows = query.replace(/\s+ORDER BY [^()]*$/, '');
  if (rows === query) throw new Error(`a dump's query does not end with its ORDER BY: ${query.slice(-80)}`);
  return rows;
}
/** The rows of the partitions `parts` (of `size` blocks), as a condition on the dump's query. */
const partitionsFilter = (dump: Dump, size: number, parts: Partition[]): string =>
  `${dump.height} >= ${parts[0]!.from} AND (${dump.height} // ${size}) * ${size} IN (${parts.map((p) => p.from).join(', ')})`;
/** The digest of a partition without rows. */
const EMPTY_PARTITION = '0';
/** The digest of a whole table's rows, as partitionDigests makes a partition's. */
const tableDigest = (query: string): string => `SELECT ${ROWS_DIGEST} AS h FROM (${unordered(query)}) t`;
/** The previous release's Parquet file at `parquet` and its CSV, when it has both. */
function previousDumpFiles(writer: ReleaseWriter, parquet: string): FileEntry[] | null {
  const files = [parquet, parquet.replace(/\.parquet$/, '.csv.gz')].map((path) => writer.previousFile(path));
  return files.every((f) => f !== undefined) ? files as FileEntry[] : null;
}

/** Each dump's view: its glob and the columns of its query (DESCRIBE plans it, reading no rows). */
async function dumpViewsOf(conn: DbConnection, files: Map<string, string[]>): Promise<DumpView[]> {
  const views: DumpView[] = [];
  for (const dump of DUMPS) {
    const columns = await conn.all<{ column_name: string }>(`DESCRIBE ${exportSql(`dump-${dump.name}`)}`);
    views.push({ name: dump.name, glob: dumpGlob(dump, 'parquet'), columns: columns.map((c) => c.column_name), files: files.get(dump.name) ?? [] });
  }
  return views;
}

export interface DumpOptions {
  /** --site-url: dumps/views-http.sql reads the dumps at it (null: not written). */
  siteUrl: string | null;
  /** Partitions ending at or below this height are final (the analysed height minus two horizons); -1: none. */
  finalUpTo: number;
  /**
   * Partitions of analysed rows ending at or below this height may be carried
   * over from the previous release when they hold no dirty peg: its height
   * when its peg digests were compared (no peg it showed has gone, and a new
   * or changed peg is dirty), else the dirty floor; -1: none.
   */
  carryUpTo: number;
  /**
   * The previous release's peg digests were compared on a chain that only
   * grew since: every peg it did not show, or showed otherwise, is dirty, so
   * a partition at the tip without a dirty peg is that release's too.
   */
  everyChangeDirty: boolean;
  /** Chain-data partitions ending at or below this height may be carried over (the chain both releases read); -1: none. */
  chainCarryUpTo: number;
  /** The previous release's finalUpTo: a partition that became final since is written again (its metadata says final). */
  previousFinalUpTo: number;
  /** The digests of the previous release's partition files (documents index, kind DUMP_DIGESTS), by Parquet path; empty when not comparable. */
  previousDigests: Map<string, RecordedDigest>;
  /** `<side>:<partition start>` of the partitions of dirtyPartitionBlocks blocks holding a dirty peg (workspace.ts dirtyPartitions). */
  dirty: Set<string>;
  partitionBlocks?: number;
}

/**
 * The documents index's pseudo-kind for the digests of the dump partitions
 * and whole tables compared by their rows (q = the Parquet path): each
 * export records those it compared, and only those (workspace.ts recordDumpDigests).
 */
export const DUMP_DIGESTS = 'dump:partition';

/** A dump partition's digest (an md5 as decimal text), and the analysis that last changed its rows. */
export interface RecordedDigest {
  h: string;
  stamp: { height: number; time: number };
}

/** A partition this export compared by its rows, by its Parquet path, and the digest of those rows. */
export interface PartitionDigest {
  q: string;
  h: string;
}

/**
 * Writes the dumps on a connection of their own, so that DuckDB compresses
 * them while the exporter's connection renders and fetches documents. The
 * CSV is read back from the Parquet file: the same rows in the same order.
 * A partitioned dump is computed once into a temp table sorted as the dump
 * is, then copied out a partition at a time.
 */
export async function writeDumps(db: Db, writer: ReleaseWriter, opts: DumpOptions): Promise<PartitionDigest[]> {
  const conn = await db.connect();
  const digests: PartitionDigest[] = [];
  /** Each dump's Parquet files in this release, written or carried over (the HTTP views list them). */
  const parquetFiles = new Map<string, string[]>();
  // One CSV at a time is gzipped while DuckDB writes the next file.
  let gzipping: Promise<void> = Promise.resolve();
  const copy = async (query: string, path: string, metadata: string, dump: Dump): Promise<void> => {
    const parquet = await writer.pathFor(path);
    await conn.exec(`COPY (${query}) TO ${sqlString(parquet)} (FORMAT parquet, COMPRESSION zstd, KV_METADATA ${metadata})`);
    await writer.adopt(path);
    const plain = path.replace(/\.parquet$/, '.csv');
    await conn.exec(`COPY (${csvSelect(dump, parquet, await textColumnsOf(conn, parquet))}) TO ${sqlString(await writer.pathFor(plain))} (FORMAT csv, HEADER)`);
    await gzipping;
    gzipping = writer.adoptGzipped(plain, `${plain}.gz`, CSV_GZIP_LEVEL);
    // Handled here so a failure waits, unreported, for the next await of it.
    gzipping.catch(() => undefined);
  };
  try {
    await conn.exec(ANALYSED);
    await conn.exec(METADATA_VARIABLES);
    const bounds = (await conn.one<{ first: number; top: number }>("SELECT getvariable('dump_from_height')::INTEGER AS first, getvariable('dump_to_height')::INTEGER AS top"))!;
    const dirtySize = dirtyPartitionBlocks(opts.partitionBlocks);
    for (const dump of DUMPS) {
      if (!dump.height) {
        // A table without heights is compared by its rows: unchanged, it is the previous release's, under the analysis that last changed it.
        const query = exportSql(`dump-${dump.name}`);
        const q = `dumps/${dump.name}.parquet`;
        parquetFiles.set(dump.name, [q]);
        const { h } = (await conn.one<{ h: string }>(tableDigest(query)))!;
        const previous = opts.previousDigests.get(q);
        digests.push({ q, h });
        const unchanged = previous?.h === h;
        const files = unchanged ? previousDumpFiles(writer, q) : null;
        if (files) files.forEach((file) => writer.carryFile(file));
        else await copy(query, q, tableMetadata(unchanged ? recordedStamp(previous!) : THIS_ANALYSIS), dump);
        continue;
      }
      const size = partitionBlocksOf(dump, opts.partitionBlocks);
      const partitions = partitionsOf(bounds.first, bounds.top, opts.finalUpTo, size);
      const ofDump = dump.dirtyBy === 'rows' ? partitions.map((p) => ({ ...p, final: false })) : partitions;
      parquetFiles.set(dump.name, ofDump.map((p) => partitionPath(dump.name, p, 'parquet')));
      const previousFiles = (p: Partition): FileEntry[] | null => previousDumpFiles(writer, partitionPath(dump.name, p, 'parquet'));
      /** Whether a dirty peg of `side` is in partition p: in any of the dirty set's (finer or equal) partitions it overlaps. */
      const dirtyIn = (side: 'pegin' | 'pegout', p: Partition): boolean => {
        for (let from = Math.floor(p.from / dirtySize) * dirtySize; from <= p.to; from += dirtySize) if (opts.dirty.has(`${side}:${from}`)) return true;
        return false;
      };
      /** A partition below the tip whose rows cannot have changed: the previous release's files. */
      const unchangedBelowTip = (p: Partition): FileEntry[] | null => {
        const sameFinality = p.final === p.to <= opts.previousFinalUpTo;
        const noChangedRows = dump.dirtyBy === null
          ? p.to <= opts.chainCarryUpTo
          : p.to <= opts.carryUpTo && (dump.dirtyBy === 'rows' || !dirtyIn(dump.dirtyBy, p));
        return sameFinality && noChangedRows ? previousFiles(p) : null;
      };
      /** A partition at the tip without a dirty peg when every change is dirty: the previous release's files and digest (its stamp stays). */
      const unchangedAtTip = (p: Partition): FileEntry[] | null => {
        if (!opts.everyChangeDirty || dump.dirtyBy === null || dump.dirtyBy === 'rows' || dirtyIn(dump.dirtyBy, p)) return null;
        const q = partitionPath(dump.name, p, 'parquet');
        const previous = opts.previousDigests.get(q);
        const files = previous ? previousFiles(p) : null;
        if (files) digests.push({ q, h: previous!.h });
        return files;
      };
      // The partition at the tip, and every partition of a `rows` dump, are compared by their rows with the previous release's file (unless unchangedAtTip).
      const comparedByRows = (p: Partition): boolean => dump.dirtyBy === 'rows' || namesAnalysis(p, bounds.top);
      const toWrite: Partition[] = [];
      const toCompare: Partition[] = [];
      for (const p of ofDump) {
        const files = comparedByRows(p) ? unchangedAtTip(p) : unchangedBelowTip(p);
        if (files) files.forEach((file) => writer.carryFile(file));
        else (comparedByRows(p) ? toCompare : toWrite).push(p);
      }
      if (toWrite.length + toCompare.length === 0) continue;
      const query = exportSql(`dump-${dump.name}`);
      // The partitions to compare by the digests of their rows, taken from the query itself (no sort, nothing kept).
      const rowDigests = toCompare.length === 0 ? new Map<number, string>()
        : new Map((await conn.all<{ part_from: number; h: string }>(partitionDigests(dump, size, query, Math.min(...toCompare.map((p) => p.from)))))
          .map((r) => [Number(r.part_from), r.h]));
      const digestOf = (p: Partition): string => rowDigests.get(p.from) ?? EMPTY_PARTITION;
      /** The analysis a tip partition names: this one, or the one that last changed its rows. */
      const stamps = new Map<Partition, DumpStamp>();
      for (const p of toCompare) {
        const q = partitionPath(dump.name, p, 'parquet');
        const h = digestOf(p);
        const previous = opts.previousDigests.get(q);
        const unchanged = previous?.h === h;
        digests.push({ q, h });
        const files = unchanged ? previousFiles(p) : null;
        if (files) {
          files.forEach((file) => writer.carryFile(file));
          continue;
        }
        // A full export writes what an incremental one carries over: the same rows under the same stamp.
        if (unchanged && namesAnalysis(p, bounds.top)) stamps.set(p, recordedStamp(previous!));
        toWrite.push(p);
      }
      if (toWrite.length === 0) continue;
      toWrite.sort((a, b) => a.from - b.from);
      // Only the rows of the partitions to write, in the dump's order (the filter reaches into the query; its order stays).
      await conn.exec(`CREATE OR REPLACE TEMP TABLE x_dump AS SELECT * FROM (${query}) WHERE ${partitionsFilter(dump, size, toWrite)}`);
      for (const p of toWrite) {
        const stamp = namesAnalysis(p, bounds.top) ? stamps.get(p) ?? THIS_ANALYSIS : null;
        await copy(`${partitionRows(dump, p)} ORDER BY rowid`, partitionPath(dump.name, p, 'parquet'), partitionMetadata(p, stamp), dump);
      }
    }
    await conn.exec('DROP TABLE IF EXISTS x_dump');
    const views = await dumpViewsOf(conn, parquetFiles);
    await writer.put(DUMP_VIEWS_PATH, dumpViewsSql(views));
    if (opts.siteUrl) await writer.put(DUMP_VIEWS_HTTP_PATH, dumpViewsHttpSql(views, opts.siteUrl));
    await gzipping;
    return digests;
  } finally {
    // Nothing may write into the release once this returns: it can be removed next.
    await gzipping.catch(() => undefined);
    conn.close();
  }
}
