/**
 * npm run bench:analyze [-- --presets mainnet,x10 --seed 7]
 *
 * Wall time and peak RSS of `analyze` on the simulated mainnet and x10 presets
 * (targets: x10 under 15 s and 2 GB). Each measurement runs in its own child
 * process so the peak RSS is the analysis's, not the scan's. The baseline,
 * measured in the same run on the same database, is the floor of touching the
 * data once: copying every base table into a new table.
 * It also times the job's usual run: an analysis that continues the
 * published one after 2 new blocks (on a copy analysed 2 blocks lower).
 * The scanned databases are cached under .bench/ (the x10 scan takes minutes).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { analyze } from '../src/analysis/analyze.js';
import { Db } from '../src/store/db.js';
import { benchFlags, peakRssMb, secondsSince, simPresets } from './lib/bench.js';
import { cachedSimDb } from './lib/sim-cache.js';

interface Measurement { seconds: number; maxRssMb: number; links: number; clusterIterations: number; pegins: number; pegouts: number; steps: { step: string; ms: number }[] }

const BASELINE_SQL = `
  CREATE OR REPLACE TEMP TABLE copy_pegins AS SELECT * FROM pegins;
  CREATE OR REPLACE TEMP TABLE copy_inputs AS SELECT * FROM pegin_inputs;
  CREATE OR REPLACE TEMP TABLE copy_pegouts AS SELECT * FROM pegouts;
  CREATE OR REPLACE TEMP TABLE copy_blocks AS SELECT * FROM blocks;`;

type What = 'analyze' | 'continue' | 'baseline';
/** New blocks the continuing analysis finds. */
const NEW_BLOCKS = 2;

/** Child mode: measure one thing on one database and print it as JSON. */
async function child(what: What, dbPath: string): Promise<void> {
  const copy = `${dbPath}.continue`;
  if (what === 'continue') copyFileSync(dbPath, copy);
  const db = await Db.open(what === 'continue' ? copy : dbPath);
  const counts = await db.one<{ i: bigint; o: bigint }>('SELECT (SELECT count(*) FROM pegins) AS i, (SELECT count(*) FROM pegouts) AS o');
  const tip = Number(await db.getMeta('cursor_height'));
  if (what === 'continue') {
    await db.setMeta('cursor_height', String(tip - NEW_BLOCKS));
    await analyze(db, { full: true });
    // As the job's previous run left it: closed, its writes checkpointed.
    await db.exec('CHECKPOINT');
    await db.setMeta('cursor_height', String(tip));
  }
  const started = performance.now();
  let links = 0, clusterIterations = 0;
  let steps: Measurement['steps'] = [];
  if (what === 'baseline') await db.exec(BASELINE_SQL);
  else {
    const result = await analyze(db, { full: what === 'analyze' });
    if (what === 'continue' && result.continuedFrom !== tip - NEW_BLOCKS + 1) throw new Error(`the analysis did not continue the one ${NEW_BLOCKS} blocks lower`);
    ({ links, steps, clusterIterations } = result);
  }
  const seconds = secondsSince(started);
  db.close();
  rmSync(copy, { force: true });
  const result: Measurement = { seconds, maxRssMb: peakRssMb(), links, clusterIterations, pegins: Number(counts?.i), pegouts: Number(counts?.o), steps };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function measure(what: What, dbPath: string): Measurement {
  const run = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', what, dbPath], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`bench:analyze child (${what}) failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as Measurement;
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--child') return child(argv[1] as What, argv[2]!);
  const flags = benchFlags('bench:analyze', 'Wall time and peak RSS of analyze on simulated presets, next to copying the base tables once.', {
    presets: { type: 'string', default: 'mainnet,x10', help: 'comma-separated sim presets' },
    seed: { type: 'integer', default: 7, help: 'sim seed' },
  }, argv);
  const presets = simPresets('bench:analyze', flags.presets);
  const { seed } = flags;
  for (const preset of presets) {
    const { db, dbPath } = await cachedSimDb(preset, seed);
    db.close();
    const baseline = measure('baseline', dbPath);
    const result = measure('analyze', dbPath);
    const continued = measure('continue', dbPath);
    console.log(`\n${preset} (seed ${seed}): ${result.pegins} peg-ins, ${result.pegouts} peg-outs, ${result.links} links reported`);
    console.log(`  analyze: ${result.seconds.toFixed(2)} s wall, peak RSS ${result.maxRssMb.toFixed(0)} MB`);
    console.log(`  baseline (copy the base tables once): ${baseline.seconds.toFixed(2)} s, peak RSS ${baseline.maxRssMb.toFixed(0)} MB`);
    console.log(`  ratio analyze / baseline: ×${(result.seconds / baseline.seconds).toFixed(1)} time, ×${(result.maxRssMb / baseline.maxRssMb).toFixed(1)} RSS`);
    if (preset === 'x10') console.log(`  targets: < 15 s (${result.seconds < 15 ? 'met' : 'MISSED'}), < 2048 MB (${result.maxRssMb < 2048 ? 'met' : 'MISSED'})`);
    const slowest = (m: Measurement): string => [...m.steps].sort((a, b) => b.ms - a.ms).slice(0, 4).map((s) => `${s.step} ${s.ms} ms`).join(', ');
    console.log(`  cluster iterations: ${result.clusterIterations}; slowest steps: ${slowest(result)}`);
    console.log(`  continuing the analysis after ${NEW_BLOCKS} new blocks (the job's usual run): ${continued.seconds.toFixed(2)} s wall, peak RSS ${continued.maxRssMb.toFixed(0)} MB, `
      + `×${(result.seconds / continued.seconds).toFixed(1)} faster than analysing every peg; slowest steps: ${slowest(continued)}`);
  }
}

await main(process.argv.slice(2));
