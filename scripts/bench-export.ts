/**
 * npm run bench:export [-- --presets mainnet,x10 --seed 7]
 *
 * Export throughput (files/s, MB/s) on the simulated mainnet and x10 presets,
 * next to this machine's limit for the same tree measured in the same run:
 * extracting a tar of the release (tar xf + sync) into an empty directory.
 * Then 100 more blocks are scanned and analysed, and an incremental export
 * (hard-linking unchanged files) is timed against a full export of the same
 * data into an empty site. Targets: full ≥ 50% of the tar limit in files/s;
 * incremental ≥ 10× faster than full.
 *
 * The scanned databases (tip − 100 blocks and tip) are cached under .bench/;
 * every run works on copies of them.
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
const BENCH = '.bench';

interface Timed { seconds: number; result: ExportResult }

async function timedExport(db: Db, outDir: string, incremental: boolean): Promise<Timed> {
  const started = performance.now();
  const result = await exportRelease(db, { outDir, incremental, progress: consoleProgress() });
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

/** The preset scanned to tip − NEW_BLOCKS (base) and to the tip, both cached. */
async function cachedDbs(preset: SimPresetName, seed: number): Promise<{ base: string; tip: string }> {
  const height = presetRates(preset).blocks;
  const base = join(BENCH, `export-${preset}-${seed}-base.duckdb`);
  const tip = join(BENCH, `export-${preset}-${seed}-tip.duckdb`);
  const scanInto = async (path: string, from: string | null, to: number): Promise<void> => {
    console.log(`scanning sim ${preset} seed ${seed} to ${to} into ${path} (cached for later runs)`);
    if (from) copyFileSync(from, `${path}.partial`);
    const db = await Db.open(`${path}.partial`);
    const source = createSimSource({ preset, seed });
    await scanChain(db, source, { to, progress: consoleProgress(), batchBlocks: 500 });
    await source.close();
    db.close();
    renameSync(`${path}.partial`, path);
  };
  if (!existsSync(base)) await scanInto(base, null, height - NEW_BLOCKS);
  if (!existsSync(tip)) await scanInto(tip, base, height);
  return { base, tip };
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

async function benchPreset(preset: SimPresetName, seed: number): Promise<void> {
  const dbs = await cachedDbs(preset, seed);
  const work = join(BENCH, `export-${preset}-work`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  copyFileSync(dbs.base, join(work, 'base.duckdb'));
  copyFileSync(dbs.tip, join(work, 'tip.duckdb'));
  let db = await Db.open(join(work, 'base.duckdb'));
  const now = Math.floor(Date.now() / 1000);
  await analyze(db, { now });

  const site = join(work, 'site');
  const full1 = await timedExport(db, site, true);
  const tar = tarLimit(full1.result.dir, work);
  const files = full1.result.files;
  const releaseBytes = diskBytes(full1.result.dir);

  const rate = (t: Timed) => `${Math.round(t.result.files / t.seconds)} files/s, ${mb(t.result.bytes / t.seconds)} MB/s written`;
  console.log(`\n== ${preset} (seed ${seed}): ${files} files, release ${mb(releaseBytes)} MB on disk`);
  console.log(`full export            ${full1.seconds.toFixed(1)} s  ${rate(full1)}`);
  console.log(`tar extract (limit)    ${tar.seconds.toFixed(1)} s  ${Math.round(files / tar.seconds)} files/s, ${mb(releaseBytes / tar.seconds)} MB/s`);
  console.log(`full / limit           ${((tar.seconds / full1.seconds) * 100).toFixed(0)}% (target ≥ 50%)\n`);

  // The same chain 100 blocks later: the release history lives in the out dir, so the next analysis may run on another copy.
  db.close();
  db = await Db.open(join(work, 'tip.duckdb'));
  await analyze(db, { now: now + NEW_BLOCKS * 150 });
  const incremental = await timedExport(db, site, true);
  const full2 = await timedExport(db, join(work, 'fresh'), true);
  const siteBytes = diskBytes(site);
  db.close();

  console.log(`\n== ${preset}: after ${NEW_BLOCKS} new blocks:`);
  console.log(`  full export          ${full2.seconds.toFixed(1)} s  ${full2.result.written} written`);
  console.log(`  incremental export   ${incremental.seconds.toFixed(1)} s  ${incremental.result.written} written, ${incremental.result.reused} reused`);
  console.log(`  full / incremental   ${(full2.seconds / incremental.seconds).toFixed(1)}× (target ≥ 10×)`);
  console.log(`disk: one release ${mb(releaseBytes)} MB; two releases sharing unchanged files ${mb(siteBytes)} MB`);
  rmSync(work, { recursive: true, force: true });
}

async function main(argv: string[]): Promise<void> {
  let presets: SimPresetName[] = ['mainnet', 'x10'];
  let seed = 7;
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--presets') presets = argv[i + 1]!.split(',') as SimPresetName[];
    else if (argv[i] === '--seed') seed = Number(argv[i + 1]);
    else throw new Error(`unknown option ${argv[i]}; allowed: --presets ${SIM_PRESET_NAMES.join(',')} --seed N`);
  }
  mkdirSync(BENCH, { recursive: true });
  for (const preset of presets) await benchPreset(preset, seed);
}

await main(process.argv.slice(2));
