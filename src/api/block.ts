import { ENDPOINTS } from './params.js';
import { ref, responseSchema, objectOf, nullableOf } from './common-schema.js';
import type { Envelope } from './envelope.js';
import type { PeginNode, PegoutNode } from './trace.js';

export const spec = ENDPOINTS.block;

export interface Block { height: number; hash: string; time: number; supply: number | null; pegins: PeginNode[]; pegouts: PegoutNode[] }
export type BlockDocument = Envelope & { block: Block };

export const schema = responseSchema('block', 'block', {
  block: objectOf({
    height: ref('count'), hash: ref('txid'), time: ref('count'), supply: nullableOf(ref('amount')),
    pegins: { type: 'array', items: ref('pegin_node') }, pegouts: { type: 'array', items: ref('pegout_node') },
  }),
});
