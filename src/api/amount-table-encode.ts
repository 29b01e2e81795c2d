/**
 * Writing the amount table (`api/amounts.json`, docs/amounts.md): the
 * exporter's side of the wallet package's format. The format (its types,
 * version, default tolerance and parser) is the package's
 * (packages/client/src/amount-table.ts); only the encoder, which no wallet
 * needs, lives here, out of the wallet's install.
 */
import {
  AMOUNT_TABLE_VERSION, AmountTableError, DEFAULT_TOLERANCE, NETWORK_BASICS,
  type AmountCount, type AmountCounts, type AmountTableFile, type EncodedAmounts, type Litoshi, type NetworkName,
} from '@pegscope/client';

export interface AmountCountsInput {
  pegin: Iterable<readonly [Litoshi, number]>;
  pegout: Iterable<readonly [Litoshi, number]>;
  tolerance?: Litoshi;
}

export interface AmountTableFacts {
  network: NetworkName;
  as_of_height: number;
  updated_at: number;
  horizon_blocks: number | null;
  /** The rounding digits privacy scoring uses (ROUNDING_SIGNIFICANT_DIGITS). */
  rounding_digits: number;
}

/** Rows with counts merged per amount, sorted ascending, zero counts dropped. */
export function buildAmountCounts(input: AmountCountsInput): AmountCounts {
  return { tolerance: input.tolerance ?? DEFAULT_TOLERANCE, pegin: mergeCounts(input.pegin), pegout: mergeCounts(input.pegout) };
}

function mergeCounts(rows: Iterable<readonly [Litoshi, number]>): AmountCount[] {
  const counts = new Map<Litoshi, number>();
  for (const [amount, count] of rows) {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new AmountTableError(`amount table: ${amount} is not a positive litoshi amount`);
    if (!Number.isSafeInteger(count) || count < 0) throw new AmountTableError(`amount table: count ${count} for ${amount} is not a non-negative integer`);
    if (count > 0) counts.set(amount, (counts.get(amount) ?? 0) + count);
  }
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

/** The published file of a table. */
export function encodeAmountTable(facts: AmountTableFacts, counts: AmountCounts): AmountTableFile {
  return {
    version: AMOUNT_TABLE_VERSION,
    network: facts.network,
    unit: NETWORK_BASICS[facts.network].unit,
    as_of_height: facts.as_of_height,
    updated_at: facts.updated_at,
    tolerance: counts.tolerance,
    horizon_blocks: facts.horizon_blocks,
    rounding: { rule: 'significant-digits', digits: facts.rounding_digits },
    pegin: encodeSide(counts.pegin),
    pegout: encodeSide(counts.pegout),
  };
}

/** Amounts delta-encoded (each one's difference to the one before) beside their counts. */
function encodeSide(rows: readonly AmountCount[]): EncodedAmounts {
  const amount_deltas: number[] = [];
  const counts: number[] = [];
  let previous = 0;
  for (const [amount, count] of rows) {
    amount_deltas.push(amount - previous);
    counts.push(count);
    previous = amount;
  }
  return { amount_deltas, counts };
}
