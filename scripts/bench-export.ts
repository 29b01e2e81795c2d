/**
 * npm run bench:export [-- --presets mainnet,x10 --seed 7 --dir DIR]
 *
 * Export throughput (files/s, MB/s) on the simulated mainnet and x10 presets,
 * next to this machine's limit for the same tree measured in the same run:
 * extracting a tar of the release (tar xf + sync) into an empty directory.
 *
 * Then the job's steady state, an export every 100 blocks with the default
 * 3 releases kept: two more exports (each hard-linking the unchanged files of
 * the previous release; the first is timed as "hard links only"), and a third
 * that recycles the oldest release, timed against a full export of the same
 * data into an empty site. Targets: full ≥ 50% of the tar limit in files/s;
 * incremental ≥ 10× faster than full.
 *
 * The scanned databases (tip − 300, − 200, − 100 blocks and tip) are cached
 * under .bench/; every run works on copies of them, in --dir (default .bench/;
 * a tmpfs such as /dev/shm takes the disk out and leaves the software's own
 * cost next to the kernel's, when a shared disk's speed swings between runs;
 * mainnet needs ~3.5M inodes there: mount -t tmpfs -o size=16G,nr_inodes=8M).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../src/analysis/analyze.js';
import { createSimSource, presetRates, SIM_PRESET_NAMES, type SimPresetName } from '../src/chain/sim/index.js';
import { exportRelease, type ExportResult } from '../src/export/export.js';
import { consoleProgress } from '../src/progress.js';
import { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';

const NEW_BLOCKS = 100;
/** Exports before the measured one: the default keep (3) releases must exist before one is recycled. */
const STEPS = 3;
const BENCH = '.bench';

interface Timed { seconds: number; result: ExportResult }

async function timedExport(db: Db, outDir: string): Promise<Timed> {
  // Earlier work's dirty pages (scans, copies) are flushed first, as before the tar.
  execFileSync('sync');
  const started = performance.now();
  const result = await exportRelease(db, { outDir, progress: consoleProgress() });
  return { seconds: (performance.now() - started) / 1000, result };
}

/** Bytes on disk under dir, hard links counted once. */
const diskBytes = (dir: string): number => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

/** This machine's limit for writing the same tree: extract a tar of it and flush. */
function tarLimit(releaseDir: string, work: string): { seconds: number } {
  const tarFile = join(work, 'release.tar');
  const into = join(work, 'untar');
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  execFileSync('tar', ['cf', tarFile, '-C', releaseDir, '.']);
  execFileSync('sync');
  const started = performance.now();
  execFileSync('tar', ['xf', tarFile, '-C', into]);
  execFileSync('sync', ['-f', into]);
  const seconds = (performance.now() - started) / 1000;
  rmSync(into, { recursive: true, force: true });
  rmSync(tarFile, { force: true });
  return { seconds };
}

