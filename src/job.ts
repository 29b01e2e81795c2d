import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { acquireJobLock } from './lock.js';
import { analyze } from './analysis/analyze.js';
import { importLabels } from './analysis/labels.js';
import { parseDuration, type ResolvedConfig } from './config.js';
import { exportRelease } from './export/export.js';
import { consoleProgress, type Progress } from './progress.js';
import { openSource, simTruthDir, type SourceOptions } from './sources.js';
import { Db } from './store/db.js';
import { scanChain } from './store/scan.js';
import { DEFAULT_KEEP_RELEASES } from './domain/model.js';
import { SIM_LABELS_FILE } from './chain/sim/index.js';

export interface JobOptions extends SourceOptions {
  to?: number;
  keep?: number;
  labels?: string[];
  log: (line: string) => void;
  progress?: Progress;
}

export interface JobResult {
  scannedTo: number;
  newBlocks: number;
  releaseId: string;
  files: number;
}

/** scan → (labels) → analyze → export. A failing stage throws; the last published release stays. */
export async function runJob(config: ResolvedConfig, opts: JobOptions): Promise<JobResult> {
  const release = acquireJobLock(config.dbPath);
  const progress = opts.progress ?? consoleProgress();
  try {
    const source = openSource(config, opts);
    const db = await Db.open(config.dbPath);
    try {
      const scan = await scanChain(db, source, { to: opts.to, progress, log: opts.log });
      opts.log(`scan: ${scan.blocks} new blocks up to ${scan.toHeight} (${scan.pegins} peg-ins, ${scan.pegouts} peg-outs)`);
      const labelFiles = [...(opts.labels ?? [])];
      const simLabels = join(simTruthDir(config.dbPath), SIM_LABELS_FILE);
      if (config.network.name === 'sim' && existsSync(simLabels)) labelFiles.unshift(simLabels);
      if (labelFiles.length > 0) {
        const labels = await importLabels(db, labelFiles, config.network);
        for (const r of labels.rejected) opts.log(`labels: rejected ${r.file}:${r.line}: ${r.reason}`);
        opts.log(`labels: ${labels.imported} imported`);
      }
      await analyze(db, { log: opts.log });
      const exported = await exportRelease(db, { outDir: config.outDir, keep: opts.keep ?? DEFAULT_KEEP_RELEASES, progress, log: opts.log });
      return { scannedTo: scan.toHeight, newBlocks: scan.blocks, releaseId: exported.releaseId, files: exported.files };
    } finally {
      db.close();
      await source.close();
    }
  } finally {
    release();
  }
}

/**
 * Repeats the job; a failed run is logged and retried at the next tick.
 * Stops on SIGINT/SIGTERM, or when `stop` is aborted, after the run under way.
 */
export async function runJobEvery(config: ResolvedConfig, opts: JobOptions, every: string, stop?: AbortSignal): Promise<void> {
  const intervalMs = parseDuration(every);
  const controller = new AbortController();
  const abort = () => controller.abort();
  stop?.addEventListener('abort', abort);
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  try {
    while (!controller.signal.aborted) {
      const started = Date.now();
      try {
        await runJob(config, opts);
      } catch (err) {
        opts.log(`job failed: ${(err as Error).message}; the last good release stays published; retrying in ${every}`);
      }
      const wait = Math.max(0, intervalMs - (Date.now() - started));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        controller.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
      });
    }
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
    stop?.removeEventListener('abort', abort);
  }
  opts.log('job: stopped');
}
