/**
 * vitest global setup: builds the wallet client package (packages/client →
 * its dist/, what the router, the exporter and the page import) and then the
 * explorer page (src/web/ → dist/explorer/) once per run, so every test runs
 * and every release a test exports carries the code of the current sources,
 * as `npm run build` gives a user.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { buildExplorer } from '../../scripts/build-web.js';
import { nginxAvailable } from '../../scripts/lib/nginx.js';
import { LITECOIND } from '../../scripts/lib/regtest.js';
import { CHROMIUM } from './browser.js';

export default async function setup(): Promise<() => void> {
  execFileSync('npm', ['run', '--silent', 'build', '-w', '@pegscope/client'], { cwd: join(import.meta.dirname, '..', '..'), stdio: 'inherit' });
  await buildExplorer();
  return reportSkipped;
}

const runs = (command: string, args: string[]): boolean => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The run's last line names the real-component tests that were skipped
 * because their program is missing, so a green local run is not mistaken
 * for CI's (which installs them and forces them on with PEGSCOPE_NODE_TESTS=1).
 */
function reportSkipped(): void {
  if (process.env.PEGSCOPE_NODE_TESTS === '1') return;
  const missing = [
    runs(LITECOIND, ['-version']) ? null : 'litecoind (the node tests)',
    nginxAvailable() ? null : 'nginx (the nginx tests)',
    executable(CHROMIUM) ? null : 'chromium (the browser tests)',
    runs(process.env.PEGSCOPE_MINISIGN ?? 'minisign', ['-v']) ? null : 'minisign (the interoperability tests)',
  ].filter((m): m is string => m !== null);
  if (missing.length > 0) {
    console.warn(`\n!!! SKIPPED: tests of ${missing.join(', ')}: not installed here; CI installs them (apt-get) and runs them with PEGSCOPE_NODE_TESTS=1 !!!`);
  }
}
