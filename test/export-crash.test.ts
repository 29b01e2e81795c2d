import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db } from '../src/store/db.js';
import { exportRelease, type ExportOptions } from '../src/export/export.js';
import { createSimSource } from '../src/chain/sim/index.js';
import { analysedDb, expectSameState, expectSameTree, isComplete, scanAndAnalyze } from './helpers/export-pipeline.js';
import { completeStateDir, isDocsIndexFile } from '../src/export/state.js';

const work = mkdtempSync(join(tmpdir(), 'pegscope-crash-'));
const CHILD = join(import.meta.dirname, 'helpers', 'export-child.ts');

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** An export as `options` say, then the same database into `reference` with every file rewritten. */
const exportWithReference = async (db: Db, options: ExportOptions, reference: string) => [
  await exportRelease(db, options),
  await exportRelease(db, { outDir: reference, incremental: false }),
] as const;

/** current's target, and whether it is complete. */
function checkCurrent(dir: string): { target: string; complete: boolean } {
  const target = resolve(dir, readlinkSync(join(dir, 'current')));
  return { target, complete: isComplete(target) };
}

const tmpReleases = (dir: string): string[] => readdirSync(join(dir, 'releases')).filter((name) => name.startsWith('.tmp-'));
const tmpStates = (dir: string): string[] => readdirSync(join(dir, 'state')).filter((name) => name.startsWith('.tmp-'));

/** Every complete release has its complete state, and there is no other state directory but those of a killed export (beside them: the documents index). */
async function expectStatesOfReleases(dir: string): Promise<void> {
  const releases = readdirSync(join(dir, 'releases')).filter((name) => !name.startsWith('.tmp-')).sort();
  for (const name of releases) expect(await completeStateDir(dir, name), name).toBe(join(dir, 'state', name));
  expect(readdirSync(join(dir, 'state')).filter((name) => !name.startsWith('.tmp-') && !isDocsIndexFile(name)).sort()).toEqual(releases);
}

/**
 * Runs an export in a child process until it reaches `step` (its onStep
 * hook), then SIGKILLs it there; rejects if the child ends on its own.
 */
function killExportAt(dbFile: string, out: string, mode: 'rewrite' | 'recycle' | 'incremental', step: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dbFile, out, mode, step], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stderr.on('data', (chunk) => { output += chunk; });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      if (output.includes('paused')) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') done();
      else fail(new Error(`export child ended (${code}) before reaching step ${step}: ${output}`));
    });
  });
}

