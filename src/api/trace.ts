import { ENDPOINTS } from './params.js';
import { ref, responseSchema, objectOf, nullableOf } from './common-schema.js';
import { document, type AnalysisStamp, type Envelope } from './envelope.js';
import type { Trace } from './documents.js';

export { traceCsv, traceCsvRows } from './csv-rows.js';

export const spec = ENDPOINTS.trace;

export type { Attribution, PeginLink, PeginNode, PegoutLink, PegoutNode, Trace, TraceType } from './documents.js';

export type TraceDocument = Envelope & { trace: Trace };

export const schema = responseSchema('trace', 'trace', {
  trace: objectOf({
    query: { type: 'string' },
    type: { enum: ['address', 'pegin_tx', 'pegout_tx', 'not_found'] },
    attribution: ref('attribution'),
    cluster: nullableOf(objectOf({ cluster_id: { type: 'string' }, size: { type: 'integer', minimum: 1 } })),
    pegins: { type: 'array', items: ref('pegin_node') },
    pegouts: { type: 'array', items: ref('pegout_node') },
  }),
});

/** The answer for a well-formed q the data does not know (docs/api.md: 200, not_found). */
export function notFoundTrace(stamp: AnalysisStamp, query: string): TraceDocument {
  return document(stamp, { trace: { query, type: 'not_found', attribution: null, cluster: null, pegins: [], pegouts: [] } });
}
