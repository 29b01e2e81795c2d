/**
 * The host configs of a release against the router: nginx (Debian's, with
 * the exported snippet) over a files-layout release answers every lookup
 * path form with the router's bytes, and `_redirects`/`_headers`, applied as
 * Netlify and as Cloudflare Pages document them, never give a document the
 * router would not.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/store/db.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import { exportRelease } from '../src/export/export.js';
import { NGINX_MESSAGES } from '../src/export/configs.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { analysedDb } from './helpers/export-pipeline.js';
import { nginxAvailable, startNginx, type RunningNginx } from '../scripts/lib/nginx.js';
import { get } from './helpers/http.js';

let work: string;
let db: Db;
let nginx: RunningNginx | undefined;
let router: RunningServer;
let root: string;

const file = (rel: string): Buffer => readFileSync(join(root, rel));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-nginx-'));
  ({ db } = await analysedDb(':memory:', 3, 1_800, 1_800_000_000));
  const release = await exportRelease(db, { outDir: join(work, 'out'), layout: 'files', hostBudget: NO_HOST_BUDGET });
  root = join(work, 'out', 'current');
  router = await startServer({ sites: [{ network: 'sim', outDir: join(work, 'out') }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  if (nginxAvailable()) nginx = await startNginx(work, root, join(release.dir, 'nginx.conf'));
}, 300_000);

afterAll(async () => {
  await nginx?.stop();
  await router?.close();
  db?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const top = (): Record<string, string | number> => JSON.parse(file('data/links.json').toString()).links[0];

describe('nginx over a files-layout release', () => {
  it.runIf(nginxAvailable())('answers every lookup path form the router takes with the router\'s bytes and type', async () => {
    const link = top();
    const blockHash = JSON.parse(file(`api/block/${link.pegout_height}.json`).toString()).block.hash as string;
    const lookups: [string, string | number][] = [
      ['trace', link.pegout_address!], ['trace', link.pegin_txid!], ['trace', link.pegout_txid!],
      ['address', link.pegout_address!], ['follow', link.pegout_address!], ['block', link.pegout_height!], ['block', blockHash],
    ];
    for (const [kind, q] of lookups) {
      const forms = [`/api/${kind}?q=${q}`, `/api?endpoint=${kind}&q=${q}`, `/api.php?endpoint=${kind}&q=${q}`, `/api/${kind}/${q}`, `/api/${kind}/${q}.json`];
      if (kind === 'trace') forms.push(`/api/trace?q=${q}&format=csv`, `/api?endpoint=trace&q=${q}&format=csv`, `/api/trace/${q}?format=csv`, `/api/trace/${q}.csv`);
      for (const path of forms) {
        const [fromRouter, fromNginx] = await Promise.all([get(router.url, path), get(nginx!.url, path)]);
        expect(fromRouter.status, path).toBe(200);
        expect(fromNginx.status, path).toBe(200);
        expect(fromNginx.headers['content-type'], path).toBe(fromRouter.headers['content-type']);
        expect(fromNginx.headers['cache-control'], path).toBe(fromRouter.headers['cache-control']);
        expect(fromNginx.body.equals(fromRouter.body), path).toBe(true);
      }
    }
  });

  it.runIf(nginxAvailable())('a well-formed key the release has no file for is a JSON 404 (the router answers not_found)', async () => {
    const unknown = 'f'.repeat(64);
    const res = await get(nginx!.url, `/api/trace?q=${unknown}`);
    expect(res.status).toBe(404);
    expect(res.json.error).toBe(NGINX_MESSAGES.noDocument);
    expect((await get(router.url, `/api/trace?q=${unknown}`)).json.trace.type).toBe('not_found');
  });

  it.runIf(nginxAvailable())('refuses a q that could reach outside the tree', async () => {
    for (const path of ['/api/trace?q=..%2F..%2Fmanifest', '/api/trace?q=a%00b', `/api/trace?q=${'a'.repeat(101)}`]) {
      const res = await get(nginx!.url, path);
      expect(res.status, path).toBe(400);
      expect(res.json, path).toMatchObject({ version: '1', error: NGINX_MESSAGES.badQ });
    }
  });
});

interface Rule { from: string; conditions: [string, string][]; to: string; status: string }

function parseRules(text: string): Rule[] {
  return text.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => {
    const parts = line.split(/\s+/);
    return {
      from: parts[0]!, to: parts[parts.length - 2]!, status: parts[parts.length - 1]!,
      conditions: parts.slice(1, -2).map((c) => c.split('=') as [string, string]),
    };
  });
}

/**
 * `_redirects` as each host documents it. Netlify serves an existing file
 * first, then applies the first rule whose path and query conditions match.
 * Cloudflare Pages ignores a line that is not `source destination [code]`
 * and follows its rules even where a file exists. Returns the file served,
 * or null for the host's 404.
 */
