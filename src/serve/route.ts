/**
 * Request → route (docs/api.md): the Host picks the site, the target picks what
 * answers. Only the shapes below ever reach the file system: fixed names,
 * and endpoint requests whose every parameter has been validated.
 */
import { ENDPOINTS } from '../api/params.js';
import { OPENAPI_PATH } from '../api/openapi.js';
import type { NetworkParams } from '../domain/network.js';
import { echo, isEndpointName, validateParams, type ValidRequest } from './validate.js';
import { explorerRoute, type ExplorerFile } from './explorer.js';
import { isRangeKind, RANGE_KINDS, type RangeKind } from '@pegscope/client';
import { AMOUNT_TABLE_PATH, isServedFile } from '../api/release-files.js';

const MAX_URL_BYTES = 2048;
/** A range by its prefix, with or without `.json`; its .gz/.br siblings are files like any other. */
const RANGE_PATH = /^\/api\/range\/([^/]+)\/([^/.]+|[^/]+\.json)$/;
const RANGE_PREFIX = /^[0-9a-f]{1,8}$/;
/** The characters any q can have (addresses, txids, hashes, heights); the endpoint validates the rest. */
const QUERY_PATH = /^\/api\/(trace|address|follow|block)\/([A-Za-z0-9]{1,100})(\.json|\.csv)?$/;
/**
 * A release file by its name, as a static mirror serves it: segments of safe
 * characters that never start with a dot (no `..`, no hidden files). Only a
 * name that a served row of the layout matches (api/release-files.ts) and the
 * manifest lists is ever opened; it is streamed with byte ranges.
 */
const FILE_PATH = /^\/((?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}\/){0,4}[A-Za-z0-9_-][A-Za-z0-9._-]{0,199})$/;

export type Route =
  | { kind: 'file'; rel: 'api/index.json' | typeof AMOUNT_TABLE_PATH | typeof OPENAPI_PATH }
  /** api/ranges.json, the range layout's index (a files-layout release has none). */
  | { kind: 'ranges' }
  /** One range file: the documents of `kind` whose key hashes to `prefix`. */
  | { kind: 'range'; range: RangeKind; prefix: string }
  | { kind: 'endpoint'; request: ValidRequest }
  | { kind: 'static'; rel: string }
  | ExplorerFile
  | RouteError;

export interface RouteError {
  kind: 'error';
  status: number;
  message: string;
}

/** A target no route can take, refused before anything else is looked at. */
export function targetError(target: string): RouteError | null {
  if (Buffer.byteLength(target) > MAX_URL_BYTES) return { kind: 'error', status: 414, message: `the URL is longer than ${MAX_URL_BYTES} bytes` };
  if (!target.startsWith('/')) return { kind: 'error', status: 400, message: 'the request target must be a path' };
  return null;
}

/** `/api/<name>` without a dot: an endpoint by name (`/api/stats`, `/api/amounts`, `/api/ranges`), never a file. */
const ENDPOINT_PATH = /^\/api\/[^/.]+$/;

/**
 * Whether the rate limit counts a request (docs/api.md "Rate limit"): every
 * API endpoint (`/api`, `/api.php`, `/api/<endpoint>`, `?endpoint=`, the
 * path forms `/api/<kind>/<q>` and `/api/range/<kind>/<prefix>` without
 * `.json`) and anything with a query string. Not counted: the explorer page,
 * its assets and the release's files fetched by their file path (range
 * files, `api/*.json` by name, feeds, dumps), which any static mirror
 * serves without a limit and which are all the page reads. Decided from the
 * target alone, before routing, so a cached answer needs no route.
 */
export function isRateLimited(target: string): boolean {
  if (target.includes('?')) return true;
  if (target === '/api' || target === '/api/' || target === '/api.php') return true;
  if (ENDPOINT_PATH.test(target) || QUERY_PATH.test(target)) return true;
  const range = RANGE_PATH.exec(target);
  return range !== null && !range[2]!.endsWith('.json');
}

