import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { DEFAULT_CACHE_SECONDS, startServer, type RunningServer } from '../src/serve/server.js';
import { parseAmountTable, privacyOf } from '@pegscope/client';
import { ENDPOINTS } from '../src/api/params.js';
import { linksCsv, sliceLinks } from '../src/api/links.js';
import { amountsCsv, sliceAmounts } from '../src/api/top-amounts.js';
import { buildHandTree, publish, resign, simAddress, writeRelease, type HandTree } from './helpers/release-tree.js';
import { buildPipelineTree, type PipelineTree } from './helpers/pipeline-release.js';
import { spawnServe } from '../scripts/lib/serve-process.js';
import { releaseDocuments } from './helpers/release-docs.js';
import { get, type Res } from './helpers/http.js';

/** The real tree (sim → scan → analyze → export) for the endpoint tests. */
let tree: PipelineTree;
let server: RunningServer;
let base: string;
/** An address with its own trace file. */
let a1: string;
/** A hand-built tree whose releases the tests publish themselves. */
let hand: HandTree;

beforeAll(async () => {
  tree = await buildPipelineTree();
  hand = buildHandTree();
  a1 = tree.traceQ.address;
  server = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  base = server.url;
});

afterAll(async () => {
  await server?.close();
  for (const root of [tree?.root, hand?.root]) if (root) rmSync(root, { recursive: true, force: true });
});

const releaseText = (rel: string): string => readFileSync(join(tree.outDir, 'current', rel), 'utf8');
const releaseFile = (rel: string): any => JSON.parse(releaseText(rel));

describe('route forms', () => {
  it('serves the index at /api, /api/ and /api.php', async () => {
    for (const path of ['/api', '/api/', '/api.php']) {
      const res = await get(base, path);
      expect(res.status).toBe(200);
      expect(res.json.service).toBe('pegscope');
      expect(Object.keys(res.json.endpoints)).toEqual([...Object.keys(ENDPOINTS), 'amounts', 'range', 'openapi']);
    }
  });

  it('answers every endpoint identically at /api/<e>, /api?endpoint=<e> and /api.php?endpoint=<e>', async () => {
    const queries: Record<string, string> = {
      health: '', stats: '', privacy: 'amount=1.5', recommendations: '', trace: `q=${a1}`, follow: `q=${a1}`,
      address: `q=${a1}`, links: '', pegin_amounts: '', pegout_amounts: '', block: `q=${tree.block.height}`,
    };
    for (const [endpoint, query] of Object.entries(queries)) {
      const forms = [`/api/${endpoint}${query ? `?${query}` : ''}`, `/api?endpoint=${endpoint}${query ? `&${query}` : ''}`, `/api.php?endpoint=${endpoint}${query ? `&${query}` : ''}`];
      const bodies = await Promise.all(forms.map((f) => get(base, f)));
      for (const res of bodies) {
        expect(res.status, `${endpoint}`).toBe(200);
        expect(res.json.version).toBe('1');
        expect(res.json.network).toBe('sim');
        expect(res.json.unit).toBe('rLTC');
        expect(res.json.as_of_height).toBe(releaseFile('api/health.json').as_of_height);
      }
      if (endpoint !== 'health') expect(bodies[1]!.text).toBe(bodies[0]!.text);
      expect(bodies[2]!.json).toMatchObject({ version: '1' });
    }
  });
});

