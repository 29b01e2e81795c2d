/**
 * The explorer page in a real browser (Debian's Chromium through
 * playwright-core) over a `demo` release, served three ways: by the router
 * (`pegscope serve`), by nginx with the release's snippet, and by a plain
 * directory server under a sub-path. Screenshots go to test-output/explorer/.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Db } from '../../src/store/db.js';
import { createSimSource } from '../../src/chain/sim/index.js';
import { scanChain } from '../../src/store/scan.js';
import { analyze } from '../../src/analysis/analyze.js';
import { exportRelease } from '../../src/export/export.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { startPlainServer, type PlainServer } from '../helpers/plain-server.js';
import { CONTENT_SECURITY_POLICY } from '../../src/api/explorer.js';
import { browserTestsEnabled, launchBrowser, type Browser } from '../helpers/browser.js';
import { nginxAvailable, startNginx, type RunningNginx } from '../../scripts/lib/nginx.js';
import { isSuggestable, parseCoinAmount } from '@pegscope/client';

const SHOTS = fileURLToPath(new URL('../../test-output/explorer/', import.meta.url));
const FIRST_LOAD_BUDGET = 200 * 1024;
const enabled = browserTestsEnabled();

type ServerName = 'router' | 'nginx' | 'directory';
let work: string;
let release: string;
let router: RunningServer;
let nginx: RunningNginx | undefined;
let directory: PlainServer;
let browser: Browser;
const bases = {} as Record<ServerName, string>;

beforeAll(async () => {
  if (!enabled) return;
  work = mkdtempSync(join(tmpdir(), 'pegscope-e2e-explorer-'));
  const db = await Db.open(':memory:');
  try {
    await scanChain(db, createSimSource({ preset: 'demo', seed: 1 }));
    await analyze(db);
    release = (await exportRelease(db, { outDir: join(work, 'out') })).dir;
  } finally {
    db.close();
  }
  router = await startServer({ sites: [{ network: 'sim', outDir: join(work, 'out') }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  bases.router = `${router.url}/`;
  if (nginxAvailable()) {
    nginx = await startNginx(join(work, 'nginx'), join(work, 'out', 'current'), join(release, 'nginx.conf'));
    bases.nginx = `${nginx.url}/`;
  }
  directory = await startPlainServer(realpathSync(join(work, 'out', 'current')), '/mirror/pegscope/');
  bases.directory = directory.url;
  browser = await launchBrowser();
  mkdirSync(SHOTS, { recursive: true });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await router?.close();
  await nginx?.stop();
  await directory?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The router's answer to an API request: the reference every mirror's page must match. */
async function api<T = any>(path: string): Promise<T> {
  const response = await fetch(`${router.url}${path}`);
  expect(response.status, path).toBe(200);
  return response.json() as Promise<T>;
}
const apiText = async (path: string): Promise<string> => (await fetch(`${router.url}${path}`)).text();

interface Visit {
  page: Page;
  requests: string[];
  errors: string[];
  /** Requests sent and not yet answered. */
  inflight: () => number;
}

/**
 * Opens the page on a server and records every request and every console
 * error. A 404 the page expects (no range index yet; a plain host that
 * cannot answer by key) is a console line of the browser, not an error of
 * the page, and is left out.
 */
async function visit(server: ServerName, hash = '#/'): Promise<Visit> {
  const page = await browser.context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  let inflight = 0;
  page.on('request', (r) => {
    requests.push(r.url());
    inflight++;
  });
  page.on('requestfinished', () => inflight--);
  page.on('requestfailed', () => inflight--);
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const url = m.location().url;
    errors.push(`console: ${m.text()} (${url})`);
  });
  await page.goto(`${bases[server]}${hash}`);
  await page.waitForSelector('main h1');
  return { page, requests, errors, inflight: () => inflight };
}

