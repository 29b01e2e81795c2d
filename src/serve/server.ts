/**
 * The router (docs/api.md): node:http in front of the published release tree.
 * HTTP statuses are decided in src/serve and only there; it never opens the
 * database. route.ts maps a request to a route, release.ts reads releases,
 * answer.ts shapes endpoint replies, http.ts writes them; this file wires
 * them together with the rate limit and the answer cache.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toJson } from '../api/json.js';
import { networkParams, type NetworkName } from '../domain/network.js';
import { Lru } from '../lru.js';
import { DEFAULT_CACHE_LIMITS, type CacheLimits } from './limits.js';
import { answer, rangeFile, rangesIndex, requiredFile, type CachePolicy, type Reply } from './answer.js';
import { answerClientError, bodyOf, commonHead, contentType, methodNotAllowed, PreparedBody, preflight, refuseSocket, sendBody, sendError, sendFile, sendPrepared, setCommonHeaders, staticType } from './http.js';
import { ENTRY_OVERHEAD_BYTES, FileCache, ReleaseDamaged, ReleaseUnavailable, Site, type CachedFile, type Release } from './release.js';
import { clientIp, clientKey, hashKey, loadKeys, SlidingWindowLimiter, type ApiKey, type RateDecision, type RateLimiter } from './ratelimit.js';
import { isRateLimited, route, siteFor, targetError, type Route } from './route.js';
import { ASSET_CACHE_CONTROL } from '../api/explorer.js';
import { analysisCacheControl, COMPUTED_CACHE_CONTROL, DEFAULT_CACHE_SECONDS } from '../api/caching.js';
import { explorerMissing, type ExplorerFile } from './explorer.js';
import { listenError } from './port.js';

export { DEFAULT_CACHE_SECONDS } from '../api/caching.js';

export { DEFAULT_CACHE_LIMITS, type CacheLimits } from './limits.js';

export interface ServeOptions {
  sites: { network: NetworkName; outDir: string; hostnames?: string[] }[];
  host: string;
  port: number;
  /** Requests per minute per client IP (IPv6 per /64); 0 disables. */
  rateLimit: number;
  keysFile?: string;
  /** Take the client IP from the right-most X-Forwarded-For entry (only behind a proxy you run). */
  trustProxy?: boolean;
  /** Seconds a response stays fresh in caches; match the job's `--every` (default DEFAULT_CACHE_SECONDS). */
  cacheSeconds?: number;
  /** health.ok turns false when the analysis is older than this (default DEFAULT_STALE_AFTER_SECONDS, api/health.ts). */
  staleAfterSeconds?: number;
  /** A client that has not sent its whole request head by then gets 408 and is cut (default 10,000 ms). */
  headersTimeoutMs?: number;
  /** Overrides of DEFAULT_CACHE_LIMITS. */
  cacheLimits?: Partial<CacheLimits>;
  /** Where requests are counted; default one SlidingWindowLimiter in this process (the cluster's workers share the primary's). */
  limiter?: RateLimiter;
  /** The clock in unix milliseconds (rate limit, health age, If-Range dates); tests move it. Default Date.now. */
  now?: () => number;
  log?: (line: string) => void;
}

export interface CacheSize {
  entries: number;
  bytes: number;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
  /** What the router's caches hold now; `data` sums the releases the sites have loaded. */
  cacheSizes(): { answers: CacheSize; files: CacheSize; data: CacheSize; clients: number };
}

