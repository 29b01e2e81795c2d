import { ENDPOINTS, type EndpointSpec, type ParamSpec } from './params.js';
import { responseSchema, objectOf } from './common-schema.js';
import { document, type AnalysisStamp, type Envelope } from './envelope.js';
import { RANGE_KINDS, RANGES_INDEX_PATH } from '@pegscope/client';

/** The /api index document (docs/api.md). */
export interface ApiIndex {
  service: string;
  endpoints: Record<string, string>;
  disclaimer: string;
  license: { data: string; code: string };
  attribution: { text: string; link: string };
}
export type IndexDocument = Envelope & ApiIndex;

export const SERVICE = 'pegscope';
export const ATTRIBUTION_LINK = 'https://github.com/pegscope/pegscope';
export const DISCLAIMER = 'Every link is a heuristic inference from public chain data, never proof of common ownership or of a round trip.';

/** The release files the router answers besides the endpoints (docs/api.md, docs/static-hosting.md), in the same line form. */
export const FILE_ENDPOINTS = {
  amounts: 'GET /api/amounts.json — the amount table a wallet caches to score amounts offline (also /api/amounts)',
  range: `GET /api/range/<kind>/<prefix> — every ${RANGE_KINDS.join(', ')} document whose key hashes to the prefix; /${RANGES_INDEX_PATH} gives each kind's prefix length`,
  openapi: 'GET /api/openapi.json — this API as one OpenAPI 3.1 document',
} as const;

/** Every name the index lists, endpoints first. */
export const INDEX_NAMES: readonly string[] = [...Object.keys(ENDPOINTS), ...Object.keys(FILE_ENDPOINTS)];

export const schema = responseSchema('index', 'API index', {
  service: { type: 'string' },
  endpoints: objectOf(Object.fromEntries(INDEX_NAMES.map((name) => [name, { type: 'string', pattern: '^GET /api' }]))),
  disclaimer: { type: 'string' },
  license: objectOf({ data: { type: 'string' }, code: { type: 'string' } }),
  attribution: objectOf({ text: { type: 'string' }, link: { type: 'string' } }),
});

function paramText(param: ParamSpec): string {
  return param.required ? param.name : `${param.name}?`;
}

/** "GET /api/<name>?a&b? — purpose": method, path, parameters (? = optional), purpose. */
export function endpointLine(spec: EndpointSpec): string {
  const params = spec.params.map(paramText).join('&');
  return `GET /api/${spec.name}${params ? `?${params}` : ''} — ${spec.purpose}`;
}

export function indexDocument(stamp: AnalysisStamp): IndexDocument {
  return document(stamp, {
    service: SERVICE,
    endpoints: { ...Object.fromEntries(Object.values(ENDPOINTS).map((spec) => [spec.name, endpointLine(spec)])), ...FILE_ENDPOINTS },
    disclaimer: DISCLAIMER,
    license: { data: 'CC BY 4.0', code: 'AGPL-3.0' },
    attribution: { text: 'Data from pegscope', link: ATTRIBUTION_LINK },
  });
}
