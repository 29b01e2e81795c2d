import { sqlString, type Db } from '../store/db.js';
import type { ReleaseWriter } from './writer.js';
import { ANALYSED, exportSql } from './sql.js';

/**
 * Bulk dumps (SPEC §4, every column in docs/dumps.md): the published
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
   * partition splits on. null for tables of addresses and entities, which
   * no block bounds (a new label or peg-in can change any of their rows).
   */
  height: string | null;
  /** LIST columns: Parquet keeps the list, the CSV joins its items with LIST_SEPARATOR. */
  lists: readonly string[];
}

export const DUMPS: readonly Dump[] = [
  { name: 'blocks', height: 'height', lists: [] },
  { name: 'pegins', height: 'height', lists: [] },
  { name: 'pegin_inputs', height: 'height', lists: [] },
  { name: 'pegouts', height: 'height', lists: [] },
  { name: 'links', height: 'pegout_height', lists: ['reasons'] },
  { name: 'reuse', height: 'pegout_height', lists: [] },
  { name: 'pegin_scores', height: 'height', lists: ['reasons'] },
  { name: 'pegout_scores', height: 'height', lists: ['reasons'] },
  { name: 'clusters', height: null, lists: [] },
  { name: 'attribution', height: null, lists: [] },
  { name: 'entity_flows', height: null, lists: [] },
];

/** What the CSV puts between the items of a list; a link's reason sentences never contain it (an entity name a score reason quotes may). */
export const LIST_SEPARATOR = '; ';

/** dumps-metadata.sql: the variables KV_METADATA reads. */
const METADATA_VARIABLES = exportSql('dumps-metadata');
/** Parquet key-value metadata: which chain, which heights, which analysis. */
const KV_METADATA = `{${[
  ['network', 'dump_network'], ['from_height', 'dump_from_height'], ['to_height', 'dump_to_height'],
  ['as_of_height', 'dump_to_height'], ['updated_at', 'dump_updated_at'],
].map(([key, variable]) => `"pegscope.${key}": getvariable('${variable}')`).join(', ')}}`;

const csvSelect = (dump: Dump, parquet: string): string => {
  const joined = dump.lists.map((column) => `array_to_string(${column}, ${sqlString(LIST_SEPARATOR)}) AS ${column}`);
  return `SELECT *${joined.length ? ` REPLACE (${joined.join(', ')})` : ''} FROM read_parquet(${sqlString(parquet)})`;
};

/**
 * Writes the dumps on a connection of their own, so that DuckDB compresses
 * them while the exporter's connection renders and fetches documents. The
 * CSV is read back from the Parquet file: the same rows in the same order.
 */
export async function writeDumps(db: Db, writer: ReleaseWriter): Promise<void> {
  const conn = await db.connect();
  try {
    await conn.exec(ANALYSED);
    await conn.exec(METADATA_VARIABLES);
    for (const dump of DUMPS) {
      const parquet = `dumps/${dump.name}.parquet`;
      const csv = `dumps/${dump.name}.csv.gz`;
      const parquetPath = await writer.pathFor(parquet);
      await conn.exec(`COPY (${exportSql(`dump-${dump.name}`)}) TO ${sqlString(parquetPath)} (FORMAT parquet, COMPRESSION zstd, KV_METADATA ${KV_METADATA})`);
      await writer.adopt(parquet);
      await conn.exec(`COPY (${csvSelect(dump, parquetPath)}) TO ${sqlString(await writer.pathFor(csv))} (FORMAT csv, HEADER, COMPRESSION gzip)`);
      await writer.adopt(csv);
    }
  } finally {
    conn.close();
  }
}
