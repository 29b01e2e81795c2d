import { ENDPOINTS } from './params.js';
import { ref, responseSchema, objectOf, nullableOf } from './common-schema.js';
import { document, type AnalysisStamp, type Envelope } from './envelope.js';
import { toCsv, type CsvCell } from './csv.js';

export const spec = ENDPOINTS.trace;

export interface PeginLink {
  pegout_txid: string; pegout_vout: number; pegout_amount: number; pegout_address: string | null;
  pegout_entity: string | null; pegout_category: string | null; confidence: number; block_gap: number;
  candidate_count: number; reasons: string[];
}
export interface PegoutLink {
  pegin_txid: string; pegin_vout: number; pegin_amount: number; pegin_height: number;
  confidence: number; block_gap: number; candidate_count: number; reasons: string[];
}
export interface Attribution { entity: string; category: string; via: 'direct' | 'cluster'; confidence: number; cluster_id: string | null }
export interface PeginNode { txid: string; vout: number; amount: number; links: PeginLink[]; [field: string]: unknown }
export interface PegoutNode { txid: string; vout: number; amount: number; address: string | null; attribution: Attribution | null; links: PegoutLink[]; [field: string]: unknown }
export type TraceType = 'address' | 'pegin_tx' | 'pegout_tx' | 'not_found';
export interface Trace {
  query: string; type: TraceType; attribution: Attribution | null;
  cluster: { cluster_id: string; size: number } | null;
  pegins: PeginNode[]; pegouts: PegoutNode[];
}
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

/** The answer for a well-formed q the data does not know (SPEC §3: 200, not_found). */
export function notFoundTrace(stamp: AnalysisStamp, query: string): TraceDocument {
  return document(stamp, { trace: { query, type: 'not_found', attribution: null, cluster: null, pegins: [], pegouts: [] } });
}

/**
 * CSV rows of a trace: one per link, seen from its side; a peg without links
 * still gets one row with the other side empty.
 */
export function traceCsvRows(trace: Trace): CsvCell[][] {
  const rows: CsvCell[][] = [];
  for (const pegin of trace.pegins) {
    if (pegin.links.length === 0) rows.push(['pegin', pegin.txid, pegin.amount, null, null, null, null, null]);
    for (const l of pegin.links) {
      rows.push(['pegin', pegin.txid, pegin.amount, l.pegout_txid, l.pegout_amount, l.pegout_address, l.pegout_entity, l.confidence]);
    }
  }
  for (const pegout of trace.pegouts) {
    const entity = pegout.attribution?.entity ?? null;
    if (pegout.links.length === 0) rows.push(['pegout', null, null, pegout.txid, pegout.amount, pegout.address, entity, null]);
    for (const l of pegout.links) {
      rows.push(['pegout', l.pegin_txid, l.pegin_amount, pegout.txid, pegout.amount, pegout.address, entity, l.confidence]);
    }
  }
  return rows;
}

export function traceCsv(trace: Trace): string {
  return toCsv(spec.csvColumns ?? [], traceCsvRows(trace));
}
