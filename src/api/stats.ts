import { ENDPOINTS } from './params.js';
import { ref, responseSchema } from './common-schema.js';
import { document, type AnalysisStamp, type Envelope } from './envelope.js';

export const spec = ENDPOINTS.stats;
export type StatsDocument = Envelope & { stats: Record<string, number> };

const REQUIRED = ['total_pegins', 'total_pegouts', 'linkable_pegouts', 'high_confidence_links', 'labeled_addresses', 'avg_privacy_score', 'high_risk_pegouts'];

export const schema = responseSchema('stats', 'stats', {
  stats: {
    type: 'object', required: REQUIRED,
    properties: Object.fromEntries(REQUIRED.map((key) => [key, key === 'avg_privacy_score' ? { type: 'number', minimum: 0, maximum: 100 } : ref('count')])),
    additionalProperties: { type: 'number' },
  },
});

export function statsDocument(stamp: AnalysisStamp, rows: readonly { key: string; value: string }[]): StatsDocument {
  const stats: Record<string, number> = {};
  for (const { key, value } of rows) stats[key] = Number(JSON.parse(value));
  return document(stamp, { stats });
}
