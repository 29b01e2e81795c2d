/**
 * JSON Schema pieces shared by the endpoint schemas. Written once here; the
 * files in schemas/ and schemas/openapi.json are generated from these
 * declarations (scripts/gen-schemas.ts).
 */
import { LABEL_CATEGORY_NAMES } from '../domain/model.js';
import { API_VERSION } from './params.js';

export type JsonSchema = Record<string, unknown>;

export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
export const SCHEMA_BASE = 'https://pegscope.invalid/schemas/';

export const ref = (def: string): JsonSchema => ({ $ref: `common.json#/$defs/${def}` });
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const obj = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema => ({
  type: 'object', required: Object.keys(properties), properties, additionalProperties: false, ...extra,
});

const amount: JsonSchema = { type: 'number', minimum: 0, description: 'coin amount with at most 8 decimals' };
const txid: JsonSchema = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const count: JsonSchema = { type: 'integer', minimum: 0 };
const confidence: JsonSchema = { type: 'number', minimum: 0, maximum: 1 };
const reasons: JsonSchema = { type: 'array', items: { type: 'string' } };
const category: JsonSchema = { enum: [...LABEL_CATEGORY_NAMES] };

const attribution = nullable(obj({
  entity: { type: 'string' },
  category: ref('category'),
  via: { enum: ['direct', 'cluster'] },
  confidence,
  cluster_id: nullable({ type: 'string' }),
  source: { type: 'string', description: 'the label source that won (docs/labels.md): e.g. OFAC SDN 2026-11-20, a TagPack title, a label file\'s source, coinbase' },
}));

const peginLink = obj({
  pegout_txid: txid, pegout_vout: count, pegout_amount: amount, pegout_address: nullable({ type: 'string' }),
  pegout_entity: nullable({ type: 'string' }), pegout_category: nullable(ref('category')),
  confidence, block_gap: count, candidate_count: count, reasons: ref('reasons'),
});

const pegoutLink = obj({
  pegin_txid: txid, pegin_vout: count, pegin_amount: amount, pegin_height: count,
  confidence, block_gap: count, candidate_count: count, reasons: ref('reasons'),
});

const peginNode = obj({
  txid, vout: count, block_height: count, block_time: count, amount,
  source_address: nullable({ type: 'string' }), input_count: count,
  inputs: { type: 'array', items: obj({ address: nullable({ type: 'string' }), value: amount, attribution: ref('attribution') }) },
  links: { type: 'array', items: ref('pegin_link') },
  score: nullable(obj({
    privacy_score: { type: 'integer', minimum: 0, maximum: 100 }, anonymity_set: count,
    max_link_confidence: nullable(confidence), reasons: ref('reasons'),
  })),
});

const pegoutNode = obj({
  txid, vout: count, block_height: count, block_time: count, amount,
  address: nullable({ type: 'string' }), attribution: ref('attribution'),
  links: { type: 'array', items: ref('pegout_link') },
  score: nullable(obj({
    risk_score: { type: 'integer', minimum: 0, maximum: 100 }, dest_category: nullable({ type: 'string' }),
    traceability: nullable({ type: 'number', minimum: 0, maximum: 1 }), reasons: ref('reasons'),
  })),
});

const linkRecord = obj({
  pegout_txid: txid, pegout_vout: count, pegout_height: count, pegout_amount: amount,
  pegout_address: nullable({ type: 'string' }), pegout_entity: nullable({ type: 'string' }), pegout_category: nullable(ref('category')),
  pegin_txid: txid, pegin_vout: count, pegin_height: count, pegin_amount: amount,
  confidence, risk_score: nullable({ type: 'integer', minimum: 0, maximum: 100 }),
  block_gap: count, candidate_count: count, reasons: ref('reasons'),
});

const amountCount = obj({ amount, count });

/** The envelope fields every JSON body carries (docs/api.md). */
export const ENVELOPE_PROPERTIES: Record<string, JsonSchema> = {
  version: { const: API_VERSION },
  network: { enum: ['mainnet', 'testnet', 'regtest', 'sim'] },
  unit: { enum: ['LTC', 'tLTC', 'rLTC'] },
  as_of_height: count,
  updated_at: count,
};

export const COMMON_SCHEMA: JsonSchema = {
  $schema: SCHEMA_DIALECT,
  $id: `${SCHEMA_BASE}common.json`,
  title: 'pegscope shared definitions',
  $defs: {
    amount, txid, count, confidence, reasons, category, attribution,
    pegin_link: peginLink, pegout_link: pegoutLink, pegin_node: peginNode, pegout_node: pegoutNode,
    link_record: linkRecord, amount_count: amountCount,
  },
};

/** A response schema: the envelope plus the endpoint's own fields, nothing else. */
export function responseSchema(name: string, title: string, fields: Record<string, JsonSchema>): JsonSchema {
  return {
    $schema: SCHEMA_DIALECT,
    $id: `${SCHEMA_BASE}${name}.json`,
    title,
    ...obj({ ...ENVELOPE_PROPERTIES, ...fields }),
  };
}

export const objectOf = obj;
export const nullableOf = nullable;
