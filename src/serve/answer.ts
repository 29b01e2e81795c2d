/**
 * Endpoint → reply for one validated request against one release. Default
 * parameters are answered by the exported files; other values are shaped
 * from the release's data files; privacy is computed from the amount table.
 */
import { numericParam } from '../api/params.js';
import type { Envelope } from '../api/envelope.js';
import { healthAt } from '../api/health.js';
import { linksCsv, sliceLinks, type LinksTop } from '../api/links.js';
import { amountsCsv, sliceAmounts, type AmountsTop } from '../api/top-amounts.js';
import { followAt, type FollowDocument } from '../api/follow.js';
import { notFoundTrace, traceCsv, type TraceDocument } from '../api/trace.js';
import { privacyOf, type Side } from '@pegscope/client';
import { GZ_MIN } from '../api/release-files.js';
import { rangePath, RANGES_INDEX_PATH, type RangeKind } from '@pegscope/client';
import { etagOf } from './release.js';
import type { CachedFile, Release, Site } from './release.js';
import type { Query, ValidRequest } from './validate.js';

export type Reply =
  | { kind: 'file'; file: CachedFile; format: 'json' | 'csv'; filename?: string; cache: CachePolicy }
  | { kind: 'json'; body: object; cache: CachePolicy; keep?: false }
  | { kind: 'csv'; text: string; filename: string }
  | { kind: 'error'; status: number; message: string };

/**
 * `analysis`: valid until the next analysis run; `none`: computed per request (health).
 * A reply with `keep: false` is still cacheable downstream but not kept in the
 * router's answer cache: see privacy below.
 */
export type CachePolicy = 'analysis' | 'none';


