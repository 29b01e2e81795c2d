import { wrapJson, type AnalysisStamp } from '../api/envelope.js';
import { SERIES_NAMES, seriesPath, type SeriesName } from '../api/series.js';
import type { Queryable } from '../store/db.js';
import { exportSql } from './sql.js';
import type { PutText } from './writer.js';

/** Per series: one row, `body` = the series object as JSON (sql/series-<name>.sql; needs macros.sql and analysed.sql). */
const QUERIES: Record<SeriesName, string> = {
  daily: exportSql('series-daily'),
  pegin_amounts: exportSql('series-pegin-amounts'),
  link_confidence: exportSql('series-link-confidence'),
};

/** The chart series of the explorer page (api/series/*.json, src/api/series.ts). */
export async function writeSeries(db: Queryable, stamp: AnalysisStamp, put: PutText): Promise<void> {
  for (const name of SERIES_NAMES) {
    const row = await db.one<{ body: string }>(`SELECT json_plain(body) AS body FROM (${QUERIES[name].replace(/;\s*$/, '')})`);
    if (!row) throw new Error(`series ${name}: its query returned no row`);
    put(seriesPath(name), wrapJson(stamp, 'series', row.body));
  }
}
