/**
 * The router (SPEC §3): node:http in front of the published release tree.
 * HTTP statuses are decided here and only here; it never opens the database.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import serveHandler from 'serve-handler';
import { API_VERSION, ENDPOINTS } from '../api/params.js';
import { networkParams, type NetworkName } from '../domain/network.js';
import { answer, type CachePolicy, type Reply } from './answer.js';
import { FileCache, ReleaseUnavailable, Site, type CachedFile, type Release } from './release.js';
import { clientIp, clientKey, hashKey, loadKeys, SlidingWindowLimiter, type ApiKey, type RateDecision } from './ratelimit.js';
import { echo, isEndpointName, validateParams } from './validate.js';
import { ASSET_CACHE_CONTROL } from '../api/explorer.js';
import { explorerMissing, explorerRoute, type ExplorerFile } from './explorer.js';

export interface ServeOptions {
  sites: { network: NetworkName; outDir: string; hostnames?: string[] }[];
  host: string;
  port: number;
  /** Requests per minute per client IP (IPv6 per /64); 0 disables. */
  rateLimit: number;
  keysFile?: string;
  /** Take the client IP from the right-most X-Forwarded-For entry (only behind a proxy you run). */
  trustProxy?: boolean;
  /** Seconds a response stays fresh in caches; match the job's `--every` (default 300). */
  cacheSeconds?: number;
  /** health.ok turns false when the analysis is older than this (default 3600). */
  staleAfterSeconds?: number;
  /** A client that has not sent its whole request head by then gets 408 and is cut (default 10,000 ms). */
  headersTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export const MAX_URL_BYTES = 2048;
const MAX_HEADER_BYTES = 8192;
const COMPRESS_MIN_BYTES = 1024;
const DUMP_PATH = /^\/dumps\/[a-z_]+\.(?:csv\.gz|parquet)$/;

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  if (opts.sites.length === 0) throw new Error('startServer needs at least one site (network and out dir)');
  if (!Number.isInteger(opts.rateLimit) || opts.rateLimit < 0) {
    throw new Error(`rate limit must be an integer >= 0 requests per minute (0 disables); got ${opts.rateLimit}`);
  }
  const files = new FileCache();
  const sites = opts.sites.map((s) => new Site(networkParams(s.network), s.outDir, (s.hostnames ?? []).map((h) => h.toLowerCase()), files));
  const keys = opts.keysFile ? loadKeys(opts.keysFile) : new Map<string, ApiKey>();
  const router = new Router(sites, opts, keys);

  const headersTimeout = opts.headersTimeoutMs ?? 10_000;
  // Node checks those timeouts every 30 s by default, so a slow-headers client could hold a socket for 40 s.
  const server = createServer({
    maxHeaderSize: MAX_HEADER_BYTES, headersTimeout, requestTimeout: headersTimeout + 5_000, keepAliveTimeout: 5_000,
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
  }, (req, res) => {
    router.handle(req, res);
  });
  server.timeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise<void>((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeIdleConnections();
      // In-flight requests get a moment to finish; then the sockets are cut.
      setTimeout(() => server.closeAllConnections(), 2_000).unref();
    }),
  };
}

type Route =
  | { kind: 'file'; rel: 'api/index.json' | 'api/amounts.json' }
  | { kind: 'endpoint'; name: string; search: URLSearchParams; reserved: string[] }
  | { kind: 'static' }
  | ExplorerFile
  | { kind: 'error'; status: number; message: string };

