import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Db } from '../src/store/db.js';
import { exportRelease } from '../src/export/export.js';
import { analysedDb, expectSameTree, isComplete, scanAndAnalyze } from './helpers/export-pipeline.js';

const work = mkdtempSync(join(tmpdir(), 'pegscope-crash-'));
const outDir = join(work, 'out');
const dbPath = join(work, 'sim.duckdb');
const CHILD = join(import.meta.dirname, 'helpers', 'export-child.ts');

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** current's target, and whether it is complete. */
function checkCurrent(dir = outDir): { target: string; complete: boolean } {
  const target = resolve(dir, readlinkSync(join(dir, 'current')));
  return { target, complete: isComplete(target) };
}

const tmpReleases = (dir = outDir): string[] => readdirSync(join(dir, 'releases')).filter((name) => name.startsWith('.tmp-'));

/** Starts an export child; resolves once it exited (killed or not) with its output. */
function exportChild(dbFile: string, out: string, mode: 'rewrite' | 'recycle') {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dbFile, out, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => { output += c; });
  child.stderr.on('data', (c) => { output += c; });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { child, exited, output: () => output };
}

describe('a kill in the middle of an export', () => {
  it('leaves current on the complete previous release, and the next export completes', async () => {
    const { db } = await analysedDb(dbPath, 3, 2_000, 1_800_000_000);
    const first = await exportRelease(db, { outDir });
    db.close();

    const { child, exited, output: childOutput } = exportChild(dbPath, outDir, 'rewrite');
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
    const output = childOutput();
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

  it('while recycling an old release leaves current and the other releases complete, and the next export equals rewriting every file', async () => {
    // `out` recycles (keep 2); `ref` gets the same history with every file rewritten.
    const out = join(work, 'recycling');
    const ref = join(work, 'reference');
    const file = join(work, 'recycle.duckdb');
    const { db, source } = await analysedDb(file, 5, 2_000, 1_800_000_000);
    const both = async (handle: Db) => [
      await exportRelease(handle, { outDir: out, keep: 2 }),
      await exportRelease(handle, { outDir: ref, incremental: false }),
    ] as const;
    await both(db);
    await scanAndAnalyze(db, source, 2_100, 1_800_015_000);
    const [second] = await both(db);
    await scanAndAnalyze(db, source, 2_200, 1_800_030_000);
    await source.close();
    db.close();

    // Killed as soon as the oldest release has been renamed into the new release's place.
    const { child, exited, output } = exportChild(file, out, 'recycle');
    while (child.exitCode === null && tmpReleases(out).length === 0) await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGKILL');
    await exited;
    expect(output()).not.toContain('done');
    expect(checkCurrent(out)).toEqual({ target: second.dir, complete: true });

    const reopened = await Db.open(file);
    const [next, rewritten] = await both(reopened);
    reopened.close();
    expect(tmpReleases(out)).toHaveLength(0);
    expect(checkCurrent(out)).toEqual({ target: next.dir, complete: true });
    expect(isComplete(second.dir)).toBe(true);
    expectSameTree(next.dir, rewritten.dir);
  }, 300_000);
});
