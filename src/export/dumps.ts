import { sqlString, type Db } from '../store/db.js';
import type { ReleaseWriter } from './writer.js';
import { ANALYSED, exportSql } from './sql.js';

/**
 * Bulk dumps (SPEC §4): peg-ins, peg-outs and links as gzipped CSV and
 * Parquet, written by DuckDB COPY. Amounts stay integer litoshi here
 * (`*_litoshi` columns) so bulk consumers never round.
 */
const DUMPS = ['pegins', 'pegouts', 'links'].map((name) => ({ name, query: exportSql(`dump-${name}`) }));

/**
 * Writes the dumps on a connection of their own, so that DuckDB compresses
 * them while the exporter's connection renders and fetches documents.
 */
export async function writeDumps(db: Db, writer: ReleaseWriter): Promise<void> {
  const conn = await db.connect();
  try {
    await conn.exec(ANALYSED);
    for (const { name, query } of DUMPS) {
      const csv = `dumps/${name}.csv.gz`;
      const parquet = `dumps/${name}.parquet`;
      await conn.exec(`COPY (${query}) TO ${sqlString(await writer.pathFor(csv))} (FORMAT csv, HEADER, COMPRESSION gzip)`);
      await writer.adopt(csv);
      await conn.exec(`COPY (${query}) TO ${sqlString(await writer.pathFor(parquet))} (FORMAT parquet, COMPRESSION zstd)`);
      await writer.adopt(parquet);
    }
  } finally {
    conn.close();
  }
}
