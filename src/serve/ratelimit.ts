/**
 * Per-client rate limiting (docs/api.md): a sliding window per client IP (IPv6
 * grouped by /64) or per API key. The window is approximated from the
 * current and previous fixed windows (count = previous × overlap + current),
 * which needs two counters per client instead of a log of timestamps; the
 * table is an LRU capped by clients. Counts are compared in request·ms
 * (integers), so the decision and the advertised wait agree exactly.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { Lru } from '../lru.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /**
   * Seconds until the next request is allowed when none is left (Retry-After:
   * waiting that long succeeds if nothing else is counted meanwhile), else
   * until the current fixed window ends (RateLimit-Reset).
   */
  resetSeconds: number;
}

/** Counts requests against limits; a shared one (src/serve/cluster.ts) answers asynchronously. */
export interface RateLimiter {
  hit(client: string, limit: number, now: number): RateDecision | Promise<RateDecision>;
  /** Clients this process keeps counters for. */
  readonly size: number;
}

interface Counter {
  windowStart: number;
  current: number;
  previous: number;
}

export class SlidingWindowLimiter implements RateLimiter {
  private readonly table: Lru<string, Counter>;

  constructor(private readonly windowMs = 60_000, maxClients = 100_000) {
    this.table = new Lru({ maxEntries: maxClients });
  }

  /** Counts one request of `client` against `limit` (>= 1) requests per window; a refused request is not counted. */
  hit(client: string, limit: number, now = Date.now()): RateDecision {
    const w = this.windowMs;
    const windowStart = now - (now % w);
    let counter = this.table.get(client);
    if (!counter) {
      counter = { windowStart, current: 0, previous: 0 };
      this.table.set(client, counter);
    }
    roll(counter, windowStart, w);
    const allowed = weighted(counter, now, w) + w <= limit * w;
    if (allowed) counter.current += 1;
    const remaining = Math.max(0, Math.floor((limit * w - weighted(counter, now, w)) / w));
    const resetMs = remaining > 0 ? windowStart + w - now : msUntilRoom(counter, limit, now, w);
    return { allowed, limit, remaining, resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
  }

  get size(): number {
    return this.table.size;
  }
}

/** Moves a counter into the window starting at `windowStart`. */
function roll(counter: Counter, windowStart: number, w: number): void {
  if (counter.windowStart === windowStart) return;
  counter.previous = counter.windowStart === windowStart - w ? counter.current : 0;
  counter.current = 0;
  counter.windowStart = windowStart;
}

/** Requests in the sliding window ending at `now`, times the window length. */
function weighted(counter: Counter, now: number, w: number): number {
  return counter.previous * (w - (now - counter.windowStart)) + counter.current * w;
}

/**
 * Milliseconds from `now` until one more request fits if none is counted
 * meanwhile: the previous count decays linearly through the current window,
 * then the current count becomes the previous one and decays in turn.
 */
function msUntilRoom(counter: Counter, limit: number, now: number, w: number): number {
  const spare = limit - 1 - counter.current;
  if (spare >= 0) {
    if (counter.previous === 0) return 0;
    // previous × (w − elapsed) <= spare × w
    return counter.windowStart + w - Math.floor((spare * w) / counter.previous) - now;
  }
  // In the next window: current × (w − elapsed) <= (limit − 1) × w
  return counter.windowStart + 2 * w - Math.floor(((limit - 1) * w) / counter.current) - now;
}

/**
 * The rate-limit identity of an IP: IPv4 as is, IPv6 by its /64 (one
 * subscriber usually holds a whole /64), IPv4-mapped IPv6 as IPv4.
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIP(ip) !== 6) return ip;
  return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`;
}

function expandIpv6(ip: string): string[] {
  const withoutZone = ip.split('%')[0]!;
  const [head, tail] = withoutZone.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::1.2.3.4) occupies two groups; only the first four matter here.
  const missing = Math.max(0, 8 - left.length - right.length);
  const groups = tail === undefined ? left : [...left, ...Array<string>(missing).fill('0'), ...right];
  return groups.map((g) => (g.includes('.') ? g : (parseInt(g, 16) || 0).toString(16)));
}

/**
 * The client's address: the socket peer, or with a trusted proxy in front
 * the right-most X-Forwarded-For entry (the one that proxy appended; entries
 * further left are whatever the client claimed).
 */
export function clientIp(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined, trustProxy: boolean): string {
  if (trustProxy && forwardedFor) {
    const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
    const last = header.split(',').map((s) => s.trim()).filter(Boolean).pop();
    if (last && isIP(last)) return last;
  }
  return remoteAddress ?? 'unknown';
}

export interface ApiKey {
  /** Hex sha256 of the key as sent in X-API-Key; the key itself is never stored. */
  sha256: string;
  /** Requests per minute; 0 means unlimited. */
  limit: number;
  name?: string;
}

/** Reads a keys file: `{"keys": [{"sha256": "<64 hex>", "limit": 600, "name": "wallet-x"}]}`. */
export function loadKeys(path: string): Map<string, ApiKey> {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read keys file ${path}: ${(err as Error).message}`);
  }
  const list = (doc as { keys?: unknown })?.keys;
  if (!Array.isArray(list)) throw new Error(`keys file ${path} must be {"keys": [{"sha256": "<hex>", "limit": <per minute>}]}`);
  const keys = new Map<string, ApiKey>();
  list.forEach((entry: Partial<ApiKey>, i) => {
    if (typeof entry?.sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(entry.sha256)) {
      throw new Error(`keys file ${path}: keys[${i}].sha256 must be the 64-hex sha256 of the key`);
    }
    if (!Number.isInteger(entry.limit) || (entry.limit as number) < 0) {
      throw new Error(`keys file ${path}: keys[${i}].limit must be an integer >= 0 (requests per minute, 0 = unlimited)`);
    }
    const key: ApiKey = { sha256: entry.sha256.toLowerCase(), limit: entry.limit as number };
    if (entry.name !== undefined) key.name = String(entry.name);
    keys.set(key.sha256, key);
  });
  return keys;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