/** Maps a request target onto a route; only these shapes ever reach the file system. */
export function route(target: string): Route {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  let search: URLSearchParams;
  try {
    search = new URLSearchParams(q === -1 ? '' : target.slice(q + 1));
  } catch {
    return { kind: 'error', status: 400, message: 'the query string cannot be parsed' };
  }
  if (path === '/api' || path === '/api/' || path === '/api.php') {
    const named = search.getAll('endpoint');
    if (named.length > 1) return { kind: 'error', status: 400, message: 'parameter "endpoint" is given more than once; give it once' };
    if (named.length === 1) return { kind: 'endpoint', name: named[0]!, search, reserved: ['endpoint'] };
    if ([...search.keys()].length > 0) {
      return { kind: 'error', status: 400, message: `the index takes no parameters; name an endpoint with ?endpoint=<name> (${endpointList()})` };
    }
    return { kind: 'file', rel: 'api/index.json' };
  }
  // The amount table wallets cache and score locally (pegscope/client).
  if (path === '/api/amounts.json' || path === '/api/amounts') {
    return q === -1 ? { kind: 'file', rel: 'api/amounts.json' } : { kind: 'error', status: 400, message: 'the amount table takes no parameters' };
  }
  // The explorer page, and the documents it reads by file name.
  const page = explorerRoute(path);
  if (page) return page;
  const match = /^\/api\/([^/]+)$/.exec(path);
  if (match) return { kind: 'endpoint', name: match[1]!, search, reserved: [] };
  if (path === '/manifest.json' || DUMP_PATH.test(path)) return q === -1 ? { kind: 'static' } : { kind: 'error', status: 400, message: 'files take no parameters' };
  return { kind: 'error', status: 404, message: `no such path; the API is at /api/<endpoint> (${endpointList()}), the index at /api` };
}

function endpointList(): string {
  return Object.keys(ENDPOINTS).join(', ');
}

interface AnswerEntry {
  file: CachedFile;
  type: string;
  filename?: string;
}

/** The answer kept for a URL when it depends on the release alone (not health, not errors). */
function cacheable(reply: Reply): AnswerEntry | null {
  let entry: AnswerEntry;
  if (reply.kind === 'file' && reply.cache === 'analysis') {
    entry = { file: reply.file, type: contentType(reply.format) };
    if (reply.format === 'csv' && reply.filename) entry.filename = reply.filename;
  } else if (reply.kind === 'json' && reply.cache === 'analysis') {
    entry = { file: dynamicFile(JSON.stringify(reply.body)), type: contentType('json') };
  } else if (reply.kind === 'csv') {
    entry = { file: dynamicFile(reply.text), type: contentType('csv'), filename: reply.filename };
  } else {
    return null;
  }
  return entry;
}

/** Bounded LRU of answers by release and URL (entries and bytes). */
class AnswerCache {
  private readonly entries = new Map<string, AnswerEntry>();
  private bytes = 0;

  constructor(private readonly maxEntries = 10_000, private readonly maxBytes = 32 * 1024 * 1024) {}

  get(key: string): AnswerEntry | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: AnswerEntry): void {
    this.entries.set(key, entry);
    this.bytes += entry.file.identity.length;
    for (const [oldKey, old] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= old.file.identity.length;
    }
  }
}

class Router {
  private readonly limiter = new SlidingWindowLimiter();
  private readonly answers = new AnswerCache();
  private readonly cacheSeconds: number;

