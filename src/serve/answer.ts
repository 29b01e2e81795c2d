/**
 * Endpoint → reply for one validated request against one release. Default
 * parameters are answered by the exported files; other values are shaped
 * from the release's data files; privacy is computed from the amount table.
 */
import { numericParam } from '../api/params.js';
import type { Envelope } from '../api/envelope.js';
import { healthAt } from '../api/health.js';
import { linksCsv, sliceLinks, type LinksDocument } from '../api/links.js';
import { amountsCsv, sliceAmounts, type AmountsDocument } from '../api/top-amounts.js';
import { followAt, followFiles, type FollowDocument } from '../api/follow.js';
import { notFoundTrace, traceCsv } from '../api/trace.js';
import { privacyOf, type Side } from '../domain/privacy.js';
import type { CachedFile, Release, Site } from './release.js';
import type { Query, ValidRequest } from './validate.js';

export type Reply =
  | { kind: 'file'; file: CachedFile; format: 'json' | 'csv'; filename?: string; cache: CachePolicy }
  | { kind: 'json'; body: object; cache: CachePolicy }
  | { kind: 'csv'; text: string; filename: string }
  | { kind: 'error'; status: number; message: string };

/** `analysis`: valid until the next analysis run; `none`: computed per request (health). */
export type CachePolicy = 'analysis' | 'none';


export function answer(site: Site, release: Release, request: ValidRequest, now: number, staleAfterSeconds?: number): Reply {
  const { endpoint, values } = request;
  const format = values.format === 'csv' ? 'csv' : 'json';
  switch (endpoint) {
    case 'health':
      return { kind: 'json', body: healthAt(release.health, now / 1000, staleAfterSeconds), cache: 'none' };
    case 'stats':
    case 'recommendations':
      return requiredFile(site, release, `api/${endpoint}.json`, 'json');
    case 'privacy': {
      const privacy = privacyOf(release.amounts, values.amount as number, values.side as Side);
      return { kind: 'json', body: { ...release.envelope, privacy }, cache: 'analysis' };
    }
    case 'trace':
      return trace(site, release, values.q as Query, format);
    case 'address': {
      const q = values.q as Query & { kind: 'address' };
      return fileReply(site, release, `api/address/${q.value}.json`, 'json')
        ?? { kind: 'json', body: emptyAddress(release.envelope, q.value), cache: 'analysis' };
    }
    case 'follow':
      return follow(site, release, (values.q as Query).value as string, values.depth as number);
    case 'links':
      return links(site, release, values.min_confidence as number, values.limit as number, format);
    case 'pegin_amounts':
    case 'pegout_amounts':
      return amounts(site, release, endpoint, values.limit as number, format);
    case 'block':
      return block(site, release, values.q as Query);
  }
}


function fileReply(site: Site, release: Release, rel: string, format: 'json' | 'csv', filename?: string): Reply | null {
  const file = site.file(release, rel);
  if (!file) return null;
  const reply: Reply = { kind: 'file', file, format, cache: 'analysis' };
  if (filename) reply.filename = filename;
  return reply;
}

/** The release must have every default document; a missing one means a broken export. */
export function requiredFile(site: Site, release: Release, rel: string, format: 'json' | 'csv', filename?: string): Reply {
  return fileReply(site, release, rel, format, filename) ?? missing(rel);
}

function missing(rel: string): Reply {
  return { kind: 'error', status: 503, message: `the published release lacks ${rel}; re-run \`pegscope export\`` };
}

function trace(site: Site, release: Release, q: Query, format: 'json' | 'csv'): Reply {
  const value = String(q.value);
  const file = fileReply(site, release, `api/trace/${value}.${format}`, format, `pegscope-trace-${value}.csv`);
  if (file) return file;
  const notFound = notFoundTrace(release.envelope, value);
  if (format === 'csv') return { kind: 'csv', text: traceCsv(notFound.trace), filename: `pegscope-trace-${value}.csv` };
  return { kind: 'json', body: notFound, cache: 'analysis' };
}

/**
 * The default depth is its own file; other depths cut the longest chain the
 * release holds for q (data/follow/ for chains beyond the default depth).
 */
function follow(site: Site, release: Release, address: string, depth: number): Reply {
  if (depth === numericParam('follow', 'depth').default) {
    const file = fileReply(site, release, `api/follow/${address}.json`, 'json');
    if (file) return file;
  }
  for (const rel of followFiles(address, depth)) {
    const doc = site.data<FollowDocument>(release, rel);
    if (doc) return { kind: 'json', body: followAt(doc, depth), cache: 'analysis' };
  }
  return { kind: 'json', body: emptyFollow(release.envelope, address, depth), cache: 'analysis' };
}

function links(site: Site, release: Release, minConfidence: number, limit: number, format: 'json' | 'csv'): Reply {
  if (minConfidence === numericParam('links', 'min_confidence').default && limit === numericParam('links', 'limit').default) {
    return requiredFile(site, release, `api/links.${format}`, format, 'pegscope-links.csv');
  }
  const top = site.data<LinksDocument>(release, 'data/links.json');
  if (!top) return missing('data/links.json');
  const body = sliceLinks(top, minConfidence, limit);
  if (format === 'csv') return { kind: 'csv', text: linksCsv(body), filename: 'pegscope-links.csv' };
  return { kind: 'json', body, cache: 'analysis' };
}

function amounts(site: Site, release: Release, endpoint: 'pegin_amounts' | 'pegout_amounts', limit: number, format: 'json' | 'csv'): Reply {
  if (limit === numericParam(endpoint, 'limit').default) {
    return requiredFile(site, release, `api/${endpoint}.${format}`, format, `pegscope-${endpoint}.csv`);
  }
  const rel = `data/${endpoint}.json`;
  const top = site.data<AmountsDocument>(release, rel);
  const side = endpoint === 'pegin_amounts' ? 'pegin' : 'pegout';
  if (!top?.[endpoint]) return missing(rel);
  const body = sliceAmounts(top, side, limit);
  if (format === 'csv') return { kind: 'csv', text: amountsCsv(body, side), filename: `pegscope-${endpoint}.csv` };
  return { kind: 'json', body, cache: 'analysis' };
}

function block(site: Site, release: Release, q: Query): Reply {
  const file = fileReply(site, release, `api/block/${q.value}.json`, 'json');
  if (file) return file;
  const what = q.kind === 'height' ? `height ${q.value}` : `hash ${q.value}`;
  return {
    kind: 'error', status: 404,
    message: `no MWEB block with peg-ins or peg-outs at ${what} in this release (analysed up to height ${release.envelope.as_of_height}); q must name a block with peg activity`,
  };
}


function emptyFollow(envelope: Envelope, query: string, depth: number): FollowDocument {
  return { ...envelope, follow: { query, depth, hops: [], total_confidence: 0 } };
}

/** A valid address the release has never seen in a peg: no attribution, zero totals. */
function emptyAddress(envelope: Envelope, address: string): object {
  return {
    ...envelope,
    address: { address, attribution: null, pegouts_received: { count: 0, total: 0 }, pegins_funded: { count: 0, total: 0 } },
  };
}
