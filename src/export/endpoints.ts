/**
 * The documents of the endpoints without a query parameter: health, stats,
 * recommendations, the index, the OpenAPI document, the top links and
 * amounts (and the router's full lists of them in data/), the amount table,
 * the chart series and the feeds. Their queries run on a connection of their
 * own, while the exporter's connection decides which per-query documents to
 * render: none of them depends on that.
 */
import type { AnalysisStamp } from '../api/envelope.js';
import { healthDocument } from '../api/health.js';
import { indexDocument } from '../api/index.js';
import { toJson as json } from '../api/json.js';
import * as links from '../api/links.js';
import { OPENAPI_PATH } from '../api/openapi.js';
import { recommendationsDocument } from '../api/recommendations.js';
import { openApiText } from '../api/schemas.js';
import { statsDocument } from '../api/stats.js';
import * as amounts from '../api/top-amounts.js';
import type { Db, Queryable } from '../store/db.js';
import { AMOUNT_TABLE_PATH, amountTableFile } from './amounts.js';
import { writeFeeds } from './feeds.js';
import { writeSeries } from './series.js';
import { exportSql } from './sql.js';
import { withDocumentConnection } from './workspace.js';
import type { PutText, ReleaseWriter } from './writer.js';

const HEALTH_COUNTS = exportSql('health-counts');
const STATS = exportSql('stats');
const RECOMMENDATIONS = exportSql('recommendations');
const TOP_LINKS = exportSql('links');
const TOP_AMOUNTS = exportSql('amounts');

/**
 * Writes the endpoints' documents, querying on a new connection of `db`
 * (closed on return). Their files are compressed while the next queries run.
 */
export async function writeEndpointDocuments(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, siteUrl: string | null = null): Promise<void> {
  const files: Promise<unknown>[] = [];
  const put: PutText = (path, text) => {
    const file = writer.put(path, text);
    // Reported by the Promise.all below, even when a query fails first.
    file.catch(() => undefined);
    files.push(file);
  };
  // The links name the peg-out's entity (x_attribution).
  await withDocumentConnection(db, async (conn) => {
    try {
      await writeDocuments(conn, writer, stamp, put);
      await writeSeries(conn, stamp, put);
      await writeFeeds(conn, stamp, put, siteUrl);
    } finally {
      await Promise.allSettled(files);
    }
  });
  await Promise.all(files);
}

async function writeDocuments(conn: Queryable, writer: ReleaseWriter, stamp: AnalysisStamp, put: PutText): Promise<void> {
  const counts = await conn.one<{ cursor: string | null; pegins: bigint; pegouts: bigint }>(HEALTH_COUNTS);
  put('api/health.json', json(healthDocument(stamp, {
    last_scanned_block: Number(counts?.cursor ?? stamp.as_of_height),
    pegins: Number(counts?.pegins ?? 0), pegouts: Number(counts?.pegouts ?? 0),
  })));
  put('api/stats.json', json(statsDocument(stamp, await conn.all<{ key: string; value: string }>(STATS))));
  const rec = (await conn.one<{ doc: string }>(RECOMMENDATIONS))?.doc;
  if (rec === undefined) throw new Error('a_recommendations is empty; run `pegscope analyze` before exporting');
  put('api/recommendations.json', json(recommendationsDocument(stamp, rec)));
  put('api/index.json', json(indexDocument(stamp)));
  put(OPENAPI_PATH, openApiText());

  // The best links in the published order, as a JSON array.
  const top = (await conn.one<{ links: string | null }>(TOP_LINKS, [links.TOP_LINKS]))?.links ?? null;
  const linksTop: links.LinksTop = { links: JSON.parse(top ?? '[]') };
  writer.putPlain('data/links.json', json(linksTop));
  const linksDefault = links.sliceLinks(stamp, linksTop, links.DEFAULT_MIN_CONFIDENCE, links.DEFAULT_LIMIT);
  put('api/links.json', json(linksDefault));
  put('api/links.csv', links.linksCsv(linksDefault));

  for (const side of ['pegin', 'pegout'] as const) {
    // The most common amounts of the side, as a JSON array.
    const rows = (await conn.one<{ rows: string | null }>(TOP_AMOUNTS, [side, amounts.TOP_AMOUNTS]))?.rows ?? null;
    const name = amounts.amountsKey(side);
    const topRows: amounts.AmountsTop = { [name]: JSON.parse(rows ?? '[]') };
    writer.putPlain(`data/${name}.json`, json(topRows));
    const byDefault = amounts.sliceAmounts(stamp, topRows, side, amounts.DEFAULT_AMOUNTS_LIMIT);
    put(`api/${name}.json`, json(byDefault));
    put(`api/${name}.csv`, amounts.amountsCsv(byDefault, side));
  }

  put(AMOUNT_TABLE_PATH, json(await amountTableFile(conn, stamp)));
}
