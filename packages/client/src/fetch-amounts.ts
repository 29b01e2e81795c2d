// Fetching the amount table with its ETag, so a wallet that refreshes it often
// downloads it only when it changed (docs/amounts.md, "Caching").
import { AmountTableError, parseAmountTable, type AmountTable } from './amount-table.js';
import { directory, platformFetch, type Fetch, type FetchSignal } from './lookup.js';
import type { NetworkName } from './network.js';
import { checkDigest, SignedIndex, trustedKeys, type TrustOptions, type Verified } from './verify.js';

/** Fetch whose response has its headers, for the ETag. */
export type FetchWithHeaders = (...args: Parameters<Fetch>) => Promise<Awaited<ReturnType<Fetch>> & { headers: { get(name: string): string | null } }>;

/** With `publicKeys`, the table is checked against the signed index (docs/verifying.md) and `sha256` replaces `etag`. */
export interface FetchAmountTableOptions extends TrustOptions {
  /** The directory holding `api/`. */
  base: string;
  network: NetworkName;
  /** The ETag of the wallet's table: an unchanged one is a 304, no body. */
  etag?: string | null;
  fetch?: FetchWithHeaders;
  signal?: FetchSignal;
  /** Unix seconds to compute the age against (default: now). */
  now?: number;
  /** With publicKeys: the previous `verified.sha256`; an unchanged table is then notModified, not fetched. */
  sha256?: string;
}

/** What the signature vouches for, and the table's sha256 (pass it back as `sha256`). */
export type VerifiedTable = Verified & { sha256: string };

/** `verified` is set when publicKeys were given. */
export type FetchedAmountTable = { etag: string | null; verified?: VerifiedTable }
  & ({ notModified: true; table: null; ageSeconds: null } | { notModified: false; table: AmountTable; ageSeconds: number });

const AMOUNTS_PATH = 'api/amounts.json';

/**
 * GET api/amounts.json (If-None-Match: etag), checked by parseAmountTable; a
 * failure is an AmountTableError, and with publicKeys a refused table or
 * index is a VerificationError.
 */
export async function fetchAmountTable(options: FetchAmountTableOptions): Promise<FetchedAmountTable> {
  const base = directory(options.base);
  const fetch = options.fetch ?? platformFetch<FetchWithHeaders>(AmountTableError);
  const get = async (path: string, headers: Record<string, string> = {}): Promise<{ status: number; ok: boolean; text: string; etag: string | null }> => {
    const url = `${base}${path}`;
    try {
      const response = await fetch(url, { headers, signal: options.signal });
      // Read either way, so the connection is free again.
      return { status: response.status, ok: response.ok, text: await response.text(), etag: response.headers.get('etag') };
    } catch (err) {
      throw new AmountTableError(`GET ${url} failed: ${(err as Error).message}`, { cause: err });
    }
  };
  const keys = trustedKeys(options);
  let verified: VerifiedTable | undefined;
  if (keys) {
    const now = options.now;
    const signed = new SignedIndex(keys, options.network, options, async (path) => {
      const response = await get(path);
      if (response.status === 404) return null;
      if (!response.ok) throw new AmountTableError(`GET ${base}${path} answered ${response.status}`);
      return response.text;
    }, now === undefined ? undefined : () => now);
    const index = await signed.index();
    const sha256 = index.body.files[AMOUNTS_PATH] ?? '';
    verified = { ...index.verified, sha256 };
    if (options.sha256 === sha256) return { notModified: true, table: null, ageSeconds: null, etag: options.etag ?? null, verified };
  }
  const response = await get(AMOUNTS_PATH, options.etag && !keys ? { 'if-none-match': options.etag } : {});
  if (response.status === 304 && options.etag && !keys) return { notModified: true, table: null, ageSeconds: null, etag: options.etag };
  if (!response.ok) throw new AmountTableError(`GET ${base}${AMOUNTS_PATH} answered ${response.status}`);
  if (verified) checkDigest(AMOUNTS_PATH, response.text, verified.sha256 || undefined);
  const { table, ageSeconds } = parseAmountTable(response.text, { network: options.network, now: options.now });
  return { notModified: false, table, ageSeconds, etag: response.etag, verified };
}
