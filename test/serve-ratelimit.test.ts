import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientIp, clientKey, hashKey, loadKeys, SlidingWindowLimiter } from '../src/serve/ratelimit.js';
import { startServer } from '../src/serve/server.js';
import { isRateLimited } from '../src/serve/route.js';
import { buildHandTree } from './helpers/release-tree.js';

describe('sliding window', () => {
  it('allows `limit` requests per window and refuses the next, with the seconds until one fits again', () => {
    const limiter = new SlidingWindowLimiter(60_000);
    const t0 = 1_800_000_000_000; // a window boundary
    for (let i = 0; i < 10; i++) expect(limiter.hit('a', 10, t0 + i).allowed).toBe(true);
    // The window ends in 45 s, but then the 10 weigh 10 × (1 − elapsed/60 s): 9 are left 6 s later.
    const refused = limiter.hit('a', 10, t0 + 15_000);
    expect(refused).toEqual({ allowed: false, limit: 10, remaining: 0, resetSeconds: 51 });
    expect(limiter.hit('a', 10, t0 + 65_999).allowed).toBe(false);
    expect(limiter.hit('a', 10, t0 + 66_000).allowed).toBe(true);
    expect(limiter.hit('b', 10, t0 + 15_000).allowed).toBe(true);
  });

  it('Retry-After is honest: waiting it succeeds, a second less does not', () => {
    const t0 = 1_800_000_000_000;
    // A client's requests (gaps in ms) until its first refusal, replayed into a fresh limiter per probe.
    const schedule = fc.record({
      limit: fc.integer({ min: 1, max: 12 }),
      start: fc.integer({ min: 0, max: 59_999 }),
      gaps: fc.array(fc.integer({ min: 0, max: 9_000 }), { minLength: 1, maxLength: 80 }),
    });
    fc.assert(fc.property(schedule, ({ limit, start, gaps }) => {
      const replay = (): { limiter: SlidingWindowLimiter; at: number; resetSeconds: number } | null => {
        const limiter = new SlidingWindowLimiter(60_000);
        let at = t0 + start;
        for (const gap of gaps) {
          at += gap;
          const decision = limiter.hit('c', limit, at);
          if (!decision.allowed) return { limiter, at, resetSeconds: decision.resetSeconds };
        }
        return null;
      };
      const refused = replay();
      if (!refused) return;
      expect(refused.limiter.hit('c', limit, refused.at + refused.resetSeconds * 1000).allowed).toBe(true);
      if (refused.resetSeconds > 1) {
        const early = replay()!;
        expect(early.limiter.hit('c', limit, early.at + (refused.resetSeconds - 1) * 1000).allowed).toBe(false);
      }
    }), { numRuns: 2_000 });
  });

  it('the last allowed request says when the next one fits (RateLimit-Reset with nothing remaining)', () => {
    const limiter = new SlidingWindowLimiter(60_000);
    const t0 = 1_800_000_000_000;
    for (let i = 0; i < 4; i++) limiter.hit('a', 5, t0 + 30_000);
    const last = limiter.hit('a', 5, t0 + 30_000);
    expect(last).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.hit('a', 5, t0 + 30_000 + (last.resetSeconds - 1) * 1000).allowed).toBe(false);
    expect(limiter.hit('a', 5, t0 + 30_000 + last.resetSeconds * 1000).allowed).toBe(true);
  });

  it('weighs the previous window by its overlap, so a burst at a boundary is not doubled', () => {
    const limiter = new SlidingWindowLimiter(60_000);
    const t0 = 1_800_000_000_000;
    for (let i = 0; i < 10; i++) limiter.hit('a', 10, t0 + 59_000);
    // 1 s into the next window the previous 10 still weigh 10 × 59/60 ≈ 9.8: nothing allowed.
    expect(limiter.hit('a', 10, t0 + 61_000).allowed).toBe(false);
    // Halfway through, they weigh 5: five more are allowed, the sixth is not.
    const half = t0 + 90_000;
    const allowed = Array.from({ length: 6 }, () => limiter.hit('a', 10, half).allowed);
    expect(allowed).toEqual([true, true, true, true, true, false]);
    // Two windows later everything is forgotten.
    expect(limiter.hit('a', 10, t0 + 180_000).remaining).toBe(9);
  });

  it('keeps at most maxClients entries, evicting the least recently seen', () => {
    const limiter = new SlidingWindowLimiter(60_000, 100);
    const t = 1_800_000_000_000;
    limiter.hit('keep', 1, t);
    for (let i = 0; i < 1_000; i++) {
      limiter.hit(`c${i}`, 5, t);
      if (i % 50 === 0) limiter.hit('keep', 1_000_000, t);
      expect(limiter.size).toBeLessThanOrEqual(100);
    }
    // 'keep' was touched recently, so its count survived: its limit of 1 is used up.
    expect(limiter.hit('keep', 1 + 20, t).remaining).toBe(0);
  });
});

