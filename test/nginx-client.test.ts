/**
 * A `demo` range release (the default layout) served by Debian's nginx with
 * the release's own snippet, next to the router on the same tree: every
 * document comes back byte for byte through @pegscope/client, nginx's access
 * log shows that only range paths were asked for, and nginx answers with
 * the router's content types, CORS and caching.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db } from '../src/store/db.js';
import { createSimSource } from '../src/chain/sim/index.js';
import { scanChain } from '../src/store/scan.js';
import { analyze } from '../src/analysis/analyze.js';
import { exportRelease } from '../src/export/export.js';
import { NGINX_MESSAGES } from '../src/export/configs.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { RangeClient, rangePrefix, RANGE_KINDS, type Fetch, type RangeKind } from '../src/client/index.js';
import { RANGES_INDEX_PATH } from '@pegscope/client';
import { nginxAvailable, startNginx, type RunningNginx } from '../scripts/lib/nginx.js';
import { get, type Res } from './helpers/http.js';
import { releaseDocuments, type ReleaseDocuments } from './helpers/release-docs.js';
import { SECRET } from './helpers/release-tree.js';

const enabled = nginxAvailable();
let work: string;
let dir: string;
let router: RunningServer;
let nginx: RunningNginx;
const docs = {} as Record<RangeKind, ReleaseDocuments>;

beforeAll(async () => {
  if (!enabled) return;
  work = mkdtempSync(join(tmpdir(), 'pegscope-nginx-client-'));
  const db = await Db.open(':memory:');
  try {
    await scanChain(db, createSimSource({ preset: 'demo', seed: 1 }));
    await analyze(db);
    // The default layout and the default host budget: the release a free static host takes.
    dir = (await exportRelease(db, { outDir: join(work, 'out') })).dir;
  } finally {
    db.close();
  }
  writeFileSync(join(dir, 'api', '.secret.json'), SECRET);
  for (const kind of RANGE_KINDS) docs[kind] = releaseDocuments(dir, kind);
  router = await startServer({ sites: [{ network: 'sim', outDir: join(work, 'out') }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  nginx = await startNginx(join(work, 'nginx'), join(work, 'out', 'current'), join(dir, 'nginx.conf'), { accessLog: true });
}, 180_000);

afterAll(async () => {
  await nginx?.stop();
  await router?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The request lines nginx logged since `from` bytes into its access log. */
function loggedSince(from: number): string[] {
  const text = readFileSync(nginx.accessLog!, 'utf8').slice(from);
  return text.split('\n').filter(Boolean).map((line) => /"([A-Z]+ \S+ HTTP\/[\d.]+)"/.exec(line)![1]!);
}
const logSize = (): number => statSync(nginx.accessLog!).size;

/** Runs `work` over `items`, `width` at a time. */
async function pool<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await task(items[next++]!);
  }));
}

const nodeFetch = (url: string): ReturnType<typeof fetch> => fetch(url);

/**
 * Node's fetch behind a cache of bodies by URL, as a browser's HTTP cache
 * would keep a range: every document still goes through the client, and each
 * range crosses the wire once (15k trace lookups would otherwise move 1 GB).
 */
function cachingFetch(): Fetch {
  const bodies = new Map<string, Promise<{ ok: boolean; status: number; body: string }>>();
  return (url) => {
    let hit = bodies.get(url);
    if (!hit) {
      hit = fetch(url).then(async (res) => ({ ok: res.ok, status: res.status, body: await res.text() }));
      bodies.set(url, hit);
    }
    return hit.then(({ ok, status, body }) => ({ ok, status, text: async () => body }));
  };
}

