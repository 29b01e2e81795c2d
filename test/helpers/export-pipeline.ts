import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Db } from '../../src/store/db.js';
import { createSimSource, type SimSource } from '../../src/chain/sim/index.js';
import { scanChain } from '../../src/store/scan.js';
import { analyze, ensureLabelsTable } from '../../src/analysis/analyze.js';

/** The real pipeline up to an analysed database: sim chain (tiny) → scan → analyze. */
export async function analysedDb(path: string, seed: number, to: number, now: number): Promise<{ db: Db; source: SimSource }> {
  const db = await Db.open(path);
  const source = createSimSource({ preset: 'tiny', seed });
  await scanChain(db, source, { to });
  await analyze(db, { now });
  return { db, source };
}

export async function scanAndAnalyze(db: Db, source: SimSource, to: number, now: number): Promise<void> {
  await scanChain(db, source, { to });
  await analyze(db, { now });
}

/** Curated labels whose entity names a spreadsheet would run as formulas. */
export async function insertHostileLabels(db: Db, addresses: string[]): Promise<void> {
  await ensureLabelsTable(db);
  for (const [i, address] of addresses.entries()) {
    await db.exec('INSERT OR REPLACE INTO labels VALUES ($1, $2, $3, 1.0, $4, 0)',
      [address, i % 2 ? '@SUM(1+1)' : '=HYPERLINK("http://x","y")', 'exchange', 'test']);
  }
}

/** Every file of a tree, relative path → absolute path, sorted. */
export function treeFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(root, path), path);
    }
  };
  walk(root);
  return files;
}