describe('a kill in the middle of an export', () => {
  const outDir = join(work, 'out');
  const dbPath = join(work, 'sim.duckdb');

  beforeAll(async () => {
    const { db, source } = await analysedDb(dbPath, 3, 2_000, 1_800_000_000);
    await source.close();
    await exportRelease(db, { outDir });
    db.close();
  }, 300_000);

  it.each([
    ['while it writes documents', 'documents:range:trace:1', 'previous'],
    ['after the release is complete, before its state is', 'manifest', 'previous'],
    ['after its state is complete, before it is published', 'state', 'previous'],
    ['after it is published, before old releases are pruned', 'published', 'new'],
  ] as const)('%s leaves current on a complete release with its state, and the next export completes', async (_when, step, currentIs) => {
    const before = checkCurrent(outDir).target;
    await killExportAt(dbPath, outDir, 'rewrite', step);

    const after = checkCurrent(outDir);
    expect(after.complete).toBe(true);
    expect(await completeStateDir(outDir, basename(after.target))).not.toBeNull();
    if (currentIs === 'previous') {
      expect(after.target).toBe(before);
      expect(tmpReleases(outDir)).toHaveLength(1);
      expect(tmpStates(outDir)).toHaveLength(1);
    } else {
      expect(after.target).not.toBe(before);
      expect(tmpReleases(outDir)).toHaveLength(0);
      expect(tmpStates(outDir)).toHaveLength(0);
    }
    await expectStatesOfReleases(outDir);

    const reopened = await Db.open(dbPath);
    const next = await exportRelease(reopened, { outDir });
    reopened.close();
    expect(tmpReleases(outDir)).toHaveLength(0);
    expect(tmpStates(outDir)).toHaveLength(0);
    await expectStatesOfReleases(outDir);
    expect(checkCurrent(outDir)).toEqual({ target: next.dir, complete: true });
    expect(next.dir).not.toBe(after.target);
  }, 300_000);

  it('while recycling an old release leaves current and the other releases complete, and the next export equals rewriting every file', async () => {
    // `out` recycles (keep 2); `ref` gets the same history with every file rewritten.
    const out = join(work, 'recycling');
    const ref = join(work, 'reference');
    const file = join(work, 'recycle.duckdb');
    const { db, source } = await analysedDb(file, 5, 2_000, 1_800_000_000);
    const both = (handle: Db) => exportWithReference(handle, { outDir: out, keep: 2 }, ref);
    await both(db);
    await scanAndAnalyze(db, source, 2_100, 1_800_015_000);
    const [second] = await both(db);
    await scanAndAnalyze(db, source, 2_200, 1_800_030_000);
    await source.close();
    db.close();

    // Killed once the oldest release has been renamed into the new release's place.
    await killExportAt(file, out, 'recycle', 'started');
    expect(tmpReleases(out)).toHaveLength(1);
    expect(checkCurrent(out)).toEqual({ target: second.dir, complete: true });

    const reopened = await Db.open(file);
    const [next, rewritten] = await both(reopened);
    reopened.close();
    expect(tmpReleases(out)).toHaveLength(0);
    expect(checkCurrent(out)).toEqual({ target: next.dir, complete: true });
    expect(isComplete(second.dir)).toBe(true);
    expectSameTree(next.dir, rewritten.dir);
    await expectSameState(next.stateDir, rewritten.stateDir);
    await expectStatesOfReleases(out);
  }, 300_000);

  /** A site `name` with a release of the tiny chain at 2,000 and a database 50 blocks further, and a reference site with the same history. */
  async function incrementalSite(name: string): Promise<{ out: string; ref: string; file: string; first: string; both: (handle: Db) => ReturnType<typeof exportWithReference> }> {
    const out = join(work, `incremental-${name}`);
    const ref = join(work, `incremental-${name}-reference`);
    const file = join(work, `incremental-${name}.duckdb`);
    const db = await Db.open(file);
    const source = createSimSource({ preset: 'tiny', seed: 6, worker: false });
    const both = (handle: Db) => exportWithReference(handle, { outDir: out }, ref);
    await scanAndAnalyze(db, source, 2_000, 1_800_000_000, 150);
    const [first] = await both(db);
    await scanAndAnalyze(db, source, 2_050, 1_800_007_500, 150);
    await source.close();
    db.close();
    return { out, ref, file, first: first.dir, both };
  }

  /** The renderer's line of an export that compares the pegs above `floor` with the previous release's. */
  const changedPegsAbove = (floor: number): RegExp => new RegExp(`: the documents of changed pegs above height ${floor} and of addresses whose attribution changed$`);

  /** The next export into `out` builds on its state (its renderer's line is `rendering`) and equals rewriting every file. */
  async function expectNextBuildsOn(out: string, ref: string, file: string, rendering: RegExp): Promise<void> {
    const reopened = await Db.open(file);
    const logs: string[] = [];
    const next = await exportRelease(reopened, { outDir: out, log: (line) => logs.push(line) });
    const rewritten = await exportRelease(reopened, { outDir: ref, incremental: false });
    reopened.close();
    expect(logs.find((line) => line.startsWith('rendering'))).toMatch(rendering);
    expect(tmpReleases(out)).toHaveLength(0);
    expect(tmpStates(out)).toHaveLength(0);
    expect(checkCurrent(out)).toEqual({ target: next.dir, complete: true });
    expectSameTree(next.dir, rewritten.dir);
    await expectSameState(next.stateDir, rewritten.stateDir);
    await expectStatesOfReleases(out);
  }

  it.each([
    ['while an incremental export renders only what changed', 'documents:range:trace:1'],
    ['between an incremental export\'s state and staging its documents index', 'state'],
    ['between staging its documents index and publishing', 'staged'],
  ])('%s leaves current intact, and the next export builds on its state and equals rewriting every file', async (_name, step) => {
    const site = await incrementalSite(step);
    await killExportAt(site.file, site.out, 'incremental', step);
    expect(tmpReleases(site.out)).toHaveLength(1);
    expect(tmpStates(site.out)).toHaveLength(1);
    expect(checkCurrent(site.out)).toEqual({ target: site.first, complete: true });
    await expectNextBuildsOn(site.out, site.ref, site.file, changedPegsAbove(2_000 - 300));
  }, 300_000);

  it('after publishing, before the documents index takes the release in, leaves the new release current, and the next export builds on it', async () => {
    const site = await incrementalSite('published');
    await killExportAt(site.file, site.out, 'incremental', 'published');
    const { target } = checkCurrent(site.out);
    expect(target).not.toBe(site.first);
    expect(basename(target)).toMatch(/-h2050$/);
    // The reference site gets the same release the kill published.
    const reopened = await Db.open(site.file);
    await exportRelease(reopened, { outDir: site.ref, incremental: false });
    reopened.close();
    // The same analysis: the stage the kill left, applied, holds the digest of the analysis, so nothing is compared.
    await expectNextBuildsOn(site.out, site.ref, site.file, /^rendering 0 of \d+ documents: the analysis is the one the previous release shows/);
  }, 300_000);
});

