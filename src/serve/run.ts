/**
 * `pegscope serve` once cli.ts has checked its flags: the router in this
 * process, or a primary and its workers (cluster.ts), every request logged in
 * batches. The ready line names the URL actually bound, so `--port 0` works
 * (tests wait for it instead of polling a port picked beforehand).
 */
import cluster from 'node:cluster';
import { startServer, type ServeOptions } from './server.js';
import { SharedLimiter, startPrimary, workerLifecycle } from './cluster.js';
import { batchLines } from './log-lines.js';
import { loadKeys } from './ratelimit.js';
import { checkPortFree } from './port.js';

export interface ServeRun {
  options: ServeOptions;
  /** Processes serving the port; 1 serves from this process. */
  workers: number;
  /** The sites, as the ready line names them. */
  where: string;
  log: (line: string) => void;
  /** A log line as written (timestamp, escaped text, newline), for the batched request log. */
  logLine: (line: string) => string;
}

export async function runServe({ options, workers, where, log, logLine }: ServeRun): Promise<void> {
  if (workers > 1 && cluster.isPrimary) {
    if (options.keysFile) loadKeys(options.keysFile);
    await checkPortFree(options.host, options.port);
    const primary = startPrimary(workers, log);
    const stop = () => { void primary.close().then(() => process.exit(0)); };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    log(`serving ${where} at ${await primary.listening}/api with ${workers} workers`);
    return;
  }
  // One line per request: written in batches, not one synchronous write each.
  const requests = batchLines((chunk) => { process.stderr.write(chunk); });
  process.once('exit', requests.flush);
  const server = await startServer({ ...options, limiter: cluster.isWorker ? new SharedLimiter() : undefined, log: (line) => requests.add(logLine(line)) });
  const stop = () => { void server.close().then(() => process.exit(0)); };
  if (cluster.isWorker) return workerLifecycle(stop);
  log(`serving ${where} at ${server.url}/api`);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
