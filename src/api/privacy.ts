import { ENDPOINTS } from './params.js';
import { ref, responseSchema, objectOf, nullableOf } from './common-schema.js';

/**
 * privacy has no exported document (amount is required): the router and
 * wallets compute it from api/amounts.json with @pegscope/client (packages/client/src/privacy.ts).
 */
export const spec = ENDPOINTS.privacy;

export const schema = responseSchema('privacy', 'privacy', {
  privacy: objectOf({
    side: { enum: ['pegin', 'pegout'] },
    amount: ref('amount'),
    amount_litoshi: ref('count'),
    rounded: ref('amount'),
    rounded_low: ref('amount'),
    rounded_high: ref('amount'),
    exact_set: ref('count'),
    rounded_set: ref('count'),
    window_set: ref('count'),
    window: objectOf({ low: ref('amount'), high: ref('amount'), tolerance: ref('amount') }),
    anonymity_set: ref('count'),
    privacy_score: { type: 'integer', minimum: 0, maximum: 100 },
    rating: { enum: ['Excellent', 'Good', 'Moderate', 'Weak', 'Very weak'] },
    easy_to_single_out: { type: 'boolean' },
    suggested_amount: nullableOf(ref('amount')),
    suggested_amount_set: nullableOf(ref('count')),
    advice: { type: 'string' },
  }),
});
