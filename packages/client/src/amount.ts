/**
 * Amounts are integer litoshi (1e-8 coin) everywhere inside pegscope.
 * The largest possible sum (84M coin) is 8.4e15 litoshi, below 2^53, so a JS
 * number holds every amount exactly as long as it stays an integer.
 */
export type Litoshi = number;

export const LITOSHI_PER_COIN = 100_000_000;
const DECIMAL_AMOUNT = /^(\d{1,10})(?:\.(\d{1,8}))?$/;
/** Longest piece of the input an error message quotes, so a huge input is not echoed back. */
const MAX_QUOTE = 80;

/** An amount that is not a valid coin amount. */
export class AmountError extends Error {
  // Set in index.ts, on the prototype (an Error subclass inherits the name 'Error').
  declare readonly name: 'AmountError';
}

/** How a coin amount is written, as the errors say it. */
const WRITTEN = 'with at most 8 decimals and no spaces (e.g. 1.5)';

const quote = (text: string): string => JSON.stringify(text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text);

/**
 * Parses a decimal coin amount ("1.5", "0.00000001") exactly into litoshi.
 * Strict: digits, an optional point and at most 8 decimals, no space.
 * @remarks A space anywhere is an error, here and in the router's `amount`
 * parameter alike (a form trims what the user typed before calling this).
 */
export function parseCoinAmount(text: string): Litoshi {
  const match = DECIMAL_AMOUNT.exec(text);
  if (!match) throw new AmountError(`${quote(text)} is not a coin amount: write digits ${WRITTEN}`);
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(8, '0'));
  const litoshi = whole * LITOSHI_PER_COIN + fraction;
  if (!Number.isSafeInteger(litoshi)) throw new AmountError(`${quote(text)} is too large for a coin amount`);
  return litoshi;
}

/**
 * An amount to score: parseCoinAmount's rule, and more than 0.
 * @remarks The router's `amount` parameter is this function, so a wallet,
 * the explorer and the router accept the same texts and reject the rest with
 * the same message.
 */
export function parsePositiveCoinAmount(text: string): Litoshi {
  const litoshi = DECIMAL_AMOUNT.test(text) ? parseCoinAmount(text) : 0;
  if (litoshi === 0) throw new AmountError(`${quote(text)} is not a coin amount greater than 0 ${WRITTEN}`);
  return litoshi;
}

/** Formats litoshi as a decimal coin string with trailing zeros trimmed ("1.5", "0.00000001"). */
export function formatCoin(litoshi: Litoshi): string {
  assertLitoshi(litoshi);
  const sign = litoshi < 0 ? '-' : '';
  const abs = Math.abs(litoshi);
  const whole = Math.floor(abs / LITOSHI_PER_COIN);
  const fraction = String(abs % LITOSHI_PER_COIN).padStart(8, '0').replace(/0+$/, '');
  return fraction ? `${sign}${whole}.${fraction}` : `${sign}${whole}`;
}

/**
 * An amount as JSON output prints it: a number with at most 8 decimals.
 * @remarks A double keeps all 8 decimals up to 2^25 coin (33.5M), far above
 * any single peg; CSV and dumps use formatCoin's exact text.
 */
export function coinNumber(litoshi: Litoshi): number {
  return Number(formatCoin(litoshi));
}

export function assertLitoshi(value: number): asserts value is Litoshi {
  if (!Number.isSafeInteger(value)) throw new AmountError(`${value} is not an integer litoshi amount`);
}

/** Significant digits of a positive litoshi amount (trailing zeros do not count): 150000000 → 2. */
export function significantDigits(litoshi: Litoshi): number {
  return String(litoshi).replace(/0+$/, '').length;
}
