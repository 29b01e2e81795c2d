/**
 * npm run bench:export [-- --presets mainnet,x10 --seed 7 --dir DIR --one-full --windows 1@tip,7@tip --windows-only]
 *
 * Export cost on the simulated mainnet and x10 presets, each figure next to
 * a baseline measured in the same run:
 * - a full export, against this machine's limit for the same tree: extracting
 *   a tar of the release (tar xf + sync) into an empty directory; files and
 *   bytes of the release;
 * - the job's steady state (docs/methodology.md, "Horizon"): after 1 new block and
 *   after 100 new blocks, an incremental export against a full export of the
 *   same database into an empty site, with the share of files that changed
 *   and of the bytes a mirror uploads, by where they are (changes.json);
 *   targets ≥ 30× and ≥ 10× faster, ≤ 5% of files changed;
 * - one `job` cycle after 2 new blocks (scan + analyze + export), each phase
 *   timed, against the first full export; target ≤ 10% of it;
 * - at mainnet, the upload bound in several 100-block windows, not only the
 *   one above: --windows (default that one, and the preset's last 100 blocks
 *   with seeds 7 and 1) exports the window's base release in full, then 1 and 100 new
 *   blocks incrementally. A window, or the steady state above, that uploads
 *   more than 0.3% of the bytes after 1 block or more than 3% of the files or
 *   bytes after 100 is a FAIL line, and the bench exits 1.
 *
 * Every export is signed (docs/verifying.md) with a key made for the run.
 * Signing manifest.json (one streamed BLAKE2b-512 and two Ed25519
 * signatures) is timed on its own, against the full export; and what a
 * wallet's cold verified lookup fetches besides the range file (the signed
 * index, its signature and the largest shard) is printed, target ≤ 64 KB.
 *
 * The heights above are counted from the preset's block count (600,000 at
 * mainnet, 431 below its last block, which --windows calls tip). The scanned
 * databases at each height are cached under .bench/; every run works on
 * copies of them, in --dir (default .bench/).
 *
 * --one-full compares each incremental export with the first full export
 * (of the database 1 and 100 blocks below) instead of exporting the same
 * database again in full: at x10 a full export takes minutes.
 *
 * --reps N exports after 1 new block N times, each from the same previous
 * release (the site is put back between them), and compares the median with
 * the full export: a single sub-second run moves by a quarter on a shared
 * machine.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../src/analysis/analyze.js';
import { createSimSource, presetRates, SIM_MWEB_ACTIVATION_HEIGHT, type SimPresetName } from '../src/chain/sim/index.js';
import { exportRelease, type ExportResult } from '../src/export/export.js';
import { DEFAULT_HOST_BUDGET, parseHostBudget, type HostBudget } from '../src/export/ranges.js';
import { consoleProgress } from '../src/progress.js';
import { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';
import { deleteAbove } from '../src/store/reorg.js';
import { benchFlags, peakRssMb, usageError, sampledPeakRss, secondsSince as seconds, simPresets } from './lib/bench.js';
import { cachedSimDb } from './lib/sim-cache.js';
import { blake2b512OfFile, generateSecretKey, signPrehashed } from '../src/trust/minisign.js';
import { SIGNED_INDEX_PATH, SIGNED_INDEX_SIGNATURE_PATH } from '../src/api/release-files.js';
import { parseWindows, UPLOAD_BOUNDS, uploadOf, uploadVerdict, type ChangesBody, type Upload, type UploadWindow } from './lib/upload.js';

const BENCH = '.bench';
/** Signs every export of the run: a release signed is what the upload targets are about. */
const SIGN_KEY = generateSecretKey();

interface Timed { seconds: number; result: ExportResult; phases: string; peakRssMb: number }

/** Seconds from the previous step to each main step of the export (ExportOptions.onStep); documents pages are summed into their kind. */
async function timedExport(db: Db, outDir: string, hostBudget: HostBudget): Promise<Timed> {
  // Earlier work's dirty pages (scans, copies) are flushed first, as before the tar.
  execFileSync('sync');
  const started = performance.now();
  let last = started;
  const phases = new Map<string, number>();
  const onStep = (step: string): void => {
    const now = performance.now();
    const phase = step.startsWith('documents:') ? step.split(':').filter((part) => part !== 'range').slice(0, 2).join(':') : step;
    phases.set(phase, (phases.get(phase) ?? 0) + (now - last) / 1000);
    last = now;
  };
  const { value: result, peakRssMb } = await sampledPeakRss(() => exportRelease(db, { outDir, hostBudget, signKey: SIGN_KEY, progress: consoleProgress(), onStep }));
  const text = [...phases].map(([phase, s]) => `${phase} ${s.toFixed(1)}`).join(', ');
  return { seconds: (performance.now() - started) / 1000, result, phases: text, peakRssMb };
}

