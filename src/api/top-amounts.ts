import { numericParam } from './params.js';
import { ref, responseSchema } from './common-schema.js';
import { document, type AnalysisStamp, type Envelope } from './envelope.js';
import { toCsv } from './csv.js';

/** pegin_amounts and pegout_amounts share one shape; this module is both. */
export type AmountSide = 'pegin' | 'pegout';
export type AmountsKey = 'pegin_amounts' | 'pegout_amounts';
export interface AmountCount { amount: number; count: number }
export type AmountsDocument = Envelope & { count: number } & AmountsTop;
/** data/<side>_amounts.json: the top list without an envelope (the router adds its release's, as for data/links.json). */
export type AmountsTop = Partial<Record<AmountsKey, AmountCount[]>>;

/** How many rows data/<side>_amounts.json holds: the largest `limit`. */
export const TOP_AMOUNTS = numericParam('pegin_amounts', 'limit').max;
export const DEFAULT_AMOUNTS_LIMIT = numericParam('pegin_amounts', 'limit').default;
export const CSV_COLUMNS = ['amount', 'count'] as const;

export const amountsKey = (side: AmountSide): AmountsKey => `${side}_amounts`;

export function amountsSchema(side: AmountSide) {
  return responseSchema(amountsKey(side), amountsKey(side), {
    count: ref('count'),
    [amountsKey(side)]: { type: 'array', maxItems: TOP_AMOUNTS, items: ref('amount_count') },
  });
}

export function amountsDocument(stamp: AnalysisStamp, side: AmountSide, rows: AmountCount[]): AmountsDocument {
  return document(stamp, { count: rows.length, [amountsKey(side)]: rows });
}

export function rowsOf(doc: AmountsTop, side: AmountSide): AmountCount[] {
  const rows = doc[amountsKey(side)];
  if (!rows) throw new Error(`document has no ${amountsKey(side)} list`);
  return rows;
}

/** The answer for `limit`, from the top list (already ordered count desc, amount asc). */
export function sliceAmounts(stamp: AnalysisStamp, top: AmountsTop, side: AmountSide, limit: number): AmountsDocument {
  return amountsDocument(stamp, side, rowsOf(top, side).slice(0, limit));
}

export function amountsCsv(doc: AmountsDocument, side: AmountSide): string {
  return toCsv(CSV_COLUMNS, rowsOf(doc, side).map((r) => [r.amount, r.count]));
}
