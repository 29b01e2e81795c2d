import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isValidAddress } from '../domain/address.js';
import { networkParams, type NetworkName } from '../domain/network.js';
import { buildAmountTable } from '../domain/privacy.js';
import { fromBigint } from '../domain/amount.js';
import { sqlString, type Db } from '../store/db.js';
import { silentProgress, type Progress } from '../progress.js';
import type { AnalysisStamp } from '../api/envelope.js';
import { healthDocument } from '../api/health.js';
import * as stats from '../api/stats.js';
import * as recommendations from '../api/recommendations.js';
import * as links from '../api/links.js';
import * as amounts from '../api/top-amounts.js';
import * as trace from '../api/trace.js';
import * as address from '../api/address.js';
import * as follow from '../api/follow.js';
import * as block from '../api/block.js';
import { indexDocument } from '../api/index.js';
import { redirectsFile, headersFile, nginxSnippet } from './configs.js';
import { writeDumps } from './dumps.js';
import { EXPLORER_MISSING, writeExplorer } from './explorer.js';
import { writeSeries } from './series.js';
import { wrapJsonSql } from './wrap-json-sql.js';
import { DOCS_INDEX, hasIndexes, MANIFEST_FILE, writeManifest } from './manifest.js';
import { currentRelease, publishRelease, pruneReleases, releaseId, startRelease } from './publish.js';
import { DROP_WRITER_TABLES, GZ_MIN, ReleaseWriter, type DocKey, type FileEntry, type WriterCounts } from './writer.js';

export interface ExportOptions {
  outDir: string;
  /** Complete releases to keep (default 3); once there are this many, the oldest is recycled into the next one. */
  keep?: number;
  /** Hard-link files unchanged since the current release (default true); false rewrites every byte. */
  incremental?: boolean;
  progress?: Progress;
  log?: (line: string) => void;
}

export interface ExportResult {
  releaseId: string;
  dir: string;
  files: number;
  written: number;
  /** Files hard-linked to the previous release. */
  reused: number;
  /** Files of a recycled old release left in place because their bytes were already right. */
  kept: number;
  /** Bytes actually written (reused and kept files cost none). */
  bytes: number;
}

const json = (value: unknown): string => JSON.stringify(value);

/** The export's working tables; dropped so a long-running job does not keep them in memory. */
const DROP_TEMP_TABLES = ['x_attribution', 'x_pegin_inputs', 'x_pegin_links', 'x_pegout_links', 'x_pegin_nodes', 'x_pegout_nodes',
  'x_addresses', 'x_address_pegins', 'x_doc', 'x_docs', 'x_prev_docs', 'x_unchanged', 'x_fetch'].map((t) => `DROP TABLE IF EXISTS ${t};`).join('\n') + DROP_WRITER_TABLES;

/**
 * Writes a complete release of the static tree (SPEC §4) from the analysed
 * database and publishes it atomically: a kill at any point leaves `current`
 * on the previous complete release.
 */
export async function exportRelease(db: Db, opts: ExportOptions): Promise<ExportResult> {
  const log = opts.log ?? (() => undefined);
  const progress = opts.progress ?? silentProgress;
  const stamp = await analysisStamp(db);
  const current = await currentRelease(opts.outDir);
  const id = releaseId(stamp.as_of_height);
  const keep = opts.keep ?? 3;
  const incremental = opts.incremental ?? true;
  // Unchanged documents keep their stamp either way; only with `incremental` are their files carried over.
  const previous = current && hasIndexes(current) ? current : null;
  const { dir: tmpDir, recycled } = await startRelease(opts.outDir, id, incremental ? keep : undefined);
  log(`export ${stamp.network} at height ${stamp.as_of_height} into release ${id}${recycled ? ` (recycling release ${recycled}, which pruning would remove)` : ''}${previous && incremental ? ' (reusing unchanged files of the current release)' : ''}`);

  let writer: ReleaseWriter | null = null;
  let counts: WriterCounts;
  try {
    writer = await ReleaseWriter.open(db, tmpDir, { previousDir: incremental ? previous : null, recycled: recycled !== null });
    const skipped = await writeTree(db, writer, stamp, previous, progress);
    if (!await writeExplorer(writer)) log(EXPLORER_MISSING);
    if (skipped > 0) log(`skipped ${skipped} queries that are not a valid ${stamp.network} address or txid (never used as file names)`);
    await writer.finish();
    counts = await writer.counts();
    counts.bytes += await writeManifest(db, join(tmpDir, MANIFEST_FILE), stamp);
  } catch (err) {
    await writer?.abandon().catch(() => undefined);
    await rm(tmpDir, { recursive: true, force: true });
    throw err;
  } finally {
    await db.exec(DROP_TEMP_TABLES);
  }

  const dir = await publishRelease(opts.outDir, tmpDir, id);
  const pruned = await pruneReleases(opts.outDir, keep);
  // The manifest counts as one more written file.
  const { files, written, reused, kept, bytes } = counts;
  const result = { releaseId: id, dir, files: files + 1, written: written + 1, reused, kept, bytes };
  log(`published ${id}: ${result.files} files, ${result.written} written, ${reused} linked to the previous release, ${kept} kept in place, ${(result.bytes / 1e6).toFixed(1)} MB written${pruned.length ? `; pruned ${pruned.join(', ')}` : ''}`);
  return result;
}

