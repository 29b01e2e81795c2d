/**
 * Wallet-side privacy scoring of an amount (SPEC §3 `privacy`), computed from a
 * small cached amount table. Pure and dependency-free: it is re-exported as the
 * wallet client `pegscope/client`, so no address ever leaves the device.
 * The table format is documented in docs/amounts.md.
 */
import { formatCoin, type Litoshi } from './amount.js';

export type Side = 'pegin' | 'pegout';

/** Default link tolerance (0.002 coin): a peg-out matches peg-ins in [A, A + tolerance]. */
export const DEFAULT_TOLERANCE: Litoshi = 200_000;

/** Rounding rule: two significant digits of the amount in litoshi (docs/amounts.md). */
export const ROUNDING_SIGNIFICANT_DIGITS = 2;

/** The anonymity set size at which the score reaches 100. */
export const FULL_SCORE_SET = 200;

/** [amount in litoshi, number of peg-ins (or peg-outs) of exactly that amount], sorted by amount. */
export type AmountCount = [Litoshi, number];

export interface AmountTable {
  version: 1;
  tolerance: Litoshi;
  rounding: { rule: 'significant-digits'; digits: number };
  pegin: AmountCount[];
  pegout: AmountCount[];
}

export type Rating = 'Excellent' | 'Good' | 'Moderate' | 'Weak' | 'Very weak';

export interface Privacy {
  side: Side;
  amount: number;
  amount_litoshi: Litoshi;
  rounded: number;
  rounded_low: number;
  rounded_high: number;
  exact_set: number;
  rounded_set: number;
  /** Peg-ins an observer would weigh against this amount (see `window`). */
  window_set: number;
  window: { low: number; high: number; tolerance: number };
  anonymity_set: number;
  privacy_score: number;
  rating: Rating;
  easy_to_single_out: boolean;
  suggested_amount: number | null;
  suggested_amount_set: number | null;
  advice: string;
}

export interface AmountTableInput {
  pegin: Iterable<readonly [Litoshi, number]>;
  pegout: Iterable<readonly [Litoshi, number]>;
  tolerance?: Litoshi;
}

/** Builds the compact table: counts merged per amount, sorted ascending. */
export function buildAmountTable(input: AmountTableInput): AmountTable {
  return {
    version: 1,
    tolerance: input.tolerance ?? DEFAULT_TOLERANCE,
    rounding: { rule: 'significant-digits', digits: ROUNDING_SIGNIFICANT_DIGITS },
    pegin: mergeCounts(input.pegin),
    pegout: mergeCounts(input.pegout),
  };
}

function mergeCounts(rows: Iterable<readonly [Litoshi, number]>): AmountCount[] {
  const counts = new Map<Litoshi, number>();
  for (const [amount, count] of rows) {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`amount table: ${amount} is not a positive litoshi amount`);
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`amount table: count ${count} for ${amount} is not a non-negative integer`);
    if (count > 0) counts.set(amount, (counts.get(amount) ?? 0) + count);
  }
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

/**
 * The rounding bucket of an amount: its value rounded (half up) to two
 * significant digits, and the half-open range [low, high) of amounts that
 * round to it with the same step. 0.0134 → 0.013, 1.2345 → 1.2, 131.7 → 130.
 */
export function roundingBucket(amount: Litoshi): { rounded: Litoshi; low: Litoshi; high: Litoshi; step: Litoshi } {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`${amount} is not a positive litoshi amount`);
  const digits = String(amount).length;
  const step = 10 ** Math.max(0, digits - ROUNDING_SIGNIFICANT_DIGITS);
  if (step === 1) return { rounded: amount, low: amount, high: amount + 1, step };
  const rounded = Math.floor((amount + step / 2) / step) * step;
  return { rounded, low: rounded - step / 2, high: rounded + step / 2, step };
}

/** Prefix sums of counts, built once per table side so each lookup is two binary searches. */
const prefixCache = new WeakMap<AmountCount[], number[]>();

function prefixSums(rows: AmountCount[]): number[] {
  let sums = prefixCache.get(rows);
  if (!sums) {
    sums = new Array<number>(rows.length + 1);
    sums[0] = 0;
    for (let i = 0; i < rows.length; i++) sums[i + 1] = sums[i]! + rows[i]![1];
    prefixCache.set(rows, sums);
  }
  return sums;
}

/** Index of the first row with amount >= value. */
function lowerBound(rows: AmountCount[], value: Litoshi): number {
  let lo = 0, hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]![0] < value) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** Number of entries with amount in [low, high] (inclusive). */
export function countInRange(rows: AmountCount[], low: Litoshi, high: Litoshi): number {
  if (high < low) return 0;
  const sums = prefixSums(rows);
  return sums[lowerBound(rows, high + 1)]! - sums[lowerBound(rows, low)]!;
}