describe('Retry-After over HTTP', () => {
  it('a client that waits the advertised Retry-After gets 200 (clock injected, no real waiting)', async () => {
    const tree = buildHandTree();
    // 30 s into a window, as in the issue: 60 per minute used up, then Retry-After said 29 and the retry got 429.
    let now = 1_800_000_030_000;
    const server = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 60, now: () => now });
    const get = async (): Promise<Response> => {
      const res = await fetch(`${server.url}/api/stats`);
      await res.arrayBuffer();
      return res;
    };
    try {
      for (let i = 0; i < 60; i++) expect((await get()).status).toBe(200);
      const refused = await get();
      expect(refused.status).toBe(429);
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(30);
      expect(refused.headers.get('ratelimit-reset')).toBe(String(wait));
      now += (wait - 1) * 1000;
      expect((await get()).status).toBe(429);
      now += 1000;
      expect((await get()).status).toBe(200);
    } finally {
      await server.close();
      rmSync(tree.root, { recursive: true, force: true });
    }
  });
});

describe('client identity', () => {
  it('groups IPv6 by /64 and unwraps IPv4-mapped addresses', () => {
    expect(clientKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('uses X-Forwarded-For only behind a trusted proxy, and then its right-most valid entry', () => {
    expect(clientIp('10.0.0.1', '1.2.3.4', false)).toBe('10.0.0.1');
    expect(clientIp('10.0.0.1', 'spoofed, 1.2.3.4', true)).toBe('1.2.3.4');
    expect(clientIp('10.0.0.1', ['9.9.9.9', '5.6.7.8'], true)).toBe('5.6.7.8');
    expect(clientIp('10.0.0.1', 'not-an-ip', true)).toBe('10.0.0.1');
    expect(clientIp('10.0.0.1', undefined, true)).toBe('10.0.0.1');
  });
});

describe('keys file', () => {
  it('loads hashed keys and refuses malformed entries with the reason', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pegscope-keys-'));
    try {
      const file = join(dir, 'keys.json');
      writeFileSync(file, JSON.stringify({ keys: [{ sha256: hashKey('k1').toUpperCase(), limit: 100, name: 'w' }] }));
      expect(loadKeys(file).get(hashKey('k1'))).toEqual({ sha256: hashKey('k1'), limit: 100, name: 'w' });
      writeFileSync(file, JSON.stringify({ keys: [{ sha256: 'k1', limit: 100 }] }));
      expect(() => loadKeys(file)).toThrow(/keys\[0\]\.sha256 must be the 64-hex sha256/);
      writeFileSync(file, JSON.stringify({ keys: [{ sha256: hashKey('k1'), limit: -1 }] }));
      expect(() => loadKeys(file)).toThrow(/keys\[0\]\.limit must be an integer >= 0/);
      writeFileSync(file, '[]');
      expect(() => loadKeys(file)).toThrow(/must be \{"keys"/);
      expect(() => loadKeys(join(dir, 'missing.json'))).toThrow(/cannot read keys file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what the rate limit counts (docs/api.md "Rate limits")', () => {
  it('every API endpoint form, and anything with a query string', () => {
    for (const target of ['/api', '/api/', '/api.php', '/api?endpoint=stats', '/api.php?endpoint=stats', '/api/stats', '/api/health', '/api/amounts', '/api/ranges',
      '/api/trace?q=abc', '/api/trace/rltc1abc', '/api/trace/rltc1abc.json', '/api/trace/rltc1abc.csv', '/api/range/trace/ab', '/api/stats.json?x=1']) {
      expect(isRateLimited(target), target).toBe(true);
    }
  });

  it('not the page, its assets, nor release files by their file path', () => {
    for (const target of ['/', '/index.html', '/assets/main-ABC123.js', '/api/stats.json', '/api/amounts.json', '/api/ranges.json', '/api/openapi.json',
      '/api/range/trace/ab.json', '/api/range/trace/ab.json.gz', '/api/series/daily.json', '/feeds/links.json', '/feeds/links.atom', '/manifest.json',
      '/dumps/pegins/pegins-00000000-00009999.parquet']) {
      expect(isRateLimited(target), target).toBe(false);
    }
  });
});