const MAX_HEADER_BYTES = 8192;

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  if (opts.sites.length === 0) throw new Error('startServer needs at least one site (network and out dir)');
  if (!Number.isInteger(opts.rateLimit) || opts.rateLimit < 0) {
    throw new Error(`rate limit must be an integer >= 0 requests per minute (0 disables); got ${opts.rateLimit}`);
  }
  const limits = { ...DEFAULT_CACHE_LIMITS, ...opts.cacheLimits };
  const files = new FileCache(limits);
  const sites = opts.sites.map((s) => new Site(networkParams(s.network), s.outDir, (s.hostnames ?? []).map((h) => h.toLowerCase()), files, limits.data));
  const keys = opts.keysFile ? loadKeys(opts.keysFile) : new Map<string, ApiKey>();
  const router = new Router(sites, opts, keys, new Lru(limits.answers));

  const headersTimeout = opts.headersTimeoutMs ?? 10_000;
  // Node checks those timeouts every 30 s by default, so a slow-headers client could hold a socket for 40 s.
  const server = createServer({
    maxHeaderSize: MAX_HEADER_BYTES, headersTimeout, requestTimeout: headersTimeout + 5_000, keepAliveTimeout: 5_000, requireHostHeader: false,
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
  }, (req, res) => {
    router.handle(req, res);
  });
  server.timeout = 30_000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket, MAX_HEADER_BYTES));
  // Without a listener Node drops a CONNECT silently; it is a method like any other we refuse.
  server.on('connect', (_req: IncomingMessage, socket) => {
    const { message, headers } = methodNotAllowed('CONNECT');
    refuseSocket(socket, 405, message, headers);
  });
  // Node answers an Expect it does not know with a bare 417; ours carries the error body and CORS.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    setCommonHeaders(res);
    res.shouldKeepAlive = false;
    sendError(req, res, 417, `Expect: ${echoHeader(req.headers.expect)} is not supported; send the request without it (only 100-continue is understood)`);
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException): void => reject(listenError(err, opts.host, opts.port));
    server.once('error', failed);
    server.listen(opts.port, opts.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise<void>((resolve, reject) => {
      for (const site of sites) site.close();
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeIdleConnections();
      // In-flight requests get a moment to finish; then the sockets are cut.
      setTimeout(() => server.closeAllConnections(), 2_000).unref();
    }),
    cacheSizes: () => {
      const loaded = sites.flatMap((s) => (s.loaded ? [s.loaded.parsed] : []));
      return {
        answers: sizeOf(router.answers),
        files: sizeOf(files.files),
        data: { entries: loaded.reduce((n, c) => n + c.size, 0), bytes: loaded.reduce((n, c) => n + c.bytes, 0) },
        clients: router.limiter.size,
      };
    },
  };
}

function sizeOf(cache: Lru<unknown, unknown>): CacheSize {
  return { entries: cache.size, bytes: cache.bytes };
}

/** An answer's cost in the cache: its URL and body, and room for the encodings a computed body may gain later. */
function answerBytes(key: string, answer: PreparedBody): number {
  const body = answer.file.identity.length;
  return key.length + body + (answer.file.compressible ? body : 0) + ENTRY_OVERHEAD_BYTES;
}

/** Rate-limit headers for an admitted request (null when no limit applies), or the refusal to send instead. */
type Admission = { headers: string[] | null } | { status: number; message: string; headers: Record<string, string> };

const UNLIMITED: Admission = { headers: null };

class Router {
  readonly limiter: RateLimiter;
  private readonly cacheSeconds: number;
  private readonly now: () => number;