describe('a state that is not the current release\'s', () => {
  const dbPath = join(work, 'states.duckdb');

  beforeAll(async () => {
    const { db, source } = await analysedDb(dbPath, 8, 2_000, 1_800_000_000);
    await scanAndAnalyze(db, source, 2_050, 1_800_007_500);
    await source.close();
    db.close();
  }, 300_000);

  /** Breaks the state of the current release the way `how` says. */
  const breakState: Record<string, (state: string, otherId: string) => void> = {
    missing: (state) => rmSync(state, { recursive: true }),
    'without its state.json (killed before it)': (state) => rmSync(join(state, 'state.json')),
    'naming another release': (state, otherId) => {
      const written = JSON.parse(readFileSync(join(state, 'state.json'), 'utf8')) as { release: string };
      writeFileSync(join(state, 'state.json'), JSON.stringify({ ...written, release: otherId }));
    },
  };

  it.each(Object.keys(breakState))('%s makes the next export a full one, equal to an export into an empty site', async (how) => {
    const site = (name: string): string => join(work, `state-${how.split(' ')[0]}-${name}`);
    const db = await Db.open(dbPath);
    try {
      const first = await exportRelease(db, { outDir: site('out') });
      const second = await exportRelease(db, { outDir: site('out') });
      breakState[how]!(second.stateDir, first.releaseId);
      expect(await completeStateDir(site('out'), second.releaseId)).toBeNull();

      const logs: string[] = [];
      const next = await exportRelease(db, { outDir: site('out'), log: (line) => logs.push(line) });
      // Rendered anew, every document takes this analysis's stamp, as in an empty site.
      const fresh = await exportRelease(db, { outDir: site('fresh') });
      expect(logs.find((line) => line.startsWith('rendering'))).toMatch(/^rendering (\d+) of \1 documents: every document \(no previous release to build on\)$/);
      expect(next.reused).toBe(0);
      // changes.json (and its line in the manifest) names the previous release.
      expectSameTree(next.dir, fresh.dir, ['changes.json', 'manifest.json']);
      const listed = (dir: string): unknown => {
        const { files, ...head } = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, unknown> };
        delete files['changes.json'];
        return { head, files };
      };
      expect(listed(next.dir)).toEqual(listed(fresh.dir));
      await expectSameState(next.stateDir, fresh.stateDir);
    } finally {
      db.close();
    }
  }, 300_000);
});
