/**
 * The amount table (`api/amounts.json`, docs/amounts.md): every distinct
 * peg-in and peg-out amount with its count, in the common envelope, with the
 * tolerance and horizon it was built with. On the wire each side is two
 * arrays: the amounts delta-encoded (the first amount, then each one's
 * difference to the one before; sorted ascending, so every delta is ≥ 1)
 * and their counts, which roughly halves the gzipped size of
 * `[amount, count]` pairs. `parseAmountTable` checks a fetched table and
 * decodes it into the rows `privacyOf` reads; the exporter's encoder
 * (src/api/amount-table-encode.ts in pegscope) writes with these types.
 */
import type { Litoshi } from './amount.js';
import { isNetworkName, NETWORK_BASICS, notANetwork, type NetworkName, type Unit } from './network.js';
import { ROUNDING_SIGNIFICANT_DIGITS } from './privacy.js';

/** Default link tolerance (0.002 coin): a peg-out matches peg-ins in [A, A + tolerance]. */
export const DEFAULT_TOLERANCE: Litoshi = 200_000;

/** The `version` of the format this client reads (docs/api.md). */
export const AMOUNT_TABLE_VERSION = '1';

/** [amount in litoshi, number of peg-ins (or peg-outs) of exactly that amount], sorted by amount. */
export type AmountCount = [Litoshi, number];

/** What privacy scoring needs: the tolerance and both sides' rows. */
export interface AmountCounts {
  tolerance: Litoshi;
  pegin: AmountCount[];
  pegout: AmountCount[];
}

/** One side on the wire. */
export interface EncodedAmounts {
  /** amount_deltas[0] is the smallest amount, each next entry the difference to the previous amount (litoshi, ≥ 1). */
  amount_deltas: number[];
  /** counts[i]: how many pegs had amount i (≥ 1). */
  counts: number[];
}

/** `api/amounts.json` exactly as published. */
export interface AmountTableFile {
  version: typeof AMOUNT_TABLE_VERSION;
  network: NetworkName;
  unit: Unit;
  as_of_height: number;
  /** Unix seconds of the analysis the table comes from. */
  updated_at: number;
  tolerance: Litoshi;
  /** The table counts the pegs of the last horizon_blocks blocks, or of all time when null. */
  horizon_blocks: number | null;
  rounding: { rule: 'significant-digits'; digits: number };
  pegin: EncodedAmounts;
  pegout: EncodedAmounts;
}

/** A checked, decoded table: what `privacyOf` reads, with the facts of the release it came from. */
export interface AmountTable extends AmountCounts {
  network: NetworkName;
  unit: Unit;
  as_of_height: number;
  updated_at: number;
  horizon_blocks: number | null;
}

/** A fetched amount table that cannot be used (parseAmountTable). */
export class AmountTableError extends Error {
  // Set in index.ts, on the prototype (an Error subclass inherits the name 'Error').
  declare readonly name: 'AmountTableError';
}

export interface ParseAmountTableOptions {
  /** The network the caller expects; a table of another network is an error. */
  network: NetworkName;
  /** Unix seconds to compute the age against (default: now). */
  now?: number;
  /** The rounding digits of the scoring code (default ROUNDING_SIGNIFICANT_DIGITS, 2). */
  roundingDigits?: number;
}

export interface ParsedAmountTable {
  table: AmountTable;
  /** Seconds since the analysis the table comes from (`now − updated_at`, never negative). */
  ageSeconds: number;
}

type Json = Record<string, unknown>;

/** A JSON object (not null, not an array). @internal */
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
/** The clock's Unix seconds. @internal */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function fail(problem: string): never {
  throw new AmountTableError(`not a usable amount table: ${problem}`);
}

/**
 * Checks a fetched `api/amounts.json` (its text, or the value of
 * `response.json()`) and decodes it; an AmountTableError says what is wrong.
 * @remarks Another network, another format version, a malformed field or row.
 */
export function parseAmountTable(json: unknown, options: ParseAmountTableOptions): ParsedAmountTable {
  let value = json;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      fail('it is not valid JSON');
    }
  }
  if (!isObject(value)) fail('expected a JSON object');
  if (value.version !== AMOUNT_TABLE_VERSION) {
    fail(`version is ${JSON.stringify(value.version)}, this client reads version "${AMOUNT_TABLE_VERSION}" (an older or newer pegscope; update the one that is behind)`);
  }
  if (!isNetworkName(value.network)) fail(notANetwork(value.network));
  if (value.network !== options.network) fail(`it is the ${value.network} table, but ${options.network} was asked for`);
  const network = value.network;
  if (value.unit !== NETWORK_BASICS[network].unit) fail(`unit is ${JSON.stringify(value.unit)}; ${network} counts in ${NETWORK_BASICS[network].unit}`);
  for (const key of ['as_of_height', 'updated_at'] as const) {
    if (!isCount(value[key])) fail(`${key} must be a non-negative integer, got ${JSON.stringify(value[key])}`);
  }
  const tolerance = value.tolerance;
  if (!isCount(tolerance) || tolerance === 0) fail(`tolerance must be a positive integer of litoshi, got ${JSON.stringify(tolerance)}`);
  const horizon = value.horizon_blocks;
  if (horizon !== null && (!isCount(horizon) || horizon === 0)) fail(`horizon_blocks must be a positive integer or null, got ${JSON.stringify(horizon)}`);
  const digits = options.roundingDigits ?? ROUNDING_SIGNIFICANT_DIGITS;
  const rounding = value.rounding;
  if (!isObject(rounding) || rounding.rule !== 'significant-digits' || rounding.digits !== digits) {
    fail(`rounding must be {"rule":"significant-digits","digits":${digits}}, got ${JSON.stringify(rounding)}`);
  }
  const updatedAt = value.updated_at as number;
  const now = options.now ?? nowSeconds();
  return {
    table: {
      network, unit: NETWORK_BASICS[network].unit,
      as_of_height: value.as_of_height as number, updated_at: updatedAt,
      tolerance, horizon_blocks: horizon as number | null,
      pegin: decodeSide(value.pegin, 'pegin'),
      pegout: decodeSide(value.pegout, 'pegout'),
    },
    ageSeconds: Math.max(0, now - updatedAt),
  };
}

function decodeSide(side: unknown, name: string): AmountCount[] {
  if (!isObject(side) || !Array.isArray(side.amount_deltas) || !Array.isArray(side.counts)) {
    fail(`${name} must be an object with the arrays amount_deltas and counts`);
  }
  const deltas: unknown[] = side.amount_deltas;
  const counts: unknown[] = side.counts;
  if (deltas.length !== counts.length) fail(`${name} has ${deltas.length} amount_deltas but ${counts.length} counts`);
  const rows = new Array<AmountCount>(deltas.length);
  let amount = 0;
  for (let i = 0; i < deltas.length; i++) {
    const delta = deltas[i];
    const count = counts[i];
    if (!isCount(delta) || delta === 0) fail(`${name}.amount_deltas[${i}] must be a positive integer (amounts ascend), got ${JSON.stringify(delta)}`);
    if (!isCount(count) || count === 0) fail(`${name}.counts[${i}] must be a positive integer, got ${JSON.stringify(count)}`);
    amount += delta;
    if (!Number.isSafeInteger(amount)) fail(`${name}: the amounts add up past the largest exact integer at row ${i}`);
    rows[i] = [amount, count];
  }
  return rows;
}
