import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { acquireJobLock } from './lock.js';
import { analyze } from './analysis/analyze.js';
import { importLabels, importNotes, importSummary } from './analysis/labels.js';
import { parseDuration, type ResolvedConfig } from './config.js';
import { exportRelease } from './export/export.js';
import { recordCheck } from './export/publish.js';
import type { HostBudget, Layout } from './export/ranges.js';
import { consoleProgress, type Progress } from './progress.js';
import { growTarget, openSource, simTruthDir, type SourceOptions } from './sources.js';
import { Db } from './store/db.js';
import { scanChain } from './store/scan.js';
import { DEFAULT_KEEP_RELEASES } from './domain/model.js';
import { SIM_LABELS_FILE } from './chain/sim/index.js';
import { recordEvents } from './notify/record.js';
import { DELIVERY_BUDGET_MS, deliverDue, nextDue, summaryLine, type DeliveryOptions } from './notify/deliver.js';
import { repeatUntilStopped, sleep } from './every.js';
import { secondsSince, type JobSummary } from './summary.js';
import type { SecretKey } from './trust/minisign.js';

export interface JobOptions extends SourceOptions {
  to?: number;
  /** Scan a node still in initial block download (ScanOptions.allowSyncing). */
  allowSyncing?: boolean;
  /** Blocks of the analysis horizon (AnalyzeOptions.horizon). */
  horizon?: number;
  /** DuckDB's memory limit for analyze and export (their defaults when absent). */
  memoryLimitMb?: number;
  keep?: number;
  layout?: Layout;
  hostBudget?: HostBudget;
  /** Signs each release (ExportOptions.signKey). */
  signKey?: SecretKey;
  /** The keys the explorer page verifies against (ExportOptions.explorerPublicKeys). */
  explorerPublicKeys?: readonly string[];
  /** The site's public URL (ExportOptions.siteUrl). */
  siteUrl?: string;
  labels?: string[];
  /** Import the valid labels even when some are rejected (ImportOptions.skipInvalid). */
  skipInvalidLabels?: boolean;
  /** Import TagPacks that do not set is_public (ImportOptions.public, `--labels-public`). */
  labelsPublic?: boolean;
  /** Webhooks may go to loopback and private addresses (--allow-private-webhooks). */
  allowPrivateWebhooks?: boolean;
  /** Delivery's retry policy, limits and clock (tests); the defaults of notify/deliver.ts otherwise. */
  delivery?: Omit<DeliveryOptions, 'allowPrivate' | 'log' | 'deadline'>;
  log: (line: string) => void;
  progress?: Progress;
  /** Called with each run's summary, published or not (`job --json` prints it). */
  onSummary?: (summary: JobSummary) => void;
}

/** scan → (labels) → analyze → export. A failing stage throws; the last published release stays. */
export async function runJob(config: ResolvedConfig, opts: JobOptions): Promise<JobSummary> {
  const started = performance.now();
  const release = acquireJobLock(config.dbPath);
  const progress = opts.progress ?? consoleProgress();
  try {
    const source = openSource(config, opts);
    const db = await Db.open(config.dbPath);
    try {
      const to = opts.grow !== undefined ? growTarget(Number(await db.getMeta('cursor_height') ?? -1), opts.preset ?? 'demo', opts.grow) : opts.to;
      const scan = await scanChain(db, source, { to, allowSyncing: opts.allowSyncing, progress, log: opts.log });
      opts.log(`scan: ${scan.blocks} new blocks up to ${scan.toHeight} (${scan.pegins} peg-ins, ${scan.pegouts} peg-outs)`);
      const labelFiles = [...(opts.labels ?? [])];
      const simLabels = join(simTruthDir(config.dbPath), SIM_LABELS_FILE);
      if (config.network.name === 'sim' && existsSync(simLabels)) labelFiles.unshift(simLabels);
      if (labelFiles.length > 0) {
        const labels = await importLabels(db, labelFiles, config.network, { skipInvalid: opts.skipInvalidLabels, public: opts.labelsPublic });
        for (const r of labels.rejected) opts.log(`labels: rejected ${r.file}:${r.line}: ${r.reason}`);
        for (const note of importNotes(labels, { name: '--labels-public', given: opts.labelsPublic ?? false })) opts.log(note);
        opts.log(importSummary(labels));
        if (!labels.written) throw new Error('labels were rejected and nothing was imported; fix them, or pass --skip-invalid-labels');
      }
      const analysed = await analyze(db, { horizon: opts.horizon, memoryLimitMb: opts.memoryLimitMb, log: opts.log });
      const exported = await exportRelease(db, {
        outDir: config.outDir, keep: opts.keep ?? DEFAULT_KEEP_RELEASES, layout: opts.layout, hostBudget: opts.hostBudget, signKey: opts.signKey, explorerPublicKeys: opts.explorerPublicKeys, memoryLimitMb: opts.memoryLimitMb, progress, log: opts.log,
        siteUrl: opts.siteUrl, onlyWhenChanged: true,
      });
      // Health tells a quiet chain (checked, nothing new) from a stopped job (docs/api.md "health").
      await recordCheck(config.outDir, { checked_at: Math.floor(Date.now() / 1000), release: exported.releaseId, as_of_height: analysed.asOfHeight });
      await notifyWatches(db, config, opts);
      const summary: JobSummary = {
        command: 'job', network: config.network.name, published: exported.published, release_id: exported.releaseId, as_of_height: analysed.asOfHeight,
        scanned_to: scan.toHeight, new_blocks: scan.blocks, files: exported.files, written: exported.written, linked: exported.reused, kept: exported.kept,
        changes: exported.changes, seconds: secondsSince(started),
      };
      opts.onSummary?.(summary);
      return summary;
    } finally {
      db.close();
      await source.close();
    }
  } finally {
    release();
  }
}

