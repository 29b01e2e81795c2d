import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countInWindows, sortedIndexes } from '../src/analysis/box-count.js';

/** The obvious quadratic count the sweep must equal: windows [amountLow, amountHigh] × [top − length + 1, top]. */
function bruteForce(points: [number, number][], windows: [number, number, number][], length: number): number[] {
  return windows.map(([al, ah, top]) => points.filter(([a, h]) => a >= al && a <= ah && h <= top && h > top - length).length);
}

describe('countInWindows', () => {
  it('equals a brute-force count for random points and windows (ties, empty windows, inverted amount ranges, windows of one block)', () => {
    const point = fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 30 }));
    const window = fc.tuple(fc.integer({ min: -5, max: 55 }), fc.integer({ min: -5, max: 55 }), fc.integer({ min: -5, max: 35 }));
    fc.assert(fc.property(fc.array(point, { maxLength: 60 }), fc.array(window, { maxLength: 40 }), fc.integer({ min: 1, max: 12 }), (unsorted, drawn, length) => {
      // Amount order, as DuckDB hands them over: points by amount, window lows and highs each ascending.
      const points = [...unsorted].sort((a, b) => a[0] - b[0]);
      const lows = drawn.map((w) => w[0]).sort((a, b) => a - b), highs = drawn.map((w) => w[1]).sort((a, b) => a - b);
      const windows = drawn.map((w, i): [number, number, number] => [lows[i]!, highs[i]!, w[2]]);
      const counts = countInWindows(
        { amount: Float64Array.from(points, (p) => p[0]), height: Int32Array.from(points, (p) => p[1]) },
        { amountLow: Float64Array.from(windows, (w) => w[0]), amountHigh: Float64Array.from(windows, (w) => w[1]), top: Int32Array.from(windows, (w) => w[2]) },
        length);
      expect([...counts]).toEqual(bruteForce(points, windows, length));
    }), { numRuns: 300 });
  });

  it('refuses a window of no blocks, and points or windows out of amount order', () => {
    const none = { amountLow: new Float64Array(), amountHigh: new Float64Array(), top: new Int32Array() };
    expect(() => countInWindows({ amount: new Float64Array(), height: new Int32Array() }, none, 0)).toThrow(/at least one block/);
    expect(() => countInWindows({ amount: Float64Array.of(2, 1), height: Int32Array.of(0, 0) }, none, 1)).toThrow(/points must come in ascending amount order/);
    expect(() => countInWindows({ amount: new Float64Array(), height: new Int32Array() },
      { amountLow: Float64Array.of(1, 2), amountHigh: Float64Array.of(3, 2), top: Int32Array.of(0, 0) }, 1)).toThrow(/windows must come in ascending amount order/);
  });
});

describe('sortedIndexes', () => {
  /** The comparator sort it replaces: stable, so ties keep index order. */
  const byComparator = (keys: number[]): number[] => keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]!);

  it('orders packed keys (integers, negatives, ties) like a stable comparator sort', () => {
    const key = fc.integer({ min: -40, max: 40 });
    fc.assert(fc.property(fc.array(key, { maxLength: 200 }), (keys) => {
      expect([...sortedIndexes(keys)]).toEqual(byComparator(keys));
    }), { numRuns: 300 });
  });

  it('falls back to the comparator for keys it cannot pack (fractions, a huge spread)', () => {
    const keys = [0.25, -3, 1e15, 0.25, -1e15, 7, 0.5];
    expect([...sortedIndexes(keys)]).toEqual(byComparator(keys));
  });
});