/** Signing a release's manifest.json as the export does (streamed BLAKE2b-512, then the signatures): seconds, median of 5, and its size. */
async function signingTime(release: string): Promise<{ seconds: number; bytes: number }> {
  const path = join(release, 'manifest.json');
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    signPrehashed(await blake2b512OfFile(path), SIGN_KEY, `timestamp:${i}\tfile:manifest.json`);
    times.push((performance.now() - started) / 1000);
  }
  return { seconds: median(times), bytes: readFileSync(path).length };
}

/** What a wallet's cold verified range lookup fetches besides the range file: the signed index, its signature and the largest shard. */
function coldLookupBytes(release: string): { index: number; signature: number; shard: number } {
  const size = (path: string): number => readFileSync(join(release, path)).length;
  const index = JSON.parse(readFileSync(join(release, SIGNED_INDEX_PATH), 'utf8')) as { ranges: Record<string, { shards: Record<string, string> }> };
  const shards = Object.entries(index.ranges).flatMap(([kind, { shards: s }]) => Object.keys(s).map((shard) => size(`api/signed/${kind}/${shard}.json`)));
  return { index: size(SIGNED_INDEX_PATH), signature: size(SIGNED_INDEX_SIGNATURE_PATH), shard: Math.max(0, ...shards) };
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

/**
 * The site as an incremental export finds it: its releases, what `current`
 * names, and a copy of its state (under `work`). `restore` puts it back after
 * an export: the new release and state gone, the old ones as they were.
 */
function siteSnapshot(site: string, work: string): { restore: () => void } {
  const releases = join(site, 'releases');
  const kept = new Set(readdirSync(releases));
  const current = readlinkSync(join(site, 'current'));
  const state = join(work, 'state-snapshot');
  rmSync(state, { recursive: true, force: true });
  cpSync(join(site, 'state'), state, { recursive: true });
  return {
    restore: () => {
      const now = readdirSync(releases);
      const pruned = [...kept].filter((id) => !now.includes(id));
      if (pruned.length > 0) throw new Error(`bench:export: the export pruned ${pruned.join(', ')}; the site cannot be put back`);
      for (const id of now) if (!kept.has(id)) rmSync(join(releases, id), { recursive: true, force: true });
      rmSync(join(site, 'current'));
      symlinkSync(current, join(site, 'current'));
      rmSync(join(site, 'state'), { recursive: true, force: true });
      cpSync(state, join(site, 'state'), { recursive: true });
    },
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Heights of the sequence, below the preset's tip: base, +1 block, +100 blocks, +2 blocks (the job cycle). */
const SEQUENCE = [103, 102, 2, 0] as const;

/**
 * The preset of `seed` at height `to`, cached: the fully scanned preset
 * (shared with bench:quality) cut back to that height the way a reorg is
 * undone (deleteAbove), which is what scanning to it stores.
 */
async function cachedCut(preset: SimPresetName, seed: number, to: number): Promise<string> {
  const path = join(BENCH, `export-${preset}-${seed}-h${to}.duckdb`);
  if (!existsSync(path)) {
    const scanned = await cachedSimDb(preset, seed);
    scanned.db.close();
    console.log(`cutting ${scanned.dbPath} back to height ${to} into ${path} (cached for later runs)`);
    copyFileSync(scanned.dbPath, `${path}.partial`);
    const db = await Db.open(`${path}.partial`);
    await deleteAbove(db, to);
    await db.setMeta('cursor_height', String(to));
    db.close();
    renameSync(`${path}.partial`, path);
  }
  return path;
}

/** The preset at each height of SEQUENCE, each cached (oldest first). */
async function cachedDbs(preset: SimPresetName, seed: number): Promise<string[]> {
  const tip = presetRates(preset).blocks;
  const paths: string[] = [];
  for (const below of SEQUENCE) paths.push(await cachedCut(preset, seed, tip - below));
  return paths;
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

/** Files added or changed since the previous release (what a mirror uploads), from changes.json. */
const uploaded = (release: string): Upload => uploadOf(JSON.parse(readFileSync(join(release, 'changes.json'), 'utf8')) as ChangesBody);

/** Every upload held to its bound in this run: what was measured, and how it broke the bound. */
const verdicts: { label: string; problems: string[] }[] = [];

/**
 * A mirror's upload after an incremental export of `blocks` new blocks: files
 * and bytes, each as a share of the release, its largest groups, and PASS or
 * FAIL against the bound (held at mainnet, where it is stated; other presets
 * only report).
 */
function uploadShare(preset: SimPresetName, label: string, release: string, files: number, blocks: 1 | 100): string {
  const upload = uploaded(release);
  const releaseBytes = diskBytes(release);
  const bound = UPLOAD_BOUNDS[blocks];
  const verdict = uploadVerdict(upload, { files, bytes: releaseBytes }, bound);
  const largest = [...upload.groups].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([group, bytes]) => `${group} ${mb(bytes)}`);
  const checked = preset === 'mainnet';
  if (checked) verdicts.push({ label: `${preset} ${label}`, problems: verdict.problems });
  const mark = !checked ? '' : verdict.problems.length === 0 ? 'PASS ' : 'FAIL ';
  const target = (share: number | null): string => (share === null ? '' : `, target ≤ ${(share * 100).toFixed(1)}%`);
  return `${mark}${upload.files} of ${files} files changed (${(verdict.fileShare * 100).toFixed(2)}%${target(bound.files)}), `
    + `${mb(upload.bytes)} of ${mb(releaseBytes)} MB (${(verdict.byteShare * 100).toFixed(2)}%${target(bound.bytes)}; most in ${largest.join(', ')})`;
}

/** The host budget (docs/static-hosting.md): the default at mainnet; at x10 only the file count (100,000) is bounded. */
const budgetFor = (preset: SimPresetName): HostBudget => (preset === 'x10' ? parseHostBudget('files=100000,file=none,total=none') : DEFAULT_HOST_BUDGET);

async function benchPreset(preset: SimPresetName, seed: number, dir: string, oneFull: boolean, reps: number): Promise<void> {
  const budget = budgetFor(preset);
  const dbs = await cachedDbs(preset, seed);
  const tip = presetRates(preset).blocks;
  const work = join(dir, `export-${preset}-work`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const now = Math.floor(Date.now() / 1000);
  /** The chain at SEQUENCE[step], on a copy; analysed unless told otherwise. */
  const open = async (step: number): Promise<Db> => {
    const copy = join(work, `step${step}.duckdb`);
    copyFileSync(dbs[step]!, copy);
    return Db.open(copy);
  };
  const analysed = async (step: number): Promise<Db> => {
    const db = await open(step);
    await analyze(db, { now: now + (tip - SEQUENCE[step]!) * 150 });
    return db;
  };

  const site = join(work, 'site');
  let db = await analysed(0);
  const full1 = await timedExport(db, site, budget);
  db.close();
  const tar = tarLimit(full1.result.dir, work);
  const files = full1.result.files;
  const releaseBytes = diskBytes(full1.result.dir);

  const rate = (t: Timed) => `${Math.round(t.result.files / t.seconds)} files/s, ${mb(t.result.bytes / t.seconds)} MB/s written`;
  console.log(`\n== ${preset} (seed ${seed}): ${files} files, release ${mb(releaseBytes)} MB on disk`);
  console.log(`full export            ${full1.seconds.toFixed(1)} s  ${rate(full1)}; peak RSS ${full1.peakRssMb.toFixed(0)} MB (sampled; x10 target < 2 GB), of the process so far ${peakRssMb().toFixed(0)} MB`);
  console.log(`tar extract (limit)    ${tar.seconds.toFixed(1)} s  ${Math.round(files / tar.seconds)} files/s, ${mb(releaseBytes / tar.seconds)} MB/s`);
  console.log(`full / limit           ${((tar.seconds / full1.seconds) * 100).toFixed(0)}% (target ≥ 50%)`);
  console.log(`full export phases (s, dumps run beside the documents): ${full1.phases}`);
  const signing = await signingTime(full1.result.dir);
  console.log(`signing manifest.json  ${(signing.seconds * 1000).toFixed(1)} ms for ${mb(signing.bytes)} MB (median of 5), ${((signing.seconds / full1.seconds) * 100).toFixed(2)}% of the full export (target well under 1 s)`);
  const cold = coldLookupBytes(full1.result.dir);
  console.log(`cold verified lookup   api/signed.json ${cold.index} B + its signature ${cold.signature} B + largest shard ${cold.shard} B = ${((cold.index + cold.signature + cold.shard) / 1024).toFixed(1)} KiB besides the range file (target ≤ 64 KB)\n`);

  const steady = async (step: number, label: string, target: number, times: number, blocks: 1 | 100): Promise<void> => {
    db = await analysed(step);
    const snapshot = times > 1 ? siteSnapshot(site, work) : null;
    const runs: Timed[] = [];
    for (let rep = 0; rep < times; rep++) {
      if (rep > 0) snapshot!.restore();
      runs.push(await timedExport(db, site, budget));
    }
    const incremental = runs[runs.length - 1]!;
    const seconds = median(runs.map((run) => run.seconds));
    const full = oneFull ? full1 : await timedExport(db, join(work, `fresh${step}`), budget);
    db.close();
    const each = times > 1 ? ` (median of ${times}: ${runs.map((run) => run.seconds.toFixed(2)).join(', ')} s)` : '';
    console.log(`  ${label}: incremental ${seconds.toFixed(times > 1 ? 2 : 1)} s${each} (${incremental.result.written} written, ${incremental.result.reused} linked, ${incremental.result.kept} kept), `
      + `full ${full.seconds.toFixed(1)} s${oneFull ? ' (the first one)' : ''}: ${(full.seconds / seconds).toFixed(1)}× (target ≥ ${target}×); `
      + uploadShare(preset, `seed ${seed}, ${label.trim()} to height ${tip - SEQUENCE[step]!}`, incremental.result.dir, incremental.result.files, blocks));
    console.log(`    incremental phases (s): ${incremental.phases}`);
    rmSync(join(work, `fresh${step}`), { recursive: true, force: true });
  };
  console.log(`== ${preset}: the job's steady state`);
  await steady(1, 'after 1 new block   ', 30, reps, 1);
  await steady(2, 'after 100 new blocks', 10, 1, 100);

  // One job cycle after 2 new blocks: the source is positioned first, as a node would be.
  db = await open(2);
  await analyze(db, { now: now + (tip - SEQUENCE[2]) * 150 });
  const source = createSimSource({ preset, seed });
  await source.blockHashes([tip - SEQUENCE[2]]);
  let started = performance.now();
  await scanChain(db, source, { to: tip });
  const scan = seconds(started);
  await source.close();
  started = performance.now();
  await analyze(db, { now: now + tip * 150 });
  const analysis = seconds(started);
  const exported = await timedExport(db, site, budget);
  db.close();
  const cycle = scan + analysis + exported.seconds;
  console.log(`  job cycle after 2 new blocks: scan ${scan.toFixed(1)} s + analyze ${analysis.toFixed(1)} s + export ${exported.seconds.toFixed(1)} s `
    + `= ${cycle.toFixed(1)} s, ${((cycle / full1.seconds) * 100).toFixed(0)}% of the first full export (target ≤ 10%); ${uploaded(exported.result.dir).files} files changed`);
  console.log(`    export phases (s): ${exported.phases}`);
  console.log(`disk: one release ${mb(releaseBytes)} MB; the site's releases sharing unchanged files ${mb(diskBytes(site))} MB`);
  rmSync(work, { recursive: true, force: true });
}
/** Heights of a window below its last block: the base release, then 1 and 100 new blocks. */
const WINDOW_STEPS = [101, 100, 0] as const;

/** The upload after 1 and after 100 new blocks in one window: its base release exported in full, then each step incrementally. */
async function benchWindow(preset: SimPresetName, window: UploadWindow, dir: string): Promise<void> {
  const work = join(dir, `export-${preset}-window-work`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const site = join(work, 'site');
  const now = Math.floor(Date.now() / 1000);
  console.log(`\n== ${preset} (seed ${window.seed}): the upload in the 100 blocks from height ${window.to - 100} to ${window.to}`);
  for (const below of WINDOW_STEPS) {
    const height = window.to - below;
    const copy = join(work, 'chain.duckdb');
    copyFileSync(await cachedCut(preset, window.seed, height), copy);
    const db = await Db.open(copy);
    await analyze(db, { now: now - below * 150 });
    const exported = await timedExport(db, site, budgetFor(preset));
    db.close();
    rmSync(copy);
    const { result } = exported;
    if (below === WINDOW_STEPS[0]) {
      console.log(`  base release at height ${height}: ${result.files} files, ${mb(diskBytes(result.dir))} MB (full export ${exported.seconds.toFixed(1)} s)`);
      continue;
    }
    const blocks = below === WINDOW_STEPS[1] ? 1 : 100;
    const label = `after ${blocks === 1 ? '1 new block   ' : '100 new blocks'}`;
    console.log(`  ${label} to height ${height}: incremental ${exported.seconds.toFixed(1)} s; `
      + uploadShare(preset, `seed ${window.seed}, ${label.trim()} to height ${height}`, result.dir, result.files, blocks));
  }
  rmSync(work, { recursive: true, force: true });
}

/** Every upload held to its bound, one line each; exits 1 when any broke it. */
function reportVerdicts(): void {
  if (verdicts.length === 0) return;
  const failed = verdicts.filter((v) => v.problems.length > 0);
  console.log(`\n== upload bound (≤ 0.3% of bytes after 1 block, ≤ 3% of files and of bytes after 100): ${verdicts.length - failed.length} of ${verdicts.length} hold`);
  for (const { label, problems } of verdicts) console.log(`${problems.length === 0 ? 'PASS' : 'FAIL'} ${label}${problems.length === 0 ? '' : `: ${problems.join('; ')}`}`);
  if (failed.length > 0) process.exitCode = 1;
}

async function main(argv: string[]): Promise<void> {
  const values = benchFlags('bench:export', 'Full and incremental export, and one job cycle, on simulated presets, each next to a baseline.', {
    presets: { type: 'string', default: 'mainnet,x10', help: 'comma-separated sim presets' },
    seed: { type: 'integer', default: 7, help: 'sim seed' },
    dir: { type: 'string', default: BENCH, help: 'where the copies are worked on' },
    'one-full': { type: 'boolean', help: 'compare each incremental export with the first full export' },
    reps: { type: 'integer', default: 3, help: 'exports after 1 new block, each from the same previous release; the median is compared' },
    windows: { type: 'string', default: '7@599998,7@tip,1@tip', help: 'at mainnet, 100-block windows whose upload is held to the bound: SEED@HEIGHT, comma-separated, HEIGHT a block height or tip ("" for none); the steady state\'s own window is not measured twice' },
    'windows-only': { type: 'boolean', help: 'measure only the windows, not the full and incremental export times' },
  }, argv);
  if (values.reps < 1) usageError(`bench:export: --reps must be at least 1, got ${values.reps}`);
  const presets = simPresets('bench:export', values.presets);
  const { seed, dir } = values;
  const oneFull = values['one-full'];
  mkdirSync(BENCH, { recursive: true });
  mkdirSync(dir, { recursive: true });
  console.log(`working in ${dir}`);
  const tip = SIM_MWEB_ACTIVATION_HEIGHT - 1 + presetRates('mainnet').blocks;
  let windows: UploadWindow[] = [];
  try {
    windows = presets.includes('mainnet') ? parseWindows(values.windows, tip, SIM_MWEB_ACTIVATION_HEIGHT) : [];
  } catch (err) {
    usageError(`bench:export: --windows ${(err as Error).message}`);
  }
  for (const preset of presets) {
    if (!values['windows-only']) await benchPreset(preset, seed, dir, oneFull, values.reps);
    // The steady state's 100 blocks end SEQUENCE[2] below the block count: that window was just measured.
    const measured = (w: UploadWindow): boolean => !values['windows-only'] && w.seed === seed && w.to === presetRates(preset).blocks - SEQUENCE[2];
    if (preset === 'mainnet') for (const window of windows.filter((w) => !measured(w))) await benchWindow(preset, window, dir);
  }
  reportVerdicts();
}

await main(process.argv.slice(2));
