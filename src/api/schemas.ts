import { API_VERSION, type EndpointName } from './params.js';
import { COMMON_SCHEMA, SCHEMA_BASE, SCHEMA_DIALECT, objectOf, responseSchema, type JsonSchema } from './common-schema.js';
import { openApiDocument } from './openapi.js';
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
import { SCHEMAS as SERIES_SCHEMAS, SERIES_NAMES } from './series.js';
import * as range from './range.js';

/** Every response schema, by endpoint: what the router answers and the export writes. */
export const ENDPOINT_SCHEMAS: Record<EndpointName, JsonSchema> = {
  health: health.schema, stats: stats.schema, privacy: privacy.schema, recommendations: recommendations.schema,
  trace: trace.schema, follow: follow.schema, address: address.schema, links: links.schema,
  pegin_amounts: peginAmounts.schema, pegout_amounts: pegoutAmounts.schema, block: block.schema,
};

const ERROR_FIELDS: Record<string, JsonSchema> = { error: { type: 'string', minLength: 1 }, version: { const: API_VERSION } };
export const ERROR_SCHEMA: JsonSchema = {
  $schema: SCHEMA_DIALECT, $id: `${SCHEMA_BASE}error.json`, title: 'error body',
  ...objectOf(ERROR_FIELDS),
  properties: {
    ...ERROR_FIELDS,
    health: { ...objectOf({ ok: { const: false } }), description: 'health only: its 503 says not ok in the field monitors read' },
  },
};

/** api/amounts.json: the wallet client's amount table (packages/client/src/amount-table.ts, docs/amounts.md). */
const encodedAmounts: JsonSchema = {
  ...objectOf({
    amount_deltas: { type: 'array', items: { type: 'integer', minimum: 1 }, description: 'litoshi: the smallest amount, then each amount minus the one before (amounts ascend)' },
    counts: { type: 'array', items: { type: 'integer', minimum: 1 }, description: 'pegs of each amount, in the same order' },
  }),
  description: 'every distinct amount of this side with its count; both arrays have the same length',
};
export const AMOUNT_TABLE_SCHEMA: JsonSchema = {
  ...responseSchema('amounts', 'amount table (litoshi, counts) for offline privacy scoring', {
    tolerance: { type: 'integer', minimum: 1, description: 'litoshi: the link tolerance the analysis used' },
    horizon_blocks: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }], description: 'the table counts pegs of the last horizon_blocks blocks; null: all time' },
    rounding: objectOf({ rule: { const: 'significant-digits' }, digits: { type: 'integer', minimum: 1 } }),
    pegin: encodedAmounts,
    pegout: encodedAmounts,
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

/** The JSON Schema files of schemas/ (openapi.json bundles them), by file name. */
function jsonSchemaFiles(): Record<string, JsonSchema> {
  const files: Record<string, JsonSchema> = { 'common.json': COMMON_SCHEMA, 'error.json': ERROR_SCHEMA, 'index.json': apiIndex.schema, 'amounts.json': AMOUNT_TABLE_SCHEMA, 'manifest.json': MANIFEST_SCHEMA };
  for (const [name, schema] of Object.entries(ENDPOINT_SCHEMAS)) files[`${name}.json`] = schema;
  for (const name of SERIES_NAMES) files[`series-${name}.json`] = SERIES_SCHEMAS[name];
  files['ranges.json'] = range.indexSchema;
  files['range.json'] = range.rangeSchema;
  return files;
}

/** Every file of schemas/, by file name: the JSON Schemas and the OpenAPI document. */
export function schemaFiles(): Record<string, JsonSchema> {
  const files = jsonSchemaFiles();
  return { ...files, 'openapi.json': openApiDocument(files) };
}

/** A schema file's text, as in schemas/ (and, for the OpenAPI document, in every release). */
export const schemaText = (schema: JsonSchema): string => `${JSON.stringify(schema, null, 2)}\n`;

/** api/openapi.json of a release and /api/openapi.json of the router: byte for byte schemas/openapi.json. */
export const openApiText = (): string => schemaText(openApiDocument(jsonSchemaFiles()));
