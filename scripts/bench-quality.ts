/**
 * npm run bench:quality [-- --preset demo --seed 7 [--param name=value …]]
 *
 * Link quality on the simulated chain's ground truth: precision and recall per
 * confidence band, a calibration table with the expected calibration error,
 * and the naive formula (1 / (candidates + competing peg-outs − 1) × a timing
 * weight, tolerance 0.002) on the same data for comparison. The scanned
 * database and its truth are cached under .bench/.
 */
import { join } from 'node:path';
import { analyze, DEFAULT_PARAMS, type AnalysisParams } from '../src/analysis/analyze.js';
import type { SimPresetName } from '../src/chain/sim/index.js';
import type { Db } from '../src/store/db.js';
import { benchFlags, secondsSince, simPreset, usageError } from './lib/bench.js';
import { cachedSimDb } from './lib/sim-cache.js';

/** Parameters given on the command line, over the defaults. */
type ParamOverrides = { -readonly [K in keyof AnalysisParams]?: AnalysisParams[K] };
interface Args { preset: SimPresetName; seed: number; params: ParamOverrides }

function parseArgs(): Args {
  const flags = benchFlags('bench:quality', 'Link precision, recall and calibration on the sim ground truth, next to a naive formula.', {
    preset: { type: 'string', default: 'demo', help: 'sim preset' },
    seed: { type: 'integer', default: 7, help: 'sim seed' },
    param: { type: 'repeated', help: 'name=value: an analysis parameter over its default (repeatable)' },
  });
  const params: ParamOverrides = {};
  for (const value of flags.param) {
    if (!/^\w+=[\d.]+$/.test(value) || !(value.split('=')[0]! in DEFAULT_PARAMS)) {
      usageError(`bench:quality: --param "${value}" is not name=number; names: ${Object.keys(DEFAULT_PARAMS).join(', ')}`);
    }
    const [name, number] = value.split('=') as [keyof AnalysisParams, string];
    params[name] = Number(number);
  }
  return { preset: simPreset('bench:quality', flags.preset), seed: flags.seed, params };
}

const BANDS = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0000001];

/** Pairs table columns: pegout_id, pegin_id, confidence, is_true. */
async function bandTable(db: Db, table: string, trueTotal: number): Promise<void> {
  const rows = await db.all<{ band: number; n: bigint; true_n: bigint; mean: number }>(`
    SELECT band, count(*) AS n, count(*) FILTER (WHERE is_true) AS true_n, avg(confidence) AS mean
    FROM (SELECT *, list_position([${BANDS.join(', ')}], (SELECT max(b) FROM unnest([${BANDS.join(', ')}]) t(b) WHERE b <= confidence)) AS band FROM ${table})
    GROUP BY band ORDER BY band`);
  console.log('  band          links   true  precision  mean conf  recall(≥band)');
  for (const r of rows) {
    const lo = BANDS[r.band - 1]!, hi = Math.min(1, BANDS[r.band]!);
    const atLeast = await db.one<{ t: bigint }>(`SELECT count(*) FILTER (WHERE is_true) AS t FROM ${table} WHERE confidence >= ${lo}`);
    console.log(`  [${lo.toFixed(2)}, ${hi.toFixed(2)}${hi === 1 ? ']' : ')'}  ${String(r.n).padStart(6)} ${String(r.true_n).padStart(6)}  ${(Number(r.true_n) / Number(r.n)).toFixed(3).padStart(9)}  ${r.mean.toFixed(3).padStart(9)}  ${(Number(atLeast?.t ?? 0) / trueTotal).toFixed(3).padStart(12)}`);
  }
}

/** Calibration over ten equal-width bins; ECE = Σ n_b / N × |accuracy_b − mean confidence_b|. */
async function calibration(db: Db, table: string): Promise<number> {
  const rows = await db.all<{ bin: number; n: bigint; acc: number; mean: number }>(`
    SELECT least(floor(confidence * 10), 9)::INTEGER AS bin, count(*) AS n, avg(is_true::INTEGER) AS acc, avg(confidence) AS mean
    FROM ${table} GROUP BY bin ORDER BY bin`);
  const total = rows.reduce((s, r) => s + Number(r.n), 0);
  console.log('  bin        links  fraction true  mean conf');
  let ece = 0;
  for (const r of rows) {
    ece += (Number(r.n) / total) * Math.abs(r.acc - r.mean);
    console.log(`  [${(r.bin / 10).toFixed(1)}, ${((r.bin + 1) / 10).toFixed(1)})  ${String(r.n).padStart(6)}  ${r.acc.toFixed(3).padStart(13)}  ${r.mean.toFixed(3).padStart(9)}`);
  }
  console.log(`  expected calibration error: ${ece.toFixed(4)}`);
  return ece;
}

