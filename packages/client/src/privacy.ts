/**
 * Wallet-side privacy scoring of an amount (`privacy`, docs/api.md), computed from a
 * small cached amount table (amount-table.ts, docs/amounts.md). Pure and
 * dependency-free: the router's `privacy` endpoint and wallets run this same
 * code, so no amount or address has to leave the device.
 */
import { formatCoin, significantDigits, type Litoshi } from './amount.js';
import type { AmountCount, AmountCounts } from './amount-table.js';

export type Side = 'pegin' | 'pegout';

/** Rounding rule: two significant digits of the amount in litoshi (docs/amounts.md). */
export const ROUNDING_SIGNIFICANT_DIGITS = 2;

/** A suggested amount has at most this many significant digits: an amount a person would type (1.5, 0.25, 1.25). */
export const SUGGESTION_MAX_DIGITS = 3;

/** An amount a person would type, as every suggestion is: at most SUGGESTION_MAX_DIGITS significant digits. */
export function isSuggestable(amount: Litoshi): boolean {
  return significantDigits(amount) <= SUGGESTION_MAX_DIGITS;
}

/** Suggestions lie within this fraction of the amount (±20 %): the user wants to move about that much. */
export const SUGGESTION_SPAN = 0.2;

/** The anonymity set size at which the score reaches 100. */
export const FULL_SCORE_SET = 200;

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
  /** The set the score is computed from: window_set, plus 1 for a peg-in (the user's own). */
  anonymity_set: number;
  privacy_score: number;
  rating: Rating;
  easy_to_single_out: boolean;
  /** A nearby amount with at most SUGGESTION_MAX_DIGITS significant digits and a better score, or null. */
  suggested_amount: number | null;
  /** The anonymity set suggested_amount would have (same definition as anonymity_set, at least 2). */
  suggested_amount_set: number | null;
  advice: string;
}

/**
 * The rounding bucket of an amount: rounded (half up) to two significant
 * digits (1.2345 → 1.2), and the range [low, high) that rounds to it.
 * @remarks 0.0134 → 0.013, 131.7 → 130; low and high with the same step.
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
 * The window of peg-ins an observer weighs against an amount A: [A − tolerance,
 * A + tolerance] for a peg-in, [A, A + tolerance] for a peg-out.
 * @remarks A peg-in of A will be matched by a peg-out a few thousand litoshi
 * below A, whose window [A − fee, A − fee + tolerance] covers peg-ins up to
 * about A + tolerance. A peg-out of A hides among the peg-ins it could have
 * come from.
 */
export function windowOf(amount: Litoshi, side: Side, tolerance: Litoshi): { low: Litoshi; high: Litoshi } {
  return side === 'pegin'
    ? { low: Math.max(1, amount - tolerance), high: amount + tolerance }
    : { low: amount, high: amount + tolerance };
}

/** The set an amount of `side` hides in: peg-ins in its window, plus the user's own for a peg-in (it is not in the table yet). */
function anonymitySetOf(table: AmountCounts, amount: Litoshi, side: Side): { window: { low: Litoshi; high: Litoshi }; windowSet: number; set: number } {
  const window = windowOf(amount, side, table.tolerance);
  const windowSet = countInRange(table.pegin, window.low, window.high);
  return { window, windowSet, set: side === 'pegin' ? windowSet + 1 : windowSet };
}

/** Amounts in [low, high] with exactly `digits` significant digits (trailing zeros aside), ascending. */
function roundAmounts(low: Litoshi, high: Litoshi, digits: number): Litoshi[] {
  const out: Litoshi[] = [];
  // Each decade [10^e, 10^(e+1)) holds its round amounts on a grid of 10^(e − digits + 1);
  // a grid point that is also on the next coarser grid has fewer digits.
  for (let decade = 10 ** Math.max(0, String(low).length - 1); decade <= high; decade *= 10) {
    const step = decade / 10 ** (digits - 1);
    if (step < 1) continue;
    for (let a = Math.max(decade, Math.ceil(low / step) * step); a <= high && a < decade * 10; a += step) {
      if (digits === 1 || a % (step * 10) !== 0) out.push(a);
    }
  }
  return out;
}

