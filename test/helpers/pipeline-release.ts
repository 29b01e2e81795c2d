/**
 * A real release tree from the whole pipeline: the simulated chain (tiny
 * preset) → scanChain → analyze → exportRelease, in a temp dir, with a secret
 * planted next to the tree and inside the release (dotfile) for leak checks.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Db } from '../../src/store/db.js';
import { createSimSource } from '../../src/chain/sim/index.js';
import { scanChain } from '../../src/store/scan.js';
import { analyze } from '../../src/analysis/analyze.js';
import { exportRelease } from '../../src/export/export.js';
import { NO_HOST_BUDGET, type Layout } from '../../src/export/ranges.js';
import { SECRET } from './release-tree.js';
import { releaseDocuments } from './release-docs.js';

export interface PipelineTree {
  root: string;
  outDir: string;
  /** The published release directory. */
  dir: string;
  /** A query of each trace type the release has a document for. */
  traceQ: { address: string; pegin_tx: string; pegout_tx: string };
  /** The address with the longest follow chain, and its hop count. */
  longestFollow: { address: string; hops: number };
  block: { height: number; hash: string };
}

export async function buildPipelineTree(seed = 7, layout: Layout = 'ranges'): Promise<PipelineTree> {
  const root = mkdtempSync(join(tmpdir(), 'pegscope-serve-pipe-'));
  const outDir = join(root, 'out', 'sim');
  const db = await Db.open(':memory:');
  let dir: string;
  try {
    await scanChain(db, createSimSource({ preset: 'tiny', seed }));
    await analyze(db);
    dir = (await exportRelease(db, { outDir, layout, hostBudget: NO_HOST_BUDGET })).dir;
  } finally {
    db.close();
  }
  writeFileSync(join(root, 'SECRET.txt'), SECRET);
  writeFileSync(join(root, '.env'), SECRET);
  writeFileSync(join(dir, '.secret'), SECRET);
  writeFileSync(join(dir, 'api', '.secret.json'), SECRET);

  const traceQ: Partial<PipelineTree['traceQ']> = {};
  for (const [key, text] of releaseDocuments(dir, 'trace').documents) {
    const type = JSON.parse(text).trace.type as keyof PipelineTree['traceQ'];
    traceQ[type] ??= key;
    if (traceQ.address && traceQ.pegin_tx && traceQ.pegout_tx) break;
  }
  let longestFollow = { address: '', hops: -1 };
  const follow = releaseDocuments(dir, 'follow');
  for (const [key, text] of [...follow.documents, ...follow.chains]) {
    const hops = JSON.parse(text).follow.hops.length as number;
    if (hops > longestFollow.hops) longestFollow = { address: key, hops };
  }
  const [, blockText] = releaseDocuments(dir, 'block').documents.entries().next().value!;
  const blockDoc = JSON.parse(blockText).block;
  return {
    root, outDir, dir,
    traceQ: traceQ as PipelineTree['traceQ'],
    longestFollow,
    block: { height: blockDoc.height, hash: blockDoc.hash },
  };
}
