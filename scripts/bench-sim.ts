/**
 * npm run bench:sim [-- --preset mainnet|x10|demo|tiny] [--blocks N] [--batch N]
 *
 * Baseline: generating the preset's raw blocks alone (what the source costs).
 * Measured: generate + scan through the real scanChain into a temporary
 * DuckDB file. Prints blocks/s, peg events/s, the scan/generation ratio and
 * peak RSS. Targets (2-core machine): mainnet < 60 s, x10 < 10 min, RSS < 2 GB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimSource, readSimTruth } from '../src/chain/sim/index.js';
import { consoleProgress } from '../src/progress.js';
import { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';
import { benchFlags, peakRssMb, secondsSince, simPreset } from './lib/bench.js';

const values = benchFlags('bench:sim', 'Generating a sim preset, then generating and scanning it into DuckDB.', {
  preset: { type: 'string', default: 'mainnet', help: 'sim preset' },
  seed: { type: 'integer', default: 1, help: 'sim seed' },
  blocks: { type: 'optional-integer', help: 'blocks to generate (default: the preset\'s)' },
  batch: { type: 'integer', default: 1000, help: 'blocks per scan batch' },
});
const preset = simPreset('bench:sim', values.preset);
const { seed, batch } = values;
const rates = values.blocks ? { blocks: values.blocks } : {};
const work = mkdtempSync(join(tmpdir(), 'pegscope-bench-sim-'));


async function generateOnly(): Promise<{ s: number; blocks: number; pegs: number }> {
  const truthDir = join(work, 'gen.truth');
  const source = createSimSource({ preset, seed, rates, truthDir });
  const progress = consoleProgress();
  const start = performance.now();
  progress.start('generate', source.tip + 1, 'blocks');
  for (let from = 0; from <= source.tip; from += batch) {
    const heights = Array.from({ length: Math.min(batch, source.tip - from + 1) }, (_, i) => from + i);
    await source.rawBlocks(await source.blockHashes(heights));
    progress.update(from + heights.length);
  }
  progress.stop();
  await source.close();
  const s = secondsSince(start);
  const { counts } = readSimTruth(truthDir).meta;
  return { s, blocks: source.tip + 1, pegs: (counts.pegins ?? 0) + (counts.pegouts ?? 0) };
}

async function generateAndScan(): Promise<{ s: number; blocks: number; pegins: number; pegouts: number }> {
  const db = await Db.open(join(work, 'sim.duckdb'));
  const source = createSimSource({ preset, seed, rates, truthDir: join(work, 'sim.truth') });
  const start = performance.now();
  const result = await scanChain(db, source, { progress: consoleProgress(), batchBlocks: batch });
  await source.close();
  const s = secondsSince(start);
  db.close();
  return { s, blocks: result.blocks, pegins: result.pegins, pegouts: result.pegouts };
}

try {
  console.log(`bench:sim preset=${preset} seed=${seed}${values.blocks ? ` blocks=${values.blocks}` : ''} batch=${batch}`);
  const gen = await generateOnly();
  console.log(`baseline  generate only: ${gen.s.toFixed(1)} s, ${Math.round(gen.blocks / gen.s)} blocks/s, ${Math.round(gen.pegs / gen.s)} peg events/s`);
  const scan = await generateAndScan();
  const pegs = scan.pegins + scan.pegouts;
  console.log(`measured  generate+scan: ${scan.s.toFixed(1)} s, ${Math.round(scan.blocks / scan.s)} blocks/s, ${Math.round(pegs / scan.s)} peg events/s `
    + `(${scan.blocks} blocks, ${scan.pegins} peg-ins, ${scan.pegouts} peg-outs)`);
  console.log(`ratio     generate+scan / generate: ${(scan.s / gen.s).toFixed(2)}×; scan share ≈ ${Math.round((1 - gen.s / scan.s) * 100)} %`);
  const target = values.blocks ? null : preset === 'x10' ? 600 : preset === 'mainnet' ? 60 : null;
  console.log(`peak RSS  ${Math.round(peakRssMb())} MB (target < 2048)${target ? `; time target < ${target} s: ${scan.s < target ? 'met' : 'MISSED'}` : ''}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