  constructor(
    private readonly sites: Site[],
    private readonly opts: ServeOptions,
    private readonly keys: Map<string, ApiKey>,
    /** Answers by release and URL: a release never changes, so the same URL gets the same answer until `current` moves. */
    readonly answers: Lru<string, PreparedBody>,
  ) {
    this.cacheSeconds = opts.cacheSeconds ?? DEFAULT_CACHE_SECONDS;
    this.now = opts.now ?? Date.now;
    this.limiter = opts.limiter ?? new SlidingWindowLimiter();
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    // A body the API never reads (GET with a slow body) must not keep the connection: Node would
    // later time the unfinished request out with a second, unsolicited response (408).
    if (declaresBody(req)) {
      res.shouldKeepAlive = false;
      res.once('finish', () => { if (!req.complete) req.socket.end(); });
    }
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
      const pending = this.dispatch(req, res);
      if (pending) pending.catch((err: unknown) => this.fail(req, res, err));
    } catch (err) {
      this.fail(req, res, err);
    }
  }

  /** An error as the client gets it: a release that cannot answer is a 503 (with `unavailableBody`'s members), anything else a 500. */
  private fail(req: IncomingMessage, res: ServerResponse, err: unknown, unavailableBody?: object): void {
    const unavailable = err instanceof ReleaseUnavailable;
    // The operator learns which file of which release was refused; the client only that the release cannot be read.
    if (err instanceof ReleaseDamaged) this.opts.log?.(`release ${err.release} refused: ${err.detail}`);
    else if (!unavailable) this.opts.log?.(`internal error: ${(err as Error).stack ?? err}`);
    if (res.headersSent) res.destroy();
    else if (unavailable) this.refuse(req, res, 503, err.message, {}, unavailableBody);
    else this.refuse(req, res, 500, 'internal error; the operator has been told via the log');
  }

  /** An error response with the headers every response carries. */
  private refuse(req: IncomingMessage, res: ServerResponse, status: number, message: string, headers?: Record<string, string>, extra?: object): void {
    setCommonHeaders(res);
    sendError(req, res, status, message, headers, extra);
  }

  /** Answers the request; a promise when the rate limit is shared or the answer is streamed from a file. */
  private dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const target = req.url ?? '/';
    const bad = targetError(target);
    if (bad) return this.refuse(req, res, bad.status, bad.message);
    // HTTP/1.1 requires Host (RFC 9112 §3.2); Node is told not to refuse it bare, so the refusal has our body.
    if (req.headers.host === undefined && req.httpVersionMinor >= 1) {
      return this.refuse(req, res, 400, 'the request has no Host header; HTTP/1.1 requires one (curl and browsers send it)');
    }
    const site = siteFor(this.sites, req.headers.host);
    if (!site) return this.refuse(req, res, 404, `unknown host; this server answers for ${this.sites.flatMap((s) => s.hostnames).join(', ')}`);

    if (req.method === 'OPTIONS') {
      setCommonHeaders(res);
      return preflight(res);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const { message, headers } = methodNotAllowed(req.method ?? '');
      return this.refuse(req, res, 405, message, headers);
    }
    // The page, its assets and files by name are what any static mirror serves without a limit (route.ts isRateLimited).
    const admission = isRateLimited(target) ? this.admit(req) : UNLIMITED;
    if (admission instanceof Promise) return admission.then((admitted) => this.respond(req, res, site, target, admitted));
    return this.respond(req, res, site, target, admission);
  }

  /**
   * An admitted request: from the answer cache when the release has answered
   * this very target before (the route depends on the target alone, so it
   * is not parsed again), else routed and answered.
   */
  private respond(req: IncomingMessage, res: ServerResponse, site: Site, target: string, admission: Admission): Promise<void> | void {
    if ('status' in admission) return this.refuse(req, res, admission.status, admission.message, admission.headers);
    const rate = admission.headers;
    // A bad request is a 400 even while nothing is published: the release is required only once the route is valid.
    const published = currentOrNull(site);
    const hit = published && this.answers.get(`${published.key}\n${target}`);
    if (hit) return sendPrepared(req, res, hit, rate);

    const r = route(target, site.network);
    if (r.kind === 'error') return sendError(req, withHeaders(res, rate), r.status, r.message);
    const release = published ?? this.releaseFor(req, res, site, r);
    if (!release) return;
    if (r.kind === 'static') return this.sendStatic(req, withHeaders(res, rate, release), site, release, r.rel);
    if (r.kind === 'explorer') return this.sendExplorer(req, withHeaders(res, rate, release), site, release, r);

    const reply: Reply = r.kind === 'file' ? requiredFile(site, release, r.rel, 'json')
      : r.kind === 'ranges' ? rangesIndex(site, release)
      : r.kind === 'range' ? rangeFile(site, release, r.range, r.prefix)
      : answer(site, release, r.request, this.now(), this.opts.staleAfterSeconds);
    const entry = this.cacheable(reply, release);
    if (!entry) return this.reply(req, withHeaders(res, rate, release), reply);
    // A prepared body carries the common and release headers in its head, so none are set on res first.
    if (reply.kind !== 'json' || reply.keep !== false) {
      const key = `${release.key}\n${target}`;
      this.answers.set(key, entry, answerBytes(key, entry));
    }
    sendPrepared(req, res, entry, rate);
  }

  /** The release to answer from; health's 503 also says `ok: false`, so a monitor reading the field sees it too. */
  private releaseFor(req: IncomingMessage, res: ServerResponse, site: Site, r: Route): Release | null {
    try {
      return site.current();
    } catch (err) {
      if (r.kind !== 'endpoint' || r.request.endpoint !== 'health') throw err;
      this.fail(req, res, err, { health: { ok: false } });
      return null;
    }
  }

  /** The answer kept for a URL when it depends on the release alone (not health, not errors), with its response heads. */
  private cacheable(reply: Reply, release: Release): PreparedBody | null {
    const prepared = (file: CachedFile, type: string, filename?: string): PreparedBody =>
      new PreparedBody(file, type, this.cacheControl('analysis'), filename, commonHead('X-Pegscope-Release', release.id));
    if (reply.kind === 'file' && reply.cache === 'analysis') {
      return reply.format === 'csv' && reply.filename ? prepared(reply.file, contentType('csv'), reply.filename) : prepared(reply.file, contentType(reply.format));
    }
    if (reply.kind === 'json' && reply.cache === 'analysis') return prepared(bodyOf(toJson(reply.body)), contentType('json'));
    if (reply.kind === 'csv') return prepared(bodyOf(reply.text), contentType('csv'), reply.filename);
    return null;
  }

  /** Rate limit: per API key when a known one is sent, else per client IP. */
  private admit(req: IncomingMessage): Admission | Promise<Admission> {
    const sent = req.headers['x-api-key'];
    let client: string;
    let limit: number;
    if (sent !== undefined) {
      const key = this.keys.get(hashKey(Array.isArray(sent) ? sent.join(',') : sent));
      if (!key) return { status: 401, message: 'X-API-Key is not a known key; check it, or omit the header to use the anonymous per-IP limit', headers: {} };
      if (key.limit === 0) return UNLIMITED;
      [client, limit] = [`key:${key.sha256}`, key.limit];
    } else if (this.opts.rateLimit > 0) {
      const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.opts.trustProxy ?? false);
      [client, limit] = [`ip:${clientKey(ip)}`, this.opts.rateLimit];
    } else {
      return UNLIMITED;
    }
    const decision = this.limiter.hit(client, limit, this.now());
    return decision instanceof Promise ? decision.then(admission) : admission(decision);
  }

  private async sendStatic(req: IncomingMessage, res: ServerResponse, site: Site, release: Release, rel: string): Promise<void> {
    const file = await site.open(release, rel);
    if (!file) return sendError(req, res, 404, `the published release ${release.id} has no ${rel}; /manifest.json lists its files`);
    await sendFile(req, res, file, staticType(rel), this.cacheControl('analysis'), this.now());
  }

  private sendExplorer(req: IncomingMessage, res: ServerResponse, site: Site, release: Release, page: ExplorerFile): void {
    const file = site.file(release, page.rel);
    if (!file) return sendError(req, res, 404, explorerMissing(`/${page.rel}`));
    for (const [name, value] of Object.entries(page.headers)) res.setHeader(name, value);
    sendBody(req, res, file, page.type, page.immutable ? ASSET_CACHE_CONTROL : this.cacheControl('analysis'));
  }

  private reply(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
    switch (reply.kind) {
      case 'error':
        return sendError(req, res, reply.status, reply.message);
      case 'file':
        return sendBody(req, res, reply.file, contentType(reply.format), this.cacheControl(reply.cache), reply.format === 'csv' ? reply.filename : undefined);
      case 'json':
        return sendBody(req, res, bodyOf(toJson(reply.body)), contentType('json'), this.cacheControl(reply.cache));
      case 'csv':
        return sendBody(req, res, bodyOf(reply.text), contentType('csv'), this.cacheControl('analysis'), reply.filename);
    }
  }

  private cacheControl(policy: CachePolicy): string {
    return policy === 'none' ? COMPUTED_CACHE_CONTROL : analysisCacheControl(this.cacheSeconds);
  }
}