describe.runIf(enabled)('@pegscope/client against nginx serving a demo range release', () => {
  it('gives back every document of every kind byte for byte, asking nginx only for range files', async () => {
    const from = logSize();
    const client = new RangeClient({ base: nginx.url, network: 'sim', fetch: cachingFetch() });
    const prefixLength = Object.fromEntries(RANGE_KINDS.map((kind) => [kind, 0])) as Record<RangeKind, number>;
    const layout = await client.layout();
    for (const kind of RANGE_KINDS) prefixLength[kind] = layout.kinds[kind].prefix_length;
    let checked = 0;
    for (const kind of RANGE_KINDS) {
      const { documents, chains, aliases } = docs[kind];
      expect(documents.size, kind).toBeGreaterThan(1_000);
      await pool([...documents], 16, async ([key, text]) => {
        const found = await client.document(kind, key);
        expect(found?.text, `${kind} ${key}`).toBe(text);
        checked++;
      });
      if (kind === 'follow') {
        expect(chains.size).toBeGreaterThan(0);
        await pool([...chains], 16, async ([key, text]) => {
          expect((await client.followChain(key))?.text, `follow chain ${key}`).toBe(text);
        });
      }
      if (kind === 'block') {
        expect(aliases.size).toBe(documents.size);
        await pool([...aliases], 16, async ([hash, height]) => {
          expect((await client.document('block', hash))?.text, `block ${hash}`).toBe(documents.get(String(height)));
        });
      }
    }
    expect(checked).toBe(RANGE_KINDS.reduce((n, kind) => n + layout.kinds[kind].documents, 0));

    // Everything nginx was asked meanwhile: the index, then every range once; no request line holds a key.
    const lines = loggedSince(from);
    expect(lines[0]).toBe(`GET /${RANGES_INDEX_PATH} HTTP/1.1`);
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines.length - 1).toBe(RANGE_KINDS.reduce((n, kind) => n + readdirSync(join(dir, 'api', 'range', kind)).filter((f) => f.endsWith('.json')).length, 0));
    const keys = new Set(RANGE_KINDS.flatMap((kind) => [...docs[kind].documents.keys(), ...docs[kind].aliases.keys()]));
    for (const line of lines.slice(1)) {
      const match = /^GET \/api\/range\/(trace|address|follow|block)\/([0-9a-f]+)\.json HTTP\/1\.1$/.exec(line);
      expect(match, line).not.toBeNull();
      expect(match![2]!.length, line).toBe(prefixLength[match![1] as RangeKind]);
      // A prefix is hex digits of a hash: the only key it could equal is a short block height.
      if (keys.has(match![2]!)) expect(match![1], line).not.toBe('block');
    }
  });

  it('a single lookup asks for exactly the index and the range of its key, never the key', async () => {
    const [address] = [...docs.address.documents.keys()];
    const [hash, height] = [...docs.block.aliases][0]!;
    const from = logSize();
    const client = new RangeClient({ base: `${nginx.url}/`, network: 'sim', fetch: nodeFetch });
    const found = await client.document('address', address!);
    expect(found?.text).toBe(docs.address.documents.get(address!));
    const block = await client.document('block', hash);
    expect(block?.value).toMatchObject({ block: { height, hash } });
    const length = (await client.layout()).kinds;
    expect(loggedSince(from)).toEqual([
      `GET /${RANGES_INDEX_PATH} HTTP/1.1`,
      `GET /api/range/address/${rangePrefix(address!, length.address.prefix_length)}.json HTTP/1.1`,
      // A block hash costs a second range: its own maps it to the height, whose range holds the document.
      `GET /api/range/block/${rangePrefix(hash, length.block.prefix_length)}.json HTTP/1.1`,
      `GET /api/range/block/${rangePrefix(String(height), length.block.prefix_length)}.json HTTP/1.1`,
    ]);
  });
});

/** A response's body as the client reads it (gzip undone) and the headers a mirror must agree on. */
function view(res: Res): { status: number; type: string | undefined; cache: string | undefined; cors: string | undefined; nosniff: string | undefined; body: Buffer } {
  return {
    status: res.status,
    type: res.headers['content-type'] as string | undefined,
    cache: res.headers['cache-control'] as string | undefined,
    cors: res.headers['access-control-allow-origin'] as string | undefined,
    nosniff: res.headers['x-content-type-options'] as string | undefined,
    body: res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.body) : res.body,
  };
}

