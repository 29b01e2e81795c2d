/**
 * Amounts are integer litoshi (1e-8 coin) everywhere inside pegscope.
 * The largest possible sum (84M coin) is 8.4e15 litoshi, below 2^53, so a JS
 * number holds every amount exactly as long as it stays an integer.
 */
export type Litoshi = number;

export const LITOSHI_PER_COIN = 100_000_000;
const DECIMAL_AMOUNT = /^(\d{1,10})(?:\.(\d{1,8}))?$/;

export class AmountError extends Error {}

/** Parses a decimal coin amount ("1.5", "0.00000001") exactly into litoshi. */
export function parseCoinAmount(text: string): Litoshi {
  const match = DECIMAL_AMOUNT.exec(text.trim());
  if (!match) throw new AmountError(`"${text}" is not a coin amount with at most 8 decimals`);
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(8, '0'));
  const litoshi = whole * LITOSHI_PER_COIN + fraction;
  if (!Number.isSafeInteger(litoshi)) throw new AmountError(`"${text}" is too large`);
  return litoshi;
}

/**
 * Parses the number text of a node's JSON (`12.50000000`, `1e-8` never occurs in
 * Litecoin Core output, but `0.0` and `3.1250804` do) into litoshi.
 */
export function parseNodeValue(value: number | string): Litoshi {
  const text = typeof value === 'number' ? value.toFixed(8) : value;
  return parseCoinAmount(text);
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
 * JSON output prints amounts as numbers with at most 8 decimals; this is that
 * number. A double keeps all 8 decimals up to 2^25 coin (33.5M), far above any
 * single peg; CSV and dumps use formatCoin's exact text.
 */
export function coinNumber(litoshi: Litoshi): number {
  return Number(formatCoin(litoshi));
}

export function assertLitoshi(value: number): asserts value is Litoshi {
  if (!Number.isSafeInteger(value)) throw new AmountError(`${value} is not an integer litoshi amount`);
}

/** DuckDB returns BIGINT as bigint; amounts always fit a safe integer. */
export function fromBigint(value: bigint | number): Litoshi {
  const n = Number(value);
  assertLitoshi(n);
  return n;
}