describe('endpoints', () => {
  it('default-parameter requests return the exported file byte for byte', async () => {
    for (const [path, rel] of [['/api/stats', 'api/stats.json'], ['/api/links', 'api/links.json'], ['/api/links?limit=100&min_confidence=0.5', 'api/links.json'], ['/api/pegin_amounts', 'api/pegin_amounts.json']] as const) {
      const res = await get(base, path);
      expect(res.text, path).toBe(readFileSync(join(tree.outDir, 'current', rel), 'utf8'));
    }
    // Per-query documents are lines of range files, answered byte for byte too.
    for (const kind of ['trace', 'follow', 'address'] as const) {
      expect((await get(base, `/api/${kind}?q=${a1}`)).text, kind).toBe(releaseDocuments(tree.dir, kind).documents.get(a1));
    }
  });

  it('health computes analysis_age_seconds at request time', async () => {
    const res = await get(base, '/api/health');
    const updated = releaseFile('api/health.json').updated_at as number;
    const expected = Math.floor(Date.now() / 1000) - updated;
    expect(res.json.health.analysis_age_seconds).toBeGreaterThanOrEqual(expected - 2);
    expect(res.json.health.analysis_age_seconds).toBeLessThanOrEqual(expected + 2);
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('privacy is computed from the release amount table', async () => {
    const { table } = parseAmountTable(releaseFile('api/amounts.json'), { network: 'sim' });
    for (const [amount, side, litoshi] of [['1.5', 'pegin', 150_000_000], ['0.1', 'pegin', 10_000_000], ['1.23456789', 'pegout', 123_456_789], ['0.00000001', 'pegin', 1]] as const) {
      const res = await get(base, `/api/privacy?amount=${amount}&side=${side}`);
      expect(res.status).toBe(200);
      expect(res.json.privacy).toEqual(privacyOf(table, litoshi, side));
    }
    // The most common peg-in amount's exact set is its count in the table.
    const [amount, count] = [...table.pegin].sort((x, y) => y[1] - x[1])[0]!;
    const common = await get(base, `/api/privacy?amount=${amount / 1e8}`);
    expect(common.json.privacy.exact_set).toBe(count);
    expect(common.json.privacy.side).toBe('pegin');
  });

  it('links with non-default parameters are filtered and sliced from data/links.json in API order', async () => {
    const top = releaseFile('data/links.json');
    const res = await get(base, '/api/links?min_confidence=0.8&limit=500');
    const expected = top.links.filter((l: any) => l.confidence >= 0.8);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(top.links.length);
    expect(res.json.min_confidence).toBe(0.8);
    expect(res.json.count).toBe(expected.length);
    expect(res.json.links).toEqual(expected);
    const small = await get(base, '/api/links?limit=3&min_confidence=0');
    expect(small.json.links).toEqual(top.links.slice(0, 3));
    const all = await get(base, '/api/links?limit=500&min_confidence=0');
    expect(all.json.links).toEqual(top.links);
  });

  it('amount lists slice to the limit', async () => {
    for (const side of ['pegin', 'pegout']) {
      const res = await get(base, `/api/${side}_amounts?limit=7`);
      expect(res.json.count).toBe(7);
      expect(res.json[`${side}_amounts`]).toEqual(releaseFile(`data/${side}_amounts.json`)[`${side}_amounts`].slice(0, 7));
    }
  });

  it('follow with another depth cuts the full-depth chain and recomputes the total', async () => {
    const { address, hops } = tree.longestFollow;
    expect(hops).toBeGreaterThan(3);
    const full = JSON.parse(releaseDocuments(tree.dir, 'follow').chains.get(address)!).follow;
    const res = await get(base, `/api/follow?q=${address}&depth=${hops}`);
    expect(res.json.follow.depth).toBe(hops);
    expect(res.json.follow.hops).toEqual(full.hops);
    expect(res.json.follow.total_confidence).toBe(full.hops[hops - 1].cumulative_confidence);
    const ten = await get(base, `/api/follow?q=${address}&depth=10`);
    expect(ten.json.follow.hops).toEqual(full.hops);
    const one = await get(base, `/api/follow?q=${address}&depth=1`);
    expect(one.json.follow.hops).toEqual(full.hops.slice(0, 1));
    expect(one.json.follow.total_confidence).toBe(full.hops[0].cumulative_confidence);
    expect((await get(base, `/api/follow?q=${address}`)).json.follow.hops).toEqual(full.hops.slice(0, 3));
  });

  it('trace finds addresses, peg-in and peg-out txids (upper-case hex and bech32 too)', async () => {
    expect((await get(base, `/api/trace?q=${tree.traceQ.pegin_tx}`)).json.trace.type).toBe('pegin_tx');
    expect((await get(base, `/api/trace?q=${tree.traceQ.pegout_tx.toUpperCase()}`)).json.trace.type).toBe('pegout_tx');
    expect((await get(base, `/api/trace?q=${a1}`)).json.trace.type).toBe('address');
    const bech32 = [...releaseDocuments(tree.dir, 'trace').documents.keys()].find((key) => key.startsWith('rltc1'))!;
    expect((await get(base, `/api/trace?q=${bech32.toUpperCase()}`)).json.trace.query).toBe(bech32);
  });

  it('a well-formed unknown q is 200: not_found trace, empty address and follow, 404 block', async () => {
    const unknownAddress = simAddress(99);
    const unknownTx = 'ab'.repeat(32);
    const t = await get(base, `/api/trace?q=${unknownTx}`);
    expect(t.status).toBe(200);
    expect(t.json.trace).toEqual({ query: unknownTx, type: 'not_found', attribution: null, cluster: null, pegins: [], pegouts: [] });
    const tc = await get(base, `/api/trace?q=${unknownAddress}&format=csv`);
    expect(tc.status).toBe(200);
    expect(tc.text).toBe(`${ENDPOINTS.trace.csvColumns!.join(',')}\n`);
    const a = await get(base, `/api/address?q=${unknownAddress}`);
    expect(a.json.address).toEqual({ address: unknownAddress, attribution: null, pegouts_received: { count: 0, total: 0 }, pegins_funded: { count: 0, total: 0 } });
    const f = await get(base, `/api/follow?q=${unknownAddress}&depth=4`);
    expect(f.json.follow).toEqual({ query: unknownAddress, depth: 4, hops: [], total_confidence: 0 });
    const b = await get(base, '/api/block?q=7');
    expect(b.status).toBe(404);
    expect(b.json.error).toMatch(/height 7/);
  });

  it('block by height and by hash', async () => {
    const byHeight = await get(base, `/api/block?q=${tree.block.height}`);
    const byHash = await get(base, `/api/block?q=${tree.block.hash.toUpperCase()}`);
    expect(byHeight.json.block.hash).toBe(tree.block.hash);
    expect(byHash.text).toBe(byHeight.text);
  });

  it('serves the amount table for wallets and the dumps, never a directory listing', async () => {
    const table = await get(base, '/api/amounts.json');
    expect(table.json).toEqual(releaseFile('api/amounts.json'));
    const dump = await get(base, '/dumps/pegins/pegins-00000000-00001999.csv.gz');
    expect(dump.status).toBe(200);
    expect(dump.body).toEqual(readFileSync(join(tree.dir, 'dumps/pegins/pegins-00000000-00001999.csv.gz')));
    expect((await get(base, '/dumps/links/links-00000000-00001999.parquet')).body).toEqual(readFileSync(join(tree.dir, 'dumps/links/links-00000000-00001999.parquet')));
    expect((await get(base, '/dumps/')).status).toBe(404);
    expect((await get(base, '/dumps')).status).toBe(404);
    expect((await get(base, '/manifest.json')).text).toBe(releaseText('manifest.json'));
  });
});

describe('CSV', () => {
  it('serves CSV with text/csv, charset and a safe attachment filename', async () => {
    for (const path of ['/api/links?format=csv', '/api/links?format=csv&limit=5', '/api/pegin_amounts?format=csv', '/api/pegout_amounts?format=csv&limit=2', `/api/trace?q=${a1}&format=csv`]) {
      const res = await get(base, path);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="pegscope-[A-Za-z0-9._-]+\.csv"$/);
    }
  });

  it('sliced CSV has the declared columns and the rows of the sliced JSON', async () => {
    const res = await get(base, '/api/links?format=csv&limit=2&min_confidence=0');
    const lines = res.text.trim().split('\n');
    expect(lines[0]).toBe(ENDPOINTS.links.csvColumns!.join(','));
    expect(lines).toHaveLength(3);
    expect(res.text).toBe(linksCsv(sliceLinks(releaseFile('api/links.json'), releaseFile('data/links.json'), 0, 2)));
    const amounts = await get(base, '/api/pegout_amounts?format=csv&limit=2');
    expect(amounts.text.split('\n')[0]).toBe('amount,count');
    expect(amounts.text).toBe(amountsCsv(sliceAmounts(releaseFile('api/pegout_amounts.json'), releaseFile('data/pegout_amounts.json'), 'pegout', 2), 'pegout'));
    expect((await get(base, '/api/links?format=csv')).text).toBe(releaseText('api/links.csv'));
  });

  it('rejects format=csv where there is no CSV', async () => {
    for (const endpoint of ['stats', 'health', 'follow', 'block', 'privacy', 'recommendations', 'address']) {
      const res = await get(base, `/api/${endpoint}?format=csv`);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatch(/format.*trace, links, pegin_amounts, pegout_amounts/);
    }
  });
});

describe('validation (400 naming the parameter and what is allowed)', () => {
  const cases: [string, RegExp][] = [
    ['/api/links?limit=0', /limit must be an integer from 1 to 500; got "0"/],
    ['/api/links?limit=501', /limit must be an integer from 1 to 500/],
    ['/api/links?limit=abc', /limit must be an integer/],
    ['/api/links?limit=1.5', /limit must be an integer/],
    ['/api/links?min_confidence=1.01', /min_confidence must be a number from 0 to 1/],
    ['/api/links?min_confidence=-0.1', /min_confidence must be a number from 0 to 1/],
    ['/api/links?min_confidence=NaN', /min_confidence/],
    ['/api/links?limit=5&limit=6', /"limit" is given more than once/],
    ['/api/links?format=xml', /format must be one of json, csv/],
    ['/api/links?foo=1', /unknown parameter "foo" for links; allowed: min_confidence, limit, format/],
    ['/api/stats?x=1', /unknown parameter "x" for stats; it takes no parameters/],
    ['/api/follow?q=X&depth=11', /q must be/],
    ['/api/privacy', /amount is required/],
    ['/api/privacy?amount=0', /^amount: "0" is not a coin amount greater than 0 with at most 8 decimals/],
    ['/api/privacy?amount=-1', /^amount: "-1" is not a coin amount greater than 0/],
    ['/api/privacy?amount=1.123456789', /at most 8 decimals/],
    ['/api/privacy?amount=1e3', /^amount: "1e3" is not a coin amount/],
    ['/api/privacy?amount=%201.5', /^amount: " 1.5" is not a coin amount greater than 0 with at most 8 decimals and no spaces/],
    ['/api/privacy?amount=1&side=both', /side must be one of pegin, pegout/],
    ['/api/trace', /q is required/],
    ['/api/trace?q=abc', /q must be a valid sim address .* or a 64-hex txid/],
    ['/api/trace?q=ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9', /q must be a valid sim address/],
    ['/api/block?q=12ab', /q must be a block height .* or a 64-hex block hash/],
    ['/api/block?q=-1', /q must be a block height/],
    ['/api?endpoint=links&endpoint=stats', /"endpoint" is given more than once/],
    ['/api?foo=bar', /the index takes no parameters/],
  ];
  it.each(cases)('%s', async (path, message) => {
    const res = await get(base, path);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(message);
    expect(res.json.version).toBe('1');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('rejects a bech32 address with a broken checksum and a depth outside 1..10', async () => {
    const broken = a1.slice(0, -1) + (a1.endsWith('q') ? 'p' : 'q');
    expect((await get(base, `/api/address?q=${broken}`)).status).toBe(400);
    expect((await get(base, `/api/follow?q=${a1}&depth=11`)).json.error).toMatch(/depth must be an integer from 1 to 10; got "11"/);
    expect((await get(base, `/api/follow?q=${a1}&depth=0`)).status).toBe(400);
  });
});

describe('the range layout', () => {
  const layout = (): { kinds: Record<string, { prefix_length: number }> } => releaseFile('api/ranges.json');

  it('serves api/ranges.json and every range file as exported, with or without .json', async () => {
    expect((await get(base, '/api/ranges.json')).text).toBe(releaseText('api/ranges.json'));
    expect((await get(base, '/api/ranges')).text).toBe(releaseText('api/ranges.json'));
    for (const kind of ['trace', 'address', 'follow', 'block']) {
      const prefix = '0'.repeat(layout().kinds[kind]!.prefix_length);
      const file = releaseText(`api/range/${kind}/${prefix}.json`);
      for (const path of [`/api/range/${kind}/${prefix}`, `/api/range/${kind}/${prefix}.json`]) {
        const res = await get(base, path);
        expect(res.status, path).toBe(200);
        expect(res.text, path).toBe(file);
      }
    }
  });

  it('refuses a range that cannot exist, saying what would', async () => {
    const length = layout().kinds.trace!.prefix_length;
    const wrong = await get(base, `/api/range/trace/${'0'.repeat(length + 1)}`);
    expect(wrong.status).toBe(404);
    expect(wrong.json.error).toMatch(new RegExp(`have ${length}-digit prefixes`));
    expect((await get(base, '/api/range/nope/00')).status).toBe(404);
    expect((await get(base, '/api/range/trace/0G')).status).toBe(400);
    expect((await get(base, '/api/range/trace/00?q=1')).status).toBe(400);
  });

  it('answers /api/<kind>/<q> (and .csv) exactly as ?q= does, the path form static mirrors use', async () => {
    for (const kind of ['trace', 'address', 'follow']) {
      expect((await get(base, `/api/${kind}/${a1}`)).text, kind).toBe((await get(base, `/api/${kind}?q=${a1}`)).text);
    }
    expect((await get(base, `/api/trace/${a1}.csv`)).text).toBe((await get(base, `/api/trace?q=${a1}&format=csv`)).text);
    expect((await get(base, `/api/block/${tree.block.height}`)).text).toBe((await get(base, `/api/block?q=${tree.block.height}`)).text);
    expect((await get(base, `/api/follow/${a1}?depth=2`)).json.follow.depth).toBe(2);
    expect((await get(base, `/api/trace/${a1}?q=${a1}`)).status).toBe(400);
  });

  it('a release in the files layout has no range index, and says what to ask instead', async () => {
    const filesTree = buildHandTree();
    const s = await startServer({ sites: [{ network: 'sim', outDir: filesTree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    try {
      const res = await get(s.url, '/api/ranges.json');
      expect(res.status).toBe(404);
      expect(res.json.error).toMatch(/one file per query \(--layout files\)/);
      expect((await get(s.url, `/api/trace/${filesTree.addresses[0]}`)).status).toBe(200);
    } finally {
      await s.close();
      rmSync(filesTree.root, { recursive: true, force: true });
    }
  });
});

describe('statuses', () => {
  it('404 for unknown endpoints and paths, never a dotfile or a file outside the tree', async () => {
    for (const path of ['/api/nope', '/api?endpoint=nope', '/assets/nope.js', '/assets/../manifest.json', '/api/trace/x/y', '/.secret', '/api/.secret.json', '/api/.secret', '/api/../.secret', '/%2e%2e/SECRET.txt', '/../SECRET.txt', '/dumps/../../../SECRET.txt', '/.env', '/current/api/stats.json', '/releases/r1/api/stats.json']) {
      const res = await get(base, path);
      expect(res.status, path).toBe(404);
      expect(res.json.error).toBeTruthy();
    }
    expect((await get(base, '/api/nope')).json.error).toMatch(/unknown endpoint "nope"; endpoints: health, stats/);
  });

  it('405 for other methods, with Allow', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await get(base, '/api/stats', { method });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    }
  });

  it('HEAD has the headers and no body', async () => {
    const full = await get(base, '/api/stats');
    const head = await get(base, '/api/stats', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(full.body.length));
    expect(head.headers.etag).toBe(full.headers.etag);
    const computed = await get(base, '/api/links?limit=3', { method: 'HEAD' });
    expect(computed.status).toBe(200);
    expect(computed.body.length).toBe(0);
    expect(Number(computed.headers['content-length'])).toBe((await get(base, '/api/links?limit=3')).body.length);
  });

  it('OPTIONS preflight allows the API key header', async () => {
    const res = await get(base, '/api/links', { method: 'OPTIONS', headers: { Origin: 'https://wallet.example', 'Access-Control-Request-Method': 'GET' } });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(res.headers['access-control-allow-headers']).toMatch(/X-API-Key/);
  });

  it('414 for a URL over 2 KB and 431 for oversized headers', async () => {
    expect((await get(base, `/api/links?x=${'a'.repeat(2100)}`)).status).toBe(414);
    expect((await get(base, '/api/stats', { headers: { 'X-Big': 'b'.repeat(10_000) } })).status).toBe(431);
  });

  it('503 when no release is published or it cannot be read; 400 still wins', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'pegscope-empty-'));
    const s = await startServer({ sites: [{ network: 'sim', outDir: empty }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    try {
      const res = await get(s.url, '/api/stats');
      expect(res.status).toBe(503);
      expect(res.json.error).toMatch(/no release published yet.*pegscope export/);
      expect((await get(s.url, '/api')).status).toBe(503);
      expect((await get(s.url, '/api/links?limit=0')).status).toBe(400);
    } finally {
      await s.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('503 when current points at a release that cannot be read, recovered once a good one is published', async () => {
    const broken = buildHandTree();
    const s = await startServer({ sites: [{ network: 'sim', outDir: broken.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    try {
      mkdirSync(join(broken.outDir, 'releases', 'empty'));
      publish(broken, 'empty');
      const res = await get(s.url, '/api/stats');
      expect(res.status).toBe(503);
      expect(res.json.error).toMatch(/release empty cannot be read.*re-run `pegscope export`/);
      expect(res.text).not.toContain(broken.root);
      publish(broken, 'r1');
      expect((await get(s.url, '/api/stats')).status).toBe(200);
      writeFileSync(join(broken.outDir, 'releases', 'r1', 'data', 'links.json'), '{"links": [');
      const corrupt = await get(s.url, '/api/links?limit=3');
      expect(corrupt.status).toBe(503);
      // The client learns that a file failed its checks, not which, nor its size (the operator's log has both).
      expect(corrupt.json.error).toMatch(/release r1 cannot be read \(a file failed its checks; the operator's log names it\); re-run `pegscope export`/);
      expect(corrupt.text).not.toMatch(/links\.json|bytes/);
      resign(broken, 'r1');
      expect((await get(s.url, '/api/links?limit=3')).json.error).toMatch(/data\/links.json of release r1 is not valid JSON/);
    } finally {
      await s.close();
      rmSync(broken.root, { recursive: true, force: true });
    }
  });

  it('`pegscope serve` closes the router and exits 0 on SIGTERM', async () => {
    const { child, url, exited } = await spawnServe(['--network', 'sim', '--out', tree.outDir, '--rate-limit', '0']);
    expect((await get(url, '/api/health')).status).toBe(200);
    // --cache defaults to the router's own default.
    expect((await get(url, '/api/stats')).headers['cache-control']).toBe(`public, max-age=${DEFAULT_CACHE_SECONDS}, stale-while-revalidate=${DEFAULT_CACHE_SECONDS}`);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(get(url, '/api/health')).rejects.toThrow(/ECONNREFUSED/);
  }, 120_000);

  it('close() stops accepting connections', async () => {
    const s = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    expect((await get(s.url, '/api/health')).status).toBe(200);
    await s.close();
    await expect(get(s.url, '/api/health')).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('headers', () => {
  it('CORS, nosniff, charset and cache policy on every answer, errors included', async () => {
    for (const path of ['/api/stats', '/api/links?limit=3', '/api/privacy?amount=1', '/api/nope', '/api/links?limit=0']) {
      const res = await get(base, path);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['cache-control']).toBe(res.status === 200 ? `public, max-age=${DEFAULT_CACHE_SECONDS}, stale-while-revalidate=${DEFAULT_CACHE_SECONDS}` : 'no-store');
    }
  });

  it('strong ETags answer If-None-Match with 304, for files and computed bodies', async () => {
    for (const path of ['/api/stats', '/api/links?limit=7', '/api/privacy?amount=2.5']) {
      const first = await get(base, path);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await get(base, path, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect((await get(base, path, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
    }
  });

  it('serves the precompressed .gz the export wrote', async () => {
    const plain = await get(base, '/api/links');
    const gz = await get(base, '/api/links', { headers: { 'Accept-Encoding': 'gzip, deflate' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body).toEqual(readFileSync(join(tree.dir, 'api/links.json.gz')));
    expect(gunzipSync(gz.body).toString()).toBe(plain.text);
  });

  it('prefers brotli where the export wrote .br, with a distinct ETag per encoding', async () => {
    const hs = await startServer({ sites: [{ network: 'sim', outDir: hand.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    const base = hs.url;
    const tree = hand;
    try {
      const plain = await get(base, '/api/links');
      const br = await get(base, '/api/links', { headers: { 'Accept-Encoding': 'gzip, br' } });
      const gz = await get(base, '/api/links', { headers: { 'Accept-Encoding': 'gzip' } });
      const none = await get(base, '/api/links', { headers: { 'Accept-Encoding': 'br;q=0, gzip;q=0' } });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.body).toEqual(readFileSync(join(tree.outDir, 'current', 'api/links.json.br')));
      expect(brotliDecompressSync(br.body).toString()).toBe(plain.text);
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.body).toString()).toBe(plain.text);
      expect(none.headers['content-encoding']).toBeUndefined();
      expect(new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]).size).toBe(3);
      expect(br.headers.vary).toBe('Accept-Encoding');
    } finally {
      await hs.close();
    }
  });

  it('compresses large computed bodies', async () => {
    const res = await get(base, '/api/links?limit=200&min_confidence=0', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(res.body).toString())).toEqual(sliceLinks(releaseFile('api/links.json'), releaseFile('data/links.json'), 0, 200));
    const br = await get(base, '/api/links?limit=200&min_confidence=0', { headers: { 'Accept-Encoding': 'br' } });
    expect(JSON.parse(brotliDecompressSync(br.body).toString()).count).toBe(Math.min(200, releaseFile('data/links.json').links.length));
  });
});

describe('releases', () => {
  it('picks up a newly published release without restart', async () => {
    const hs = await startServer({ sites: [{ network: 'sim', outDir: hand.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    const base = hs.url;
    const tree = hand;
    try {
      const before = await get(base, '/api/stats');
      expect(before.json.as_of_height).toBe(500);
      writeRelease(tree, 'r2', 600, Math.floor(Date.now() / 1000));
      publish(tree, 'r2');
      const after = await get(base, '/api/stats');
      expect(after.json.as_of_height).toBe(600);
      expect(after.headers['x-pegscope-release']).toBe('r2');
      expect((await get(base, '/api/privacy?amount=1')).json.as_of_height).toBe(600);
      expect((await get(base, '/api/links?limit=2')).json.as_of_height).toBe(600);
      expect((await get(base, '/api/health')).json.health.analysis_age_seconds).toBeLessThan(5);
    } finally {
      await hs.close();
    }
  });
});

describe('sites by Host', () => {
  it('chooses the network by Host header', async () => {
    const other = buildHandTree();
    const s = await startServer({
      sites: [{ network: 'sim', outDir: tree.outDir, hostnames: ['a.example'] }, { network: 'sim', outDir: other.outDir, hostnames: ['b.example'] }],
      host: '127.0.0.1', port: 0, rateLimit: 0,
    });
    try {
      expect((await get(s.url, '/api/stats', { headers: { Host: 'a.example:8080' } })).json.as_of_height).toBe(releaseFile('api/stats.json').as_of_height);
      expect((await get(s.url, '/api/stats', { headers: { Host: 'B.example' } })).json.as_of_height).toBe(500);
      expect((await get(s.url, '/api/stats', { headers: { Host: 'c.example' } })).status).toBe(404);
    } finally {
      await s.close();
      rmSync(other.root, { recursive: true, force: true });
    }
  });
});

describe('rate limiting', () => {
  it('allows the limit per minute, then 429 with Retry-After and RateLimit headers', async () => {
    const s = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 5 });
    try {
      const statuses: number[] = [];
      let last: Res | null = null;
      for (let i = 0; i < 7; i++) {
        last = await get(s.url, '/api/stats');
        statuses.push(last.status);
        if (i === 0) {
          expect(last.headers['ratelimit-limit']).toBe('5');
          expect(last.headers['ratelimit-remaining']).toBe('4');
        }
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      // The honest wait: when the five fall in one fixed window, a slot frees a fifth of the next window after it ends (60 + 12 s at most).
      expect(Number(last!.headers['retry-after'])).toBeLessThanOrEqual(72);
      expect(last!.headers['ratelimit-remaining']).toBe('0');
      expect(last!.json.error).toMatch(/rate limit of 5 requests per minute/);
      // Preflights are not counted.
      expect((await get(s.url, '/api/stats', { method: 'OPTIONS' })).status).toBe(204);
    } finally {
      await s.close();
    }
  });

  it('behind a trusted proxy limits by the right-most X-Forwarded-For address', async () => {
    const s = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 2, trustProxy: true });
    try {
      const as = (ip: string) => get(s.url, '/api/stats', { headers: { 'X-Forwarded-For': `6.6.6.6, ${ip}` } }).then((r) => r.status);
      expect([await as('203.0.113.1'), await as('203.0.113.1'), await as('203.0.113.1')]).toEqual([200, 200, 429]);
      expect(await as('203.0.113.2')).toBe(200);
      // IPv6 clients share a budget per /64.
      expect([await as('2001:db8:1:2::1'), await as('2001:db8:1:2:ffff::9'), await as('2001:db8:1:2::77')]).toEqual([200, 200, 429]);
      expect(await as('2001:db8:1:3::1')).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('API keys from the keys file get their own limit; unknown keys are refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pegscope-keys-'));
    const keysFile = join(dir, 'keys.json');
    const sha = (k: string) => createHash('sha256').update(k).digest('hex');
    writeFileSync(keysFile, JSON.stringify({ keys: [{ sha256: sha('wallet-secret'), limit: 8, name: 'wallet' }, { sha256: sha('mirror-secret'), limit: 0 }] }));
    const lines: string[] = [];
    const s = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 1, keysFile, log: (l) => lines.push(l) });
    try {
      const withKey = (key: string) => get(s.url, '/api/stats', { headers: { 'X-API-Key': key } });
      const statuses = [];
      for (let i = 0; i < 9; i++) statuses.push((await withKey('wallet-secret')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
      expect((await withKey('wallet-secret')).headers['ratelimit-limit']).toBe('8');
      for (let i = 0; i < 20; i++) expect((await withKey('mirror-secret')).status).toBe(200);
      const bad = await withKey('guess');
      expect(bad.status).toBe(401);
      expect(bad.json.error).toMatch(/X-API-Key is not a known key/);
      expect([(await get(s.url, '/api/stats')).status, (await get(s.url, '/api/stats')).status]).toEqual([200, 429]);
      expect(lines.join('\n')).not.toMatch(/secret|guess/);
      expect(lines.length).toBeGreaterThan(0);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
