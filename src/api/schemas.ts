import { API_VERSION, ENDPOINTS, type EndpointName, type ParamSpec } from './params.js';
import { COMMON_SCHEMA, SCHEMA_BASE, SCHEMA_DIALECT, objectOf, type JsonSchema } from './common-schema.js';
import * as health from './health.js';
import * as stats from './stats.js';
import * as privacy from './privacy.js';
import * as recommendations from './recommendations.js';
import * as trace from './trace.js';
import * as follow from './follow.js';
import * as address from './address.js';
import * as links from './links.js';
import * as peginAmounts from './pegin_amounts.js';
import * as pegoutAmounts from './pegout_amounts.js';
import * as block from './block.js';
import * as apiIndex from './index.js';
import { SCHEMAS as SERIES_SCHEMAS, SERIES_NAMES, seriesPath } from './series.js';
import * as range from './range.js';

/** Every response schema, by endpoint: what the router answers and the export writes. */
export const ENDPOINT_SCHEMAS: Record<EndpointName, JsonSchema> = {
  health: health.schema, stats: stats.schema, privacy: privacy.schema, recommendations: recommendations.schema,
  trace: trace.schema, follow: follow.schema, address: address.schema, links: links.schema,
  pegin_amounts: peginAmounts.schema, pegout_amounts: pegoutAmounts.schema, block: block.schema,
};

export const ERROR_SCHEMA: JsonSchema = {
  $schema: SCHEMA_DIALECT, $id: `${SCHEMA_BASE}error.json`, title: 'error body',
  ...objectOf({ error: { type: 'string', minLength: 1 }, version: { const: API_VERSION } }),
};

/** api/amounts.json: the amount table of src/domain/privacy.ts (docs/amounts.md). */
const amountRows: JsonSchema = {
  type: 'array',
  items: { type: 'array', prefixItems: [{ type: 'integer', minimum: 1 }, { type: 'integer', minimum: 1 }], minItems: 2, maxItems: 2 },
};
export const AMOUNT_TABLE_SCHEMA: JsonSchema = {
  $schema: SCHEMA_DIALECT, $id: `${SCHEMA_BASE}amounts.json`, title: 'amount table (litoshi, counts)',
  ...objectOf({
    version: { const: 1 },
    tolerance: { type: 'integer', minimum: 0 },
    rounding: objectOf({ rule: { const: 'significant-digits' }, digits: { type: 'integer', minimum: 1 } }),
    pegin: amountRows,
    pegout: amountRows,
  }),
};

export const MANIFEST_SCHEMA: JsonSchema = {
  $schema: SCHEMA_DIALECT, $id: `${SCHEMA_BASE}manifest.json`, title: 'release manifest',
  ...objectOf({
    version: { const: API_VERSION },
    network: { enum: ['mainnet', 'testnet', 'regtest', 'sim'] },
    as_of_height: { type: 'integer', minimum: 0 },
    updated_at: { type: 'integer', minimum: 0 },
    stamps: { type: 'array', items: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'integer' }], minItems: 2, maxItems: 2 } },
    files: {
      type: 'object',
      additionalProperties: {
        type: 'object', required: ['size', 'sha256'], additionalProperties: false,
        properties: { size: { type: 'integer', minimum: 0 }, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' }, stamp: { type: 'integer', minimum: 0 } },
      },
    },
  }),
};

/** Every schema file of schemas/, by file name. */
export function schemaFiles(): Record<string, JsonSchema> {
  const files: Record<string, JsonSchema> = { 'common.json': COMMON_SCHEMA, 'error.json': ERROR_SCHEMA, 'index.json': apiIndex.schema, 'amounts.json': AMOUNT_TABLE_SCHEMA, 'manifest.json': MANIFEST_SCHEMA };
  for (const [name, schema] of Object.entries(ENDPOINT_SCHEMAS)) files[`${name}.json`] = schema;
  for (const name of SERIES_NAMES) files[`series-${name}.json`] = SERIES_SCHEMAS[name];
  files['ranges.json'] = range.indexSchema;
  files['range.json'] = range.rangeSchema;
  files['openapi.json'] = openApiDocument();
  return files;
}

function paramSchema(param: ParamSpec): JsonSchema {
  switch (param.kind) {
    case 'int': return { type: 'integer', minimum: param.min, maximum: param.max, ...(param.default === undefined ? {} : { default: param.default }) };
    case 'number': return { type: 'number', minimum: param.min, maximum: param.max, ...(param.default === undefined ? {} : { default: param.default }) };
    case 'amount': return { type: 'string', pattern: '^\\d{1,10}(\\.\\d{1,8})?$' };
    case 'enum': return { type: 'string', enum: [...param.values], ...(param.default === undefined ? {} : { default: param.default }) };
    case 'query': return { type: 'string', minLength: 1, maxLength: 100 };
  }
}

const errorResponse = (description: string): JsonSchema => ({
  description, content: { 'application/json': { schema: { $ref: 'error.json' } } },
});

/** OpenAPI 3.1 document of the API, referencing the schema files next to it. */
export function openApiDocument(): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  for (const spec of Object.values(ENDPOINTS)) {
    const csv = spec.csvColumns ? { 'text/csv': { schema: { type: 'string', description: `columns: ${spec.csvColumns.join(',')}` } } } : {};
    paths[`/api/${spec.name}`] = {
      get: {
        operationId: spec.name,
        summary: spec.purpose,
        parameters: spec.params.map((param) => ({
          name: param.name, in: 'query', required: param.required === true, description: param.doc, schema: paramSchema(param),
        })),
        responses: {
          200: { description: spec.purpose, content: { 'application/json': { schema: { $ref: `${spec.name}.json` } }, ...csv } },
          400: errorResponse('a parameter is missing, malformed, out of range, repeated, or format=csv where not allowed'),
          404: errorResponse('unknown endpoint or path'),
          405: errorResponse('method other than GET, HEAD or OPTIONS'),
          429: errorResponse('rate limit exceeded; see Retry-After'),
          503: errorResponse('no published analysis yet, or the data is unreadable'),
        },
      },
    };
  }
  paths['/api'] = { get: { operationId: 'index', summary: 'index of endpoints, disclaimer, license', responses: { 200: { description: 'the index', content: { 'application/json': { schema: { $ref: 'index.json' } } } } } } };
  paths['/api/amounts.json'] = { get: { operationId: 'amounts', summary: 'amount table for offline privacy scoring', responses: { 200: { description: 'the amount table', content: { 'application/json': { schema: { $ref: 'amounts.json' } } } } } } };
  for (const name of SERIES_NAMES) {
    const title = String(SERIES_SCHEMAS[name].title);
    paths[`/${seriesPath(name)}`] = { get: { operationId: `series_${name}`, summary: title, responses: { 200: { description: title, content: { 'application/json': { schema: { $ref: `series-${name}.json` } } } } } } };
  }
  return {
    openapi: '3.1.0',
    $id: `${SCHEMA_BASE}openapi.json`,
    info: {
      title: 'pegscope API', version: API_VERSION,
      description: 'Litecoin MWEB peg-in/peg-out analysis. Every link is a heuristic inference from public chain data, never proof.',
      license: { name: 'Data CC BY 4.0 (credit "Data from pegscope" with a link); code AGPL-3.0', identifier: 'AGPL-3.0-only' },
    },
    jsonSchemaDialect: SCHEMA_DIALECT,
    paths,
  };
}
