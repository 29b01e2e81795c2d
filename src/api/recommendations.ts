import { ENDPOINTS } from './params.js';
import { ref, responseSchema, objectOf } from './common-schema.js';
import { document, type AnalysisStamp, type Envelope } from './envelope.js';

export const spec = ENDPOINTS.recommendations;

export interface Recommendations {
  best_pegin_amounts: { amount: number; anonymity_set: number }[];
  best_pegout_amounts: { amount: number; anonymity_set: number }[];
  recommended_wait_blocks: number;
  recommended_wait_hours: number;
  notes: string[];
}
export type RecommendationsDocument = Envelope & { recommendations: Recommendations };

const amountSet = { type: 'array', items: objectOf({ amount: ref('amount'), anonymity_set: ref('count') }) };
export const schema = responseSchema('recommendations', 'recommendations', {
  recommendations: {
    type: 'object',
    required: ['best_pegin_amounts', 'best_pegout_amounts', 'recommended_wait_blocks', 'recommended_wait_hours', 'notes'],
    properties: {
      best_pegin_amounts: amountSet, best_pegout_amounts: amountSet,
      recommended_wait_blocks: ref('count'), recommended_wait_hours: { type: 'number', minimum: 0 },
      notes: { type: 'array', items: { type: 'string' } },
    },
  },
});

export function recommendationsDocument(stamp: AnalysisStamp, docJson: string): RecommendationsDocument {
  return document(stamp, { recommendations: JSON.parse(docJson) as Recommendations });
}
