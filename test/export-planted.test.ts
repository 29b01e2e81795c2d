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

describe.each<Layout>(['ranges', 'files'])('a recycled release with planted links (%s layout)', (layout) => {
  let db: Db;
  let source: SimSource;

  beforeAll(async () => {
    ({ db, source } = await analysedDb(':memory:', 3, 1_100, NOW));
  }, 120_000);
  afterAll(async () => { await source?.close(); db?.close(); });

  it('every writer path (documents, ranges, dumps, feeds, assets, configs, manifest, changes) writes a new file, never through the link', async () => {
    const outDir = join(work, `recycled-${layout}`, 'out', 'sim');
    const options: Omit<ExportOptions, 'outDir'> = { layout, keep: 3, hostBudget: NO_HOST_BUDGET, dumpPartitionBlocks: 100 };
    const oldest = (await exportRelease(db, { ...options, outDir })).dir;
    for (const [to, at] of [[1_110, NOW + 100], [1_120, NOW + 200]]) {
      await scanAndAnalyze(db, source, to!, at!);
      await exportRelease(db, { ...options, outDir });
    }
    await scanAndAnalyze(db, source, 1_250, NOW + 300);
    // The paths the next release holds: a full export of the same database elsewhere.
    const reference = await exportRelease(db, { ...options, outDir: join(work, `reference-${layout}`, 'out', 'sim'), incremental: false });
    const paths = [...listedPaths(reference.dir), 'manifest.json'];
    for (const kind of ['api/range/', 'api/trace/', 'dumps/', 'feeds/', 'assets/', '_headers', 'nginx.conf', 'changes.json']) {
      if (kind === 'api/range/' && layout === 'files') continue;
      if (kind === 'api/trace/' && layout === 'ranges') continue;
      expect(paths.some((p) => p.startsWith(kind)), kind).toBe(true);
    }

    // Every path of the next release is a link to a victim outside out/; api/series is a link to a directory outside.
    const victims = join(work, `victims-${layout}`);
    mkdirSync(victims);
    const victimOf = (path: string): string => join(victims, path.replaceAll('/', '__'));
    for (const path of paths.filter((p) => !p.startsWith('api/series/'))) {
      writeFileSync(victimOf(path), `victim ${path}\n`);
      rmSync(join(oldest, path), { force: true });
      mkdirSync(dirname(join(oldest, path)), { recursive: true });
      symlinkSync(victimOf(path), join(oldest, path));
    }
    const outsideSeries = join(work, `series-${layout}`);
    renameSync(join(oldest, 'api/series'), outsideSeries);
    symlinkSync(outsideSeries, join(oldest, 'api/series'));
    const seriesBefore = new Map([...treeFiles(outsideSeries)].map(([rel, path]) => [rel, readFileSync(path)]));

    const log: string[] = [];
    const next = await exportRelease(db, { ...options, outDir, log: (line) => log.push(line) });
    expect(log.join('\n')).toMatch(new RegExp(`recycling release ${oldest.split('/').at(-1)}`));

    for (const path of paths.filter((p) => !p.startsWith('api/series/'))) {
      expect(readFileSync(victimOf(path), 'utf8'), path).toBe(`victim ${path}\n`);
    }
    expect(new Map([...treeFiles(outsideSeries)].map(([rel, path]) => [rel, readFileSync(path)]))).toEqual(seriesBefore);
    expect(linksUnder(next.dir)).toEqual([]);
    // Regular files with the bytes the manifest lists, and the same paths as the full export.
    await problemsOf(next.dir);
    expect(listedPaths(next.dir)).toEqual(listedPaths(reference.dir));
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