/** Waits until no request has been in flight for half a second (the page has loaded what it asked for). */
async function settle(v: Visit): Promise<void> {
  let quiet = 0;
  for (let waited = 0; quiet < 500; waited += 50) {
    if (waited > 20_000) throw new Error(`requests still in flight after 20 s: ${v.inflight()}`);
    await new Promise((r) => setTimeout(r, 50));
    quiet = v.inflight() === 0 ? quiet + 50 : 0;
  }
}

/** Every visit ends here: no page error, no request off the site, no cookie. */
async function done(v: Visit, server: ServerName, shot: string): Promise<void> {
  await settle(v);
  await v.page.screenshot({ path: join(SHOTS, `${server}-${shot}.png`), fullPage: false });
  expect(v.errors).toEqual([]);
  const origin = new URL(bases[server]).origin;
  for (const url of v.requests) expect(url.startsWith(`${origin}/`) || url.startsWith('blob:') || url.startsWith('data:'), url).toBe(true);
  expect(await browser.context.cookies()).toEqual([]);
  await v.page.close();
}

/** Presses Tab until focus has visited every control on the page; returns the ones never reached. */
async function unreachedByTab(page: Page): Promise<string[]> {
  const total = await page.evaluate(() => {
    const controls = [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
      .filter((el) => el.getClientRects().length > 0 && !(el as HTMLButtonElement).disabled)
      // Tab enters a radio group once, at its checked button; arrows move inside it.
      .filter((el) => !(el instanceof HTMLInputElement && el.type === 'radio' && !el.checked));
    controls.forEach((el, i) => el.setAttribute('data-tab', `${i}:${el.tagName.toLowerCase()} ${(el.textContent ?? '').trim().slice(0, 30) || el.getAttribute('aria-label') || el.id}`));
    (document.activeElement as HTMLElement | null)?.blur();
    return controls.length;
  });
  expect(total).toBeGreaterThan(3);
  const reached = new Set<string>();
  for (let i = 0; i < total + 5; i++) {
    await page.keyboard.press('Tab');
    const tag = await page.evaluate(() => document.activeElement?.getAttribute('data-tab') ?? null);
    if (tag) reached.add(tag);
  }
  return page.evaluate((seen) => [...document.querySelectorAll('[data-tab]')].map((el) => el.getAttribute('data-tab')!).filter((t) => !seen.includes(t)), [...reached]);
}

/** Inputs a screen reader could not name. */
function unlabelledInputs(page: Page): Promise<string[]> {
  return page.$$eval('input, select, textarea', (els) => els
    .filter((el) => !(el as HTMLInputElement).labels?.length && !el.getAttribute('aria-label'))
    .map((el) => el.outerHTML.slice(0, 80)));
}

/** Numbers as the dashboard prints them: "4,918", "49,265.80371186 rLTC". */
const parseShown = (text: string): number => Number(text.replace(/,/g, '').replace(/\s*[a-zA-Z]+$/, ''));

const servers: ServerName[] = ['router', 'nginx', 'directory'];

describe.runIf(enabled).each(servers)('the explorer served by %s', (server) => {
  const skip = (): boolean => server === 'nginx' && !nginxAvailable();

  it('shows the numbers of /api/stats on the dashboard, the network, the data age and the sim banner', async (ctx) => {
    if (skip()) return ctx.skip();
    const v = await visit(server);
    await v.page.waitForSelector('[data-stat]');
    const stats = (await api('/api/stats')).stats as Record<string, number>;
    const shown = await v.page.$$eval('[data-stat]', (els) => els.map((el) => [el.getAttribute('data-stat')!, el.textContent!] as const));
    expect(shown.map(([key]) => key).sort()).toEqual(Object.keys(stats).sort());
    // Amounts are rounded for reading, every decimal in the tooltip; counts are exact.
    const amounts = await v.page.$$eval('[data-stat$=_amount]', (els) => els.map((el) => [el.getAttribute('data-stat')!, el.getAttribute('title')!, el.getAttribute('data-value')!] as const));
    expect(amounts.length).toBe(2);
    for (const [key, text] of shown) {
      if (key.endsWith('_amount')) expect(Math.abs(parseShown(text) - stats[key]!), key).toBeLessThanOrEqual(0.5);
      else expect(parseShown(text), key).toBe(stats[key]);
    }
    for (const [key, title, value] of amounts) {
      expect(parseShown(title), key).toBe(stats[key]);
      expect(Number(value), key).toBe(stats[key]);
    }
    // No figure overflows its card, on a wide screen or a phone's.
    for (const width of [1200, 360]) {
      await v.page.setViewportSize({ width, height: 900 });
      expect(await v.page.$$eval('.stat', (els) => els.filter((el) => el.scrollWidth > el.clientWidth).map((el) => el.textContent)), `${width}px`).toEqual([]);
    }
    await v.page.setViewportSize({ width: 1200, height: 900 });
    await v.page.waitForSelector('[data-network]');
    expect(await v.page.textContent('[data-network]')).toBe('sim');
    expect(await v.page.textContent('#status')).toMatch(/height 20,431 · analysed \d+ (s|min|h|days) ago/);
    expect(await v.page.isVisible('#banner')).toBe(true);
    expect(await v.page.textContent('#banner')).toMatch(/Simulated data/);
    expect(await v.page.textContent('footer')).toMatch(/Data from pegscope.*CC BY 4\.0.*AGPL-3\.0/s);
    expect(await unreachedByTab(v.page)).toEqual([]);

    // The links table: its CSV in API order is the API's; a column heading sorts it.
    const [download] = await Promise.all([v.page.waitForEvent('download'), v.page.click('button[data-download="pegscope-links.csv"]')]);
    expect(readFileSync((await download.path())!, 'utf8')).toBe(await apiText('/api/links?format=csv'));
    await v.page.click('button.sort[data-sort=block_gap]');
    expect(await v.page.getAttribute('th:has(button[data-sort=block_gap])', 'aria-sort')).toBe('ascending');
    const gaps = await v.page.$$eval('.links-table tbody tr td:nth-child(4)', (tds) => tds.map((td) => Number(td.textContent!.replace(/,/g, ''))));
    expect(gaps.length).toBeGreaterThan(10);
    expect(gaps).toEqual([...gaps].sort((a, b) => a - b));
    expect(await unlabelledInputs(v.page)).toEqual([]);
    await done(v, server, 'dashboard');
  });

  it('computes a privacy check equal to /api/privacy without any request carrying the amount', async (ctx) => {
    if (skip()) return ctx.skip();
    const v = await visit(server, '#/privacy');
    for (const [amount, side] of [['0.31415926', 'pegin'], ['0.27182818', 'pegout']] as const) {
      await v.page.fill('#privacy-amount', amount);
      await v.page.check(`input[name=side][value=${side}]`);
      await v.page.click('#privacy-amount ~ button[type=submit]');
      await v.page.waitForFunction((a) => document.querySelector('#privacy-result h2')?.textContent?.startsWith(a), amount);
      const local = JSON.parse((await v.page.textContent('[data-privacy-json]'))!);
      expect(local).toEqual((await api(`/api/privacy?amount=${amount}&side=${side}`)).privacy);
      expect(await v.page.textContent('[data-field=window]')).toContain(`${local.window.low} to ${local.window.high}`);
    }
    // A popular amount picked from the table is checked the same way, on the side of the result it was listed for.
    const picked = /^#\/privacy\/([\d.]+)\/pegout$/.exec((await v.page.getAttribute('.popular tbody tr:first-child a', 'href'))!)![1]!;
    await v.page.click('.popular tbody tr:first-child a');
    expect(await privacyShown(v.page, picked, 'pegout')).toEqual((await api(`/api/privacy?amount=${picked}&side=pegout`)).privacy);
    expect(await v.page.inputValue('#privacy-amount')).toBe(picked);
    for (const amount of ['0.31415926', '31415926', '0.27182818', '27182818']) {
      expect(v.requests.filter((url) => url.includes(amount)), amount).toEqual([]);
    }
    // A malformed amount gets the router's own message (the page and the router parse with one function).
    await v.page.fill('#privacy-amount', '1,5');
    await v.page.click('#privacy-amount ~ button[type=submit]');
    const error = await v.page.waitForSelector('#privacy-result .error');
    expect(`amount: ${await error.textContent()}`).toBe(`${(JSON.parse(await apiText('/api/privacy?amount=1,5')) as { error: string }).error}.`);
    expect(await unreachedByTab(v.page)).toEqual([]);
    expect(await unlabelledInputs(v.page)).toEqual([]);
    await done(v, server, 'privacy');
  });

  it('looks up a known address and shows its links; no request carries the key', async (ctx) => {
    if (skip()) return ctx.skip();
    const top = (await api('/api/links')).links[0];
    const address = top.pegout_address as string;
    const v = await visit(server, '#/lookup');
    await v.page.fill('#lookup-q', address);
    await v.page.press('#lookup-q', 'Enter');
    await v.page.waitForSelector('#lookup-result h2, #lookup-result .error');
    const trace = (await api(`/api/trace?q=${address}`)).trace;
    const links = trace.pegins.reduce((n: number, p: { links: unknown[] }) => n + p.links.length, 0) + trace.pegouts.reduce((n: number, p: { links: unknown[] }) => n + p.links.length, 0);
    expect(links).toBeGreaterThan(0);
    for (const more of await v.page.$$('#lookup-result section.pegs > button')) await more.click();
    expect(await v.page.$$eval('#lookup-result li.link', (els) => els.length)).toBe(links);
    expect(await v.page.$(`#lookup-result li.link a[title="${top.pegin_txid}"]`)).not.toBeNull();
    expect(await v.page.$$eval('#lookup-result li.link meter', (els) => els.length)).toBe(links);

    // Downloads: the exact JSON the API answers, and the API's CSV made in the page.
    for (const [kind, path] of [['json', `/api/trace?q=${address}`], ['csv', `/api/trace?q=${address}&format=csv`]] as const) {
      const [download] = await Promise.all([v.page.waitForEvent('download'), v.page.click(`button[data-download$=".${kind}"]`)]);
      expect(readFileSync((await download.path())!, 'utf8'), kind).toBe(await apiText(path));
    }
    // Range files: every mirror answers the lookup from a prefix shared by many keys, never the key itself.
    expect(v.requests.filter((url) => url.toLowerCase().includes(address.toLowerCase()))).toEqual([]);
    expect(v.requests.some((url) => /\/api\/range\/trace\/[0-9a-f]+\.json$/.test(url))).toBe(true);
    expect(await v.page.isVisible('[data-lookup-mode=query]')).toBe(false);
    expect(await unreachedByTab(v.page)).toEqual([]);
    await done(v, server, 'lookup');
  });

  it('draws every chart (no blank canvas)', async (ctx) => {
    if (skip()) return ctx.skip();
    const v = await visit(server, '#/charts');
    await v.page.waitForSelector('figure.chart canvas');
    const figures = await v.page.$$eval('figure.chart', (els) => els.map((el) => el.id));
    expect(figures).toEqual(['chart-supply', 'chart-pegs', 'chart-amounts', 'chart-distribution', 'chart-confidence']);
    for (const id of figures) {
      const colored = await v.page.$eval(`#${id}`, (figure) => {
        const canvas = figure.querySelector('canvas')!;
        const [r, g, b] = (figure.getAttribute('data-series-color') ?? '#000000').match(/[0-9a-f]{2}/gi)!.map((x) => parseInt(x, 16));
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 0; i < pixels.length; i += 4) {
          if (pixels[i + 3]! > 200 && Math.abs(pixels[i]! - r!) + Math.abs(pixels[i + 1]! - g!) + Math.abs(pixels[i + 2]! - b!) < 60) n++;
        }
        return n;
      });
      expect(colored, `${id} has drawn its series`).toBeGreaterThan(50);
    }
    expect(await v.page.textContent('#calibration-h + p')).toMatch(/No calibration plot/);
    expect(await unreachedByTab(v.page)).toEqual([]);
    await v.page.locator('#chart-distribution').scrollIntoViewIfNeeded();
    await done(v, server, 'charts');
  });
});