/** The preset scanned to tip − STEPS × NEW_BLOCKS, …, tip, each cached (oldest first). */
async function cachedDbs(preset: SimPresetName, seed: number): Promise<string[]> {
  const tip = presetRates(preset).blocks;
  const paths: string[] = [];
  for (let step = STEPS; step >= 0; step--) {
    const to = tip - step * NEW_BLOCKS;
    const path = join(BENCH, `export-${preset}-${seed}-h${to}.duckdb`);
    if (!existsSync(path)) {
      console.log(`scanning sim ${preset} seed ${seed} to ${to} into ${path} (cached for later runs)`);
      const from = paths.at(-1);
      if (from) copyFileSync(from, `${path}.partial`);
      const db = await Db.open(`${path}.partial`);
      const source = createSimSource({ preset, seed });
      await scanChain(db, source, { to, progress: consoleProgress(), batchBlocks: 500 });
      await source.close();
      db.close();
      renameSync(`${path}.partial`, path);
    }
    paths.push(path);
  }
  return paths;
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

async function benchPreset(preset: SimPresetName, seed: number, dir: string): Promise<void> {
  const dbs = await cachedDbs(preset, seed);
  const work = join(dir, `export-${preset}-work`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const now = Math.floor(Date.now() / 1000);
  /** The chain `step` hundred-block steps after the first state, analysed on a copy. */
  const analysed = async (step: number): Promise<Db> => {
    const copy = join(work, `step${step}.duckdb`);
    copyFileSync(dbs[step]!, copy);
    const db = await Db.open(copy);
    await analyze(db, { now: now + step * NEW_BLOCKS * 150 });
    return db;
  };

  const site = join(work, 'site');
  let db = await analysed(0);
  const full1 = await timedExport(db, site);
  db.close();
  const tar = tarLimit(full1.result.dir, work);
  const files = full1.result.files;
  const releaseBytes = diskBytes(full1.result.dir);

  const rate = (t: Timed) => `${Math.round(t.result.files / t.seconds)} files/s, ${mb(t.result.bytes / t.seconds)} MB/s written`;
  console.log(`\n== ${preset} (seed ${seed}): ${files} files, release ${mb(releaseBytes)} MB on disk`);
  console.log(`full export            ${full1.seconds.toFixed(1)} s  ${rate(full1)}`);
  console.log(`tar extract (limit)    ${tar.seconds.toFixed(1)} s  ${Math.round(files / tar.seconds)} files/s, ${mb(releaseBytes / tar.seconds)} MB/s`);
  console.log(`full / limit           ${((tar.seconds / full1.seconds) * 100).toFixed(0)}% (target ≥ 50%)\n`);

  // Exports every 100 blocks until the site holds 3 releases; the next one recycles the oldest.
  const linked: Timed[] = [];
  for (let step = 1; step < STEPS; step++) {
    db = await analysed(step);
    linked.push(await timedExport(db, site));
    db.close();
  }
  db = await analysed(STEPS);
  const recycled = await timedExport(db, site);
  const full2 = await timedExport(db, join(work, 'fresh'));
  const siteBytes = diskBytes(site);
  db.close();

  const parts = (r: ExportResult) => `${r.written} written, ${r.reused} linked, ${r.kept} kept`;
  console.log(`\n== ${preset}: exports every ${NEW_BLOCKS} blocks, 3 releases kept:`);
  console.log(`  full export                 ${full2.seconds.toFixed(1)} s  ${full2.result.written} written`);
  console.log(`  incremental, hard links     ${linked[0]!.seconds.toFixed(1)} s  ${parts(linked[0]!.result)} (${(full2.seconds / linked[0]!.seconds).toFixed(1)}×)`);
  console.log(`  incremental, recycled       ${recycled.seconds.toFixed(1)} s  ${parts(recycled.result)}`);
  console.log(`  full / incremental          ${(full2.seconds / recycled.seconds).toFixed(1)}× (target ≥ 10×)`);
  console.log(`disk: one release ${mb(releaseBytes)} MB; 3 releases sharing unchanged files ${mb(siteBytes)} MB`);
  rmSync(work, { recursive: true, force: true });
}

async function main(argv: string[]): Promise<void> {
  let presets: SimPresetName[] = ['mainnet', 'x10'];
  let seed = 7;
  let dir = BENCH;
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--presets') presets = argv[i + 1]!.split(',') as SimPresetName[];
    else if (argv[i] === '--seed') seed = Number(argv[i + 1]);
    else if (argv[i] === '--dir') dir = argv[i + 1]!;
    else throw new Error(`unknown option ${argv[i]}; allowed: --presets ${SIM_PRESET_NAMES.join(',')} --seed N --dir DIR`);
  }
  mkdirSync(BENCH, { recursive: true });
  mkdirSync(dir, { recursive: true });
  console.log(`working in ${dir}`);
  for (const preset of presets) await benchPreset(preset, seed, dir);
}

await main(process.argv.slice(2));
