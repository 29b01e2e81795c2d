/**
 * The exporter never writes through a link planted in a release, and never
 * carries over a file that is not what it wrote (docs/static-hosting.md
 * "Damage and planted links"): symbolic links planted at every path the next
 * release writes in the release it recycles, a directory replaced by a link,
 * a range file damaged in place in the current release, a hard link to an
 * outside file. The files outside stay untouched, and the published release
 * holds regular files with the full export's bytes.
 */
import { cpSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRelease, type ExportOptions } from '../src/export/export.js';
import { isOk, verifyRelease, type Problem } from '../src/export/verify.js';
import type { Layout } from '../src/export/ranges.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import type { Db } from '../src/store/db.js';
import type { SimSource } from '../src/chain/sim/index.js';
import { analysedDb, scanAndAnalyze, treeFiles } from './helpers/export-pipeline.js';

const NOW = 1_800_000_000;
let work: string;

beforeAll(() => { work = mkdtempSync(join(tmpdir(), 'pegscope-planted-')); });
afterAll(() => { if (work) rmSync(work, { recursive: true, force: true }); });

const listedPaths = (dir: string): string[] => Object.keys((JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, unknown> }).files);

async function problemsOf(dir: string): Promise<Problem[]> {
  const problems: Problem[] = [];
  const result = await verifyRelease(dir, { onProblem: (p) => problems.push(p) });
  expect(isOk(result), JSON.stringify(problems.slice(0, 5))).toBe(true);
  return problems;
}

/** Every symbolic link under `dir`. */
const linksUnder = (dir: string): string[] => [...walk(dir)].filter((path) => lstatSync(path).isSymbolicLink());
function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    yield path;
    if (entry.isDirectory()) yield* walk(path);
  }
}

/** path → sha256 of a release's manifest. */
const listed = (dir: string): Map<string, string> =>
  new Map(Object.entries((JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, { sha256: string }> }).files).map(([p, f]) => [p, f.sha256]));

describe.each<Layout>(['ranges', 'files'])('a recycled release with planted links (%s layout)', (layout) => {
  let db: Db;
  let source: SimSource;

  beforeAll(async () => {
    ({ db, source } = await analysedDb(':memory:', 3, 1_100, NOW));
  }, 120_000);
  afterAll(async () => { await source?.close(); db?.close(); });

  /**
   * Three releases (keep 3), the chain grown, and a full export of it
   * elsewhere (the paths and bytes the next release holds); `plant` then
   * changes the oldest release, which the next export recycles.
   */
  async function recycleAfter(name: string, plant: (oldest: string, current: string, reference: string) => void): Promise<{ next: string; reference: string; log: string }> {
    const outDir = join(work, `${name}-${layout}`, 'out', 'sim');
    const options: Omit<ExportOptions, 'outDir'> = { layout, keep: 3, hostBudget: NO_HOST_BUDGET, dumpPartitionBlocks: 100 };
    const oldest = (await exportRelease(db, { ...options, outDir })).dir;
    let current = oldest;
    for (const [to, at] of [[1_110, NOW + 100], [1_120, NOW + 200]]) {
      await scanAndAnalyze(db, source, to!, at!);
      current = (await exportRelease(db, { ...options, outDir })).dir;
    }
    await scanAndAnalyze(db, source, 1_250, NOW + 300);
    const reference = (await exportRelease(db, { ...options, outDir: join(work, `${name}-reference-${layout}`, 'out', 'sim'), incremental: false })).dir;
    plant(oldest, current, reference);
    const log: string[] = [];
    const next = (await exportRelease(db, { ...options, outDir, log: (line) => log.push(line) })).dir;
    expect(log.join('\n')).toMatch(new RegExp(`recycling release ${oldest.split('/').at(-1)}`));
    return { next, reference, log: log.join('\n') };
  }

  /** Plants a link at each of `paths` of `release` to a victim file outside out/; returns a check that every victim is untouched. */
  function plantLinks(release: string, paths: string[], victims: string): () => void {
    mkdirSync(victims);
    const victimOf = (path: string): string => join(victims, path.replaceAll('/', '__'));
    for (const path of paths) {
      writeFileSync(victimOf(path), `victim ${path}\n`);
      rmSync(join(release, path), { force: true });
      mkdirSync(dirname(join(release, path)), { recursive: true });
      symlinkSync(victimOf(path), join(release, path));
    }
    return () => { for (const path of paths) expect(readFileSync(victimOf(path), 'utf8'), path).toBe(`victim ${path}\n`); };
  }

  /** The published release: no link anywhere, regular files with the bytes the manifest lists, the full export's paths. */
  async function expectSound(next: string, reference: string): Promise<void> {
    expect(linksUnder(next)).toEqual([]);
    await problemsOf(next);
    expect(listedPaths(next)).toEqual(listedPaths(reference));
  }

  it('a link at a name the next release writes anew (a new dump partition, changes.json, ...) is removed, never written through', async () => {
    let untouched = (): void => undefined;
    let planted: string[] = [];
    const { next, reference } = await recycleAfter('new-names', (oldest, current, reference) => {
      const [before, now, after] = [listed(oldest), listed(current), listed(reference)];
      // Names the recycled release does not list, with bytes the current release does not have: written, not carried.
      planted = [...after].filter(([path, sha]) => !before.has(path) && now.get(path) !== sha).map(([path]) => path);
      planted.push('changes.json', 'manifest.json');
      expect(planted.some((p) => p.startsWith('dumps/'))).toBe(true);
      untouched = plantLinks(oldest, planted, join(work, `victims-new-${layout}`));
    });
    untouched();
    await expectSound(next, reference);
    for (const path of planted) expect(lstatSync(join(next, path)).isFile(), path).toBe(true);
  }, 300_000);

  it('every writer path (documents, ranges, dumps, feeds, assets, configs, manifest, changes) with a link planted, and a directory replaced by a link', async () => {
    let untouched = (): void => undefined;
    let outsideSeries = '';
    let seriesBefore = new Map<string, Buffer>();
    const { next, reference } = await recycleAfter('every-name', (oldest, _current, reference) => {
      const paths = [...listedPaths(reference), 'manifest.json'];
      for (const kind of ['api/range/', 'api/trace/', 'dumps/', 'feeds/', 'assets/', '_headers', 'nginx.conf', 'changes.json']) {
        if (kind === 'api/range/' && layout === 'files') continue;
        if (kind === 'api/trace/' && layout === 'ranges') continue;
        expect(paths.some((p) => p.startsWith(kind)), kind).toBe(true);
      }
      untouched = plantLinks(oldest, paths.filter((p) => !p.startsWith('api/series/')), join(work, `victims-every-${layout}`));
      outsideSeries = join(work, `series-${layout}`);
      renameSync(join(oldest, 'api/series'), outsideSeries);
      symlinkSync(outsideSeries, join(oldest, 'api/series'));
      seriesBefore = new Map([...treeFiles(outsideSeries)].map(([rel, path]) => [rel, readFileSync(path)]));
    });
    untouched();
    expect(new Map([...treeFiles(outsideSeries)].map(([rel, path]) => [rel, readFileSync(path)]))).toEqual(seriesBefore);
    await expectSound(next, reference);
  }, 300_000);
});