/** Every file of the release but the files index and the manifest; returns how many query keys were refused as file names. */
async function writeTree(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, previous: string | null, progress: Progress): Promise<number> {
  await db.exec(trace.NODES_SQL);
  await writeEndpointDocuments(db, writer, stamp);
  await writeSeries(db, writer, stamp);
  // Both run to the end even when one fails, so nothing writes into the release after it is removed.
  const [documents, dumps] = await Promise.allSettled([writeQueryDocuments(db, writer, stamp, previous, progress), writeDumps(db, writer)]);
  if (documents.status === 'rejected') throw documents.reason;
  if (dumps.status === 'rejected') throw dumps.reason;
  const skipped = documents.value;
  await writer.put('_redirects', redirectsFile());
  await writer.put('_headers', headersFile());
  await writer.put('nginx.conf', nginxSnippet());
  return skipped;
}

async function analysisStamp(db: Db): Promise<AnalysisStamp> {
  const rows = await db.all<{ key: string; value: string }>("SELECT key, value FROM a_meta").catch(() => []);
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  const asOf = Number(meta.get('as_of_height'));
  const updatedAt = Number(meta.get('updated_at'));
  if (!Number.isSafeInteger(asOf) || !Number.isSafeInteger(updatedAt)) {
    throw new Error('the database has no analysis to export (a_meta lacks as_of_height/updated_at); run `pegscope analyze` first');
  }
  const network = networkParams(meta.get('network') ?? '').name as NetworkName;
  return { network, as_of_height: asOf, updated_at: updatedAt };
}

/** The default-parameter documents, the index, the amount table and the top lists. */
async function writeEndpointDocuments(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp): Promise<void> {
  const counts = await db.one<{ cursor: string | null; pegins: bigint; pegouts: bigint }>(
    "SELECT (SELECT value FROM meta WHERE key = 'cursor_height') AS cursor, (SELECT count(*) FROM pegins) AS pegins, (SELECT count(*) FROM pegouts) AS pegouts",
  );
  await writer.put('api/health.json', json(healthDocument(stamp, {
    last_scanned_block: Number(counts?.cursor ?? stamp.as_of_height),
    pegins: Number(counts?.pegins ?? 0), pegouts: Number(counts?.pegouts ?? 0),
  })));
  await writer.put('api/stats.json', json(stats.statsDocument(stamp, await db.all(stats.QUERY))));
  const rec = await db.one<{ doc: string }>(recommendations.QUERY);
  if (!rec) throw new Error('a_recommendations is empty; run `pegscope analyze` before exporting');
  await writer.put('api/recommendations.json', json(recommendations.recommendationsDocument(stamp, rec.doc)));
  await writer.put('api/index.json', json(indexDocument(stamp)));

  const topLinks = await db.one<{ links: string | null }>(links.QUERY, [links.TOP_LINKS]);
  const linksTop = links.linksDocument(stamp, JSON.parse(topLinks?.links ?? '[]'));
  await writer.put('data/links.json', json(linksTop));
  const linksDefault = links.sliceLinks(linksTop, links.DEFAULT_MIN_CONFIDENCE, links.DEFAULT_LIMIT);
  await writer.put('api/links.json', json(linksDefault));
  await writer.put('api/links.csv', links.linksCsv(linksDefault));

  for (const side of ['pegin', 'pegout'] as const) {
    const top = await db.one<{ rows: string | null }>(amounts.QUERY, [side, amounts.TOP_AMOUNTS]);
    const topDoc = amounts.amountsDocument(stamp, side, JSON.parse(top?.rows ?? '[]'));
    const name = amounts.amountsKey(side);
    await writer.put(`data/${name}.json`, json(topDoc));
    const byDefault = amounts.sliceAmounts(topDoc, side, amounts.DEFAULT_AMOUNTS_LIMIT);
    await writer.put(`api/${name}.json`, json(byDefault));
    await writer.put(`api/${name}.csv`, amounts.amountsCsv(byDefault, side));
  }

  const rows = await db.all<{ side: string; amount: bigint; count: bigint }>('SELECT side, amount, count FROM a_amounts ORDER BY side, amount');
  const pairs = (side: string) => rows.filter((r) => r.side === side).map((r) => [fromBigint(r.amount), Number(r.count)] as const);
  await writer.put('api/amounts.json', json(buildAmountTable({ pegin: pairs('pegin'), pegout: pairs('pegout') })));
}