/** The text of the lookup result's heading key, once it is `q`. */
const lookupShows = (page: Page, q: string): Promise<unknown> =>
  page.waitForFunction((key) => document.querySelector('#lookup-result h2 code')?.textContent === key, q);

/** The privacy result as the page computed it, once it is for `amount` on `side`. */
async function privacyShown(page: Page, amount: string, side = 'pegin'): Promise<unknown> {
  await page.waitForFunction(([a, s]) => {
    const shown = JSON.parse(document.querySelector('[data-privacy-json]')?.textContent ?? '{}') as { amount?: number; side?: string };
    return shown.amount === Number(a) && shown.side === s;
  }, [amount, side] as const);
  return JSON.parse((await page.textContent('[data-privacy-json]'))!);
}

/** The page's message, once it names `bad`; the router's error for the same text is the same message. */
async function errorShown(page: Page, selector: string, bad: string): Promise<string> {
  await page.waitForFunction(([sel, b]) => document.querySelector(sel)?.textContent?.includes(JSON.stringify(b)), [selector, bad] as const);
  return (await page.textContent(selector))!;
}

describe.runIf(enabled).each(['router', 'directory'] as ServerName[])('deep links into the explorer served by %s', (server) => {
  const open = (page: Page, hash: string): Promise<unknown> => page.goto(`${bases[server]}${hash}`);
  const hashOf = (page: Page): string => new URL(page.url()).hash;

  it('#/lookup/<q> opens the lookup; a key in the result opens its own; back and forward move between them', async () => {
    const top = (await api('/api/links')).links[0];
    const address = top.pegout_address as string;
    const v = await visit(server, `#/lookup/${address}`);
    await lookupShows(v.page, address);
    expect(await v.page.inputValue('#lookup-q')).toBe(address);
    const key = v.page.locator(`#lookup-result li.link a[title="${top.pegin_txid}"]`).first();
    expect(await key.getAttribute('href')).toBe(`#/lookup/${top.pegin_txid}`);
    await key.click();
    await lookupShows(v.page, top.pegin_txid);
    expect(hashOf(v.page)).toBe(`#/lookup/${top.pegin_txid}`);
    await v.page.goBack();
    await lookupShows(v.page, address);
    await v.page.goForward();
    await lookupShows(v.page, top.pegin_txid);
    // A typed key goes to its address too.
    await v.page.fill('#lookup-q', ` ${top.pegout_txid} `);
    await v.page.press('#lookup-q', 'Enter');
    await lookupShows(v.page, top.pegout_txid);
    expect(hashOf(v.page)).toBe(`#/lookup/${top.pegout_txid}`);
    // A height is its block's page, in the lookup's place: back does not land on a lookup that sends it on again.
    await open(v.page, `#/lookup/${top.pegout_height}`);
    await v.page.waitForSelector('[data-supply]');
    expect(hashOf(v.page)).toBe(`#/block/${top.pegout_height}`);
    await v.page.goBack();
    await lookupShows(v.page, top.pegout_txid);
    // What is not a key gets the lookup box's message.
    await open(v.page, '#/lookup/nonsense');
    expect(await errorShown(v.page, '#lookup-result .error', 'nonsense')).toMatch(/is not a sim address/);
    expect(v.requests.filter((url) => [address, top.pegin_txid, top.pegout_txid].some((k) => url.toLowerCase().includes(k.toLowerCase())))).toEqual([]);
    await done(v, server, 'lookup-deep-link');
  });

  it('#/privacy/<amount> opens the check on either side; a bad amount or side gets the router\'s message', async () => {
    const v = await visit(server, '#/privacy/0.31415926');
    expect(await privacyShown(v.page, '0.31415926')).toEqual((await api('/api/privacy?amount=0.31415926')).privacy);
    expect(await v.page.inputValue('#privacy-amount')).toBe('0.31415926');
    await open(v.page, '#/privacy/0.27182818/pegout');
    expect(await privacyShown(v.page, '0.27182818', 'pegout')).toEqual((await api('/api/privacy?amount=0.27182818&side=pegout')).privacy);
    expect(await v.page.isChecked('input[name=side][value=pegout]')).toBe(true);
    // The form goes to the check's address; back returns to the one before.
    await v.page.fill('#privacy-amount', '0.5');
    await v.page.check('input[name=side][value=pegin]');
    await v.page.click('#privacy-amount ~ button[type=submit]');
    await privacyShown(v.page, '0.5');
    expect(hashOf(v.page)).toBe('#/privacy/0.5');
    await v.page.goBack();
    await privacyShown(v.page, '0.27182818', 'pegout');
    for (const bad of ['1,5', '0', '1.123456789', '-1']) {
      await open(v.page, `#/privacy/${encodeURIComponent(bad)}`);
      const router = (JSON.parse(await apiText(`/api/privacy?amount=${encodeURIComponent(bad)}`)) as { error: string }).error;
      expect(`amount: ${await errorShown(v.page, '#privacy-result .error', bad)}`).toBe(`${router}.`);
    }
    await open(v.page, '#/privacy/1.5/sideways');
    const router = (JSON.parse(await apiText('/api/privacy?amount=1.5&side=sideways')) as { error: string }).error;
    expect(await errorShown(v.page, '#privacy-result .error', 'sideways')).toBe(`${router}.`);
    for (const amount of ['0.31415926', '31415926', '0.27182818', '27182818']) expect(v.requests.filter((url) => url.includes(amount)), amount).toEqual([]);
    await done(v, server, 'privacy-deep-link');
  });

  it('the dashboard links its amounts to their checks and its links to their lookups, advises typed amounts only, and states the wait once', async () => {
    const v = await visit(server);
    await v.page.waitForSelector('ol.amounts a');
    const r = (await api('/api/recommendations')).recommendations;
    const typed = (r.best_pegin_amounts as { amount: number }[]).filter((row) => isSuggestable(parseCoinAmount(row.amount.toFixed(8))));
    // The demo's most used peg-in amounts include 1 minus a fee (0.9999837): not advised.
    expect(typed.length).toBeLessThan(r.best_pegin_amounts.length);
    const hrefs = (list: number): Promise<string[]> => v.page.$$eval(`#rec-h ~ .columns > div:nth-child(${list}) ol.amounts a`, (els) => els.map((a) => a.getAttribute('href')!));
    expect(await hrefs(1)).toEqual(typed.map((row) => `#/privacy/${row.amount}`));
    expect(await hrefs(2)).toEqual((r.best_pegout_amounts as { amount: number }[]).map((row) => `#/privacy/${row.amount}/pegout`));
    expect((await v.page.textContent('main'))!.match(/\bwait\b/gi)).toHaveLength(1);
    expect(await v.page.textContent('footer')).toMatch(/never leaves your browser/);
    const txid = await v.page.getAttribute('.links-table tbody tr:first-child a.key', 'title');
    await v.page.click('.links-table tbody tr:first-child a.key');
    await lookupShows(v.page, txid!);
    await v.page.goBack();
    await v.page.click(`#rec-h ~ .columns > div:nth-child(1) ol.amounts li:first-child a`);
    expect(await privacyShown(v.page, String(typed[0]!.amount))).toEqual((await api(`/api/privacy?amount=${typed[0]!.amount}`)).privacy);
    await done(v, server, 'dashboard-links');
  });
});