/** Whether a request says a body follows its head (none of the API's requests needs one). */
function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A header's value for an error message: bounded, one line. */
function echoHeader(value: string | string[] | undefined): string {
  return JSON.stringify(String(value ?? '').slice(0, 60));
}

/** Sets the headers every response carries, the rate limit's and the release's, for a reply without a prepared head. */
function withHeaders(res: ServerResponse, rate: readonly string[] | null, release?: Release): ServerResponse {
  setCommonHeaders(res);
  for (let i = 0; rate && i < rate.length; i += 2) res.setHeader(rate[i]!, rate[i + 1]!);
  if (release) res.setHeader('X-Pegscope-Release', release.id);
  return res;
}

/** The RateLimit headers of a decision, or its 429. */
function admission(decision: RateDecision): Admission {
  const headers = [
    'RateLimit-Policy', `${decision.limit};w=60`, 'RateLimit-Limit', String(decision.limit),
    'RateLimit-Remaining', String(decision.remaining), 'RateLimit-Reset', String(decision.resetSeconds),
  ];
  if (decision.allowed) return { headers };
  const refusal: Record<string, string> = { 'Retry-After': String(decision.resetSeconds) };
  for (let i = 0; i < headers.length; i += 2) refusal[headers[i]!] = headers[i + 1]!;
  return {
    status: 429, headers: refusal,
    message: `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s, or self-host pegscope (no limit) or ask for an API key`,
  };
}

/** The site's release, or null while it has none to serve (the caller decides whether that is a 503 yet). */
function currentOrNull(site: Site): Release | null {
  try {
    return site.current();
  } catch (err) {
    if (err instanceof ReleaseUnavailable) return null;
    throw err;
  }
}
