/**
 * Counting peg-ins in boxes of amount × height (SPEC §2 Horizon): a peg's
 * anonymity set is the peg-ins within the tolerance AND within H blocks of
 * it, a peg-out's window the peg-ins within its amount window in the H blocks
 * before it. SQL has no O(n log n) answer for a count over two ranges (a
 * range join materialises every pair, millions around round amounts), so this
 * is the textbook offline sweep: queries sorted by height, peg-ins added to a
 * Fenwick tree over amount ranks as the sweep passes them.
 */

/** Peg-ins as points: amount (litoshi) and height, index-aligned. */
export interface Points { amount: Float64Array; height: Int32Array }

/** Boxes [amountLow, amountHigh] × [heightLow, heightHigh], inclusive, index-aligned. */
export interface Boxes { amountLow: Float64Array; amountHigh: Float64Array; heightLow: Int32Array; heightHigh: Int32Array }

/** How many points lie in each box. */
export function countInBoxes(points: Points, boxes: Boxes): Uint32Array {
  const amounts = Float64Array.from(new Set(points.amount)).sort();
  const tree = new Uint32Array(amounts.length + 1);
  const add = (rank: number): void => { for (let i = rank + 1; i < tree.length; i += i & -i) tree[i]!++; };
  // Points with amount rank < `rank` added so far.
  const below = (rank: number): number => { let n = 0; for (let i = rank; i > 0; i -= i & -i) n += tree[i]!; return n; };

  const pointOrder = sortedIndexes(points.height.length, (i) => points.height[i]!);
  const n = boxes.amountLow.length;
  // Each box is counted twice: minus what lies below heightLow, plus what lies up to heightHigh.
  const sweep = sortedIndexes(2 * n, (e) => (e < n ? boxes.heightLow[e]! - 0.5 : boxes.heightHigh[e - n]! + 0.5));
  const counts = new Int32Array(n);
  let next = 0;
  for (const e of sweep) {
    const box = e < n ? e : e - n;
    const at = e < n ? boxes.heightLow[box]! - 0.5 : boxes.heightHigh[box]! + 0.5;
    while (next < pointOrder.length && points.height[pointOrder[next]!]! < at) add(lowerBound(amounts, points.amount[pointOrder[next++]!]!));
    const inAmounts = Math.max(0, below(upperBound(amounts, boxes.amountHigh[box]!)) - below(lowerBound(amounts, boxes.amountLow[box]!)));
    counts[box] = counts[box]! + (e < n ? -inAmounts : inAmounts);
  }
  // An inverted box (heightLow > heightHigh) holds nothing.
  return Uint32Array.from(counts, (count) => Math.max(0, count));
}

/** Indexes 0..n-1 ordered by key. */
function sortedIndexes(n: number, key: (i: number) => number): Uint32Array {
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = key(i);
  return new Uint32Array(n).map((_, i) => i).sort((a, b) => keys[a]! - keys[b]!);
}

/** First index whose value is >= x. */
function lowerBound(sorted: Float64Array, x: number): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (sorted[mid]! < x) lo = mid + 1; else hi = mid; }
  return lo;
}

/** First index whose value is > x. */
function upperBound(sorted: Float64Array, x: number): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (sorted[mid]! <= x) lo = mid + 1; else hi = mid; }
  return lo;
}
