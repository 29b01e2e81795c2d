/**
 * api/amounts.json describes itself: the common envelope, the
 * tolerance and horizon it was built with, delta-encoded amounts; the
 * client's parseAmountTable checks it and says what is wrong.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AmountTableError, DEFAULT_TOLERANCE, parseAmountTable, type AmountTableFile } from '@pegscope/client';
import { buildAmountCounts, encodeAmountTable, type AmountTableFacts } from '../src/api/amount-table-encode.js';
import { Db } from '../src/store/db.js';
import { amountTableFile, buildMetaOf } from '../src/export/amounts.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { schemaFiles } from '../src/api/schemas.js';
import { SCHEMA_BASE } from '../src/api/common-schema.js';

const FACTS: AmountTableFacts = { network: 'mainnet', as_of_height: 2_900_000, updated_at: 1_800_000_000, horizon_blocks: 34_560, rounding_digits: 2 };
const COUNTS = buildAmountCounts({ pegin: [[100_000_000, 7], [150_000_000, 2], [100_006_410, 1]], pegout: [[99_993_590, 3]] });
const file = (): AmountTableFile => encodeAmountTable(FACTS, COUNTS);
/** A copy of the file with one field replaced, as a wallet might receive it. */
const withField = (key: string, value: unknown): unknown => ({ ...file(), [key]: value });

describe('encodeAmountTable and parseAmountTable', () => {
  it('writes the envelope, tolerance, horizon and each side as amount deltas and counts', () => {
    expect(file()).toEqual({
      version: '1', network: 'mainnet', unit: 'LTC', as_of_height: 2_900_000, updated_at: 1_800_000_000,
      tolerance: DEFAULT_TOLERANCE, horizon_blocks: 34_560, rounding: { rule: 'significant-digits', digits: 2 },
      pegin: { amount_deltas: [100_000_000, 6_410, 49_993_590], counts: [7, 1, 2] },
      pegout: { amount_deltas: [99_993_590], counts: [3] },
    });
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const [name, schema] of Object.entries(schemaFiles())) if (name !== 'openapi.json') ajv.addSchema(schema);
    const validate = ajv.getSchema(`${SCHEMA_BASE}amounts.json`)!;
    expect(validate(file()), ajv.errorsText(validate.errors)).toBe(true);
    expect(validate({ ...file(), version: 1 })).toBe(false);
  });

  it('decodes what it encoded, from the text or the parsed value, and gives the age', () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.integer({ min: 1, max: 2e15 }), fc.integer({ min: 1, max: 1_000 })), { maxLength: 50 }),
      fc.array(fc.tuple(fc.integer({ min: 1, max: 2e15 }), fc.integer({ min: 1, max: 1_000 })), { maxLength: 50 }),
      fc.integer({ min: 0, max: 1e6 }),
      (pegin, pegout, age) => {
        const counts = buildAmountCounts({ pegin, pegout, tolerance: 150_000 });
        const encoded = encodeAmountTable(FACTS, counts);
        for (const input of [encoded, JSON.stringify(encoded)]) {
          const parsed = parseAmountTable(input, { network: 'mainnet', now: FACTS.updated_at + age });
          expect(parsed.ageSeconds).toBe(age);
          expect(parsed.table).toEqual({ ...counts, network: 'mainnet', unit: 'LTC', as_of_height: FACTS.as_of_height, updated_at: FACTS.updated_at, horizon_blocks: FACTS.horizon_blocks });
        }
      },
    ));
  });

  it('counts the age from now by default and never below 0', () => {
    const now = Math.floor(Date.now() / 1000);
    const fresh = encodeAmountTable({ ...FACTS, updated_at: now - 600 }, COUNTS);
    expect(parseAmountTable(fresh, { network: 'mainnet' }).ageSeconds).toBeGreaterThanOrEqual(600);
    expect(parseAmountTable(fresh, { network: 'mainnet', now: now - 1_000 }).ageSeconds).toBe(0);
  });

  it.each([
    ['another network', file(), 'testnet', /it is the mainnet table, but testnet was asked for/],
    ['the old numeric version', withField('version', 1), 'mainnet', /version is 1, this client reads version "1"/],
    ['a newer version', withField('version', '2'), 'mainnet', /version is "2"/],
    ['an unknown network', withField('network', 'bitcoin'), 'mainnet', /network is "bitcoin"/],
    ['a unit of another network', withField('unit', 'tLTC'), 'mainnet', /unit is "tLTC"; mainnet counts in LTC/],
    ['no updated_at', withField('updated_at', undefined), 'mainnet', /updated_at must be a non-negative integer/],
    ['a fractional tolerance', withField('tolerance', 0.002), 'mainnet', /tolerance must be a positive integer of litoshi/],
    ['a horizon of 0', withField('horizon_blocks', 0), 'mainnet', /horizon_blocks must be a positive integer or null/],
    ['another rounding', withField('rounding', { rule: 'significant-digits', digits: 3 }), 'mainnet', /rounding must be/],
    ['pairs instead of deltas', withField('pegin', [[100_000_000, 7]]), 'mainnet', /pegin must be an object with the arrays amount_deltas and counts/],
    ['arrays of different lengths', withField('pegout', { amount_deltas: [1, 2], counts: [1] }), 'mainnet', /pegout has 2 amount_deltas but 1 counts/],
    ['amounts out of order', withField('pegin', { amount_deltas: [5, 0], counts: [1, 1] }), 'mainnet', /pegin.amount_deltas\[1\] must be a positive integer \(amounts ascend\), got 0/],
    ['a negative delta', withField('pegin', { amount_deltas: [5, -1], counts: [1, 1] }), 'mainnet', /pegin.amount_deltas\[1\]/],
    ['a count of 0', withField('pegout', { amount_deltas: [5], counts: [0] }), 'mainnet', /pegout.counts\[0\] must be a positive integer, got 0/],
    ['a text count', withField('pegout', { amount_deltas: [5], counts: ['2'] }), 'mainnet', /pegout.counts\[0\]/],
    ['amounts past 2^53', withField('pegin', { amount_deltas: [2 ** 52, 2 ** 52], counts: [1, 1] }), 'mainnet', /largest exact integer at row 1/],
    ['not JSON', '{"version":', 'mainnet', /not valid JSON/],
    ['an array', '[]', 'mainnet', /expected a JSON object/],
  ] as const)('rejects %s with a message saying what is wrong', (_name, input, network, message) => {
    expect(() => parseAmountTable(input, { network })).toThrow(AmountTableError);
    expect(() => parseAmountTable(input, { network })).toThrow(message);
  });
});