async function main(): Promise<void> {
  const args = parseArgs();
  const { db, truthDir } = await cachedSimDb(args.preset, args.seed);
  const started = performance.now();
  await analyze(db, {
    params: args.params,
    // Every pair of the chain, not only those a run continuing the cached database's analysis would expand.
    full: true,
    // Keep the unfiltered candidate pairs of this run for the naive formula.
    onStep: async (step) => {
      if (step !== '04_a_links') return;
      await db.exec(`CREATE OR REPLACE TEMP TABLE bench_pairs AS
        SELECT s.*, o.txid AS pegout_txid, o.vout AS pegout_vout, p.txid AS pegin_txid, p.vout AS pegin_vout
        FROM w_scored s JOIN w_pegout_ids o USING (orid) JOIN w_pegin_ranked p USING (rk)`);
    },
  });
  const seconds = secondsSince(started);
  await db.exec(`CREATE OR REPLACE TEMP TABLE truth_pegouts AS SELECT * FROM read_json_auto('${join(truthDir, 'pegouts.jsonl')}', format = 'newline_delimited')`);
  const totals = await db.one<{ pegouts: bigint; round_trips: bigint; single: bigint }>(`
    SELECT count(*) AS pegouts, count(*) FILTER (WHERE round_trip) AS round_trips, count(*) FILTER (WHERE source_pegin IS NOT NULL) AS single FROM truth_pegouts`);
  const roundTrips = Number(totals?.round_trips ?? 0);
  const isTrue = `EXISTS (SELECT 1 FROM truth_pegouts t WHERE t.pegout = x.pegout_txid || ':' || x.pegout_vout AND t.source_pegin = x.pegin_txid || ':' || x.pegin_vout)`;
  await db.exec(`CREATE OR REPLACE TEMP TABLE eval_ours AS SELECT x.confidence, ${isTrue} AS is_true FROM a_links x`);
  // Naive: every candidate pair, 1 / (candidates + competing peg-outs − 1) × timing weight
  // (1 within a day, 0.8 within a week, 0.5 after); here competitor_count excludes the peg-out itself.
  await db.exec(`CREATE OR REPLACE TEMP TABLE eval_naive AS
    SELECT least(1, 1.0 / (x.candidate_count + x.competitor_count)
      * CASE WHEN x.block_gap <= 576 THEN 1 WHEN x.block_gap <= 4032 THEN 0.8 ELSE 0.5 END) AS confidence, ${isTrue} AS is_true
    FROM bench_pairs x`);
  await db.exec(`CREATE OR REPLACE TEMP TABLE eval_all AS SELECT x.confidence, ${isTrue} AS is_true FROM bench_pairs x`);

  console.log(`bench:quality — sim preset ${args.preset}, seed ${args.seed}; analyze ${seconds.toFixed(2)} s`);
  console.log(`truth: ${totals?.pegouts} peg-outs, ${roundTrips} round trips (whole-balance exits of one peg-in), ${totals?.single} exits carrying a single peg-in`);
  console.log(`params: ${JSON.stringify({ ...DEFAULT_PARAMS, ...args.params })}`);
  for (const [title, table] of [['pegscope (reported links)', 'eval_ours'], ['pegscope (every candidate pair, before the reporting cut-offs)', 'eval_all'], ['naive formula (tolerance 0.002)', 'eval_naive']] as const) {
    console.log(`\n${title}`);
    await bandTable(db, table, roundTrips);
    await calibration(db, table);
  }
  const recall = async (table: string) => Number((await db.one<{ t: bigint }>(`SELECT count(*) FILTER (WHERE is_true) AS t FROM ${table} WHERE confidence >= 0.5`))?.t ?? 0) / roundTrips;
  const high = await db.one<{ n: bigint; t: bigint }>('SELECT count(*) AS n, count(*) FILTER (WHERE is_true) AS t FROM eval_ours WHERE confidence >= 0.9');
  const ours = await recall('eval_ours'), naive = await recall('eval_naive');
  console.log(`\nsummary: precision at ≥ 0.9 = ${(Number(high?.t) / Math.max(1, Number(high?.n))).toFixed(3)} (${high?.t}/${high?.n}); `
    + `recall at ≥ 0.5 = ${ours.toFixed(3)} vs naive ${naive.toFixed(3)} (×${(ours / Math.max(naive, 1e-9)).toFixed(1)})`);
  db.close();
}

await main();
