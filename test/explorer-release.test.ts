/**
 * The explorer page and its chart series in a real release (sim tiny → scan →
 * analyze → export), and the router serving them: file names, content
 * types, CSP, ETags, 404s, and the series checked against the database.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { schemaFiles } from '../src/api/schemas.js';
import { SCHEMA_BASE } from '../src/api/common-schema.js';
import { SERIES_NAMES, seriesPath, type SeriesBodies } from '../src/api/series.js';
import { ASSET_CACHE_CONTROL, CONTENT_SECURITY_POLICY, CSP_META, EXPLORER_DOCUMENTS } from '../src/api/explorer.js';
import { traceCsv } from '../src/api/csv-rows.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { openLookup } from '../src/web/lookup.js';
import { SECRET } from './helpers/release-tree.js';
import { buildPipelineTree, type PipelineTree } from './helpers/pipeline-release.js';

let tree: PipelineTree;
let server: RunningServer;
let root: string;

interface Res { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer; text: string }

function get(path: string, headers: Record<string, string> = {}): Promise<Res> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const file = (rel: string): Buffer => readFileSync(join(root, rel));
const json = (rel: string): any => JSON.parse(file(rel).toString('utf8'));

beforeAll(async () => {
  tree = await buildPipelineTree(5);
  root = tree.dir;
  server = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
});

afterAll(async () => {
  await server?.close();
  if (tree) rmSync(tree.root, { recursive: true, force: true });
});

describe('the explorer page in a release', () => {
  it('has index.html and its content-hashed assets, listed in the manifest, with .gz siblings from 4 KB', () => {
    const html = file('index.html').toString();
    const referenced = [...html.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(referenced.length).toBe(2);
    const assets = readdirSync(join(root, 'assets'));
    for (const rel of referenced) expect(assets).toContain(rel.slice('assets/'.length));
    expect(assets.filter((n) => /^app-[A-Z0-9]{8}\.js$/.test(n))).toHaveLength(1);
    const manifest = json('manifest.json').files as Record<string, { size: number }>;
    for (const name of assets) {
      expect(manifest[`assets/${name}`], name).toBeDefined();
      const size = file(`assets/${name}`).length;
      if (!name.endsWith('.gz') && !name.endsWith('.br') && size >= 4096) expect(assets).toContain(`${name}.gz`);
    }
  });

  it('index.html carries the CSP, no inline script or style, and only relative URLs', () => {
    const html = file('index.html').toString();
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${CSP_META}">`);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/(?:src|href)="\//);
    // The only absolute URL is the attribution link, which is never fetched.
    expect([...html.matchAll(/https?:\/\/[^"\s<]+/g)].map((m) => m[0])).toEqual(['https://github.com/pegscope/pegscope']);
  });

  it('the host configs give the page its CSP, and nginx serves its exact asset names only', () => {
    const headers = file('_headers').toString();
    expect(headers).toContain(`/assets/*\n  Content-Security-Policy: ${CONTENT_SECURITY_POLICY}`);
    expect(headers).toContain(`  Cache-Control: ${ASSET_CACHE_CONTROL}`);
    const nginx = file('nginx.conf').toString();
    expect(nginx).toContain('location = / {');
    expect(nginx).toContain(`add_header Content-Security-Policy "${CONTENT_SECURITY_POLICY}" always;`);
  });
});

describe('chart series', () => {
  it('every series validates against its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajvFormats.default(ajv);
    for (const [name, schema] of Object.entries(schemaFiles())) if (name !== 'openapi.json') ajv.addSchema(schema);
    for (const name of SERIES_NAMES) {
      const validate = ajv.getSchema(`${SCHEMA_BASE}series-${name}.json`)!;
      expect(validate, name).toBeDefined();
      if (!validate(json(seriesPath(name)))) throw new Error(`${name}: ${ajv.errorsText(validate.errors)}`);
    }
  });

  it('daily has one point per day in order, whose pegs add up to stats and whose supply is the last block\'s', () => {
    const d = json(seriesPath('daily')).series as SeriesBodies['daily'];
    const stats = json('api/stats.json').stats;
    expect(d.day.length).toBeGreaterThan(2);
    for (const column of [d.height, d.supply, d.pegin_count, d.pegin_amount, d.pegout_count, d.pegout_amount]) expect(column).toHaveLength(d.day.length);
    for (let i = 1; i < d.day.length; i++) expect(d.day[i]! - d.day[i - 1]!).toBeGreaterThanOrEqual(86400);
    const sum = (xs: number[]): number => xs.reduce((s, x) => s + x, 0);
    expect(sum(d.pegin_count)).toBe(stats.total_pegins);
    expect(sum(d.pegout_count)).toBe(stats.total_pegouts);
    expect(sum(d.pegin_amount)).toBeCloseTo(stats.total_pegin_amount, 6);
    expect(sum(d.pegout_amount)).toBeCloseTo(stats.total_pegout_amount, 6);
    // The supply of the last day is the supply after the last analysed block (when it has pegs, its block document says so).
    const lastHeight = d.height.at(-1)!;
    if (existsSync(join(root, `api/block/${lastHeight}.json`))) expect(d.supply.at(-1)).toBe(json(`api/block/${lastHeight}.json`).block.supply);
    expect(lastHeight).toBe(json('api/stats.json').as_of_height);
  });

  it('pegin_amounts buckets are ten per decade, cover every peg-in, and mark the most used amounts', () => {
    const a = json(seriesPath('pegin_amounts')).series as SeriesBodies['pegin_amounts'];
    const stats = json('api/stats.json').stats;
    expect(a.count.reduce((s, n) => s + n, 0)).toBe(stats.total_pegins);
    for (let i = 0; i < a.low.length; i++) {
      expect(a.high[i]! / a.low[i]!).toBeCloseTo(10 ** 0.1, 2);
      if (i > 0) expect(a.low[i]!).toBeGreaterThanOrEqual(a.high[i - 1]!);
    }
    expect(a.popular.length).toBe(10);
    const top = json('data/pegin_amounts.json').pegin_amounts as { amount: number; count: number }[];
    expect(a.popular[0]!.count).toBeGreaterThanOrEqual(top[0]!.count);
    for (const p of a.popular) expect(a.low.some((low, i) => p.amount >= low && p.amount < a.high[i]!), String(p.amount)).toBe(true);
  });

  it('link_confidence has twenty bins holding every reported link', () => {
    const c = json(seriesPath('link_confidence')).series as SeriesBodies['link_confidence'];
    expect(c.low).toEqual(Array.from({ length: 20 }, (_, i) => Number((i * 0.05).toFixed(2))));
    expect(c.count.reduce((s, n) => s + n, 0)).toBe(json('api/stats.json').stats.reported_links);
    const high = json('data/links.json').links.filter((l: { confidence: number }) => l.confidence >= 0.95).length;
    expect(c.count[19]).toBeGreaterThanOrEqual(high);
  });
});

describe('the router serves the page', () => {
  it('answers / and /index.html with the page, its CSP, a strong ETag and 304 on a match', async () => {
    for (const path of ['/', '/index.html', '/?utm_source=x']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers.etag).toMatch(/^"[^"]+"$/);
      expect(res.body.equals(file('index.html'))).toBe(true);
      const again = await get(path, { 'if-none-match': String(res.headers.etag) });
      expect(again.status).toBe(304);
    }
  });

  it('serves every asset with its type, a year of caching and its gzip sibling', async () => {
    for (const name of readdirSync(join(root, 'assets')).filter((n) => !/\.(gz|br)$/.test(n))) {
      const res = await get(`/assets/${name}`, { 'accept-encoding': 'gzip' });
      expect(res.status, name).toBe(200);
      const type = { js: 'text/javascript', css: 'text/css', html: 'text/html' }[name.split('.').pop()!]!;
      expect(res.headers['content-type']).toBe(`${type}; charset=utf-8`);
      expect(res.headers['cache-control']).toBe(ASSET_CACHE_CONTROL);
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      const body = res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.body) : res.body;
      expect(body.equals(file(`assets/${name}`)), name).toBe(true);
    }
  });

  it('answers the documents the page reads at their file names, byte for byte', async () => {
    for (const rel of EXPLORER_DOCUMENTS) {
      const res = await get(`/${rel}`);
      expect(res.status, rel).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body.equals(file(rel)), rel).toBe(true);
    }
  });

  it('is a JSON 404 for any other asset name, and never reaches outside the release', async () => {
    for (const path of ['/assets/nope.js', '/assets/app.exe', '/assets/../manifest.json', '/assets/%2e%2e/manifest.json', '/assets/..%2f..%2fSECRET.txt',
      '/assets/.secret', '/assets/a/b.js', '/assets/', '/api/series/nope.json', '/api/series/../stats.json', '/index.htm']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.text), path).toMatchObject({ version: '1', error: expect.any(String) });
      expect(res.text).not.toContain(SECRET);
    }
  });
});

describe('the page\'s lookup and CSV against the router', () => {
  it('looks up through range files: the documents the router answers, fetched by prefix only', async () => {
    const asked: string[] = [];
    const lookup = await openLookup(`${server.url}/`, (url) => { asked.push(url); return fetch(url); }, 'sim');
    expect(lookup.sendsKey).toBe(false);
    for (const q of Object.values(tree.traceQ)) {
      const found = await lookup.trace(q);
      expect(found!.text).toBe((await get(`/api/trace?q=${q}`)).text);
    }
    const block = await lookup.block(tree.block.hash);
    expect(block!.text).toBe((await get(`/api/block?q=${tree.block.height}`)).text);
    expect(await lookup.trace('f'.repeat(64))).toBeNull();
    expect(asked.length).toBeGreaterThan(0);
    for (const url of asked) expect(url).toMatch(/\/api\/(ranges\.json|range\/(trace|block)\/[0-9a-f]+\.json)$/);
  });

  it('falls back to asking by key when the release has no range files, and says why', async () => {
    const files = await buildPipelineTree(5, 'files');
    const plain = await startServer({ sites: [{ network: 'sim', outDir: files.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    try {
      const lookup = await openLookup(`${plain.url}/`, (url) => fetch(url), 'sim');
      expect(lookup.sendsKey).toBe(true);
      expect(lookup.reason).toMatch(/api\/ranges\.json answered 404/);
      const q = files.traceQ.address;
      expect((await lookup.trace(q))!.text).toBe(readFileSync(join(files.dir, `api/trace/${q}.json`), 'utf8'));
      expect(await lookup.block('1')).toBeNull();
    } finally {
      await plain.close();
      rmSync(files.root, { recursive: true, force: true });
    }
  }, 300_000);

  it('builds the trace CSV the API serves, from the trace document', async () => {
    for (const q of Object.values(tree.traceQ)) {
      const doc = JSON.parse((await get(`/api/trace?q=${q}`)).text);
      expect(traceCsv(doc.trace)).toBe((await get(`/api/trace?q=${q}&format=csv`)).text);
    }
  });
});