export interface Suggestion {
  amount: Litoshi;
  /** The anonymity set the suggested amount would have (same definition as `anonymity_set`). */
  set: number;
  score: number;
}

/**
 * A nearby amount a person would type with a better score, or null.
 * @remarks The anonymity set is counted exactly as the score counts it (the
 * window set): amounts within ±SUGGESTION_SPAN of `amount` with 1 or 2
 * significant digits first, then 3; the largest set wins, then the fewest
 * digits, then the nearest. Never a set below 2 peg-ins in the window.
 */
export function suggestAmount(table: AmountCounts, amount: Litoshi, side: Side, score: number): Suggestion | null {
  const low = Math.max(1, Math.ceil(amount * (1 - SUGGESTION_SPAN)));
  const high = Math.min(Number.MAX_SAFE_INTEGER, Math.floor(amount * (1 + SUGGESTION_SPAN)));
  let best: (Suggestion & { digits: number }) | null = null;
  for (let digits = 1; digits <= SUGGESTION_MAX_DIGITS; digits++) {
    // One and two digits compete together; more digits only when those gave nothing.
    if (best && digits > 2) break;
    for (const candidate of roundAmounts(low, high, digits)) {
      if (candidate === amount) continue;
      const { windowSet, set } = anonymitySetOf(table, candidate, side);
      const candidateScore = scoreOfSet(set);
      if (windowSet < 2 || candidateScore <= score) continue;
      const better = !best || set > best.set || (set === best.set && (digits < best.digits
        || (digits === best.digits && Math.abs(candidate - amount) < Math.abs(best.amount - amount))));
      if (better) best = { amount: candidate, set, score: candidateScore, digits };
    }
  }
  return best && { amount: best.amount, set: best.set, score: best.score };
}

/**
 * The `privacy` object (docs/api.md) for an amount about to be pegged in (or out).
 * @remarks The anonymity set counts the user's own transaction on top of the
 * table for peg-ins (it is not in the table yet); for peg-outs it is the
 * number of peg-ins the exit could have come from.
 */
export function privacyOf(table: AmountCounts, amount: Litoshi, side: Side = 'pegin'): Privacy {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`amount must be a positive integer number of litoshi, got ${amount}`);
  const own = side === 'pegin' ? table.pegin : table.pegout;
  const bucket = roundingBucket(amount);
  const exact = countInRange(own, amount, amount);
  const rounded = countInRange(own, bucket.low, bucket.high - 1);
  const { window, windowSet, set } = anonymitySetOf(table, amount, side);
  const score = scoreOfSet(set);
  const rating = ratingOf(score);
  const better = suggestAmount(table, amount, side, score);
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
    anonymity_set: set,
    privacy_score: score,
    rating,
    easy_to_single_out: score < 40,
    suggested_amount: better ? Number(formatCoin(better.amount)) : null,
    suggested_amount_set: better ? better.set : null,
    advice: adviceFor(side, score, set, table.tolerance, better),
  };
}

/** "1 peg-in", "3 peg-ins". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function adviceFor(side: Side, score: number, set: number, tolerance: Litoshi, better: Suggestion | null): string {
  const alike = side === 'pegin' ? plural(set, 'peg-in') : plural(set, 'candidate peg-in');
  const alternative = !better ? '' : side === 'pegin'
    ? ` ${formatCoin(better.amount)} would blend in better: ${plural(better.set, 'peg-in')} within ${formatCoin(tolerance)} of it, yours included (score ${better.score}).`
    : ` ${formatCoin(better.amount)} would blend in better: ${plural(better.set, 'candidate peg-in')} (score ${better.score}).`;
  if (score >= 80) return `Good cover: ${alike} look alike. Still wait a few days before pegging out.${alternative}`;
  if (score >= 40) return `Some cover (${alike} alike). Wait before pegging out and do not peg out the exact amount you pegged in.${alternative}`;
  return side === 'pegin'
    ? `Easy to single out: ${set <= 1 ? 'no other peg-in' : `only ${alike}`} near this amount, so a later peg-out of about the same amount links back to it. Peg in a common amount, or peg out a different amount after a long wait.${alternative}`
    : `Easy to single out: only ${plural(set, 'peg-in')} could be the source of this peg-out. Peg out a different amount than you pegged in, split it, or wait longer.${alternative}`;
}
