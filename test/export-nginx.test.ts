import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/store/db.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import { exportRelease } from '../src/export/export.js';
import { analysedDb } from './helpers/export-pipeline.js';
import { nginxAvailable, startNginx, type RunningNginx } from './helpers/nginx.js';

let work: string;
let db: Db;
let nginx: RunningNginx | undefined;
let port: number;
let root: string;

interface Fetched { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

function get(path: string, headers: Record<string, string> = {}): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** /api/index.json → its bytes on disk. */
const file = (rel: string): Buffer => readFileSync(join(root, rel));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-nginx-'));
  ({ db } = await analysedDb(':memory:', 3, 1_800, 1_800_000_000));
  const release = await exportRelease(db, { outDir: join(work, 'out'), layout: 'files', hostBudget: NO_HOST_BUDGET });
  root = join(work, 'out', 'current');
  if (!nginxAvailable()) return;
  nginx = await startNginx(work, root, join(release.dir, 'nginx.conf'));
  port = nginx.port;
}, 300_000);

afterAll(async () => {
  await nginx?.stop();
  db?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * The _redirects rules as Netlify applies them: an existing file is served as
 * is; otherwise the first rule whose path and query conditions match rewrites.
 */
function redirectsTarget(rules: string, url: string): string | null {
  const { pathname, searchParams } = new URL(url, 'http://mirror');
  if (existsSync(join(root, pathname)) && pathname.includes('.')) return pathname;
  for (const line of rules.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const parts = line.split(/\s+/);
    const [from, to] = [parts[0]!, parts[parts.length - 2]!];
    const vars = new Map<string, string>();
    const fromSegs = from.split('/');
    const pathSegs = pathname.split('/');
    if (fromSegs.length !== pathSegs.length) continue;
    if (!fromSegs.every((seg, i) => (seg.startsWith(':') ? (vars.set(seg, pathSegs[i]!), true) : seg === pathSegs[i]))) continue;
    const conditions = parts.slice(1, -2).map((c) => c.split('=') as [string, string]);
    if (!conditions.every(([k, v]) => searchParams.has(k) && (v.startsWith(':') ? (vars.set(v, searchParams.get(k)!), true) : searchParams.get(k) === v))) continue;
    return to.replace(/:[a-z]+/g, (name) => vars.get(name) ?? name);
  }
  return null;
}

describe('the exported nginx snippet serves the release tree', () => {
  it.runIf(nginxAvailable())('answers a trace by ?q=, by /api/trace/<q> and through /api?endpoint=', async () => {
    const q = JSON.parse(file('data/links.json').toString()).links[0].pegout_address as string;
    const want = file(`api/trace/${q}.json`);
    for (const path of [`/api/trace?q=${q}`, `/api/trace/${q}`, `/api?endpoint=trace&q=${q}`, `/api.php?endpoint=trace&q=${q}`]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.body.equals(want), path).toBe(true);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
    const csv = await get(`/api/trace?q=${q}&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body.equals(file(`api/trace/${q}.csv`))).toBe(true);
  });

  it.runIf(nginxAvailable())('answers default documents, the index and the amount table', async () => {
    expect((await get('/api')).body.equals(file('api/index.json'))).toBe(true);
    expect((await get('/api/links')).body.equals(file('api/links.json'))).toBe(true);
    expect((await get('/api?endpoint=stats')).body.equals(file('api/stats.json'))).toBe(true);
    expect((await get('/api/pegin_amounts?format=csv')).body.equals(file('api/pegin_amounts.csv'))).toBe(true);
    expect((await get('/api/amounts')).body.equals(file('api/amounts.json'))).toBe(true);
    const height = JSON.parse(file('data/links.json').toString()).links[0].pegout_height as number;
    expect((await get(`/api/block?q=${height}`)).body.equals(file(`api/block/${height}.json`))).toBe(true);
  });

  it.runIf(nginxAvailable())('the _redirects rules map the same URLs onto the same files as nginx', async () => {
    const rules = file('_redirects').toString();
    const top = JSON.parse(file('data/links.json').toString()).links[0];
    const urls = [
      `/api/trace?q=${top.pegout_address}`, `/api/trace/${top.pegin_txid}`, `/api?endpoint=trace&q=${top.pegout_txid}&format=csv`,
      `/api/address?q=${top.pegout_address}`, `/api/follow?q=${top.pegout_address}`, `/api/block?q=${top.pegout_height}`,
      '/api', '/api.php', '/api/links', '/api/links?format=csv', '/api?endpoint=recommendations', '/api/health', '/api/amounts',
    ];
    for (const url of urls) {
      const target = redirectsTarget(rules, url);
      expect(target, url).not.toBeNull();
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(file(target!.slice(1)).equals(res.body), `${url} → ${target}`).toBe(true);
    }
  });

  it.runIf(nginxAvailable())('serves the precompressed sibling to gzip clients', async () => {
    const res = await get('/api/links', { 'accept-encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(res.body).equals(file('api/links.json'))).toBe(true);
  });

  it.runIf(nginxAvailable())('refuses a q that could reach outside the tree and answers JSON errors', async () => {
    const bad = await get('/api/trace?q=..%2F..%2Fmanifest');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body.toString())).toMatchObject({ version: '1', error: expect.stringMatching(/q must be/) });
    const unknown = await get('/api/nope');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body.toString()).error).toMatch(/no such path/);
  });
});