/** Maps a request target (checked by targetError) onto a route; validation needs no release, so a bad request is 400 even while nothing is published. */
export function route(target: string, network: NetworkParams): Route {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  let search: URLSearchParams;
  try {
    search = new URLSearchParams(q === -1 ? '' : target.slice(q + 1));
  } catch {
    return error(400, 'the query string cannot be parsed');
  }
  if (path === '/api' || path === '/api/' || path === '/api.php') {
    const named = search.getAll('endpoint');
    if (named.length > 1) return error(400, 'parameter "endpoint" is given more than once; give it once');
    if (named.length === 1) return endpoint(named[0]!, search, network, ['endpoint']);
    if ([...search.keys()].length > 0) {
      return error(400, `the index takes no parameters; name an endpoint with ?endpoint=<name> (${endpointList()})`);
    }
    return { kind: 'file', rel: 'api/index.json' };
  }
  // The amount table wallets cache and score locally (@pegscope/client).
  if (path === '/api/amounts.json' || path === '/api/amounts') {
    return q === -1 ? { kind: 'file', rel: AMOUNT_TABLE_PATH } : error(400, 'the amount table takes no parameters');
  }
  if (path === `/${OPENAPI_PATH}`) {
    return q === -1 ? { kind: 'file', rel: OPENAPI_PATH } : error(400, 'the OpenAPI document takes no parameters');
  }
  if (path === '/api/ranges.json' || path === '/api/ranges') {
    return q === -1 ? { kind: 'ranges' } : error(400, 'the range index takes no parameters');
  }
  const range = RANGE_PATH.exec(path);
  if (range) {
    if (!isRangeKind(range[1]!)) return error(404, `no range kind ${echo(range[1]!)}; kinds: ${RANGE_KINDS.join(', ')}`);
    const prefix = range[2]!.replace(/\.json$/, '');
    if (!RANGE_PREFIX.test(prefix)) return error(400, `a range prefix is 1 to 8 lower-case hex digits (api/ranges.json gives each kind's length); got ${echo(prefix)}`);
    return q === -1 ? { kind: 'range', range: range[1], prefix } : error(400, 'a range takes no parameters');
  }
  // /api/<kind>/<q>: the path form static mirrors know (nginx, _redirects), the same answer as ?q=.
  const byPath = QUERY_PATH.exec(path);
  if (byPath) {
    if (search.has('q')) return error(400, `q is given twice: in the path and as a parameter; give it once`);
    search.append('q', byPath[2]!);
    if (byPath[3] === '.csv') {
      if (search.has('format')) return error(400, 'format is given twice: by the .csv suffix and as a parameter; give it once');
      search.append('format', 'csv');
    }
    return endpoint(byPath[1]!, search, network, []);
  }
  // The explorer page, and the documents it reads by file name.
  const page = explorerRoute(path);
  if (page) return page;
  const named = /^\/api\/([^/.]+)$/.exec(path);
  if (named) return endpoint(named[1]!, search, network, []);
  const file = FILE_PATH.exec(path)?.[1];
  if (file && isServedFile(file)) return q === -1 ? { kind: 'static', rel: file } : error(400, 'files take no parameters');
  return error(404, `no such path; the API is at /api/<endpoint> (${endpointList()}), the index at /api, the release's files are listed in /manifest.json`);
}

function endpoint(name: string, search: URLSearchParams, network: NetworkParams, reserved: string[]): Route {
  if (!isEndpointName(name)) return error(404, `unknown endpoint ${echo(name)}; endpoints: ${endpointList()}`);
  const validated = validateParams(name, search, network, reserved);
  return validated.ok ? { kind: 'endpoint', request: validated.request } : error(400, validated.error);
}

function error(status: number, message: string): RouteError {
  return { kind: 'error', status, message };
}

function endpointList(): string {
  return Object.keys(ENDPOINTS).join(', ');
}

/** The site for a Host header: the only one, the one naming that host, or the one naming none. */
export function siteFor<S extends { hostnames: readonly string[] }>(sites: readonly S[], hostHeader: string | undefined): S | null {
  if (sites.length === 1) return sites[0]!;
  const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '');
  return sites.find((s) => s.hostnames.includes(host)) ?? sites.find((s) => s.hostnames.length === 0) ?? null;
}
