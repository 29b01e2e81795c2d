/**
 * Debian's Chromium driven by playwright-core, never a downloaded browser:
 * headless, no network features of its own, a fresh profile per launch.
 * Browser tests run when /usr/bin/chromium is there; with
 * PEGSCOPE_NODE_TESTS=1 (CI) or PEGSCOPE_BROWSER_TESTS=1 they must run, and
 * a missing browser is a failure, not a skip.
 */
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.PEGSCOPE_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function browserTestsEnabled(): boolean {
  let found = true;
  try {
    accessSync(CHROMIUM, constants.X_OK);
  } catch {
    found = false;
  }
  if (!found && (process.env.PEGSCOPE_NODE_TESTS === '1' || process.env.PEGSCOPE_BROWSER_TESTS === '1')) {
    throw new Error(`browser tests are forced on but "${CHROMIUM}" cannot be run; install Debian's chromium (apt-get install chromium) or set PEGSCOPE_CHROMIUM`);
  }
  return found;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'pegscope-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1200, height: 900 }, acceptDownloads: true,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