describe('damage in the current release is repaired by the next export', () => {
  let db: Db;
  let source: SimSource;
  const outDir = (name: string): string => join(work, name, 'out', 'sim');

  beforeAll(async () => {
    ({ db, source } = await analysedDb(':memory:', 5, 1_100, NOW));
  }, 120_000);
  afterAll(async () => { await source?.close(); db?.close(); });

  const aRangeFile = (dir: string): string => listedPaths(dir).find((p) => p.startsWith('api/range/address/'))!;

  it('a range file changed in place (its size kept) is rewritten, and verify passes on the new release', async () => {
    const out = outDir('damaged');
    const current = (await exportRelease(db, { outDir: out })).dir;
    const rel = aRangeFile(current);
    const path = join(current, rel);
    const bytes = readFileSync(path);
    bytes[bytes.length >> 1]! ^= 0x01;
    writeFileSync(path, bytes);

    const log: string[] = [];
    const next = await exportRelease(db, { outDir: out, log: (line) => log.push(line) });
    await problemsOf(next.dir);
    expect(log.join('\n')).toMatch(new RegExp(`${rel.replaceAll('/', '\\/').replaceAll('.', '\\.')} does not have the sha256 the files index lists.*: this export writes every file anew`));
    const reference = await exportRelease(db, { outDir: outDir('damaged-reference'), incremental: false });
    expect(readFileSync(join(next.dir, rel)).equals(readFileSync(join(reference.dir, rel)))).toBe(true);

    // The export after that one carries the repaired file again.
    const after = await exportRelease(db, { outDir: out });
    expect(after.reused).toBeGreaterThan(0);
    expect(statSync(join(after.dir, rel)).ino).toBe(statSync(join(next.dir, rel)).ino);
    await problemsOf(after.dir);
  }, 300_000);

  it('a hard link to an outside file with the right bytes is copied, never carried as a link to the outside file', async () => {
    const out = outDir('hard-linked');
    const current = (await exportRelease(db, { outDir: out })).dir;
    const rel = aRangeFile(current);
    const outside = join(work, 'outside-range.json');
    cpSync(join(current, rel), outside);
    rmSync(join(current, rel));
    linkSync(outside, join(current, rel));

    const next = await exportRelease(db, { outDir: out });
    await problemsOf(next.dir);
    expect(statSync(join(next.dir, rel)).ino).not.toBe(statSync(outside).ino);
    expect(statSync(outside).nlink).toBe(2);
  }, 300_000);

  it('a symbolic link planted in the current release is not carried: the new release holds a regular file', async () => {
    const out = outDir('symlinked');
    const current = (await exportRelease(db, { outDir: out })).dir;
    const rel = 'api/stats.json';
    const outside = join(work, 'outside-stats.json');
    cpSync(join(current, rel), outside);
    rmSync(join(current, rel));
    symlinkSync(outside, join(current, rel));

    const next = await exportRelease(db, { outDir: out });
    expect(lstatSync(join(next.dir, rel)).isFile()).toBe(true);
    await problemsOf(next.dir);
  }, 300_000);
});