  constructor(private readonly sites: Site[], private readonly opts: ServeOptions, private readonly keys: Map<string, ApiKey>) {
    this.cacheSeconds = opts.cacheSeconds ?? 300;
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const log = this.opts.log;
    if (log) {
      const started = performance.now();
      res.on('finish', () => {
        // Path only: query strings carry addresses and amounts, and keys never reach the log.
        const path = (req.url ?? '').split('?')[0]!.slice(0, 200);
        log(`${req.method} ${path} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
      });
    }
    try {
      this.dispatch(req, res);
    } catch (err) {
      const status = err instanceof ReleaseUnavailable ? 503 : 500;
      if (status === 500) this.opts.log?.(`internal error: ${(err as Error).stack ?? err}`);
      if (!res.headersSent) this.error(req, res, status, status === 503 ? (err as Error).message : 'internal error; the operator has been told via the log');
      else res.destroy();
    }
  }

  private dispatch(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const target = req.url ?? '/';
    if (Buffer.byteLength(target) > MAX_URL_BYTES) return this.error(req, res, 414, `the URL is longer than ${MAX_URL_BYTES} bytes`);
    if (!target.startsWith('/')) return this.error(req, res, 400, 'the request target must be a path');
    const site = this.site(req.headers.host);
    if (!site) return this.error(req, res, 404, `unknown host; this server answers for ${this.sites.flatMap((s) => s.hostnames).join(', ')}`);

    if (req.method === 'OPTIONS') return this.preflight(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD, OPTIONS');
      return this.error(req, res, 405, `method ${req.method} is not allowed; the API is read-only: GET, HEAD, OPTIONS`);
    }
    if (!this.admit(req, res)) return;

    let release: Release | null = null;
    let unavailable: unknown = null;
    try {
      release = site.current();
    } catch (err) {
      unavailable = err;
    }
    // A release never changes, so the same URL gets the same answer until `current` moves.
    const key = release ? `${release.dir}\n${target}` : '';
    const hit = release ? this.answers.get(key) : undefined;
    if (release && hit) {
      res.setHeader('X-Pegscope-Release', release.id);
      return this.send(req, res, 200, hit.file, hit.type, this.cacheControl('analysis'), hit.filename);
    }

    const r = route(target);
    if (r.kind === 'error') return this.error(req, res, r.status, r.message);
    if (r.kind === 'endpoint' && !isEndpointName(r.name)) {
      return this.error(req, res, 404, `unknown endpoint ${echo(r.name)}; endpoints: ${endpointList()}`);
    }
    // Validation needs no release: a bad request is 400 even while nothing is published.
    let validated: ReturnType<typeof validateParams> | null = null;
    if (r.kind === 'endpoint' && isEndpointName(r.name)) {
      validated = validateParams(r.name, r.search, site.network, r.reserved);
      if (!validated.ok) return this.error(req, res, 400, validated.error);
    }
    if (!release) throw unavailable;
    res.setHeader('X-Pegscope-Release', release.id);
    if (r.kind === 'static') return this.serveStatic(req, res, release);
    if (r.kind === 'explorer') return this.serveExplorer(req, res, site, release, r);
    let reply: Reply;
    if (r.kind === 'file') {
      const file = site.file(release, r.rel);
      reply = file
        ? { kind: 'file', file, format: 'json', cache: 'analysis' }
        : { kind: 'error', status: 503, message: `the published release lacks ${r.rel}; re-run \`pegscope export\`` };
    } else if (validated?.ok) {
      reply = answer(site, release, validated.request, Date.now(), this.opts.staleAfterSeconds);
    } else {
      return this.error(req, res, 404, 'no such path');
    }
    const entry = cacheable(reply);
    if (!entry) return this.reply(req, res, reply);
    this.answers.set(key, entry);
    this.send(req, res, 200, entry.file, entry.type, this.cacheControl('analysis'), entry.filename);
  }

  private site(hostHeader: string | undefined): Site | null {
    if (this.sites.length === 1) return this.sites[0]!;
    const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '');
    return this.sites.find((s) => s.hostnames.includes(host)) ?? this.sites.find((s) => s.hostnames.length === 0) ?? null;
  }

  private preflight(res: ServerResponse): void {
    res.writeHead(204, {
      'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
      'Access-Control-Allow-Headers': 'X-API-Key, If-None-Match, Content-Type',
      'Access-Control-Max-Age': '86400',
      'Content-Length': '0',
    });
    res.end();
  }

  /** Rate limit: per API key when a known one is sent, else per client IP; false when answered already. */
  private admit(req: IncomingMessage, res: ServerResponse): boolean {
    const sent = req.headers['x-api-key'];
    let decision: RateDecision | null = null;
    if (sent !== undefined) {
      const key = this.keys.get(hashKey(Array.isArray(sent) ? sent.join(',') : sent));
      if (!key) {
        this.error(req, res, 401, 'X-API-Key is not a known key; check it, or omit the header to use the anonymous per-IP limit');
        return false;
      }
      if (key.limit > 0) decision = this.limiter.hit(`key:${key.sha256}`, key.limit);
    } else if (this.opts.rateLimit > 0) {
      const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.opts.trustProxy ?? false);
      decision = this.limiter.hit(`ip:${clientKey(ip)}`, this.opts.rateLimit);
    }
    if (!decision) return true;
    res.setHeader('RateLimit-Policy', `${decision.limit};w=60`);
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    if (decision.allowed) return true;
    res.setHeader('Retry-After', String(decision.resetSeconds));
    this.error(req, res, 429, `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s, or self-host pegscope (no limit) or ask for an API key`);
    return false;
  }

