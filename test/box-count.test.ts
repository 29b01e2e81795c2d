import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countInBoxes, sortedIndexes } from '../src/analysis/box-count.js';

/** The obvious quadratic count the sweep must equal. */
function bruteForce(points: [number, number][], boxes: [number, number, number, number][]): number[] {
  return boxes.map(([al, ah, hl, hh]) => points.filter(([a, h]) => a >= al && a <= ah && h >= hl && h <= hh).length);
}

describe('countInBoxes', () => {
  it('equals a brute-force count for random points and boxes (ties, empty boxes, inverted ranges)', () => {
    const point = fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 30 }));
    const box = fc.tuple(fc.integer({ min: -5, max: 55 }), fc.integer({ min: -5, max: 55 }), fc.integer({ min: -5, max: 35 }), fc.integer({ min: -5, max: 35 }));
    fc.assert(fc.property(fc.array(point, { maxLength: 60 }), fc.array(box, { maxLength: 40 }), (points, boxes) => {
      const counts = countInBoxes(
        { amount: Float64Array.from(points, (p) => p[0]), height: Int32Array.from(points, (p) => p[1]) },
        {
          amountLow: Float64Array.from(boxes, (b) => b[0]), amountHigh: Float64Array.from(boxes, (b) => b[1]),
          heightLow: Int32Array.from(boxes, (b) => b[2]), heightHigh: Int32Array.from(boxes, (b) => b[3]),
        });
      expect([...counts]).toEqual(bruteForce(points, boxes).map((n) => Math.max(0, n)));
    }), { numRuns: 300 });
  });
});

describe('sortedIndexes', () => {
  /** The comparator sort it replaces: stable, so ties keep index order. */
  const byComparator = (keys: number[]): number[] => keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]!);

  it('orders packed keys (multiples of 0.5, negatives, ties) like a stable comparator sort', () => {
    const key = fc.integer({ min: -40, max: 40 }).map((k) => k / 2);
    fc.assert(fc.property(fc.array(key, { maxLength: 200 }), (keys) => {
      expect([...sortedIndexes(keys)]).toEqual(byComparator(keys));
    }), { numRuns: 300 });
  });

  it('falls back to the comparator for keys it cannot pack (fractions, a huge spread)', () => {
    const keys = [0.25, -3, 1e15, 0.25, -1e15, 7];
    expect([...sortedIndexes(keys)]).toEqual(byComparator(keys));
  });
});