function servedBy(host: 'netlify' | 'cloudflare', rules: Rule[], url: string): string | null {
  const { pathname, searchParams } = new URL(url, 'http://mirror');
  const isFile = (path: string): boolean => path.includes('.') && existsSync(join(root, path));
  if (host === 'netlify' && isFile(pathname)) return pathname;
  for (const rule of rules) {
    if (host === 'cloudflare' && rule.conditions.length > 0) continue;
    if (rule.from !== pathname) continue;
    if (!rule.conditions.every(([k, v]) => searchParams.get(k) === v)) continue;
    return isFile(rule.to) ? rule.to : null;
  }
  return isFile(pathname) ? pathname : null;
}

describe('_redirects and _headers, as Netlify and Cloudflare Pages apply them', () => {
  const defaults = [
    '/api/health', '/api/stats', '/api/recommendations', '/api/links', '/api/pegin_amounts', '/api/pegout_amounts', '/api/amounts',
    '/api/stats.json', '/api/links.json', '/api/openapi.json', '/api/series/daily.json', '/dumps/links/links-00000000-00001999.parquet', '/dumps/views.sql',
  ];
  const queried = [
    '/api?endpoint=stats', '/api.php?endpoint=recommendations', '/api?endpoint=links&format=csv', '/api/links?format=csv',
    '/api/pegout_amounts?format=csv', '/api.php?endpoint=pegin_amounts',
  ];

  it('Netlify answers the path and query forms with the router\'s bytes', async () => {
    const rules = parseRules(file('_redirects').toString());
    for (const url of [...defaults, ...queried]) {
      const target = servedBy('netlify', rules, url);
      expect(target, url).not.toBeNull();
      const res = await get(router.url, url);
      expect(res.status, url).toBe(200);
      if (url !== '/api/health') expect(file(target!.slice(1)).equals(res.body), `${url} → ${target}`).toBe(true);
    }
  });

  it('Cloudflare Pages answers the path forms with the router\'s bytes and ?endpoint= with its 404, never the index', async () => {
    const rules = parseRules(file('_redirects').toString());
    for (const url of defaults) {
      const target = servedBy('cloudflare', rules, url);
      const res = await get(router.url, url);
      if (url !== '/api/health') expect(target && file(target.slice(1)).equals(res.body), url).toBe(true);
    }
    for (const url of ['/api', '/api?endpoint=stats', '/api.php?endpoint=links&format=csv']) expect(servedBy('cloudflare', rules, url), url).toBeNull();
    // Cloudflare follows a rule even where a file exists: a placeholder would turn api/range/…/ab.json into ab.json.json.
    for (const rule of rules) expect(`${rule.from} ${rule.to}`, rule.from).not.toMatch(/[:*]/);
    const text = file('_redirects').toString();
    expect(rules.length).toBeLessThanOrEqual(2_000);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(1_000);
  });

  it('_headers sets each header once per path (Cloudflare joins repeats) and the router\'s Cache-Control', async () => {
    const blocks: { pattern: string; headers: [string, string][] }[] = [];
    for (const line of file('_headers').toString().split('\n')) {
      if (!line) continue;
      if (!line.startsWith(' ')) blocks.push({ pattern: line, headers: [] });
      else blocks.at(-1)!.headers.push(line.trim().split(/:\s*/, 2) as [string, string]);
    }
    expect(blocks.length).toBeLessThanOrEqual(100);
    const matches = (pattern: string, path: string): boolean => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(path);
    for (const path of ['/', '/index.html', '/assets/app-X.js', '/api/links.json', '/api/links.csv', '/api/range/trace/ab.json', '/dumps/links/links-00000000-00001999.parquet', '/dumps/pegins/pegins-00000000-00001999.csv.gz', '/dumps/views.sql', '/manifest.json']) {
      const applied = blocks.filter((b) => matches(b.pattern, path)).flatMap((b) => b.headers);
      const names = applied.map(([name]) => name.toLowerCase());
      expect(new Set(names).size, `${path}: ${names.join(', ')}`).toBe(names.length);
      const headers = new Map(applied.map(([name, value]) => [name.toLowerCase(), value]));
      expect(headers.get('access-control-allow-origin'), path).toBe('*');
      expect(headers.get('x-content-type-options'), path).toBe('nosniff');
      if (path.startsWith('/api/') || path.startsWith('/dumps/') || path === '/manifest.json') {
        const res = await get(router.url, path === '/api/links.csv' ? '/api/links?format=csv' : path);
        // A files-layout release has no ranges for the router to answer; their headers are those of every document.
        const want = res.status === 200 ? res : await get(router.url, '/api/links.json');
        expect(headers.get('cache-control'), path).toBe(want.headers['cache-control']);
        expect(headers.get('content-type'), path).toBe(want.headers['content-type']);
      }
    }
  });
});
