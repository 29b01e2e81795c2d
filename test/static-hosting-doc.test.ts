/**
 * docs/static-hosting.md's way to copy a release where rsync is missing
 * (`cp -a` into a directory of its own, then a symlink swap), run as
 * printed on a real `--layout files` release: the copy is the release
 * (`pegscope verify`), with its hard links, and a second release replaces
 * the first without leaving any of its removed files behind.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRelease } from '../src/export/export.js';
import { isOk, verifyRelease } from '../src/export/verify.js';
import { exportTinyRelease, type TinyRelease } from './helpers/tiny-release.js';
import { analysedDb } from './helpers/export-pipeline.js';

const DOC = readFileSync(join(import.meta.dirname, '..', 'docs', 'static-hosting.md'), 'utf8');

/** The sh block of the "Without rsync" paragraph that copies with `cp -a`. */
function copyBlock(): string {
  const section = DOC.slice(DOC.indexOf('**Without rsync.**'));
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('cp -a'));
  if (!block) throw new Error('docs/static-hosting.md has no "Without rsync" block with cp -a');
  return block;
}

let release: TinyRelease;

beforeAll(async () => {
  release = await exportTinyRelease();
}, 300_000);

afterAll(() => {
  if (release) rmSync(release.root, { recursive: true, force: true });
});

describe('copying a release without rsync (docs/static-hosting.md)', () => {
  it('gives a verified copy with its hard links, and the next release replaces it whole', async () => {
    const www = join(release.root, 'www');
    // The doc's paths, moved into the test's directory; the commands are run as printed.
    const run = (): void => {
      const script = copyBlock().replaceAll('out/mainnet', release.outDir).replaceAll('/srv/www', www);
      execFileSync('bash', ['-euo', 'pipefail', '-c', script], { stdio: 'pipe' });
    };
    run();
    const site = join(www, 'pegscope');
    expect(isOk(await verifyRelease(site))).toBe(true);

    // A files-layout release has hard links (a block's two names); the copy keeps them one file.
    const { db, source } = await analysedDb(':memory:', 2, 2_600, 1_800_000_100);
    try {
      await exportRelease(db, { outDir: release.outDir, layout: 'files' });
    } finally {
      await source.close();
      db.close();
    }
    run();
    const verified = await verifyRelease(site);
    expect(isOk(verified)).toBe(true);
    const names = readdirSync(join(site, 'api', 'block'));
    const byHash = names.find((n) => /^[0-9a-f]{64}\.json$/.test(n))!;
    const height = JSON.parse(readFileSync(join(site, 'api', 'block', byHash), 'utf8')).block.height as number;
    expect(statSync(join(site, 'api', 'block', byHash)).ino).toBe(statSync(join(site, 'api', 'block', `${height}.json`)).ino);
    // The first release was a ranges layout: none of its range files is left in the site.
    expect(existsSync(join(site, 'api', 'ranges.json'))).toBe(false);
  }, 300_000);
});
