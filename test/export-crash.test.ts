import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Db } from '../src/store/db.js';
import { exportRelease } from '../src/export/export.js';
import { analysedDb, treeFiles } from './helpers/export-pipeline.js';

const work = mkdtempSync(join(tmpdir(), 'pegscope-crash-'));
const outDir = join(work, 'out');
const dbPath = join(work, 'sim.duckdb');
const CHILD = join(import.meta.dirname, 'helpers', 'export-child.ts');

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** current's target, and whether every file its manifest lists is there with the listed sha256. */
function checkCurrent(): { target: string; complete: boolean } {
  const target = resolve(outDir, readlinkSync(join(outDir, 'current')));
  const manifest = JSON.parse(readFileSync(join(target, 'manifest.json'), 'utf8'));
  const files = treeFiles(target);
  files.delete('manifest.json');
  const complete = files.size === Object.keys(manifest.files).length && [...files].every(([rel, path]) =>
    createHash('sha256').update(readFileSync(path)).digest('hex') === manifest.files[rel]?.sha256);
  return { target, complete };
}

const tmpReleases = (): string[] => readdirSync(join(outDir, 'releases')).filter((name) => name.startsWith('.tmp-'));

describe('a kill in the middle of an export', () => {
  it('leaves current on the complete previous release, and the next export completes', async () => {
    const { db } = await analysedDb(dbPath, 3, 2_000, 1_800_000_000);
    const first = await exportRelease(db, { outDir });
    db.close();

    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dbPath, outDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => { output += c; });
    child.stderr.on('data', (c) => { output += c; });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let partial = 0;
    while (child.exitCode === null) {
      const [tmp] = tmpReleases();
      const traceDir = tmp ? join(outDir, 'releases', tmp, 'api', 'trace') : '';
      partial = traceDir && existsSync(traceDir) ? readdirSync(traceDir).length : 0;
      if (partial >= 300) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill('SIGKILL');
    await exited;
    expect(output).not.toContain('done');
    expect(partial, output).toBeGreaterThanOrEqual(300);

    expect(tmpReleases()).toHaveLength(1);
    expect(checkCurrent()).toEqual({ target: first.dir, complete: true });

    const reopened = await Db.open(dbPath);
    const next = await exportRelease(reopened, { outDir });
    reopened.close();
    expect(tmpReleases()).toHaveLength(0);
    expect(checkCurrent()).toEqual({ target: next.dir, complete: true });
    expect(next.dir).not.toBe(first.dir);
  }, 300_000);
});
