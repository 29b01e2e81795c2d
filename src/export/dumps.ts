import { sqlString, type Db } from '../store/db.js';
import type { ReleaseWriter } from './writer.js';

/**
 * Bulk dumps (SPEC §4): peg-ins, peg-outs and links as gzipped CSV and
 * Parquet, written by DuckDB COPY. Amounts stay integer litoshi here
 * (`*_litoshi` columns) so bulk consumers never round.
 */
export const DUMPS: Record<string, string> = {
  pegins: `SELECT txid, vout, height, block_time, amount AS amount_litoshi, kernel_id, input_count, source_address
    FROM pegins ORDER BY height, txid, vout`,
  pegouts: `SELECT txid, vout, height, block_time, amount AS amount_litoshi, address, script_hex
    FROM pegouts ORDER BY height, txid, vout`,
  links: `SELECT pegout_txid, pegout_vout, pegout_height, pegout_amount AS pegout_amount_litoshi, pegout_address,
      pegin_txid, pegin_vout, pegin_height, pegin_amount AS pegin_amount_litoshi, amount_diff AS amount_diff_litoshi,
      block_gap, candidate_count, competitor_count, confidence, array_to_string(reasons, '; ') AS reasons
    FROM a_links ORDER BY confidence DESC, block_gap, pegout_txid, pegout_vout, pegin_txid, pegin_vout`,
};

/**
 * Writes the dumps on a connection of their own, so that DuckDB compresses
 * them while the exporter's connection renders and fetches documents.
 */
export async function writeDumps(db: Db, writer: ReleaseWriter): Promise<void> {
  const conn = await db.connect();
  try {
    for (const [name, query] of Object.entries(DUMPS)) {
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
