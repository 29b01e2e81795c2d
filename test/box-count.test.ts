import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countInBoxes } from '../src/analysis/box-count.js';

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