interface DocRow {
  q: string;
  /** The document's body; null when DuckDB rendered the file and the kind needs no body. */
  body: string | null;
  /** The file DuckDB rendered (envelope and body), when small enough to need no compressed siblings. */
  file: string | null;
  /** Whether the row has a main file (DocKind.when). */
  has_file: boolean;
  stamp: AnalysisStamp;
  [column: string]: unknown;
}
/** What a kind writes besides its main file; `main` is that file's entries when JavaScript wrote it, null when DuckDB rendered it. */
type EachDocument = (row: DocRow, doc: DocKey, main: FileEntry[] | null) => void | Promise<unknown>;

/**
 * A kind of per-query document (rows q, body, …). Its main file,
 * `<dir>/<q>.json` for the rows matching `when`, is the body in its
 * envelope: DuckDB renders and hashes it when it is too small for
 * compressed siblings, and the writer does the rest in JavaScript.
 */
interface DocKind {
  kind: string;
  sql: string;
  dir: string;
  /** SQL condition over the query's columns: which rows have a main file. */
  when: string;
  /** Which keys may become file names. */
  accepts: (q: string) => boolean;
  /** Whether `each` needs the body even when DuckDB rendered the file. */
  needsBody: boolean;
  /** Further files of the rendered rows, recorded with them (SQL over x_fetch; parameter $1 is the kind). */
  renderedAliases?: string;
  each?: EachDocument;
}

const docPath = (dir: string, q: string): string => `${dir}/${q}.json`;
const docPathSql = (dir: string, column: string): string => `'${dir}/' || ${column} || '.json'`;
const TXID_PATTERN = '[0-9a-f]{64}';
const TXID = new RegExp(`^${TXID_PATTERN}$`);

/** Documents fetched into JavaScript at once: enough to keep the file worker busy, few enough to bound memory. */
const PAGE_ROWS = 4096;

/**
 * The documents of one kind to write (those not carried over), numbered for
 * paging, each main file rendered with its size and sha256 where it needs no
 * compressed siblings; the body stays only where JavaScript needs it.
 */
