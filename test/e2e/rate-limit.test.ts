/**
 * The router's default rate limit and the explorer page in a real browser
 * (Debian's Chromium): the limit counts API endpoints only, so a visitor
 * browsing the page (which reads release files by name) never meets it,
 * and a request of the page that is refused says so in words
 * (docs/api.md "Rate limits").
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRelease } from '../../src/export/export.js';
import { NO_HOST_BUDGET } from '../../src/export/ranges.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { analysedDb } from '../helpers/export-pipeline.js';
import { browserTestsEnabled, launchBrowser, type Browser } from '../helpers/browser.js';
import { exportTinyRelease, type TinyRelease } from '../helpers/tiny-release.js';

const enabled = browserTestsEnabled();
/** `pegscope serve`'s default. */
const DEFAULT_RATE_LIMIT = 60;

let ranges: TinyRelease;
let filesOut: string;
let browser: Browser;
let address: string;

beforeAll(async () => {
  if (!enabled) return;
  ranges = await exportTinyRelease();
  // The files layout: no range files, so the page looks up by key through /api/<endpoint>?q=, which the limit counts.
  filesOut = join(ranges.root, 'out-files', 'sim');
  const { db, source } = await analysedDb(':memory:', 1, 2_600, 1_800_000_000);
  try {
    await exportRelease(db, { outDir: filesOut, layout: 'files', hostBudget: NO_HOST_BUDGET });
  } finally {
    await source.close();
    db.close();
  }
  const links = JSON.parse(readFileSync(join(ranges.dir, 'api', 'links.json'), 'utf8')) as { links: { pegout_address: string }[] };
  address = links.links[0]!.pegout_address;
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (ranges) rmSync(ranges.root, { recursive: true, force: true });
});

const serve = (outDir: string, rateLimit: number): Promise<RunningServer> =>
  startServer({ sites: [{ network: 'sim', outDir }], host: '127.0.0.1', port: 0, rateLimit });

describe.runIf(enabled)('the default rate limit', () => {
  it('lets 30 page views in a minute render, dashboard and private lookups alike; the API is still limited', async () => {
    const router = await serve(ranges.outDir, DEFAULT_RATE_LIMIT);
    try {
      const statuses: number[] = [];
      for (let view = 0; view < 30; view++) {
        const page = await browser.context.newPage();
        page.on('response', (r) => statuses.push(r.status()));
        // Every other view opens a lookup, which reads the range index and a range file.
        const lookup = view % 2 === 1;
        await page.goto(`${router.url}/${lookup ? `#/lookup/${address}` : '#/'}`);
        if (lookup) {
          await page.waitForSelector('#lookup-result h2, #lookup-result .error', { timeout: 20_000 });
          expect(await page.$('#lookup-result .error'), `view ${view + 1}`).toBeNull();
        } else {
          await page.waitForSelector('[data-stat]', { timeout: 20_000 });
        }
        await page.close();
      }
      expect(statuses.length).toBeGreaterThan(30 * 5);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      // The same client's API budget is untouched by the page: 60 answers, then 429, on each endpoint form.
      const codes: number[] = [];
      for (let i = 0; i < DEFAULT_RATE_LIMIT; i++) codes.push((await fetch(`${router.url}${i % 2 ? '/api/stats' : '/api?endpoint=stats'}`)).status);
      expect(codes.every((c) => c === 200)).toBe(true);
      const refused = await fetch(`${router.url}/api/stats`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await fetch(`${router.url}/api?endpoint=health`)).status).toBe(429);
      // Files by name stay free.
      expect((await fetch(`${router.url}/api/stats.json`)).status).toBe(200);
      expect((await fetch(`${router.url}/`)).status).toBe(200);
    } finally {
      await router.close();
    }
  }, 240_000);

  it('a lookup the limit refuses shows "too many requests, retry in N s" on the page', async () => {
    // One API request a minute, spent here: the page's own reads are files by name and free, its lookup by key is counted.
    const router = await serve(filesOut, 1);
    try {
      expect((await fetch(`${router.url}/api/stats`)).status).toBe(200);
      const page = await browser.context.newPage();
      await page.goto(`${router.url}/#/lookup/${address}`);
      await page.waitForSelector('#lookup-result .error', { timeout: 20_000 });
      expect(await page.textContent('#lookup-result .error')).toMatch(/^The lookup failed: .*too many requests, retry in \d+ s$/);
      expect(await page.textContent('[data-lookup-mode]')).toMatch(/Not private on this mirror/);
      await page.close();
    } finally {
      await router.close();
    }
  }, 120_000);
});
