/**
 * The explorer page of a signed release in Debian's Chromium, served by
 * `python3 -m http.server` from a copy the tests tamper with: it verifies
 * the amount table and the range files against the key the exporter put in
 * index.html (Chromium's WebCrypto Ed25519), says so in one line, and on a
 * doctored table or a swapped range shows a warning and nothing from the file.
 */
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { parseAmountTable, parseRange, type AmountTableFile } from '@pegscope/client';
import { buildAmountCounts, encodeAmountTable } from '../../src/api/amount-table-encode.js';
import { EXPLORER_PUBLIC_KEYS_META } from '../../src/api/explorer.js';
import { generateSecretKey, publicKeyFile } from '../../src/trust/minisign.js';
import { exportTinyRelease, type TinyRelease } from '../helpers/tiny-release.js';
import { startPlainServer, type PlainServer } from '../helpers/plain-server.js';
import { browserTestsEnabled, launchBrowser, type Browser } from '../helpers/browser.js';

const enabled = browserTestsEnabled();
const key = generateSecretKey();
const keyLine = publicKeyFile(key).split('\n')[1]!;

let release: TinyRelease;
let served: string;
let server: PlainServer;
let browser: Browser;
let height: number;

beforeAll(async () => {
  if (!enabled) return;
  release = await exportTinyRelease(1, 2_600, key);
  served = join(release.root, 'served');
  height = Number(/as_of_height:(\d+)/.exec(readFileSync(join(release.dir, 'api/signed.json.minisig'), 'utf8'))![1]);
  cpSync(release.dir, served, { recursive: true });
  server = await startPlainServer(served);
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (release) rmSync(release.root, { recursive: true, force: true });
});

beforeEach(() => {
  if (!enabled) return;
  rmSync(served, { recursive: true, force: true });
  cpSync(release.dir, served, { recursive: true });
});

const servedPath = (path: string): string => join(served, path);

/** Waits for the section's outcome, verified or not, so a failure shows what the page said instead of a timeout. */
async function outcome(page: Page, section: string): Promise<string> {
  await page.locator(`${section} :is(p.verified, p.error, [data-verification-failed])`).first().waitFor();
  return (await page.locator(section).textContent()) ?? '';
}

async function open(hash: string): Promise<Page> {
  const page = await browser.context.newPage();
  // Routing every request turns Chromium's HTTP cache off: a file tampered with after an earlier page read it must be fetched again.
  await page.route('**/*', (route) => route.continue());
  await page.goto(`${server.url}#${hash}`);
  return page;
}

/** A trace key and its range file, and a second range file of the same kind. */
function traceRanges(): { key: string; path: string; other: string } {
  const names = readdirSync(servedPath('api/range/trace')).filter((n) => n.endsWith('.json')).sort();
  const [path, other] = names.slice(0, 2).map((n) => `api/range/trace/${n}`) as [string, string];
  return { key: parseRange(readFileSync(servedPath(path), 'utf8')).header.range.keys[0]!, path, other };
}

describe.skipIf(!enabled)('the explorer page verifies what it reads', () => {
  it('the exporter puts the signing key in index.html by default', () => {
    expect(readFileSync(join(release.dir, 'index.html'), 'utf8')).toContain(`<meta name="${EXPLORER_PUBLIC_KEYS_META}" content="${keyLine}">`);
  });

  it('a privacy check says "verified: signed by RW… at height N"', async () => {
    const page = await open('/privacy/1.5');
    expect(await outcome(page, 'main')).toContain('verified: signed by');
    expect(await page.locator('p.verified').textContent()).toBe(`verified: signed by ${keyLine.slice(0, 8)}… at height ${height.toLocaleString('en-US')}`);
    expect(await page.locator('#privacy-result h2').textContent()).toMatch(/^1\.5 \S+: /);
    await page.close();
  });

  it('the doctored table (5,000 peg-ins added at 1.23456789): a warning, and no score', async () => {
    const file = JSON.parse(readFileSync(servedPath('api/amounts.json'), 'utf8')) as AmountTableFile;
    const { table } = parseAmountTable(file, { network: file.network, now: file.updated_at });
    const counts = buildAmountCounts({ pegin: [...table.pegin, [123_456_789, 5_000]], pegout: table.pegout, tolerance: table.tolerance });
    writeFileSync(servedPath('api/amounts.json'), JSON.stringify(encodeAmountTable({ ...file, rounding_digits: file.rounding.digits }, counts)));
    const page = await open('/privacy/1.23456789');
    expect(await outcome(page, 'main')).toContain('Not verified');
    const warning = page.locator('[data-verification-failed]');
    expect(await warning.getAttribute('data-verification-failed')).toBe('digest');
    expect(await warning.textContent()).toContain('Not verified: the amount table (api/amounts.json) is not the file the release signed, so nothing from it is shown.');
    expect(await page.locator('#privacy-result').count()).toBe(0);
    expect(await page.locator('p.verified').count()).toBe(0);
    await page.close();
  });

  it('a lookup says it is verified; a swapped range file shows a warning and no document', async () => {
    const { key: traceKey, path, other } = traceRanges();
    const page = await open(`/lookup/${traceKey}`);
    expect(await outcome(page, '#lookup-result')).toContain(`at height ${height.toLocaleString('en-US')}`);
    expect(await page.locator('#lookup-result h2').count()).toBeGreaterThan(0);
    await page.close();

    const [a, b] = [readFileSync(servedPath(path), 'utf8'), readFileSync(servedPath(other), 'utf8')];
    writeFileSync(servedPath(path), b);
    writeFileSync(servedPath(other), a);
    const swapped = await open(`/lookup/${traceKey}`);
    expect(await outcome(swapped, '#lookup-result')).toContain('Not verified: a range file of this lookup is not the file the release signed');
    expect(await swapped.locator('#lookup-result h2').count()).toBe(0);
    await swapped.close();
  });
});
