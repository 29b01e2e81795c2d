import { ENDPOINTS, numericParam } from './params.js';
import { ref, responseSchema, objectOf } from './common-schema.js';
import type { Envelope } from './envelope.js';
import type { Attribution } from './trace.js';

export const spec = ENDPOINTS.follow;
export const MAX_DEPTH = numericParam('follow', 'depth').max;

export interface Hop {
  from: string; pegin: { txid: string; vout: number }; pegout: { txid: string; vout: number };
  to: string | null; to_attribution: Attribution | null; confidence: number; cumulative_confidence: number;
}
export interface Follow { query: string; depth: number; hops: Hop[]; total_confidence: number }
export type FollowDocument = Envelope & { follow: Follow };

const outpoint = objectOf({ txid: ref('txid'), vout: ref('count') });
export const schema = responseSchema('follow', 'follow', {
  follow: objectOf({
    query: { type: 'string' },
    depth: { type: 'integer', minimum: 1, maximum: MAX_DEPTH },
    hops: {
      type: 'array', maxItems: MAX_DEPTH,
      items: objectOf({
        from: { type: 'string' }, pegin: outpoint, pegout: outpoint, to: { type: ['string', 'null'] },
        to_attribution: ref('attribution'), confidence: ref('confidence'), cumulative_confidence: ref('confidence'),
      }),
    },
    total_confidence: ref('confidence'),
  }),
});

/** The chain cut to `depth` hops; the total is the cumulative confidence of the last hop kept. */
export function truncateFollow(follow: Follow, depth: number): Follow {
  const hops = follow.hops.slice(0, depth);
  return { ...follow, depth, hops, total_confidence: hops.at(-1)?.cumulative_confidence ?? 0 };
}

export function followAt(doc: FollowDocument, depth: number): FollowDocument {
  return { ...doc, follow: truncateFollow(doc.follow, depth) };
}
