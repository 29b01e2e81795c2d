/**
 * Regenerates docs/explorer.png, the README's picture of the explorer page,
 * from the demo release of the current sources (run: npm run docs:explorer,
 * after `npm run build`), and docs/explorer.json, the release's figures it
 * shows: test/docs-code.test.ts compares them with the demo's, so the
 * picture cannot go stale silently. Debian's Chromium through playwright-core.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { resolveConfig } from '../src/config.js';
import { runJob } from '../src/job.js';
import { silentProgress } from '../src/progress.js';
import { startServer } from '../src/serve/server.js';

const DOCS = join(import.meta.dirname, '..', 'docs');
const CHROMIUM = process.env.PEGSCOPE_CHROMIUM ?? '/usr/bin/chromium';

const work = mkdtempSync(join(tmpdir(), 'pegscope-docs-explorer-'));
try {
  // The job `npm start` runs: the demo chain with its simulated labels.
  const config = resolveConfig({ network: 'sim', db: join(work, 'sim.duckdb'), out: join(work, 'out') });
  const { release_id: id } = await runJob(config, { source: 'sim', preset: 'demo', seed: 1, log: () => undefined, progress: silentProgress });
  const dir = join(work, 'out', 'releases', id);
  const stats = JSON.parse(await readFile(join(dir, 'api', 'stats.json'), 'utf8')) as { as_of_height: number; stats: Record<string, number> };
  const router = await startServer({ sites: [{ network: 'sim', outDir: join(work, 'out') }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 640 } });
    await page.goto(`${router.url}/#/`);
    await page.waitForSelector('[data-stat]');
    await page.waitForSelector('[data-network]');
    await page.screenshot({ path: join(DOCS, 'explorer.png') });
  } finally {
    await browser.close();
    await router.close();
  }
  writeFileSync(join(DOCS, 'explorer.json'), `${JSON.stringify({ as_of_height: stats.as_of_height, stats: stats.stats }, null, 2)}\n`);
  console.log(`wrote ${join(DOCS, 'explorer.png')} and explorer.json (demo at height ${stats.as_of_height})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