/** Score 0..100 from an anonymity set: logarithmic, 100 at FULL_SCORE_SET or more. */
export function scoreOfSet(set: number): number {
  if (set <= 1) return 0;
  return Math.round(100 * Math.min(1, Math.log(set) / Math.log(FULL_SCORE_SET)));
}

export function ratingOf(score: number): Rating {
  if (score >= 80) return 'Excellent';
  if (score >= 60) return 'Good';
  if (score >= 40) return 'Moderate';
  if (score >= 20) return 'Weak';
  return 'Very weak';
}

/**
 * The window an observer uses. A peg-in of A will be matched by a peg-out a
 * few thousand litoshi below A, whose window [A − fee, A − fee + tolerance]
 * covers peg-ins up to about A + tolerance, so a peg-in hides among peg-ins
 * in [A − tolerance, A + tolerance]. A peg-out of A hides among the peg-ins
 * it could have come from: [A, A + tolerance].
 */
export function windowOf(amount: Litoshi, side: Side, tolerance: Litoshi): { low: Litoshi; high: Litoshi } {
  return side === 'pegin'
    ? { low: Math.max(1, amount - tolerance), high: amount + tolerance }
    : { low: amount, high: amount + tolerance };
}

/** The amount with the largest exact set within ±20 % of `amount` on this side, if larger than the current one. */
function suggestion(rows: AmountCount[], amount: Litoshi, current: number): AmountCount | null {
  const from = lowerBound(rows, Math.floor(amount * 0.8));
  let best: AmountCount | null = null;
  for (let i = from; i < rows.length && rows[i]![0] <= Math.ceil(amount * 1.2); i++) {
    const row = rows[i]!;
    if (row[1] > current && (!best || row[1] > best[1] || (row[1] === best[1] && Math.abs(row[0] - amount) < Math.abs(best[0] - amount)))) best = row;
  }
  return best;
}

/**
 * The `privacy` object of SPEC §3 for an amount about to be pegged in (or out).
 * The anonymity set counts the user's own transaction on top of the table for
 * peg-ins (it is not in the table yet); for peg-outs it is the number of
 * peg-ins the exit could have come from.
 */
export function privacyOf(table: AmountTable, amount: Litoshi, side: Side = 'pegin'): Privacy {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`amount must be a positive integer number of litoshi, got ${amount}`);
  const own = side === 'pegin' ? table.pegin : table.pegout;
  const bucket = roundingBucket(amount);
  const exact = countInRange(own, amount, amount);
  const rounded = countInRange(own, bucket.low, bucket.high - 1);
  const window = windowOf(amount, side, table.tolerance);
  const windowSet = countInRange(table.pegin, window.low, window.high);
  const anonymitySet = side === 'pegin' ? windowSet + 1 : windowSet;
  const score = scoreOfSet(anonymitySet);
  const rating = ratingOf(score);
  const better = suggestion(own, amount, exact);
  return {
    side,
    amount: Number(formatCoin(amount)),
    amount_litoshi: amount,
    rounded: Number(formatCoin(bucket.rounded)),
    rounded_low: Number(formatCoin(bucket.low)),
    rounded_high: Number(formatCoin(bucket.high)),
    exact_set: exact,
    rounded_set: rounded,
    window_set: windowSet,
    window: { low: Number(formatCoin(window.low)), high: Number(formatCoin(window.high)), tolerance: Number(formatCoin(table.tolerance)) },
    anonymity_set: anonymitySet,
    privacy_score: score,
    rating,
    easy_to_single_out: score < 40,
    suggested_amount: better ? Number(formatCoin(better[0])) : null,
    suggested_amount_set: better ? better[1] : null,
    advice: adviceFor(side, score, anonymitySet, better),
  };
}

function adviceFor(side: Side, score: number, set: number, better: AmountCount | null): string {
  const alternative = better ? ` ${formatCoin(better[0])} has been used ${better[1]} times; an amount like it blends in better.` : '';
  if (score >= 80) return `Good cover: ${set} ${side === 'pegin' ? 'peg-ins' : 'candidate peg-ins'} look alike. Still wait a few days before pegging out.`;
  if (score >= 40) return `Some cover (${set} alike). Wait before pegging out and do not peg out the exact amount you pegged in.${alternative}`;
  return side === 'pegin'
    ? `Easy to single out: only ${set} peg-in(s) near this amount, so a later peg-out of about the same amount links back to it. Peg in a common amount, or peg out a different amount after a long wait.${alternative}`
    : `Easy to single out: only ${set} peg-in(s) could be the source of this peg-out. Peg out a different amount than you pegged in, split it, or wait longer.${alternative}`;
}
