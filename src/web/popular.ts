import { isSuggestable, privacyOf, type AmountCounts, type Litoshi, type Privacy, type Side } from '@pegscope/client';
import { parseNodeValue } from '../domain/amount.js';

/** How many of a side's most used amounts count as popular. */
const POPULAR = 40;

/**
 * The popular amounts (the side's most used, each used at least twice)
 * nearest to `amount` on a log scale, scored like the amount itself, in
 * ascending order: alternatives a person can pick instead.
 */
export function nearestPopular(table: AmountCounts, amount: Litoshi, side: Side, n = 5): Privacy[] {
  const rows = side === 'pegin' ? table.pegin : table.pegout;
  const popular = rows.filter(([value, used]) => used >= 2 && value !== amount)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, POPULAR);
  const distance = (value: Litoshi): number => Math.abs(Math.log(value / amount));
  return popular.sort((a, b) => distance(a[0]) - distance(b[0]) || a[0] - b[0])
    .slice(0, n)
    .map(([value]) => privacyOf(table, value, side))
    .sort((a, b) => a.amount_litoshi - b.amount_litoshi);
}

/** A row of the recommendations' amount lists (docs/api.md, `recommendations`). */
export interface AmountRow {
  amount: number;
  anonymity_set: number;
}

/**
 * The recommendations' best peg-in amounts that a person would type, by the
 * rule every privacy suggestion follows (isSuggestable): 0.9999837 (1 minus a
 * fee) can be among the most used, but it is no amount to advise.
 */
export function bestPeginAmounts(rows: readonly AmountRow[]): AmountRow[] {
  // A JSON coin amount has at most 8 decimals, as a node's does.
  return rows.filter((row) => isSuggestable(parseNodeValue(row.amount)));
}