  private serveStatic(req: IncomingMessage, res: ServerResponse, release: Release): void {
    res.setHeader('Cache-Control', this.cacheControl('analysis'));
    serveHandler(req, res, { public: release.dir, directoryListing: false, symlinks: false, etag: true, cleanUrls: false }).catch((err: Error) => {
      this.opts.log?.(`static file error: ${err.message}`);
      if (!res.headersSent) this.error(req, res, 503, 'the release file cannot be read');
    });
  }

  private serveExplorer(req: IncomingMessage, res: ServerResponse, site: Site, release: Release, page: ExplorerFile): void {
    const file = site.file(release, page.rel);
    if (!file) return this.error(req, res, 404, explorerMissing(`/${page.rel}`));
    for (const [name, value] of Object.entries(page.headers)) res.setHeader(name, value);
    this.send(req, res, 200, file, page.type, page.immutable ? ASSET_CACHE_CONTROL : this.cacheControl('analysis'));
  }

  private reply(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
    switch (reply.kind) {
      case 'error':
        return this.error(req, res, reply.status, reply.message);
      case 'file':
        return this.send(req, res, 200, reply.file, contentType(reply.format), this.cacheControl(reply.cache), reply.format === 'csv' ? reply.filename : undefined);
      case 'json':
        return this.send(req, res, 200, dynamicFile(JSON.stringify(reply.body)), contentType('json'), this.cacheControl(reply.cache));
      case 'csv':
        return this.send(req, res, 200, dynamicFile(reply.text), contentType('csv'), this.cacheControl('analysis'), reply.filename);
    }
  }

  private cacheControl(policy: CachePolicy): string {
    return policy === 'none' ? 'no-cache' : `public, max-age=${this.cacheSeconds}, stale-while-revalidate=${this.cacheSeconds}`;
  }

  private error(req: IncomingMessage, res: ServerResponse, status: number, message: string): void {
    const body = Buffer.from(JSON.stringify({ error: message, version: API_VERSION }));
    res.statusCode = status;
    res.setHeader('Content-Type', contentType('json'));
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Length', String(body.length));
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  /** One representation: negotiated encoding, strong ETag per encoding, 304 on a match. */
  private send(req: IncomingMessage, res: ServerResponse, status: number, file: CachedFile, type: string, cacheControl: string, filename?: string): void {
    const encoding = chooseEncoding(req.headers['accept-encoding'], file);
    const etag = encoding === 'identity' ? file.etag : `${file.etag.slice(0, -1)}-${encoding}"`;
    const headers: Record<string, string> = { Vary: 'Accept-Encoding', ETag: etag, 'Cache-Control': cacheControl };
    if (matches(req.headers['if-none-match'], etag)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const body = encoded(file, encoding);
    headers['Content-Type'] = type;
    headers['Content-Length'] = String(body.length);
    if (encoding !== 'identity') headers['Content-Encoding'] = encoding;
    if (filename) headers['Content-Disposition'] = `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
    res.writeHead(status, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}

function contentType(format: 'json' | 'csv'): string {
  return format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8';
}

/** A computed body shaped like a release file; it is compressed on first demand, once per encoding. */
function dynamicFile(text: string): CachedFile {
  const identity = Buffer.from(text, 'utf8');
  return { identity, gzip: null, br: null, etag: `"${createHash('sha1').update(identity).digest('base64url')}"`, compressible: identity.length >= COMPRESS_MIN_BYTES };
}

function encoded(file: CachedFile, encoding: Encoding): Buffer {
  if (encoding === 'identity') return file.identity;
  if (encoding === 'br') return (file.br ??= brotliCompressSync(file.identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } }));
  return (file.gzip ??= gzipSync(file.identity, { level: 6 }));
}

type Encoding = 'br' | 'gzip' | 'identity';

export function chooseEncoding(header: string | undefined, file: CachedFile): Encoding {
  if (!header) return 'identity';
  const accepted = new Set<string>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  if ((file.br || file.compressible) && (accepted.has('br') || accepted.has('*'))) return 'br';
  if ((file.gzip || file.compressible) && (accepted.has('gzip') || accepted.has('*'))) return 'gzip';
  return 'identity';
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}
