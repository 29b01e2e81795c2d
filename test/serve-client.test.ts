import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { rmSync } from 'node:fs';
import { startServer, type RunningServer } from '../src/serve/server.js';
import {
  AmountError, formatCoin, parseAmountTable, parseCoinAmount, parsePositiveCoinAmount, privacyOf, significantDigits,
  SUGGESTION_MAX_DIGITS, type AmountTable, type Privacy,
} from '@pegscope/client';
import { buildPipelineTree, type PipelineTree } from './helpers/pipeline-release.js';

let tree: PipelineTree;
let server: RunningServer;
let table: AmountTable;

beforeAll(async () => {
  tree = await buildPipelineTree();
  server = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  // The wallet's view: the table as fetched over HTTP, not read from disk, checked without a cast.
  table = parseAmountTable(await (await fetch(`${server.url}/api/amounts.json`)).json(), { network: 'sim' }).table;
});

afterAll(async () => {
  await server?.close();
  rmSync(tree.root, { recursive: true, force: true });
});

/** Amounts anywhere up to 21M coin, and amounts on or near the table's own rows (generated after beforeAll). */
const litoshi = fc.oneof(
  fc.integer({ min: 1, max: 2_100_000_000_000_000 }),
  fc.integer({ min: 1_000_000, max: 1_000_000_000 }),
  fc.constantFrom(1, 100_000_000, 2_100_000_000_000_000),
  fc.tuple(fc.nat(), fc.integer({ min: -250_000, max: 250_000 }), fc.boolean())
    .map(([i, offset, exact]) => {
      const rows = [...table.pegin, ...table.pegout];
      return Math.max(1, rows[i % rows.length]![0] + (exact ? 0 : offset));
    }),
);

describe('router and wallet client agree', () => {
  it('GET /api/privacy equals @pegscope/client privacyOf on the fetched amount table', async () => {
    await fc.assert(
      fc.asyncProperty(litoshi, fc.constantFrom('pegin', 'pegout') as fc.Arbitrary<'pegin' | 'pegout'>, async (amount, side) => {
        const text = formatCoin(amount);
        const res = await fetch(`${server.url}/api/privacy?amount=${text}&side=${side}`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { privacy: unknown };
        expect(body.privacy).toEqual(privacyOf(table, parseCoinAmount(text), side));
      }),
      { numRuns: 300 },
    );
  });
});

async function routerPrivacy(text: string, side: 'pegin' | 'pegout'): Promise<Privacy> {
  const res = await fetch(`${server.url}/api/privacy?amount=${encodeURIComponent(text)}&side=${side}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { privacy: Privacy }).privacy;
}

describe('advice a person can follow, checked against the router', () => {
  const side = fc.constantFrom('pegin', 'pegout') as fc.Arbitrary<'pegin' | 'pegout'>;

  it('a suggestion beats the amount on the set the score counts, is at least 2, and has few significant digits', async () => {
    let suggested = 0;
    await fc.assert(
      fc.asyncProperty(litoshi, side, async (amount, side) => {
        const privacy = await routerPrivacy(formatCoin(amount), side);
        if (privacy.suggested_amount === null) {
          expect(privacy.suggested_amount_set).toBeNull();
          return;
        }
        suggested++;
        const text = String(privacy.suggested_amount);
        const better = await routerPrivacy(text, side);
        expect(better.window_set).toBeGreaterThan(privacy.window_set);
        expect(better.window_set).toBeGreaterThanOrEqual(2);
        expect(better.anonymity_set).toBe(privacy.suggested_amount_set);
        expect(better.privacy_score).toBeGreaterThan(privacy.privacy_score);
        expect(significantDigits(parseCoinAmount(text))).toBeLessThanOrEqual(SUGGESTION_MAX_DIGITS);
        const ratio = parseCoinAmount(text) / amount;
        expect(ratio).toBeGreaterThanOrEqual(0.8 - 1e-9);
        expect(ratio).toBeLessThanOrEqual(1.2 + 1e-9);
      }),
      { numRuns: 200 },
    );
    // The table's own amounts are drawn often enough that some of them are worth moving off.
    expect(suggested).toBeGreaterThan(10);
  });

  it('advice uses correct plurals', async () => {
    await fc.assert(
      fc.asyncProperty(litoshi, side, async (amount, side) => {
        const { advice } = await routerPrivacy(formatCoin(amount), side);
        expect(advice).not.toMatch(/\(s\)/);
        expect(advice).not.toMatch(/(?<![\d.,])1 (?:peg-ins|candidate peg-ins|times)\b/);
        expect(advice).not.toMatch(/(?<![\d.])(?:[02-9]|\d{2,}) (?:peg-in|candidate peg-in|time)\b(?!s)/);
      }),
      { numRuns: 150 },
    );
  });

  it('the router accepts exactly the amounts parsePositiveCoinAmount accepts, with its message', async () => {
    const spaces = fc.constantFrom('', ' ', '  ', '\t', '\n', '\u00a0');
    const amountText = fc.oneof(
      litoshi.map(formatCoin),
      fc.tuple(spaces, litoshi.map(formatCoin), spaces).map(([a, t, b]) => `${a}${t}${b}`),
      fc.stringMatching(/^[0-9. e+-]{1,14}$/),
    );
    await fc.assert(
      fc.asyncProperty(amountText, async (text) => {
        const res = await fetch(`${server.url}/api/privacy?amount=${encodeURIComponent(text)}`);
        const body = (await res.json()) as { error?: string; privacy?: Privacy };
        let expected: number | AmountError;
        try {
          expected = parsePositiveCoinAmount(text);
        } catch (err) {
          expected = err as AmountError;
        }
        if (expected instanceof AmountError) {
          expect(res.status).toBe(400);
          expect(body.error).toBe(`amount: ${expected.message}`);
        } else {
          expect(res.status).toBe(200);
          expect(body.privacy!.amount_litoshi).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
