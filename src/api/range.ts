/**
 * The range layout's files (docs/static-hosting.md; format in packages/client/src/range.ts):
 * api/ranges.json and api/range/<kind>/<prefix>.json, served by the router
 * at /api/ranges.json and /api/range/<kind>/<prefix>.
 */
import { RANGE_HASH, RANGE_KINDS } from '@pegscope/client';
import { objectOf, responseSchema, SCHEMA_BASE, type JsonSchema } from './common-schema.js';

const prefixLength: JsonSchema = { type: 'integer', minimum: 1, maximum: 8 };
const kinds = Object.fromEntries(RANGE_KINDS.map((kind) => [kind, objectOf({
  prefix_length: prefixLength, hash: { const: RANGE_HASH }, documents: { type: 'integer', minimum: 0 },
})]));

export const indexSchema = responseSchema('ranges', 'range layout index', {
  layout: { const: 'ranges' },
  kinds: objectOf(kinds),
});

const key: JsonSchema = { type: 'string', minLength: 1, maxLength: 100 };
export const rangeSchema = responseSchema('range', 'range file: the documents of one kind whose key hashes to one prefix', {
  range: {
    type: 'object',
    required: ['kind', 'prefix', 'hash', 'keys'],
    additionalProperties: false,
    properties: {
      kind: { enum: [...RANGE_KINDS] },
      prefix: { type: 'string', pattern: '^[0-9a-f]{1,8}$' },
      hash: { const: RANGE_HASH },
      keys: { type: 'array', items: key },
      chains: { type: 'array', items: key, description: 'follow: keys whose chain longer than the default depth follows the default documents' },
      aliases: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 }, description: 'block: block hashes of this prefix and their heights' },
    },
  },
  documents: {
    type: 'array',
    items: { anyOf: RANGE_KINDS.map((kind) => ({ $ref: `${SCHEMA_BASE}${kind}.json` })) },
  },
});
