import { ENDPOINTS, type EndpointSpec, type ParamSpec } from './params.js';
import { responseSchema, objectOf } from './common-schema.js';
import { document, type AnalysisStamp, type Envelope } from './envelope.js';

/** The /api index document (SPEC §3). */
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

export const schema = responseSchema('index', 'API index', {
  service: { type: 'string' },
  endpoints: { type: 'object', additionalProperties: { type: 'string' } },
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
    endpoints: Object.fromEntries(Object.values(ENDPOINTS).map((spec) => [spec.name, endpointLine(spec)])),
    disclaimer: DISCLAIMER,
    license: { data: 'CC BY 4.0', code: 'AGPL-3.0' },
    attribution: { text: 'Data from pegscope', link: ATTRIBUTION_LINK },
  });
}
