import { stat } from 'node:fs/promises';
import type { AnalysisStamp } from '../api/envelope.js';
import { API_VERSION } from '../api/params.js';
import { toJson } from '../api/json.js';
import { sqlString, type Db } from '../store/db.js';
import { exportSql } from './sql.js';

const PLAN_STAMPS = exportSql('manifest-stamps');
const MEMBER_LINES = exportSql('manifest-members');

/**
 * Writes manifest.json from the writer's x_files table with DuckDB COPY (a
 * line per file, never one string of the whole tree); returns its size in
 * bytes. The manifest lists every file of the release (itself excepted)
 * with size and sha256, one `"path":{"size","sha256","stamp"?}` per line in
 * path order, after {version, network, as_of_height, updated_at, stamps}.
 * Per-query documents carry `stamp`, an index into `stamps`: the analysis
 * (as_of_height, updated_at) that last changed them.
 */
export async function writeManifest(db: Db, path: string, stamp: AnalysisStamp): Promise<number> {
  await db.exec(PLAN_STAMPS);
  const stamps = await db.all<{ height: number; time: bigint }>('SELECT height, time FROM x_stamps ORDER BY i');
  const head = toJson({
    version: API_VERSION, network: stamp.network, as_of_height: stamp.as_of_height, updated_at: stamp.updated_at,
    stamps: stamps.map((s) => [s.height, Number(s.time)]),
  });
  await writeLines(db, path, `${head.slice(0, -1)},"files":{`, MEMBER_LINES, '}}');
  return (await stat(path)).size;
}

/**
 * Writes a JSON file of one member per line with DuckDB COPY, never one
 * string of the whole file: `open`, then the `line` column of
 * `membersSql` ordered by its `n`, then `close` (manifest.json, changes.json).
 */
export async function writeLines(db: Db, path: string, open: string, membersSql: string, close: string): Promise<void> {
  const lines = `SELECT line FROM (
      SELECT 0 AS part, 0 AS n, ${sqlString(open)} AS line
      UNION ALL SELECT 1, n, line FROM (${membersSql})
      UNION ALL SELECT 2, 0, ${sqlString(close)})
    ORDER BY part, n`;
  // Lines verbatim: no quoting, and a delimiter that never occurs in one column.
  await db.exec(`COPY (${lines}) TO ${sqlString(path)} (FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\x01')`);
}