function planFetchSql(k: DocKind, network: NetworkName): string {
  const wrapped = wrapJsonSql(network, k.kind, { height: 'stamp_height', time: 'stamp_time', body: 'body' });
  return `CREATE OR REPLACE TEMP TABLE x_fetch AS
    WITH w AS (SELECT d.* EXCLUDE (h), s.stamp_height, s.stamp_time, ${k.when} AS has_file, CASE WHEN has_file THEN ${wrapped} END AS wrapped
               FROM x_doc d JOIN x_docs s ON s.kind = $1 AND s.q = d.q
               ANTI JOIN x_unchanged u ON u.q = d.q),
         r AS (SELECT *, coalesce(strlen(wrapped) < ${GZ_MIN}, false) AS rendered FROM w)
    SELECT row_number() OVER (ORDER BY q) AS rn, r.* EXCLUDE (body, wrapped, rendered),
      ${k.needsBody ? 'body' : 'CASE WHEN rendered THEN NULL ELSE body END AS body'},
      CASE WHEN rendered THEN wrapped END AS file,
      CASE WHEN rendered THEN strlen(wrapped) END AS file_size,
      CASE WHEN rendered THEN sha256(wrapped) END AS file_sha256
    FROM r`;
}
const FETCH_PAGE = 'SELECT * EXCLUDE (rn, file_size, file_sha256) FROM x_fetch WHERE rn > $1 AND rn <= $2 ORDER BY rn';
/** The files DuckDB rendered, as x_files rows; $1 is the kind, $2 the keys refused as file names (a JSON array). */
const renderedFilesSql = (k: DocKind): string => [
  `SELECT ${docPathSql(k.dir, 'q')}, file_size, file_sha256, stamp_height, stamp_time, $1, q FROM x_fetch
   WHERE file IS NOT NULL AND NOT list_contains(from_json($2, '["VARCHAR"]'), q)`,
  ...(k.renderedAliases ? [k.renderedAliases] : []),
].join(' UNION ALL ');

/** The per-query documents of this export, written to DOCS_INDEX for the next one. */
const CREATE_DOCS = 'CREATE OR REPLACE TEMP TABLE x_docs (kind VARCHAR, q VARCHAR, h VARCHAR, stamp_height INTEGER, stamp_time BIGINT)';
const loadPreviousDocs = (parquet: string | null): string => parquet
  ? `CREATE OR REPLACE TEMP TABLE x_prev_docs AS SELECT kind, q, h, stamp_height, stamp_time FROM read_parquet(${sqlString(parquet)})`
  : 'CREATE OR REPLACE TEMP TABLE x_prev_docs AS SELECT * FROM x_docs WHERE false';
/**
 * One kind's documents (x_doc: q, body, h, …) against the previous release's:
 * a body unchanged keeps the stamp it had; x_unchanged are the documents whose
 * files the writer can carry over.
 */
const RECORD_DOCS = `INSERT INTO x_docs SELECT $1, d.q, d.h,
     CASE WHEN p.h = d.h THEN p.stamp_height ELSE $2 END, CASE WHEN p.h = d.h THEN p.stamp_time ELSE $3 END
   FROM x_doc d LEFT JOIN x_prev_docs p ON p.kind = $1 AND p.q = d.q`;
const PLAN_UNCHANGED = `CREATE OR REPLACE TEMP TABLE x_unchanged AS SELECT d.q FROM x_doc d
   SEMI JOIN x_prev_docs p ON p.kind = $1 AND p.q = d.q AND p.h = d.h
   SEMI JOIN (SELECT q FROM x_prev_files WHERE kind = $1) f ON f.q = d.q`;

/**
 * trace, address, follow and block files for every query. DuckDB renders each
 * document body and hashes it; documents whose body is unchanged since the
 * previous release keep their files (hard-linked, or left in a recycled
 * release), and only the others are fetched and written. Returns how many
 * keys were refused as file names.
 */
