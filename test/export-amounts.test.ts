/**
 * Defect 3.9: amounts below 1e-6 coin printed in exponent form ("1e-8").
 * Every amount the export writes, rendered by DuckDB or by JavaScript, is a
 * plain decimal with at most 8 places.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Db } from '../src/store/db.js';
import { analyze } from '../src/analysis/analyze.js';
import { exportRelease } from '../src/export/export.js';
import { exportSql } from '../src/export/sql.js';
import { toJson } from '../src/api/json.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import { coinNumber } from '../src/domain/amount.js';
import { insertChain, txid } from './helpers/analysis-fixture.js';
import { simAddress } from './helpers/release-tree.js';
import { treeFiles } from './helpers/export-pipeline.js';

const ONE_LITOSHI = '0.00000001';
const [FUNDER, ROUND_FUNDER, DESTINATION] = [simAddress(1), simAddress(2), simAddress(3)];
const DUST_IN = txid('dust-in');
const ROUND_IN = txid('round-in');
const ROUND_OUT = txid('round-out');

/** The text outside JSON strings: where a number in exponent form would show. */
const outsideStrings = (json: string): string => json.replace(/"(?:[^"\\]|\\.)*"/g, '""');

let work: string;
let dir: string;
const read = (rel: string): string => readFileSync(join(dir, rel), 'utf8');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-amounts-'));
  const db = await Db.open(':memory:');
  try {
    // Two peg-ins of 1 litoshi, and a round trip whose peg-out is 1 litoshi (6,410 litoshi of fees).
    await insertChain(db, 300, [
      { txid: DUST_IN, height: 110, amount: 1, inputs: [FUNDER] },
      { txid: txid('dust-in-2'), height: 111, amount: 1, inputs: [FUNDER] },
      { txid: ROUND_IN, height: 120, amount: 6_411, inputs: [ROUND_FUNDER] },
    ], [{ txid: ROUND_OUT, vout: 1, height: 150, amount: 1, address: DESTINATION }]);
    await db.exec('UPDATE blocks SET pegin_count = 1 WHERE height IN (110, 111, 120)');
    await db.exec('UPDATE blocks SET pegout_count = 1, supply = 1 WHERE height = 150');
    await analyze(db, { now: 1_800_000_000 });
    // One file per query, so every document and its CSV twin can be read by name (both layouts hold the same bytes: export.test.ts).
    dir = (await exportRelease(db, { outDir: join(work, 'out'), layout: 'files', hostBudget: NO_HOST_BUDGET })).dir;
  } finally {
    db.close();
  }
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('an amount of 1 litoshi in the exported release', () => {
  it.each([
    ['a peg-in node (DuckDB)', `api/trace/${DUST_IN}.json`, `"amount":${ONE_LITOSHI}`],
    ['a peg-out node and its link (DuckDB)', `api/trace/${ROUND_OUT}.json`, `"amount":${ONE_LITOSHI}`],
    ['a peg-in link to the peg-out (DuckDB)', `api/trace/${ROUND_IN}.json`, `"pegout_amount":${ONE_LITOSHI}`],
    ['a block supply (DuckDB)', 'api/block/150.json', `"supply":${ONE_LITOSHI}`],
    ['an address total (DuckDB)', `api/address/${DESTINATION}.json`, `"total":${ONE_LITOSHI}`],
    ['the peg-in amount list (JavaScript)', 'api/pegin_amounts.json', `"amount":${ONE_LITOSHI}`],
    ['the peg-out amount list (JavaScript)', 'data/pegout_amounts.json', `"amount":${ONE_LITOSHI}`],
    ['the links list (JavaScript)', 'data/links.json', `"pegout_amount":${ONE_LITOSHI}`],
    ['the recommendations (JavaScript)', 'api/recommendations.json', `"amount":${ONE_LITOSHI}`],
    ['a trace CSV', `api/trace/${DUST_IN}.csv`, `,${ONE_LITOSHI},`],
  ])('prints as a plain decimal in %s', (_where, rel, text) => {
    expect(read(rel)).toContain(text);
  });

  it('is read back as 1e-8 coin', () => {
    const trace = JSON.parse(read(`api/trace/${DUST_IN}.json`)).trace;
    expect(trace.pegins[0].amount).toBe(1e-8);
    expect(JSON.parse(read('api/block/150.json')).block.supply).toBe(1e-8);
  });

  it('no JSON file of the release has a number in exponent form', () => {
    let files = 0;
    for (const [rel, path] of treeFiles(dir)) {
      if (!rel.endsWith('.json')) continue;
      files++;
      expect(outsideStrings(readFileSync(path, 'utf8')), rel).not.toMatch(/\d[eE]/);
    }
    expect(files).toBeGreaterThan(10);
  });
});

describe('coin amounts rendered by DuckDB', () => {
  it('are the same text as the JavaScript serializer prints for the same amount', async () => {
    const db = await Db.open(':memory:');
    try {
      await db.exec(exportSql('macros'));
      await fc.assert(fc.asyncProperty(fc.array(fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 2_100_000_000_000_000 })), { minLength: 1, maxLength: 50 }), async (amounts) => {
        const row = await db.one<{ text: string }>(
          `SELECT json_plain(to_json(list({'s': 'e999 "1e-8"', 'amount': coin_json(x)} ORDER BY i))::VARCHAR) AS text
           FROM (SELECT unnest(a) AS x, generate_subscripts(a, 1) AS i FROM (SELECT from_json($1, '["BIGINT"]') AS a))`,
          [JSON.stringify(amounts)]);
        expect(row!.text).toBe(toJson(amounts.map((x) => ({ s: 'e999 "1e-8"', amount: coinNumber(x) }))));
      }), { numRuns: 100 });
    } finally {
      db.close();
    }
  });
});
