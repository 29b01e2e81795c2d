/**
 * The explorer page on a phone's width (390 px) in Chromium: a lookup's
 * heading names a long address and must wrap, not widen the page; an
 * address that never shared a transaction with another is not called "a
 * wallet cluster of 1 addresses".
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRange } from '@pegscope/client';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { browserTestsEnabled, launchBrowser, type Browser } from '../helpers/browser.js';
import { exportTinyRelease, type TinyRelease } from '../helpers/tiny-release.js';

const enabled = browserTestsEnabled();
let release: TinyRelease;
let router: RunningServer;
let browser: Browser;

/** The first address of the release whose trace shows a cluster of `size` addresses. */
function addressWithCluster(size: (n: number) => boolean): string {
  const dir = join(release.dir, 'api', 'range', 'trace');
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json')).sort()) {
    for (const [key, text] of parseRange(readFileSync(join(dir, file), 'utf8')).documents) {
      const cluster = (JSON.parse(text) as { trace: { type: string; cluster: { size: number } | null } }).trace;
      if (cluster.type === 'address' && cluster.cluster && size(cluster.cluster.size)) return key;
    }
  }
  throw new Error('no such address in the release');
}

beforeAll(async () => {
  if (!enabled) return;
  release = await exportTinyRelease();
  router = await startServer({ sites: [{ network: 'sim', outDir: release.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await router?.close();
  if (release) rmSync(release.root, { recursive: true, force: true });
});

describe.runIf(enabled)('the explorer at 390 px', () => {
  it('wraps a long address in the lookup heading, and says a lone address is a cluster of its own', async () => {
    const lone = addressWithCluster((n) => n === 1);
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${router.url}/#/lookup/${lone}`);
    await page.waitForSelector('#lookup-result h2');
    const heading = await page.$eval('#lookup-result h2', (el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(heading.scroll).toBeLessThanOrEqual(heading.client);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const text = (await page.textContent('#lookup-result')) ?? '';
    expect(text).not.toMatch(/cluster of 1 addresses/);
    expect(text).toContain('a wallet cluster of its own');
    await page.close();
  }, 120_000);
});