describe.runIf(enabled)('nginx answers like the router', () => {
  it('every path form the router answers from a file: same bytes, content type, CORS and Cache-Control', async () => {
    const trace = [...docs.trace.documents.keys()][0]!;
    const asset = readdirSync(join(dir, 'assets')).find((name) => name.endsWith('.js'))!;
    const paths = [
      '/api', '/api/', '/api.php', '/api?endpoint=stats', '/api.php?endpoint=stats', '/api/stats', '/api/recommendations',
      '/api/links', '/api/links?format=csv', '/api?endpoint=links&format=csv', '/api.php?endpoint=pegin_amounts&format=csv',
      '/api/pegin_amounts', '/api/pegout_amounts?format=csv', '/api/amounts', '/api/amounts.json', '/api/openapi.json',
      '/api/ranges', `/${RANGES_INDEX_PATH}`, `/api/range/trace/${rangePrefix(trace, 2)}`, `/api/range/trace/${rangePrefix(trace, 2)}.json`,
      '/api/stats.json', '/api/links.json', '/api/series/daily.json', '/manifest.json', '/dumps/links/links-00000000-00001999.parquet', '/dumps/pegins/pegins-00000000-00001999.csv.gz',
      '/dumps/views.sql', '/', '/index.html', `/assets/${asset}`,
    ];
    for (const path of paths) {
      for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) {
        const [fromRouter, fromNginx] = await Promise.all([get(router.url, path, { headers }), get(nginx.url, path, { headers })]);
        const want = view(fromRouter);
        const got = view(fromNginx);
        expect(want.status, path).toBe(200);
        expect({ ...got, body: null }, path).toEqual({ ...want, body: null });
        expect(got.body.equals(want.body), `${path} body`).toBe(true);
      }
    }
    // health: the router computes its age, so only the headers agree.
    const [health, staticHealth] = await Promise.all([get(router.url, '/api/health'), get(nginx.url, '/api/health')]);
    expect(staticHealth.headers['cache-control']).toBe(health.headers['cache-control']);
    expect(staticHealth.json.as_of_height).toBe(health.json.as_of_height);
  });

  it('serves the precompressed sibling to gzip clients with Vary and the type of the file it stands for', async () => {
    for (const [path, type] of [['/api/links.json', 'application/json; charset=utf-8'], ['/api/links?format=csv', 'text/csv; charset=utf-8']] as const) {
      const plain = await get(nginx.url, path);
      const zipped = await get(nginx.url, path, { headers: { 'accept-encoding': 'gzip' } });
      expect(zipped.headers['content-encoding'], path).toBe('gzip');
      expect(zipped.headers['content-type'], path).toBe(type);
      expect(zipped.headers.vary, path).toBe('Accept-Encoding');
      expect(plain.headers.vary, path).toBe('Accept-Encoding');
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(zipped.headers['x-content-type-options'], path).toBe('nosniff');
      expect(gunzipSync(zipped.body).equals(plain.body), path).toBe(true);
    }
    // A sibling asked for by its own name is a gzip file, not the document it stands for.
    const sibling = await get(nginx.url, '/api/links.json.gz');
    expect(sibling.headers['content-type']).toBe('application/gzip');
    expect(sibling.headers['content-encoding']).toBeUndefined();
  });

  it('errors are JSON that no cache keeps, with the same CORS headers', async () => {
    for (const [path, status] of [['/api/nope', 404], ['/api?endpoint=nope', 404], ['/assets/nope.js', 404], ['/api/trace?q=..%2F..%2Fmanifest', 400], ['/api/stats?format=csv', 400]] as const) {
      const [fromRouter, fromNginx] = await Promise.all([get(router.url, path), get(nginx.url, path)]);
      expect(fromRouter.status, path).toBe(status);
      expect(fromNginx.status, path).toBe(status);
      for (const res of [fromRouter, fromNginx]) {
        expect(res.headers['content-type'], path).toBe('application/json; charset=utf-8');
        expect(res.headers['cache-control'], path).toBe('no-store');
        expect(res.headers['access-control-allow-origin'], path).toBe('*');
        expect(res.headers['x-content-type-options'], path).toBe('nosniff');
        expect(res.json, path).toMatchObject({ version: '1', error: expect.any(String) });
      }
    }
  });

  it('serves the listed host configs and data/ by name, for mirrors (docs/mirror.md), with their bytes', async () => {
    for (const rel of ['nginx.conf', '_redirects', '_headers', 'data/links.json']) {
      const res = await get(nginx.url, `/${rel}`);
      expect(res.status, rel).toBe(200);
      expect(res.body.equals(readFileSync(join(dir, rel))), rel).toBe(true);
    }
  });

  it('does not serve what no manifest lists: other files in data/, dot files, paths out of the release', async () => {
    for (const path of ['/netlify.toml', '/data/files.parquet', '/data/docs.parquet', '/api/.secret.json', '/api/range/../.secret.json', '/feeds/../api/.secret.json']) {
      const res = await get(nginx.url, path);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toBe('application/json; charset=utf-8');
      expect(res.text, path).not.toContain(SECRET);
      expect(res.json.error, path).toMatch(/no such path/);
    }
  });

  it('lookups by key in every route form: the router answers, nginx names the range files instead', async () => {
    const samples: Record<RangeKind, string> = {
      trace: [...docs.trace.documents.keys()][0]!, address: [...docs.address.documents.keys()][0]!,
      follow: [...docs.follow.documents.keys()][0]!, block: [...docs.block.documents.keys()][0]!,
    };
    for (const kind of RANGE_KINDS) {
      const q = samples[kind];
      const forms = [`/api/${kind}?q=${q}`, `/api?endpoint=${kind}&q=${q}`, `/api.php?endpoint=${kind}&q=${q}`, `/api/${kind}/${q}`, `/api/${kind}/${q}.json`];
      if (kind === 'trace') forms.push(`/api/trace?q=${q}&format=csv`, `/api/trace/${q}.csv`);
      for (const path of forms) {
        const [fromRouter, fromNginx] = await Promise.all([get(router.url, path), get(nginx.url, path)]);
        expect(fromRouter.status, path).toBe(200);
        expect(fromNginx.status, path).toBe(501);
        expect(fromNginx.json.error, path).toBe(NGINX_MESSAGES.clientOnly);
        expect(fromNginx.headers['cache-control'], path).toBe('no-store');
      }
    }
  });

  it('refuses what a file cannot answer (other parameters, privacy) with a JSON 501 naming the way round', async () => {
    for (const [path, pattern] of [['/api/links?limit=5', /limit/], ['/api?endpoint=pegin_amounts&limit=3', /limit/], ['/api/follow?q=x&depth=5', /depth/], ['/api/privacy?amount=1.5', /privacyOf/]] as const) {
      const res = await get(nginx.url, path);
      expect(res.status, path).toBe(501);
      expect(res.json.error, path).toMatch(pattern);
      expect((await get(router.url, path)).status, path).not.toBe(501);
    }
  });
});
