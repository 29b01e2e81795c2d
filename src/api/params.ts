/**
 * Endpoint parameters, declared once (docs/api.md). The router validates against
 * these, the exporter writes default documents from `default`, the OpenAPI
 * document and the tests read the same declarations.
 */
import { FOLLOW_DEFAULT_DEPTH, FOLLOW_MAX_HOPS } from '../domain/model.js';
import { AMOUNT_TABLE_VERSION } from '@pegscope/client';

export type ParamSpec =
  | { kind: 'int'; name: string; min: number; max: number; default?: number; required?: boolean; doc: string }
  | { kind: 'number'; name: string; min: number; max: number; default?: number; required?: boolean; doc: string }
  | { kind: 'amount'; name: string; required: true; doc: string }
  | { kind: 'enum'; name: string; values: readonly string[]; default?: string; required?: boolean; doc: string }
  | { kind: 'query'; name: string; accepts: readonly ('address' | 'txid' | 'height' | 'blockhash')[]; required: true; doc: string };

export interface EndpointSpec {
  name: EndpointName;
  params: readonly ParamSpec[];
  /** CSV columns, in order, where `format=csv` is accepted. */
  csvColumns?: readonly string[];
  purpose: string;
}

export type EndpointName =
  | 'health' | 'stats' | 'privacy' | 'recommendations' | 'trace' | 'follow'
  | 'address' | 'links' | 'pegin_amounts' | 'pegout_amounts' | 'block';

const format: ParamSpec = { kind: 'enum', name: 'format', values: ['json', 'csv'], default: 'json', doc: 'json (default) or csv' };
const limit: ParamSpec = { kind: 'int', name: 'limit', min: 1, max: 500, default: 100, doc: 'rows to return, 1..500' };

export const ENDPOINTS: Record<EndpointName, EndpointSpec> = {
  health: { name: 'health', params: [], purpose: 'liveness: last scanned block, analysis age, counts' },
  stats: { name: 'stats', params: [], purpose: 'headline counts: peg-ins, peg-outs, links, labels, scores' },
  privacy: {
    name: 'privacy',
    params: [
      { kind: 'amount', name: 'amount', required: true, doc: 'coin amount > 0 with at most 8 decimals' },
      { kind: 'enum', name: 'side', values: ['pegin', 'pegout'], default: 'pegin', doc: 'pegin (default) or pegout' },
    ],
    purpose: 'pre-flight privacy check of an amount against the anonymity sets',
  },
  recommendations: { name: 'recommendations', params: [], purpose: 'best peg-in/peg-out amounts, suggested wait, tips' },
  trace: {
    name: 'trace',
    params: [{ kind: 'query', name: 'q', accepts: ['address', 'txid'], required: true, doc: 'address, peg-in txid or peg-out (HogEx) txid' }, format],
    csvColumns: ['side', 'pegin_txid', 'pegin_amount', 'pegout_txid', 'pegout_amount', 'pegout_address', 'pegout_entity', 'confidence'],
    purpose: 'peg-ins and peg-outs of an address or transaction with their links and scores',
  },
  follow: {
    name: 'follow',
    params: [
      { kind: 'query', name: 'q', accepts: ['address'], required: true, doc: 'address to start from' },
      { kind: 'int', name: 'depth', min: 1, max: FOLLOW_MAX_HOPS, default: FOLLOW_DEFAULT_DEPTH, doc: `hops to follow, 1..${FOLLOW_MAX_HOPS}` },
    ],
    purpose: 'multi-hop follow: address → peg-in → best-linked peg-out → address …',
  },
  address: {
    name: 'address',
    params: [{ kind: 'query', name: 'q', accepts: ['address'], required: true, doc: 'address' }],
    purpose: 'attribution and peg totals of one address',
  },
  links: {
    name: 'links',
    params: [{ kind: 'number', name: 'min_confidence', min: 0, max: 1, default: 0.5, doc: 'lowest confidence, 0..1' }, limit, format],
    csvColumns: ['confidence', 'risk_score', 'pegout_txid', 'pegout_amount', 'pegout_address', 'pegout_entity', 'pegout_category', 'pegin_txid', 'pegin_amount', 'block_gap', 'candidate_count'],
    purpose: 'round-trip links ordered by confidence',
  },
  pegin_amounts: {
    name: 'pegin_amounts', params: [limit, format], csvColumns: ['amount', 'count'],
    purpose: 'most common peg-in amounts',
  },
  pegout_amounts: {
    name: 'pegout_amounts', params: [limit, format], csvColumns: ['amount', 'count'],
    purpose: 'most common peg-out amounts',
  },
  block: {
    name: 'block',
    params: [{ kind: 'query', name: 'q', accepts: ['height', 'blockhash'], required: true, doc: 'block height or 64-hex block hash' }],
    purpose: 'peg-ins, peg-outs and MWEB supply of one block',
  },
};

/** The API's version string; the amount table wallets read is an API document, so the client checks the same one. */
export const API_VERSION: typeof AMOUNT_TABLE_VERSION = AMOUNT_TABLE_VERSION;

/** Bounds and default of a numeric parameter, for code that slices precomputed lists. */
export function numericParam(endpoint: EndpointName, name: string): { min: number; max: number; default: number } {
  const param = ENDPOINTS[endpoint].params.find((p) => p.name === name);
  if (!param || (param.kind !== 'int' && param.kind !== 'number') || param.default === undefined) {
    throw new Error(`${endpoint} declares no numeric parameter "${name}" with a default`);
  }
  return { min: param.min, max: param.max, default: param.default };
}
