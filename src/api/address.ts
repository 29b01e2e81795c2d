import { ENDPOINTS } from './params.js';
import { ref, responseSchema, objectOf } from './common-schema.js';
import type { Envelope } from './envelope.js';
import type { Attribution } from './trace.js';

export const spec = ENDPOINTS.address;

export interface AddressSummary {
  address: string; attribution: Attribution | null;
  pegouts_received: { count: number; total: number }; pegins_funded: { count: number; total: number };
}
export type AddressDocument = Envelope & { address: AddressSummary };

const countTotal = objectOf({ count: ref('count'), total: ref('amount') });
export const schema = responseSchema('address', 'address', {
  address: objectOf({ address: { type: 'string' }, attribution: ref('attribution'), pegouts_received: countTotal, pegins_funded: countTotal }),
});