export function answer(site: Site, release: Release, request: ValidRequest, now: number, staleAfterSeconds?: number): Reply {
  const { endpoint, values } = request;
  const format = values.format === 'csv' ? 'csv' : 'json';
  switch (endpoint) {
    case 'health':
      return { kind: 'json', body: healthAt(release.health, now / 1000, staleAfterSeconds, site.lastCheck()), cache: 'none' };
    case 'stats':
    case 'recommendations':
      return requiredFile(site, release, `api/${endpoint}.json`, 'json');
    case 'privacy': {
      // Computed in microseconds for any of ~10^16 amounts: keeping each would let a stream of
      // distinct amounts push every trace answer out, and promoting them all through the young
      // generation doubled privacy's p99 under load (bench:serve).
      const privacy = privacyOf(release.amounts, values.amount as number, values.side as Side);
      return { kind: 'json', body: { ...release.envelope, privacy }, cache: 'analysis', keep: false };
    }
    case 'trace':
      return trace(site, release, values.q as Query, format);
    case 'address': {
      const q = values.q as Query & { kind: 'address' };
      const file = queryDocument(site, release, 'address', q.value);
      return file ? { kind: 'file', file, format: 'json', cache: 'analysis' } : { kind: 'json', body: emptyAddress(release.envelope, q.value), cache: 'analysis' };
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

/** api/ranges.json of a ranges release; a files-layout release has per-query files instead. */
export function rangesIndex(site: Site, release: Release): Reply {
  if (!release.ranges) return filesLayout(release);
  return requiredFile(site, release, RANGES_INDEX_PATH, 'json');
}

/** One range file as exported; its prefix must have the layout's length for its kind. */
export function rangeFile(site: Site, release: Release, kind: RangeKind, prefix: string): Reply {
  if (!release.ranges) return filesLayout(release);
  const length = release.ranges.kinds[kind].prefix_length;
  if (prefix.length !== length) {
    return { kind: 'error', status: 404, message: `${kind} ranges of release ${release.id} have ${length}-digit prefixes (api/ranges.json); got ${prefix.length} digits` };
  }
  return requiredFile(site, release, rangePath(kind, prefix), 'json');
}

function filesLayout(release: Release): Reply {
  return { kind: 'error', status: 404, message: `release ${release.id} has one file per query (--layout files), not ranges: ask /api/<endpoint>?q=… instead` };
}

function missing(rel: string): Reply {
  return { kind: 'error', status: 503, message: `the published release lacks ${rel}; re-run \`pegscope export\`` };
}

/**
 * The default document of a query: a line of its range file (ranges layout)
 * or api/<kind>/<key>.json (files layout); null when the release has none.
 */
function queryDocument(site: Site, release: Release, kind: RangeKind, key: string): CachedFile | null {
  if (!release.ranges) return site.file(release, `api/${kind}/${key}.json`);
  const line = site.range(release, kind, key).documents.get(key);
  return line ? documentFile(line) : null;
}

/** A document cut from a range, sent like the file the files layout has for it (compressed from the size that gets a .gz sibling there). */
function documentFile(identity: Buffer): CachedFile {
  return { identity, gzip: null, br: null, etag: etagOf(identity), compressible: identity.length >= GZ_MIN };
}

function trace(site: Site, release: Release, q: Query, format: 'json' | 'csv'): Reply {
  const value = String(q.value);
  const filename = `pegscope-trace-${value}.csv`;
  // The files layout has the CSV twin as a file; the ranges layout derives it from the document, as the exporter did.
  if (format === 'csv' && !release.ranges) {
    const file = fileReply(site, release, `api/trace/${value}.csv`, 'csv', filename);
    if (file) return file;
  }
  const file = queryDocument(site, release, 'trace', value);
  if (format === 'json' && file) return { kind: 'file', file, format, cache: 'analysis' };
  const found = file ? (JSON.parse(file.identity.toString('utf8')) as TraceDocument).trace : notFoundTrace(release.envelope, value).trace;
  if (format === 'csv') return { kind: 'csv', text: traceCsv(found), filename };
  return { kind: 'json', body: notFoundTrace(release.envelope, value), cache: 'analysis' };
}

/**
 * The default depth is the query's document; other depths cut the longest
 * chain the release holds for q: its chain beyond the default depth
 * (data/follow/, or the range's chains) or else its document.
 */
function follow(site: Site, release: Release, address: string, depth: number): Reply {
  const byDefault = numericParam('follow', 'depth').default;
  if (depth === byDefault) {
    const file = queryDocument(site, release, 'follow', address);
    if (file) return { kind: 'file', file, format: 'json', cache: 'analysis' };
  }
  const text = (depth > byDefault ? followChainOf(site, release, address) : null) ?? queryDocument(site, release, 'follow', address)?.identity;
  if (!text) return { kind: 'json', body: emptyFollow(release.envelope, address, depth), cache: 'analysis' };
  return { kind: 'json', body: followAt(JSON.parse(text.toString('utf8')) as FollowDocument, depth), cache: 'analysis' };
}

/** The whole chain of an address whose chain is longer than the default depth, or null. */
function followChainOf(site: Site, release: Release, address: string): Buffer | null {
  if (release.ranges) return site.range(release, 'follow', address).chains.get(address) ?? null;
  return site.file(release, `data/follow/${address}.json`)?.identity ?? null;
}

function links(site: Site, release: Release, minConfidence: number, limit: number, format: 'json' | 'csv'): Reply {
  if (minConfidence === numericParam('links', 'min_confidence').default && limit === numericParam('links', 'limit').default) {
    return requiredFile(site, release, `api/links.${format}`, format, 'pegscope-links.csv');
  }
  const top = site.data<LinksTop>(release, 'data/links.json');
  if (!Array.isArray(top?.links)) return missing('data/links.json');
  const body = sliceLinks(release.envelope, top, minConfidence, limit);
  if (format === 'csv') return { kind: 'csv', text: linksCsv(body), filename: 'pegscope-links.csv' };
  return { kind: 'json', body, cache: 'analysis' };
}

function amounts(site: Site, release: Release, endpoint: 'pegin_amounts' | 'pegout_amounts', limit: number, format: 'json' | 'csv'): Reply {
  if (limit === numericParam(endpoint, 'limit').default) {
    return requiredFile(site, release, `api/${endpoint}.${format}`, format, `pegscope-${endpoint}.csv`);
  }
  const rel = `data/${endpoint}.json`;
  const top = site.data<AmountsTop>(release, rel);
  const side = endpoint === 'pegin_amounts' ? 'pegin' : 'pegout';
  if (!Array.isArray(top?.[endpoint])) return missing(rel);
  const body = sliceAmounts(release.envelope, top, side, limit);
  if (format === 'csv') return { kind: 'csv', text: amountsCsv(body, side), filename: `pegscope-${endpoint}.csv` };
  return { kind: 'json', body, cache: 'analysis' };
}

function block(site: Site, release: Release, q: Query): Reply {
  const file = blockDocument(site, release, q);
  if (file) return { kind: 'file', file, format: 'json', cache: 'analysis' };
  const what = q.kind === 'height' ? `height ${q.value}` : `hash ${q.value}`;
  return {
    kind: 'error', status: 404,
    message: `no MWEB block with peg-ins or peg-outs at ${what} in this release (analysed up to height ${release.envelope.as_of_height}); q must name a block with peg activity`,
  };
}


/** A block's document by height, or by hash (files layout: a second name; ranges: the hash's range maps it to the height). */
function blockDocument(site: Site, release: Release, q: Query): CachedFile | null {
  if (q.kind === 'height' || !release.ranges) return queryDocument(site, release, 'block', String(q.value));
  const height = site.range(release, 'block', String(q.value)).header.range.aliases?.[String(q.value)];
  return height === undefined ? null : queryDocument(site, release, 'block', String(height));
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
