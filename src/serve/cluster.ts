/**
 * `pegscope serve --workers N`: N processes serve one port (node:cluster;
 * the primary accepts connections and hands them to the workers in turn).
 * Each worker runs the whole router with its own caches. The rate limit is
 * counted in the primary, so a client gets its limit once, not once per
 * worker: a worker asks the primary for the decisions of the requests it
 * read in one turn of its event loop, in one message. The primary restarts
 * a worker that dies, and owns the lifecycle: workers ignore SIGINT and
 * SIGTERM (a terminal or systemd sends those to the whole group) and stop
 * when the primary tells them to or is gone.
 */
import cluster, { type Worker } from 'node:cluster';
import { SlidingWindowLimiter, type RateDecision, type RateLimiter } from './ratelimit.js';

/** Worker → primary: requests to count, as [id, client, limit]. */
interface HitMessage {
  pegscope: 'hits';
  hits: [number, string, number][];
}

/** Primary → worker: their decisions, as [id, allowed, limit, remaining, resetSeconds]. */
interface DecisionMessage {
  pegscope: 'decisions';
  decisions: [number, boolean, number, number, number][];
}

interface StopMessage {
  pegscope: 'stop';
}

/** A worker that dies sooner than this after the previous restart waits this long before it is replaced, so a crash loop does not spin. */
const RESTART_BACKOFF_MS = 1_000;
/** Workers still running this long after being told to stop are killed. */
const STOP_GRACE_MS = 5_000;

/** With a callback a failed send is reported to it instead of as an 'error' event, which nothing would handle. */
const ignoreSendError = (): void => {};

export interface Primary {
  /** The URL once every worker listens; rejected when one exits before then. */
  listening: Promise<string>;
  /** Process ids of the running workers. */
  workers(): number[];
  /** Stops every worker; resolves once all have exited. */
  close(): Promise<void>;
}

/**
 * Forks `count` workers (each runs this same command line, and with
 * cluster.isWorker it serves). `listening` rejects when one exits before
 * all listen (a port in use, a bad keys file: its error is on stderr), after
 * stopping the others. Later, a worker that exits is replaced, at most once
 * per RESTART_BACKOFF_MS.
 */
export function startPrimary(count: number, log: (line: string) => void): Primary {
  if (!Number.isInteger(count) || count < 2) throw new Error(`a cluster needs at least 2 workers; got ${count}`);
  const limiter = new SlidingWindowLimiter();
  const listening = new Set<Worker>();
  let stopping = false;
  let started = false;
  let lastRestart = 0;
  let url = '';

  const fork = (): void => {
    const worker = cluster.fork();
    worker.on('message', (message: HitMessage) => {
      if (message?.pegscope !== 'hits') return;
      // The primary's clock: the workers' requests interleave, and a window must not move backwards.
      const now = Date.now();
      const decisions = message.hits.map(([id, client, limit]): DecisionMessage['decisions'][number] => {
        const d = limiter.hit(client, limit, now);
        return [id, d.allowed, d.limit, d.remaining, d.resetSeconds];
      });
      // A worker that exits between the check and the write fails the send; it needs no decision then.
      if (worker.isConnected()) worker.send({ pegscope: 'decisions', decisions } satisfies DecisionMessage, undefined, ignoreSendError);
    });
    log(`worker ${worker.process.pid} started`);
  };

  const stopAll = (): Promise<void> => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    return Promise.all(workers.map((worker) => new Promise<void>((resolve) => {
      if (worker.isDead()) return resolve();
      const kill = setTimeout(() => worker.process.kill('SIGKILL'), STOP_GRACE_MS);
      worker.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      // A worker can be exiting on its own (a port in use) while connected: its channel then fails the send (EPIPE), and it is killed instead.
      const killNow = (): void => void worker.process.kill('SIGKILL');
      if (worker.isConnected()) worker.send({ pegscope: 'stop' } satisfies StopMessage, undefined, (error) => error && killNow());
      else killNow();
    }))).then(() => undefined);
  };

  const ready = new Promise<string>((resolve, reject) => {
    cluster.on('listening', (worker, address) => {
      listening.add(worker);
      if (started) log(`worker ${worker.process.pid} is serving`);
      if (!url) url = `http://${address.addressType === 6 ? `[${address.address}]` : address.address}:${address.port}`;
      if (listening.size === count && !started) {
        started = true;
        resolve(url);
      }
    });
    cluster.on('exit', (worker, code, signal) => {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      if (stopping) return;
      if (!started) {
        log(`worker ${worker.process.pid} ${how} before it listened; stopping`);
        void stopAll().then(() => reject(new Error('a worker could not start serving; its error is above')));
        return;
      }
      listening.delete(worker);
      const wait = Date.now() - lastRestart < RESTART_BACKOFF_MS ? RESTART_BACKOFF_MS : 0;
      lastRestart = Date.now() + wait;
      log(`worker ${worker.process.pid} ${how}; starting another${wait ? ` in ${wait} ms` : ''}`);
      setTimeout(() => {
        if (!stopping) fork();
      }, wait);
    });
    for (let i = 0; i < count; i++) fork();
  });
  return {
    listening: ready,
    workers: () => Object.values(cluster.workers ?? {}).flatMap((w) => (w?.process.pid ? [w.process.pid] : [])),
    close: stopAll,
  };
}

/**
 * A worker's rate limiter: the primary's table, asked once per event-loop
 * turn for every request read in it. The primary's clock decides, so `now`
 * is not sent.
 */
export class SharedLimiter implements RateLimiter {
  /** The table is the primary's; a worker keeps none. */
  readonly size = 0;
  private nextId = 0;
  private queued: HitMessage['hits'] = [];
  private readonly waiting = new Map<number, (decision: RateDecision) => void>();

  constructor() {
    process.on('message', (message: DecisionMessage) => {
      if (message?.pegscope !== 'decisions') return;
      for (const [id, allowed, limit, remaining, resetSeconds] of message.decisions) {
        this.waiting.get(id)?.({ allowed, limit, remaining, resetSeconds });
        this.waiting.delete(id);
      }
    });
  }

  hit(client: string, limit: number): Promise<RateDecision> {
    const id = this.nextId++;
    if (this.queued.length === 0) setImmediate(() => this.flush());
    this.queued.push([id, client, limit]);
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  private flush(): void {
    const hits = this.queued;
    this.queued = [];
    // A primary that is gone fails the send; the worker then stops on 'disconnect'.
    process.send?.({ pegscope: 'hits', hits } satisfies HitMessage, undefined, undefined, ignoreSendError);
  }
}

/**
 * In a worker: `stop` runs when the primary says so or is gone; the signals
 * a terminal or systemd sends to the whole group are left to the primary.
 */
export function workerLifecycle(stop: () => void): void {
  let stopping = false;
  const once = (): void => {
    if (stopping) return;
    stopping = true;
    stop();
  };
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {});
  process.on('message', (message: StopMessage) => {
    if (message?.pegscope === 'stop') once();
  });
  process.once('disconnect', once);
}