async function writeQueryDocuments(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, previousDir: string | null, progress: Progress): Promise<number> {
  const network = networkParams(stamp.network);
  const isAddress = (q: string): boolean => isValidAddress(q, network);
  await db.exec(CREATE_DOCS);
  await db.exec(loadPreviousDocs(previousDir && join(previousDir, DOCS_INDEX)));
  const kinds: DocKind[] = [
    {
      kind: 'trace', sql: trace.QUERY, dir: 'api/trace', when: 'true', accepts: (q) => TXID.test(q) || isAddress(q), needsBody: false,
      each: ({ q, body, file }, doc) => {
        const parsed = file !== null ? (JSON.parse(file) as { trace: trace.Trace }).trace : JSON.parse(body!) as trace.Trace;
        return writer.put(`api/trace/${q}.csv`, trace.traceCsv(parsed), doc);
      },
    },
    { kind: 'address', sql: address.QUERY, dir: 'api/address', when: 'true', accepts: isAddress, needsBody: false },
    {
      // The full chain in data/ only when it has hops; api/ gets it cut to the default depth.
      kind: 'follow', sql: follow.QUERY, dir: 'data/follow', when: 'hops > 0', accepts: isAddress, needsBody: true,
      each: ({ q, body, stamp }, doc) =>
        writer.putDocument(`api/follow/${q}.json`, 'follow', json(follow.truncateFollow(JSON.parse(body!) as follow.Follow, follow.DEFAULT_DEPTH)), doc, stamp),
    },
    {
      // Every block also by hash: a hard link to the file by height.
      kind: 'block', sql: block.QUERY, dir: 'api/block', when: 'true', accepts: () => true, needsBody: false,
      renderedAliases: `SELECT ${docPathSql('api/block', 'hash')}, file_size, file_sha256, stamp_height, stamp_time, $1, q FROM x_fetch
        WHERE file IS NOT NULL AND regexp_full_match(hash, '${TXID_PATTERN}')`,
      each: ({ q, hash, stamp }, doc, main) => {
        if (!TXID.test(String(hash))) return;
        const path = docPath('api/block', String(hash));
        if (main) writer.alias(path, main, doc, stamp);
        else writer.linkRendered(path, docPath('api/block', q));
      },
    },
  ];
  const refused: number[] = [];
  for (const k of kinds) refused.push(await eachDocument(db, writer, stamp, k, progress));
  await db.exec(`COPY (SELECT * FROM x_docs ORDER BY kind, q) TO ${sqlString(await writer.pathFor(DOCS_INDEX))} (FORMAT parquet, COMPRESSION zstd)`);
  await writer.adopt(DOCS_INDEX);
  // Every kind's keys are among trace's, so its count is the number of distinct keys refused.
  return Math.max(...refused);
}

/**
 * Renders one kind of document with DuckDB, carries the unchanged ones over,
 * and writes the others a page at a time, each with the stamp its file gets.
 * Returns how many keys were refused as file names.
 */
async function eachDocument(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, k: DocKind, progress: Progress): Promise<number> {
  const { kind } = k;
  await db.exec(`CREATE OR REPLACE TEMP TABLE x_doc AS SELECT *, md5(body) AS h FROM (${k.sql.replace(/;\s*$/, '')})`);
  await db.exec(RECORD_DOCS, [kind, stamp.as_of_height, BigInt(stamp.updated_at)]);
  await db.exec(PLAN_UNCHANGED, [kind]);
  await writer.carryUnchanged(kind);
  await db.exec(planFetchSql(k, stamp.network), [kind]);
  const total = Number((await db.one<{ n: bigint }>('SELECT count(*) AS n FROM x_fetch'))!.n);
  const refused: string[] = [];
  progress.start(`export ${kind}`, total, 'docs');
  const page = (from: number) => db.all<Record<string, unknown>>(FETCH_PAGE, [from, from + PAGE_ROWS]);
  let next = page(0);
  for (let done = 0; done < total; done += PAGE_ROWS) {
    const rows = await next;
    // DuckDB fetches the next page while this one is handed to the file worker.
    if (done + PAGE_ROWS < total) next = page(done + PAGE_ROWS);
    await Promise.all(rows.map((row) => {
      const q = String(row.q);
      if (!k.accepts(q)) {
        refused.push(q);
        return undefined;
      }
      const doc = { kind, q };
      const rowStamp = { network: stamp.network, as_of_height: Number(row.stamp_height), updated_at: Number(row.stamp_time) };
      const docRow = { ...row, q, body: row.body as string | null, file: row.file as string | null, has_file: row.has_file === true, stamp: rowStamp };
      return writeMain(writer, k, docRow, doc).then((main) => k.each?.(docRow, doc, main));
    }));
    await writer.ready();
    progress.update(Math.min(total, done + PAGE_ROWS));
  }
  await writer.recordRendered(renderedFilesSql(k), [kind, json(refused)]);
  progress.stop();
  return refused.length;
}

/** A document's main file: DuckDB's rendering when it made one, else wrapped and written here; null when DuckDB rendered it. */
async function writeMain(writer: ReleaseWriter, k: DocKind, row: DocRow, doc: DocKey): Promise<FileEntry[] | null> {
  const path = docPath(k.dir, row.q);
  if (row.file !== null) {
    writer.writeRendered(path, row.file);
    return null;
  }
  return row.has_file ? writer.putDocument(path, k.kind, row.body!, doc, row.stamp) : [];
}
