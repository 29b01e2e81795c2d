import { ENDPOINTS, numericParam } from './params.js';
import { ref, responseSchema } from './common-schema.js';
import { document, type AnalysisStamp, type Envelope } from './envelope.js';
import { linksCsvOf } from './csv-rows.js';
import type { LinkRecord } from './documents.js';

export const spec = ENDPOINTS.links;
/** How many links data/links.json holds: the largest `limit` (docs/api.md). */
export const TOP_LINKS = numericParam('links', 'limit').max;
export const DEFAULT_MIN_CONFIDENCE = numericParam('links', 'min_confidence').default;
export const DEFAULT_LIMIT = numericParam('links', 'limit').default;

export type { LinkRecord } from './documents.js';
export type LinksDocument = Envelope & { min_confidence: number; count: number; links: LinkRecord[] };

export const schema = responseSchema('links', 'links', {
  min_confidence: ref('confidence'),
  count: ref('count'),
  links: { type: 'array', maxItems: TOP_LINKS, items: ref('link_record') },
});

/**
 * data/links.json: the top links at min_confidence 0, in API order, without
 * an envelope. The router answers with its release's envelope, so the file
 * changes only when the top links do, not with every analysis.
 */
export interface LinksTop { links: LinkRecord[] }

/**
 * The links answer for any parameters, from the top list: links are ordered by
 * confidence desc, so those at or above min_confidence are a prefix of it.
 */
export function sliceLinks(stamp: AnalysisStamp, top: LinksTop, minConfidence: number, limit: number): LinksDocument {
  const links = top.links.filter((link) => link.confidence >= minConfidence).slice(0, limit);
  return document(stamp, { min_confidence: minConfidence, count: links.length, links });
}

export function linksCsv(doc: LinksDocument): string {
  return linksCsvOf(doc.links);
}
