/**
 * Pure shaping of release data into non-default responses: slicing the sorted
 * top lists, truncating full-depth follow chains, the documents for a
 * well-formed but unknown q, and CSV rendering. No I/O.
 */

import { toCsv } from '../api/csv.js';
import type { Envelope } from '../api/envelope.js';

export type { Envelope };

export interface LinkRecord {
  confidence: number;
  block_gap: number;
  [field: string]: unknown;
}

export interface AmountRow {
  amount: number;
  count: number;
}

export interface FollowHop {
  cumulative_confidence: number;
  [field: string]: unknown;
}

export interface FollowBody {
  query: string;
  depth: number;
  hops: FollowHop[];
  total_confidence: number;
}

/** `links` for any min_confidence/limit, from the top list already in API order. */
export function sliceLinks(envelope: Envelope, links: readonly LinkRecord[], minConfidence: number, limit: number) {
  const selected = links.filter((l) => l.confidence >= minConfidence).slice(0, limit);
  return { ...envelope, min_confidence: minConfidence, count: selected.length, links: selected };
}

/** `pegin_amounts` / `pegout_amounts` for any limit, from the top list (most common first). */
export function sliceAmounts(envelope: Envelope, key: 'pegin_amounts' | 'pegout_amounts', rows: readonly AmountRow[], limit: number) {
  const selected = rows.slice(0, limit);
  return { ...envelope, count: selected.length, [key]: selected };
}

/**
 * A follow chain cut to `depth` hops. Hops are in order and each carries the
 * product of the confidences so far, so the cut chain's total is its last hop's.
 */
export function truncateFollow(envelope: Envelope, full: FollowBody, depth: number) {
  const hops = full.hops.slice(0, depth);
  const last = hops[hops.length - 1];
  return { ...envelope, follow: { ...full, depth, hops, total_confidence: last ? last.cumulative_confidence : 0 } };
}

export function emptyFollow(envelope: Envelope, query: string, depth: number) {
  return { ...envelope, follow: { query, depth, hops: [], total_confidence: 0 } };
}

/** SPEC §3: an unknown but well-formed q is 200 with type not_found and empty arrays. */
export function notFoundTrace(envelope: Envelope, query: string) {
  return { ...envelope, trace: { query, type: 'not_found', attribution: null, cluster: null, pegins: [], pegouts: [] } };
}

/** A valid address the release has never seen in a peg: no attribution, zero totals. */
export function emptyAddress(envelope: Envelope, address: string) {
  return {
    ...envelope,
    address: { address, attribution: null, pegouts_received: { count: 0, total: 0 }, pegins_funded: { count: 0, total: 0 } },
  };
}

/** CSV of row objects in the declared column order, through the exporter's CSV writer (same quoting and formula guard). */
export function rowsToCsv(columns: readonly string[], rows: readonly object[]): string {
  return toCsv(columns, rows.map((row) => columns.map((c) => csvValue((row as Record<string, unknown>)[c]))));
}

/** Arrays (reasons) join with "; "; other values pass through. */
function csvValue(value: unknown): string | number | null | undefined {
  if (Array.isArray(value)) return value.join('; ');
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'string') return value;
  return JSON.stringify(value);
}