describe.runIf(enabled)('the explorer through the router', () => {
  it(`loads the dashboard in under ${FIRST_LOAD_BUDGET / 1024} KB gzipped, everything included`, async () => {
    const page = await browser.context.newPage();
    const loads: { url: string; gzip: number }[] = [];
    const pending: Promise<void>[] = [];
    page.on('response', (response) => {
      pending.push(response.body().then((body) => { loads.push({ url: response.url(), gzip: gzipSync(body, { level: 9 }).length }); }, () => undefined));
    });
    await page.goto(bases.router);
    await page.waitForSelector('[data-stat]');
    await page.waitForLoadState('networkidle');
    await Promise.all(pending);
    await page.close();
    const total = loads.reduce((s, l) => s + l.gzip, 0);
    const report = { total_gzip_bytes: total, budget_bytes: FIRST_LOAD_BUDGET, requests: loads.length, files: loads.map((l) => ({ path: new URL(l.url).pathname, gzip: l.gzip })) };
    writeFileSync(join(SHOTS, 'first-load.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`explorer first load: ${loads.length} requests, ${(total / 1024).toFixed(1)} KB gzipped (budget ${FIRST_LOAD_BUDGET / 1024} KB)`);
    expect(loads.map((l) => new URL(l.url).pathname)).toEqual(expect.arrayContaining(['/', '/api/stats.json', '/api/links.json']));
    expect(total).toBeLessThan(FIRST_LOAD_BUDGET);
  });

  it('keeps text readable in light and dark mode (contrast at least 4.5:1)', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await browser.context.newPage();
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${bases.router}#/privacy`);
      await page.waitForSelector('#privacy-amount');
      const ratios = await page.evaluate(() => {
        const rgb = (c: string): number[] => c.match(/[\d.]+/g)!.slice(0, 4).map(Number);
        const lum = ([r, g, b]: number[]): number => {
          const f = (v: number): number => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
          return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
        };
        const background = (el: Element | null): number[] => {
          for (let e = el; e; e = e.parentElement) {
            const c = rgb(getComputedStyle(e).backgroundColor);
            if (c.length < 4 || c[3]! > 0) return c;
          }
          return rgb(getComputedStyle(document.documentElement).backgroundColor);
        };
        return ['main h1', '.help', 'nav a', '.status', 'footer p', '.banner', 'form.query button', 'label'].map((selector) => {
          const el = document.querySelector(selector)!;
          const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(background(el))];
          return [selector, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)] as const;
        });
      });
      const dark = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      await page.screenshot({ path: join(SHOTS, `router-privacy-${scheme}.png`) });
      await page.close();
      expect(dark === 'rgb(255, 255, 255)', scheme).toBe(scheme === 'light');
      for (const [selector, ratio] of ratios) expect(ratio, `${scheme} ${selector}`).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('shows a block with its pegs and its supply, and the methodology and API pages', async () => {
    const height = (await api('/api/links')).links[0].pegout_height as number;
    const v = await visit('router', `#/block/${height}`);
    await v.page.waitForSelector('[data-supply]');
    const block = (await api(`/api/block?q=${height}`)).block;
    expect(Number(await v.page.getAttribute('[data-supply]', 'data-supply'))).toBe(block.supply);
    expect(await v.page.$$eval('section.pegs article.peg', (els) => els.length)).toBe(Math.min(20, block.pegins.length) + Math.min(20, block.pegouts.length));
    await v.page.screenshot({ path: join(SHOTS, 'router-block.png') });
    for (const [hash, heading] of [['#/methodology', 'Methodology'], ['#/api', 'pegscope HTTP API']] as const) {
      await v.page.goto(`${bases.router}${hash}`);
      await v.page.waitForSelector('article.doc h1');
      expect(await v.page.textContent('article.doc h1')).toBe(heading);
    }
    await done(v, 'router', 'api-page');
  });

  it('answers the page with its CSP through nginx as through the router', async (ctx) => {
    if (!nginx) return ctx.skip();
    const html = readFileSync(join(release, 'index.html'), 'utf8');
    const app = /src="(assets\/app-[^"]+)"/.exec(html)![1]!;
    for (const base of [bases.router, bases.nginx]) {
      for (const [path, type] of [['', 'text/html'], [app, 'text/javascript']] as const) {
        const response = await fetch(`${base}${path}`);
        expect(response.status, `${base}${path}`).toBe(200);
        expect(response.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
        expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      }
    }
  });
});
