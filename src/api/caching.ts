/**
 * Cache-Control of every answer, declared once for the router and for the
 * static hosts' configs (nginx, _headers), so a mirror caches like the router.
 */

/** Seconds an analysis document stays fresh by default; `pegscope serve --cache` changes the router's. */
export const DEFAULT_CACHE_SECONDS = 300;

/** Documents of a release: fresh for `seconds`, then served stale while the cache revalidates. */
export function analysisCacheControl(seconds: number): string {
  return `public, max-age=${seconds}, stale-while-revalidate=${seconds}`;
}

/** health: the router computes its age per request. */
export const COMPUTED_CACHE_CONTROL = 'no-cache';
/** Errors are never kept. */
export const ERROR_CACHE_CONTROL = 'no-store';
