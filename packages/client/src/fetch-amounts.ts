// Fetching the amount table with its ETag, so a wallet that refreshes it often
// downloads it only when it changed (docs/amounts.md, "Caching").
import { AmountTableError, parseAmountTable, type AmountTable } from './amount-table.js';
import type { FetchSignal } from './lookup.js';
import type { NetworkName } from './network.js';

/** Fetch with the response's headers, for the ETag. */
export type FetchWithHeaders = (url: string, init?: { headers?: Record<string, string>; signal?: FetchSignal }) => Promise<{
  ok: boolean; status: number; headers: { get(name: string): string | null }; text(): Promise<string>;
}>;

export interface FetchAmountTableOptions {
  /** The directory holding `api/`. */
  base: string;
  network: NetworkName;
  /** The ETag of the wallet's table: an unchanged one is a 304, no body. */
  etag?: string | null;
  fetch?: FetchWithHeaders;
  signal?: FetchSignal;
  /** Unix seconds to compute the age against (default: now). */
  now?: number;
}

export type FetchedAmountTable =
  | { notModified: true; table: null; ageSeconds: null; etag: string }
  | { notModified: false; table: AmountTable; ageSeconds: number; etag: string | null };

/** GET api/amounts.json (If-None-Match: etag), checked by parseAmountTable; any failure is an AmountTableError. */
export async function fetchAmountTable(options: FetchAmountTableOptions): Promise<FetchedAmountTable> {
  const url = `${options.base.endsWith('/') ? options.base : `${options.base}/`}api/amounts.json`;
  // A browser's fetch must be called on globalThis ("Illegal invocation" otherwise).
  const fetch = options.fetch ?? (typeof globalThis.fetch === 'function' ? (globalThis.fetch.bind(globalThis) as unknown as FetchWithHeaders) : undefined);
  if (!fetch) throw new AmountTableError('no fetch available: pass one in the options');
  let response: Awaited<ReturnType<FetchWithHeaders>>;
  let text: string;
  try {
    response = await fetch(url, { headers: options.etag ? { 'if-none-match': options.etag } : {}, signal: options.signal });
    // Read either way, so the connection is free again.
    text = await response.text();
  } catch (err) {
    throw new AmountTableError(`GET ${url} failed: ${(err as Error).message}`, { cause: err });
  }
  if (response.status === 304 && options.etag) return { notModified: true, table: null, ageSeconds: null, etag: options.etag };
  if (!response.ok) throw new AmountTableError(`GET ${url} answered ${response.status}`);
  const { table, ageSeconds } = parseAmountTable(text, { network: options.network, now: options.now });
  return { notModified: false, table, ageSeconds, etag: response.headers.get('etag') };
}