describe('the exporter writes the table the analysis built', () => {
  async function tableOf(meta: [string, string][]): Promise<AmountTableFile> {
    const db = await Db.open(':memory:');
    try {
      await db.exec('CREATE OR REPLACE TABLE a_meta (key VARCHAR, value VARCHAR)');
      await db.exec('CREATE OR REPLACE TABLE a_amounts (side VARCHAR, amount BIGINT, count BIGINT)');
      await db.exec("INSERT INTO a_amounts VALUES ('pegin', 150000000, 2), ('pegin', 100000000, 7), ('pegout', 99993590, 3)");
      for (const [key, value] of meta) await db.exec('INSERT INTO a_meta VALUES ($1, $2)', [key, value]);
      return await amountTableFile(db, { network: 'sim', as_of_height: 500, updated_at: 1_800_000_000 });
    } finally {
      db.close();
    }
  }

  it('states the tolerance and horizon of a_meta', async () => {
    const table = await tableOf([['tolerance', '150000'], ['horizon_blocks', '34560'], ['as_of_height', '500']]);
    expect(table).toMatchObject({ version: '1', network: 'sim', unit: 'rLTC', as_of_height: 500, updated_at: 1_800_000_000, tolerance: 150_000, horizon_blocks: 34_560 });
    expect(table.pegin).toEqual({ amount_deltas: [100_000_000, 50_000_000], counts: [7, 2] });
    expect(parseAmountTable(table, { network: 'sim' }).table.tolerance).toBe(150_000);
  });

  it('falls back to the default tolerance and no horizon for an analysis without those keys', async () => {
    expect(await tableOf([])).toMatchObject({ tolerance: DEFAULT_TOLERANCE, horizon_blocks: null });
  });

  it('refuses an a_meta value that is not a positive integer', () => {
    expect(() => buildMetaOf([{ key: 'tolerance', value: '0.002' }])).toThrow(/a_meta tolerance is "0.002", not a positive integer/);
    expect(() => buildMetaOf([{ key: 'horizon_blocks', value: '-5' }])).toThrow(/a_meta horizon_blocks/);
  });
});
