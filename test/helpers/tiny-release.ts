import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportRelease } from '../../src/export/export.js';
import { analysedDb } from './export-pipeline.js';
import type { SecretKey } from '../../src/trust/minisign.js';

export interface TinyRelease {
  /** Temp dir holding out/sim; the caller removes it. */
  root: string;
  outDir: string;
  /** The published release directory (what out/sim/current points at). */
  dir: string;
}

/** A release as `pegscope job` publishes it: the tiny sim chain scanned to `to`, analysed and exported (signed with `signKey`), nothing added. */
export async function exportTinyRelease(seed = 1, to = 2_600, signKey?: SecretKey): Promise<TinyRelease> {
  const root = mkdtempSync(join(tmpdir(), 'pegscope-tiny-release-'));
  const outDir = join(root, 'out', 'sim');
  const { db, source } = await analysedDb(':memory:', seed, to, 1_800_000_000);
  try {
    const { dir } = await exportRelease(db, { outDir, signKey });
    return { root, outDir, dir };
  } finally {
    await source.close();
    db.close();
  }
}
