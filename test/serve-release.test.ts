/**
 * The router's view of a release: a release removed
 * while serving is a 503 and leaves nothing wrong in any cache; every cache
 * stays within its entries and bytes whatever clients ask.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CACHE_LIMITS, startServer, type RunningServer } from '../src/serve/server.js';
import { FileCache, ReleaseUnavailable, Site } from '../src/serve/release.js';
import { answer } from '../src/serve/answer.js';
import { validateParams } from '../src/serve/validate.js';
import { NETWORKS } from '../src/domain/network.js';
import { buildHandTree, publish, resign, simAddress, writeRelease, type HandTree } from './helpers/release-tree.js';
import { get } from './helpers/http.js';

let tree: HandTree | null = null;
let server: RunningServer | null = null;

afterEach(async () => {
  await server?.close();
  if (tree) rmSync(tree.root, { recursive: true, force: true });
  server = null;
  tree = null;
});

async function serve(options: Partial<Parameters<typeof startServer>[0]> = {}): Promise<{ tree: HandTree; base: string }> {
  tree = buildHandTree();
  server = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0, ...options });
  return { tree, base: server.url };
}

describe('a release directory removed while serving (3.1)', () => {
  it('is a 503 with health not ok, and every answer is right again once it is back', async () => {
    const { tree, base } = await serve();
    const [known] = tree.addresses as [string];
    const r1 = join(tree.outDir, 'releases', 'r1');
    const away = join(tree.root, 'r1-away');
    // Asked before: these answers are in the cache. The rest are first asked while the release is gone.
    const warm = [`/api/trace?q=${known}`, '/api/health'];
    const cold = [`/api/address?q=${known}`, `/api/follow?q=${known}&depth=5`, `/api/trace?q=${known}&format=csv`, '/api/links?limit=3', `/api/follow?q=${simAddress(4242)}&depth=4`, '/dumps/pegins/pegins-00000000-00019999.csv.gz', '/manifest.json'];
    const before = new Map<string, string>();
    for (const path of warm) before.set(path, (await get(base, path)).text);
    expect(JSON.parse(before.get(warm[0]!)!).trace.type).toBe('address');

    renameSync(r1, away);
    for (const path of [...warm, ...cold]) {
      const res = await get(base, path);
      expect(res.status, path).toBe(503);
      expect(res.json, path).toEqual({
        error: expect.stringMatching(/release r1 is missing/), version: '1', ...(path === '/api/health' ? { health: { ok: false } } : {}),
      });
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cache-control']).toBe('no-store');
    }

    renameSync(away, r1);
    expect((await get(base, warm[0]!)).text).toBe(before.get(warm[0]!));
    expect((await get(base, '/api/health')).json.health.ok).toBe(true);
    expect((await get(base, `/api/address?q=${known}`)).json.address.attribution.entity).toBe('Exchange X');
    expect((await get(base, `/api/follow?q=${known}&depth=5`)).json.follow.hops).toHaveLength(5);
    expect((await get(base, `/api/trace?q=${known}&format=csv`)).text.split('\n')).toHaveLength(3);
    expect((await get(base, '/api/links?limit=3')).json.count).toBe(3);
    expect((await get(base, `/api/follow?q=${simAddress(4242)}&depth=4`)).json.follow).toMatchObject({ hops: [], depth: 4 });
    expect((await get(base, '/dumps/pegins/pegins-00000000-00019999.csv.gz')).status).toBe(200);
  });

  it('a release path that is no longer a directory is a 503 too', async () => {
    const { tree, base } = await serve();
    const r1 = join(tree.outDir, 'releases', 'r1');
    renameSync(r1, join(tree.root, 'r1-away'));
    writeFileSync(r1, 'not a directory');
    expect((await get(base, '/api/stats')).status).toBe(503);
  });

  it('a file missing because the release vanished mid-request is ReleaseUnavailable, never "not found"', () => {
    tree = buildHandTree();
    const site = new Site(NETWORKS.sim, tree.outDir, [], new FileCache(DEFAULT_CACHE_LIMITS), DEFAULT_CACHE_LIMITS.data);
    const release = site.current();
    const unknown = validateParams('trace', new URLSearchParams({ q: simAddress(777) }), NETWORKS.sim);
    if (!unknown.ok) throw new Error(unknown.error);
    expect(answer(site, release, unknown.request, Date.now())).toMatchObject({ kind: 'json' });
    // Between resolving `current` and reading a file, the directory goes away.
    renameSync(join(tree.outDir, 'releases', 'r1'), join(tree.root, 'r1-away'));
    mkdirSync(join(tree.outDir, 'releases', 'r1'));
    expect(() => answer(site, release, unknown.request, Date.now())).toThrow(ReleaseUnavailable);
    expect(() => site.data(release, 'data/links.json')).toThrow(/removed or replaced/);
  });
});

describe('the current release, watched instead of looked up per request', () => {
  it('every request after a swap of `current` gets the new release, cached answers included', async () => {
    const { tree, base } = await serve();
    writeRelease(tree, 'r2', 600, Math.floor(Date.now() / 1000));
    for (let i = 0; i < 20; i++) {
      const id = i % 2 ? 'r1' : 'r2';
      publish(tree, id);
      // Asked right after the swap, and again: the second answer comes from the answer cache.
      for (let n = 0; n < 2; n++) {
        const res = await get(base, '/api/stats');
        expect(res.headers['x-pegscope-release'], `swap ${i}`).toBe(id);
        expect(res.json.as_of_height).toBe(id === 'r1' ? 500 : 600);
      }
    }
  });

  it('a release replaced in place (same path, new directory) is seen at once', async () => {
    const { tree, base } = await serve();
    expect((await get(base, '/api/stats')).json.as_of_height).toBe(500);
    const r1 = join(tree.outDir, 'releases', 'r1');
    renameSync(r1, join(tree.root, 'r1-old'));
    writeRelease(tree, 'r1', 700, Math.floor(Date.now() / 1000));
    expect((await get(base, '/api/stats')).json.as_of_height).toBe(700);
  });
});

describe('bounded caches (3.2)', () => {
  const limits = { answers: { maxEntries: 40, maxBytes: 200_000 }, data: { maxEntries: 10, maxBytes: 40_000 } };

  it('follow for many unique unknown addresses leaves the caches within their entries', async () => {
    const { base } = await serve({ cacheLimits: limits });
    for (let i = 0; i < 300; i++) {
      const res = await get(base, `/api/follow?q=${simAddress(10_000 + i)}&depth=${4 + (i % 7)}`);
      expect(res.json.follow.hops).toEqual([]);
    }
    const sizes = server!.cacheSizes();
    // Every answer was cached (the "not found" ones too) and the least recent evicted: the bound, not an absent cache, holds it.
    expect(sizes.answers.entries).toBe(40);
    expect(sizes.data.entries).toBeLessThanOrEqual(10);
    expect(sizes.files.entries).toBeLessThan(300);
  });

  it('parsed data files and computed answers stay within their bytes', async () => {
    const { tree, base } = await serve({ cacheLimits: limits });
    const chain = readFollow(tree);
    // 60 addresses with a full-depth follow chain of their own, each about 3 KB.
    const addresses = Array.from({ length: 60 }, (_, i) => simAddress(20_000 + i));
    for (const address of addresses) {
      writeFileSync(join(tree.outDir, 'current', 'data', 'follow', `${address}.json`), JSON.stringify({ ...chain, follow: { ...chain.follow, query: address } }));
    }
    resign(tree, 'r1');
    for (const address of addresses) expect((await get(base, `/api/follow?q=${address}&depth=6`)).json.follow.hops).toHaveLength(6);
    for (let limit = 1; limit <= 120; limit++) expect((await get(base, `/api/links?limit=${limit}&min_confidence=0`)).status).toBe(200);
    // The two top lists of amounts (14 KB each) are parsed once and kept; links.json (250 KB) is over the budget and read per answer.
    for (const side of ['pegin', 'pegout']) expect((await get(base, `/api/${side}_amounts?limit=7`)).status).toBe(200);
    const sizes = server!.cacheSizes();
    expect(sizes.data.bytes).toBeGreaterThan(0);
    expect(sizes.data.bytes).toBeLessThanOrEqual(40_000);
    expect(sizes.answers.bytes).toBeLessThanOrEqual(200_000);
    expect(sizes.answers.entries).toBeGreaterThan(0);
  });

  it('distinct privacy amounts do not push cached answers out', async () => {
    const { base } = await serve({ cacheLimits: limits });
    expect((await get(base, '/api/stats')).status).toBe(200);
    expect(server!.cacheSizes().answers.entries).toBe(1);
    for (let i = 1; i <= 100; i++) {
      const res = await get(base, `/api/privacy?amount=1.${String(i).padStart(8, '0')}`);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
      expect(res.headers.etag).toBeTruthy();
    }
    // Computed per request and sent with the same caching headers, but never kept: stats is still the one entry.
    expect(server!.cacheSizes().answers.entries).toBe(1);
  });

  it('every default limit is finite', () => {
    for (const [name, value] of Object.entries(DEFAULT_CACHE_LIMITS)) {
      if (typeof value === 'number') expect(Number.isFinite(value), name).toBe(true);
      else expect(Number.isFinite(value.maxEntries) && (value.maxBytes === undefined || Number.isFinite(value.maxBytes)), name).toBe(true);
    }
  });
});

function readFollow(tree: HandTree): any {
  return JSON.parse(readFileSync(join(tree.outDir, 'current', 'data', 'follow', `${tree.addresses[0]}.json`), 'utf8'));
}
