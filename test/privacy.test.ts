import { describe, expect, it } from 'vitest';
import { buildAmountCounts, countInRange, privacyOf, roundingBucket, scoreOfSet } from '@pegscope/client';
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

  it('stays under 1 MB gzipped at a mainnet-sized table', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const rows: [number, number][] = [];
    for (let i = 0; i < 60_000; i++) rows.push([Math.floor(10 ** (5 + rand() * 5)), 1]);
    const big = buildAmountCounts({ pegin: rows, pegout: rows });
    expect(gzipSync(JSON.stringify(big)).length).toBeLessThan(1_000_000);
    expect(countInRange(big.pegin, 0, Number.MAX_SAFE_INTEGER)).toBe(60_000);
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
