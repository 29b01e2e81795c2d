import { wrapJson, type AnalysisStamp } from '../api/envelope.js';
import { SERIES_NAMES, seriesPath, type SeriesName } from '../api/series.js';
import { readSql, type Db } from '../store/db.js';
import type { ReleaseWriter } from './writer.js';

/** Per series: one row, `body` = the series object as JSON. $1 = the analysed height. Needs nodes.sql's coin_json. */
const QUERIES: Record<SeriesName, string> = {
  daily: readSql(import.meta.url, 'series/daily.sql'),
  pegin_amounts: readSql(import.meta.url, 'series/pegin_amounts.sql'),
  link_confidence: readSql(import.meta.url, 'series/link_confidence.sql'),
};

/** The chart series of the explorer page (api/series/*.json, src/api/series.ts). */
export async function writeSeries(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp): Promise<void> {
  for (const name of SERIES_NAMES) {
    const row = await db.one<{ body: string }>(QUERIES[name], [stamp.as_of_height]);
    if (!row) throw new Error(`series ${name}: its query returned no row`);
    await writer.put(seriesPath(name), wrapJson(stamp, 'series', row.body));
  }
}
