import { describe, expect, it } from 'vitest';
import { countInRange, privacyOf, roundingBucket, scoreOfSet } from '@pegscope/client';
import { buildAmountCounts, encodeAmountTable } from '../src/api/amount-table-encode.js';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';

const COIN = 100_000_000;

describe('roundingBucket', () => {
  it('keeps two significant digits at every scale', () => {
    expect(roundingBucket(1_340_000)).toEqual({ rounded: 1_300_000, low: 1_250_000, high: 1_350_000, step: 100_000 });
    expect(roundingBucket(13_170_000_000).rounded).toBe(13_000_000_000);
    expect(roundingBucket(123_450_000).rounded).toBe(120_000_000);
    expect(roundingBucket(99_600_000).rounded).toBe(100_000_000);
    expect(roundingBucket(7).rounded).toBe(7);
  });
});

describe('privacyOf', () => {
  const table = buildAmountCounts({
    pegin: [[COIN, 150], [COIN + 50_000, 3], [123_456_789, 1], [COIN, 20]],
    pegout: [[COIN - 6_410, 4]],
  });

  it('merges duplicate rows and counts sets', () => {
    expect(table.pegin).toEqual([[COIN, 170], [COIN + 50_000, 3], [123_456_789, 1]]);
    const p = privacyOf(table, COIN, 'pegin');
    expect(p.exact_set).toBe(170);
    expect(p.rounded_set).toBe(173);
    expect(p.window_set).toBe(173);
    expect(p.anonymity_set).toBe(174);
    expect(p.rating).toBe('Excellent');
  });

  it('rates a unique amount as easy to single out and suggests a common one', () => {
    const p = privacyOf(table, 123_456_000, 'pegin');
    expect(p.exact_set).toBe(0);
    expect(p.window_set).toBe(1);
    expect(p.privacy_score).toBe(scoreOfSet(2));
    expect(p.privacy_score).toBeLessThan(40);
    expect(p.easy_to_single_out).toBe(true);
    expect(p.rating).toBe('Very weak');
    expect(p.suggested_amount).toBe(1);
  });

  it('scores a peg-out by the peg-ins it could come from', () => {
    const p = privacyOf(table, COIN - 6_410, 'pegout');
    expect(p.exact_set).toBe(4);
    expect(p.window_set).toBe(173);
  });

  it('rejects non-integer amounts', () => {
    expect(() => privacyOf(table, 1.5, 'pegin')).toThrow(/litoshi/);
  });

  it('published delta-encoded, a large table gzips to under 0.7 of [amount, count] pairs', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const rows: [number, number][] = [];
    for (let i = 0; i < 60_000; i++) rows.push([Math.floor(10 ** (5 + rand() * 5)), 1]);
    const big = buildAmountCounts({ pegin: rows, pegout: rows });
    const published = encodeAmountTable({ network: 'mainnet', as_of_height: 1, updated_at: 1, horizon_blocks: null, rounding_digits: 2 }, big);
    const gzip = (value: unknown): number => gzipSync(JSON.stringify(value)).length;
    expect(gzip(published)).toBeLessThan(0.7 * gzip({ pegin: big.pegin, pegout: big.pegout }));
    expect(countInRange(big.pegin, 0, Number.MAX_SAFE_INTEGER)).toBe(60_000);
  });

  it('suggests a round amount whose window beats yours, not a one-off 8-decimal amount (the 1.5 a wallet once got)', () => {
    const near14 = Array.from({ length: 10 }, (_, i) => [139_950_000 + i * 10_000, 1] as [number, number]);
    const odd = buildAmountCounts({ pegin: [[150_958_947, 1], ...near14], pegout: [] });
    const p = privacyOf(odd, 150_000_000, 'pegin');
    expect(p.window_set).toBe(0);
    expect(p.suggested_amount).toBe(1.4);
    expect(p.suggested_amount_set).toBe(11);
    // The window holds no other peg-in: the 1 of the set is the wallet's own.
    expect(p.advice).toContain('Easy to single out: no other peg-in near this amount');
    expect(p.advice).not.toContain('only 1 peg-in');
    expect(p.advice).toContain('1.4 would blend in better: 11 peg-ins within 0.002 of it, yours included (score 45).');
    expect(p.advice).not.toMatch(/1\.50958947|\(s\)|1 times/);
  });

  it('never suggests an amount whose window holds fewer than 2 peg-ins', () => {
    const lonely = buildAmountCounts({ pegin: [[140_000_000, 1], [160_000_000, 1]], pegout: [] });
    expect(privacyOf(lonely, 150_000_000, 'pegin')).toMatchObject({ suggested_amount: null, suggested_amount_set: null });
    const pair = buildAmountCounts({ pegin: [[140_000_000, 1], [140_100_000, 1]], pegout: [] });
    expect(privacyOf(pair, 150_000_000, 'pegin')).toMatchObject({ suggested_amount: 1.4, suggested_amount_set: 3 });
  });

  it('prefers fewer significant digits, then three when no rounder amount helps', () => {
    const at125 = buildAmountCounts({ pegin: [[125_000_000, 5]], pegout: [] });
    expect(privacyOf(at125, 126_543_210, 'pegin').suggested_amount).toBe(1.25);
    const both = buildAmountCounts({ pegin: [[125_000_000, 5], [130_000_000, 5]], pegout: [] });
    expect(privacyOf(both, 126_543_210, 'pegin').suggested_amount).toBe(1.3);
  });
});

describe('privacy properties', () => {
  it('window counts equal a brute-force count, and every amount lies in its rounding bucket', () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.integer({ min: 1, max: 2e10 }), fc.integer({ min: 1, max: 5 })), { maxLength: 60 }),
      fc.integer({ min: 1, max: 2e10 }),
      (rows, amount) => {
        const table = buildAmountCounts({ pegin: rows, pegout: [] });
        const brute = (low: number, high: number) => rows.filter(([a]) => a >= low && a <= high).reduce((s, [, c]) => s + c, 0);
        const p = privacyOf(table, amount, 'pegin');
        expect(p.window_set).toBe(brute(Math.max(1, amount - table.tolerance), amount + table.tolerance));
        expect(p.exact_set).toBe(brute(amount, amount));
        const bucket = roundingBucket(amount);
        expect(amount).toBeGreaterThanOrEqual(bucket.low);
        expect(amount).toBeLessThan(bucket.high);
        expect(String(bucket.rounded).replace(/0+$/, '').length).toBeLessThanOrEqual(2);
      }));
  });
});
