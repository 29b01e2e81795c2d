/**
 * vitest global setup: builds the wallet client package (packages/client →
 * its dist/, what the router, the exporter and the page import) and then the
 * explorer page (src/web/ → dist/explorer/) once per run, so every test runs
 * and every release a test exports carries the code of the current sources,
 * as `npm run build` gives a user.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { buildExplorer } from '../../scripts/build-web.js';

export default async function setup(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build', '-w', '@pegscope/client'], { cwd: join(import.meta.dirname, '..', '..'), stdio: 'inherit' });
  await buildExplorer();
}
