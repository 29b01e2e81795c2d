import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createSimSource, type SimPresetName } from '../../src/chain/sim/index.js';
import { consoleProgress } from '../../src/progress.js';
import { Db } from '../../src/store/db.js';
import { scanChain } from '../../src/store/scan.js';

/** The sim preset scanned into .bench/sim-<preset>-<seed>.duckdb with its truth next to it; scanned once, then reused. */
export function simDbPaths(preset: SimPresetName, seed: number): { dbPath: string; truthDir: string } {
  const base = join('.bench', `sim-${preset}-${seed}`);
  return { dbPath: `${base}.duckdb`, truthDir: `${base}.truth` };
}

export async function cachedSimDb(preset: SimPresetName, seed: number): Promise<{ db: Db; truthDir: string; dbPath: string }> {
  const { dbPath, truthDir } = simDbPaths(preset, seed);
  const ready = existsSync(dbPath) && existsSync(join(truthDir, 'meta.json'));
  const db = await Db.open(dbPath);
  if (!ready) {
    const source = createSimSource({ preset, seed, truthDir });
    console.log(`scanning sim preset ${preset} seed ${seed} into ${dbPath} (cached for later runs)`);
    await scanChain(db, source, { progress: consoleProgress(), batchBlocks: 500 });
    await source.close();
  }
  return { db, truthDir, dbPath };
}
