import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AmountError, coinNumber, formatCoin, parseCoinAmount, parseNodeValue } from '../src/domain/amount.js';

describe('litoshi amounts', () => {
  it('parses decimal coin amounts exactly', () => {
    expect(parseCoinAmount('1')).toBe(100_000_000);
    expect(parseCoinAmount('0.00000001')).toBe(1);
    expect(parseCoinAmount('12.5')).toBe(1_250_000_000);
    expect(parseCoinAmount('0.1')).toBe(10_000_000);
    expect(parseCoinAmount('7931.99220526')).toBe(793_199_220_526);
  });

  it('rejects more than 8 decimals, signs, exponents and garbage', () => {
    for (const bad of ['0.000000001', '-1', '1e-8', 'abc', '', '1.', '.5', '1,5', '0x10']) {
      expect(() => parseCoinAmount(bad), bad).toThrow(AmountError);
    }
  });

  it('rejects spaces anywhere, as the router does, saying so', () => {
    for (const bad of [' 1.5', '1.5 ', '1 .5', '\t1', '1.5\n', '\u00a01']) {
      expect(() => parseCoinAmount(bad), JSON.stringify(bad)).toThrow(/is not a coin amount: write digits with at most 8 decimals and no spaces/);
    }
  });

  it('reads node JSON numbers as printed (0.1 + 0.2 style float noise never leaks)', () => {
    expect(parseNodeValue(3.1250804)).toBe(312_508_040);
    expect(parseNodeValue(0.0)).toBe(0);
    expect(parseNodeValue(36.31354355)).toBe(3_631_354_355);
  });

  it('formats without trailing zeros and round-trips every amount', () => {
    expect(formatCoin(150_000_000)).toBe('1.5');
    expect(formatCoin(1)).toBe('0.00000001');
    expect(formatCoin(0)).toBe('0');
    fc.assert(fc.property(fc.integer({ min: 0, max: 8_400_000_000_000_000 }), (litoshi) => {
      expect(parseCoinAmount(formatCoin(litoshi))).toBe(litoshi);
    }));
  });

  it('prints JSON numbers that read back exactly up to 2^25 coin (a double holds 8 decimals there)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 25 * 100_000_000 - 1 }), (litoshi) => {
      expect(parseNodeValue(coinNumber(litoshi))).toBe(litoshi);
    }));
  });
});
