/**
 * The CSV rows of trace and links (docs/api.md "CSV"), pure: the export, the
 * router and the explorer page (which bundles this for the browser) give the
 * same bytes.
 */
import { ENDPOINTS } from './params.js';
import { toCsv, type CsvCell } from './csv.js';
import type { LinkRecord, Trace } from './documents.js';

/**
 * CSV rows of a trace: one per link, seen from its side; a peg without links
 * still gets one row with the other side empty.
 */
export function traceCsvRows(trace: Trace): CsvCell[][] {
  const rows: CsvCell[][] = [];
  for (const pegin of trace.pegins) {
    if (pegin.links.length === 0) rows.push(['pegin', pegin.txid, pegin.amount, null, null, null, null, null]);
    for (const l of pegin.links) {
      rows.push(['pegin', pegin.txid, pegin.amount, l.pegout_txid, l.pegout_amount, l.pegout_address, l.pegout_entity, l.confidence]);
    }
  }
  for (const pegout of trace.pegouts) {
    const entity = pegout.attribution?.entity ?? null;
    if (pegout.links.length === 0) rows.push(['pegout', null, null, pegout.txid, pegout.amount, pegout.address, entity, null]);
    for (const l of pegout.links) {
      rows.push(['pegout', l.pegin_txid, l.pegin_amount, pegout.txid, pegout.amount, pegout.address, entity, l.confidence]);
    }
  }
  return rows;
}

export function traceCsv(trace: Trace): string {
  return toCsv(ENDPOINTS.trace.csvColumns ?? [], traceCsvRows(trace));
}

/** Link records as CSV, in the order given (the API's, or a table's sort). */
export function linksCsvOf(links: readonly LinkRecord[]): string {
  return toCsv(ENDPOINTS.links.csvColumns ?? [], links.map((l) => [
    l.confidence, l.risk_score, l.pegout_txid, l.pegout_amount, l.pegout_address, l.pegout_entity,
    l.pegout_category, l.pegin_txid, l.pegin_amount, l.block_gap, l.candidate_count,
  ]));
}
