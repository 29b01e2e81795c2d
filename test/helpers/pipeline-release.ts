/**
 * A real release tree from the whole pipeline: the simulated chain (tiny
 * preset) → scanChain → analyze → exportRelease, in a temp dir, with a secret
 * planted next to the tree and inside the release (dotfile) for leak checks.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Db } from '../../src/store/db.js';
import { createSimSource } from '../../src/chain/sim/index.js';
import { scanChain } from '../../src/store/scan.js';
import { analyze } from '../../src/analysis/analyze.js';
import { exportRelease } from '../../src/export/export.js';
import { SECRET } from './release-tree.js';

export interface PipelineTree {
  root: string;
  outDir: string;
  /** The published release directory. */
  dir: string;
  /** A query of each trace type the release has a file for. */
  traceQ: { address: string; pegin_tx: string; pegout_tx: string };
  /** The address with the longest follow chain, and its hop count. */
  longestFollow: { address: string; hops: number };
  block: { height: number; hash: string };
}

export async function buildPipelineTree(seed = 7): Promise<PipelineTree> {
  const root = mkdtempSync(join(tmpdir(), 'pegscope-serve-pipe-'));
  const outDir = join(root, 'out', 'sim');
  const db = await Db.open(':memory:');
  let dir: string;
  try {
    await scanChain(db, createSimSource({ preset: 'tiny', seed }));
    await analyze(db);
    dir = (await exportRelease(db, { outDir })).dir;
  } finally {
    db.close();
  }
  writeFileSync(join(root, 'SECRET.txt'), SECRET);
  writeFileSync(join(root, '.env'), SECRET);
  writeFileSync(join(dir, '.secret'), SECRET);
  writeFileSync(join(dir, 'api', '.secret.json'), SECRET);

  const json = (rel: string): any => JSON.parse(readFileSync(join(dir, rel), 'utf8'));
  const traceQ: Partial<PipelineTree['traceQ']> = {};
  for (const name of readdirSync(join(dir, 'api', 'trace'))) {
    if (!name.endsWith('.json')) continue;
    const type = json(`api/trace/${name}`).trace.type as keyof PipelineTree['traceQ'];
    traceQ[type] ??= name.slice(0, -5);
    if (traceQ.address && traceQ.pegin_tx && traceQ.pegout_tx) break;
  }
  let longestFollow = { address: '', hops: -1 };
  for (const name of readdirSync(join(dir, 'data', 'follow'))) {
    if (!name.endsWith('.json')) continue;
    const hops = json(`data/follow/${name}`).follow.hops.length as number;
    if (hops > longestFollow.hops) longestFollow = { address: name.slice(0, -5), hops };
  }
  const heightFile = readdirSync(join(dir, 'api', 'block')).find((n) => /^\d+\.json$/.test(n))!;
  const blockDoc = json(`api/block/${heightFile}`).block;
  return {
    root, outDir, dir,
    traceQ: traceQ as PipelineTree['traceQ'],
    longestFollow,
    block: { height: blockDoc.height, hash: blockDoc.hash },
  };
}
