/**
 * Server-side amount helpers. The amount core (litoshi, parsing and
 * formatting coin amounts) is the wallet client's (packages/client), so the
 * router and wallets parse and print amounts with one implementation; it is
 * re-exported here so the pipeline imports amounts from one place.
 */
import { parseCoinAmount, assertLitoshi, type Litoshi } from '@pegscope/client';

export { AmountError, assertLitoshi, coinNumber, formatCoin, LITOSHI_PER_COIN, parseCoinAmount, type Litoshi } from '@pegscope/client';

/**
 * Parses the number text of a node's JSON (`12.50000000`, `1e-8` never occurs in
 * Litecoin Core output, but `0.0` and `3.1250804` do) into litoshi.
 */
export function parseNodeValue(value: number | string): Litoshi {
  const text = typeof value === 'number' ? value.toFixed(8) : value;
  return parseCoinAmount(text);
}

/** DuckDB returns BIGINT as bigint; amounts always fit a safe integer. */
export function fromBigint(value: bigint | number): Litoshi {
  const n = Number(value);
  assertLitoshi(n);
  return n;
}
