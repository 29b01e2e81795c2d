import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRange } from '@pegscope/client';
import type { SimPresetName } from './chain/sim/index.js';
import { parseDuration, resolveConfig } from './config.js';
import { runJob, runJobsEvery, type JobOptions } from './job.js';
import { startServer, type RunningServer } from './serve/server.js';

export interface DemoOptions {
  host: string;
  port: number;
  log: (line: string) => void;
  /** The database and the published tree (default data/sim.duckdb and out/sim, as `pegscope job`). */
  db?: string;
  out?: string;
  /** Default `demo`; tests take `tiny`. */
  preset?: SimPresetName;
  /** Where the URLs to try go (default standard output). */
  print?: (text: string) => void;
  /**
   * `demo --live`: after the first run the chain grows by a block every this
   * long (a duration: 10s, 1m) and the job runs on each, delivering webhooks
   * to loopback receivers too (docs/notifications.md "Watching the demo
   * chain grow"). Its chain is not the fixed demo's: by default its own
   * database and tree, data/sim-live.duckdb and out/sim-live.
   */
  live?: { every: string };
}

/** What startDemo runs: the router, and in live mode the job repeating until closed. */
export interface RunningDemo extends RunningServer {
  /** Settles when the live job has stopped (at once without --live). */
  stopped: Promise<void>;
}

/** Where `demo --live` keeps its growing chain unless told otherwise. */
export const LIVE_DB = 'data/sim-live.duckdb';
export const LIVE_OUT = 'out/sim-live';

/**
 * The job on the built-in demo chain and the router on its release, with URLs
 * to try; resolves once they are printed, with the running router.
 *
 * The router listens before the job starts, so a busy port fails at once
 * instead of after a whole job; until the job publishes it answers 503 (or
 * the previous run's release, which it serves while the job runs).
 */
export async function startDemo(opts: DemoOptions): Promise<RunningDemo> {
  // A bad --block-every fails before the router listens and the first job runs.
  if (opts.live) parseDuration(opts.live.every, '--block-every');
  const config = resolveConfig({ network: 'sim', db: opts.db ?? (opts.live ? LIVE_DB : undefined), out: opts.out ?? (opts.live ? LIVE_OUT : undefined) });
  const server = await startServer({
    sites: [{ network: 'sim', outDir: config.outDir }],
    host: opts.host, port: opts.port, rateLimit: 0, log: opts.log,
  });
  // A live demo grows by one block a run; its watches may post to a receiver on this machine.
  const job: JobOptions = { source: 'sim', preset: opts.preset ?? 'demo', seed: 1, log: opts.log, ...(opts.live ? { grow: 1, allowPrivateWebhooks: true } : {}) };
  try {
    await runJob(config, job);
  } catch (err) {
    await server.close();
    throw err;
  }
  const api = `${server.url}/api`;
  const traced = tracedAddress(config.outDir);
  const followed = followedAddress(config.outDir);
  (opts.print ?? ((text) => process.stdout.write(text)))([
    '',
    `pegscope is serving the simulated demo chain at ${api}`,
    `The explorer page: ${server.url}/`,
    'Try:',
    `  curl '${api}/stats'`,
    `  curl '${api}/privacy?amount=1.5'`,
    `  curl '${api}/links?min_confidence=0.9&limit=5'`,
    ...(traced ? [`  curl '${api}/trace?q=${traced}'`] : []),
    ...(followed ? [`  curl '${api}/follow?q=${followed}&depth=5'`] : []),
    ...(opts.live ? [`The chain grows by a block every ${opts.live.every}; the job publishes each and sends the webhooks of ${config.dbPath}'s watches.`] : []),
    'Ctrl-C stops it.',
    '',
  ].join('\n'));
  if (!opts.live) return { ...server, stopped: Promise.resolve() };
  const stop = new AbortController();
  const stopped = runJobsEvery([config], job, opts.live.every, stop.signal);
  return {
    ...server,
    stopped,
    close: async () => {
      stop.abort();
      await stopped.catch(() => undefined);
      await server.close();
    },
  };
}

/** `npm start`: startDemo, serving until Ctrl-C. */
export async function runDemo(opts: DemoOptions): Promise<void> {
  const server = await startDemo(opts);
  const stop = () => { void server.close().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** The peg-out address of the most confident link: a trace worth looking at. */
function tracedAddress(outDir: string): string | undefined {
  try {
    const links = JSON.parse(readFileSync(join(outDir, 'current', 'api', 'links.json'), 'utf8')) as { links?: { pegout_address?: string }[] };
    return links.links?.find((link) => link.pegout_address)?.pegout_address;
  } catch {
    return undefined;
  }
}

interface FollowBody { follow?: { hops?: unknown[] } }
const hopsOf = (document: string): number => (JSON.parse(document) as FollowBody).follow?.hops?.length ?? 0;

/**
 * The address whose follow document has the most hops, so the printed
 * `follow` example shows a chain (most addresses fund no later peg-in and
 * follow to nothing). Read from the demo's range layout (docs/api.md); the
 * first of equals in key order, so every run prints the same address.
 */
export function followedAddress(outDir: string): string | undefined {
  const dir = join(outDir, 'current', 'api', 'range', 'follow');
  let best: { address: string; hops: number } | undefined;
  try {
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.json')).sort()) {
      const range = parseRange(readFileSync(join(dir, file), 'utf8'));
      // A chain longer than the default depth is in `chains` at full depth.
      for (const [address, document] of [...range.documents, ...range.chains]) {
        const hops = hopsOf(document);
        if (hops > (best?.hops ?? 0) || (hops === best?.hops && address < best.address)) best = { address, hops };
      }
    }
  } catch {
    return undefined;
  }
  return best?.address;
}