const deliveryOptions = (opts: JobOptions, deadline: number): DeliveryOptions =>
  ({ ...opts.delivery, allowPrivate: opts.allowPrivateWebhooks ?? false, log: opts.log, deadline });

/** After a release is published: records what is new for the watchlist, then attempts every due delivery for a bounded time. */
async function notifyWatches(db: Db, config: ResolvedConfig, opts: JobOptions): Promise<void> {
  const now = opts.delivery?.now ?? Date.now;
  const recorded = await recordEvents(db, config.network.name, now());
  if (recorded.events + recorded.retracted + recorded.cancelled > 0) {
    opts.log(`notify: ${recorded.events} new events, ${recorded.retracted} retracted by a reorg${recorded.cancelled ? `, ${recorded.cancelled} dropped unsent (their block is gone)` : ''}`);
  }
  const delivered = await deliverDue(db, deliveryOptions(opts, now() + DELIVERY_BUDGET_MS));
  if (delivered.delivered + delivered.retrying + delivered.failed + delivered.deferred > 0) opts.log(summaryLine(delivered));
}

/** A network whose delivery was skipped (its job lock taken, its database busy) is tried again this much later. */
const DELIVERY_RETRY_MS = 5_000;

/**
 * --every between runs: attempts each network's due deliveries until `until`
 * (unix ms), then sleeps until the next one is due. Only a run records new
 * events, so nothing else can become due meanwhile. A network without a
 * database yet has nothing to deliver; one whose lock is taken (`watch
 * deliver`) is tried again shortly.
 */
export async function deliverUntil(configs: readonly ResolvedConfig[], opts: JobOptions, until: number, stop: AbortSignal): Promise<void> {
  const now = opts.delivery?.now ?? Date.now;
  while (!stop.aborted && now() < until) {
    let wake = until;
    for (const config of configs.filter((c) => existsSync(c.dbPath))) {
      const own = logFor(config, configs, opts);
      try {
        wake = Math.min(wake, await deliverOnce(config, own, until));
      } catch (err) {
        own.log(`notify: delivery skipped this time: ${(err as Error).message}`);
        wake = Math.min(wake, now() + DELIVERY_RETRY_MS);
      }
    }
    await sleep(Math.max(wake - now(), 0), stop);
  }
}

/** One delivery pass over a network's outbox under its job lock; returns when its next delivery is due (`until` when none is). */
async function deliverOnce(config: ResolvedConfig, opts: JobOptions, until: number): Promise<number> {
  const release = acquireJobLock(config.dbPath);
  try {
    const db = await Db.open(config.dbPath);
    try {
      const delivered = await deliverDue(db, deliveryOptions(opts, until));
      if (delivered.delivered + delivered.retrying + delivered.failed > 0) opts.log(summaryLine(delivered));
      return (await nextDue(db)) ?? until;
    } finally {
      db.close();
    }
  } finally {
    release();
  }
}

/** The job's log for one of several networks: each line says which. */
function logFor(config: ResolvedConfig, configs: readonly ResolvedConfig[], opts: JobOptions): JobOptions {
  return configs.length > 1 ? { ...opts, log: (line) => opts.log(`[${config.network.name}] ${line}`) } : opts;
}

/**
 * Runs the job for each network in turn, never two at once (they share the
 * machine's CPU, memory and disk). A failing network does not stop the others;
 * the run fails afterwards, naming every network that failed.
 */
export async function runJobs(configs: readonly ResolvedConfig[], opts: JobOptions): Promise<void> {
  if (configs.length === 1) {
    await runJob(configs[0]!, opts);
    return;
  }
  const failed: string[] = [];
  for (const config of configs) {
    const own = logFor(config, configs, opts);
    try {
      await runJob(config, own);
    } catch (err) {
      own.log(`job failed: ${(err as Error).message}; the last good release stays published`);
      failed.push(config.network.name);
    }
  }
  if (failed.length > 0) throw new Error(`the job failed for ${failed.join(', ')} (see above); the other networks were published`);
}

/** --every waits with setTimeout, which cannot wait longer than this. */
const MAX_INTERVAL_MS = 2 ** 31 - 1;

/**
 * Repeats the job: each tick runs every network in turn, then waits for the
 * next one. A failed run is logged and retried at the next tick. Stops on
 * SIGINT/SIGTERM, or when `stop` is aborted, after the run under way.
 */
export async function runJobsEvery(configs: readonly ResolvedConfig[], opts: JobOptions, every: string, stop?: AbortSignal): Promise<void> {
  const intervalMs = parseDuration(every, '--every', MAX_INTERVAL_MS);
  await repeatUntilStopped(async (signal) => {
    const started = Date.now();
    for (const config of configs) {
      if (signal.aborted) break;
      const own = logFor(config, configs, opts);
      try {
        await runJob(config, own);
      } catch (err) {
        own.log(`job failed: ${(err as Error).message}; the last good release stays published; retrying in ${every}`);
      }
    }
    // Deliveries keep going while the next run waits; the run starts on time.
    await deliverUntil(configs, opts, started + intervalMs, signal);
  }, stop);
  opts.log('job: stopped');
}
