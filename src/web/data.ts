/**
 * The release files the page reads, by relative path: the page works from
 * any directory of any host (a mirror may live under a sub-path). Each file
 * is fetched once per page load.
 */
import type { Envelope } from '../api/envelope.js';
import type { StatsDocument } from '../api/stats.js';
import type { RecommendationsDocument } from '../api/recommendations.js';
import type { LinksDocument } from '../api/links.js';
import type { SeriesDocument, SeriesName } from '../api/series.js';
import { fetchAmountTable, parseAmountTable, type AmountTable, type Verified } from '@pegscope/client';
import { pagePublicKeys } from './trust.js';
import { AMOUNT_TABLE_PATH } from '../api/release-files.js';

/** GET a path relative to the page; a non-2xx answer is an error with the server's message. */
export async function getText(path: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(path);
  } catch (err) {
    throw new Error(`${path} could not be fetched (${(err as Error).message}); check the connection to this mirror`);
  }
  const text = await response.text();
  if (response.status === 429) throw new Error(tooManyRequests(response.headers.get('retry-after')));
  if (!response.ok) {
    let detail = '';
    try {
      detail = `: ${String((JSON.parse(text) as { error?: string }).error ?? '')}`;
    } catch {
      // Not a JSON error body (a plain host's 404 page): the status says enough.
    }
    throw new Error(`${path} answered ${response.status}${detail}`);
  }
  return text;
}

/** What the page says when the host's rate limit refused one of its requests (docs/api.md "Rate limits"). */
export function tooManyRequests(retryAfter: string | null): string {
  const seconds = retryAfter !== null && /^\d{1,6}$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : null;
  return `too many requests, retry in ${seconds === null ? 'a minute' : `${seconds} s`}`;
}

export async function getJson<T>(path: string): Promise<T> {
  return JSON.parse(await getText(path)) as T;
}

const cache = new Map<string, Promise<unknown>>();

function once<T>(path: string): Promise<T> {
  let hit = cache.get(path) as Promise<T> | undefined;
  if (!hit) {
    hit = getJson<T>(path);
    // A failed fetch may be retried by the next page that needs it.
    hit.catch(() => cache.delete(path));
    cache.set(path, hit);
  }
  return hit;
}

export const stats = (): Promise<StatsDocument> => once('api/stats.json');
export const recommendations = (): Promise<RecommendationsDocument> => once('api/recommendations.json');
export const links = (): Promise<LinksDocument> => once('api/links.json');
export const series = <N extends SeriesName>(name: N): Promise<SeriesDocument<N>> => once(`api/series/${name}.json`);
/** The amount table, and what its signature says when the page has keys (null: not verified). */
export interface CheckedAmounts {
  table: AmountTable;
  verified: Verified | null;
}

let amountTable: Promise<CheckedAmounts> | null = null;

/**
 * The amount table wallets cache, checked and decoded like a wallet does it
 * (for the release's own network; with the page's keys, against the signed
 * index); privacy is computed from it in this page.
 */
export function amounts(): Promise<CheckedAmounts> {
  const publicKeys = pagePublicKeys();
  amountTable ??= publicKeys.length > 0
    ? envelope().then(async (env) => {
      const fetched = await fetchAmountTable({ base: new URL('.', location.href).href, network: env.network, publicKeys });
      return { table: fetched.table!, verified: fetched.verified ?? null };
    })
    : Promise.all([envelope(), once<unknown>(AMOUNT_TABLE_PATH)])
      .then(([env, file]) => ({ table: parseAmountTable(file, { network: env.network }).table, verified: null }));
  amountTable.catch(() => {
    amountTable = null;
  });
  return amountTable;
}

/** The release's envelope (network, unit, height, analysis time), from the stats document. */
export const envelope = (): Promise<Envelope> => stats();
