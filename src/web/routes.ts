/**
 * The page's addresses: `#/<page>/<arg>…`. A result has its own address
 * (`#/lookup/<q>`, `#/privacy/<amount>`), to share, bookmark or go back to;
 * the fragment never leaves the browser (no request or referrer carries it).
 * Pure: main.ts and the views read and build hashes through these.
 */
import type { Side } from '@pegscope/client';

/** `#/block/12` → ['block', ['12']]; hashes that are not routes (`#main`) → null. */
export function routeOf(hash: string): [string, string[]] | null {
  if (hash === '' || hash === '#') return ['', []];
  if (!hash.startsWith('#/')) return null;
  try {
    const [page = '', ...args] = hash.slice(2).split('/').map(decodeURIComponent);
    return [page, args];
  } catch {
    // A malformed %-escape: no page of ours.
    return ['?', []];
  }
}

/** The hash of a page with its arguments, each %-encoded: routeOf(pageHash(p, ...a)) is [p, a]. */
export function pageHash(page: string, ...args: string[]): string {
  return `#/${[page, ...args].map(encodeURIComponent).join('/')}`;
}

/** A lookup's address: `#/lookup/<q>`. */
export const lookupHash = (q: string): string => pageHash('lookup', q);

/** A privacy check's address: `#/privacy/<amount>`, and `/pegout` after it for the peg-out side. */
export const privacyHash = (amount: string, side: Side = 'pegin'): string =>
  side === 'pegin' ? pageHash('privacy', amount) : pageHash('privacy', amount, side);

export interface PrivacyRoute {
  amount: string | null;
  side: Side;
  /** What is wrong with the address, when something is. */
  error?: string;
}

/**
 * The arguments of `#/privacy/<amount>[/<side>]`. The amount is checked by
 * the check itself (the router's rule); a side that is neither `pegin` nor
 * `pegout` is an error worded as the router words its `side` parameter.
 */
export function privacyRoute(args: readonly string[]): PrivacyRoute {
  const [amount = null, side = 'pegin', ...rest] = args;
  if (side !== 'pegin' && side !== 'pegout') return { amount, side: 'pegin', error: `side must be one of pegin, pegout; got ${JSON.stringify(side)}` };
  if (rest.length > 0) return { amount, side, error: `a privacy check's address is #/privacy/<amount> or #/privacy/<amount>/pegout; got ${rest.length} more part(s)` };
  return { amount, side };
}
