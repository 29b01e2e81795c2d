import { Worker } from 'node:worker_threads';

/** What the files index recorded of a file (ino and mtime_ns null in an index of an earlier pegscope). */
export interface RecordedFile {
  size: number;
  sha256: string;
  ino: bigint | null;
  mtime_ns: bigint | null;
}

export type FileOp =
  /** A new file at `path` (any name there is removed first, never written through). `transfer`: the queue takes `data`, which must own its whole ArrayBuffer (not a pooled Buffer), and moves it to the worker instead of copying it. */
  | { op: 'write'; path: string; data: string | Uint8Array; transfer?: boolean }
  | { op: 'link'; from: string; path: string }
  /** A link to another release's file, once it is checked to be what the files index recorded (at most `maxLinks` names). */
  | { op: 'carry'; from: string; path: string; expect: RecordedFile; maxLinks: number }
  /** A recycled release's file left in place, checked as `carry` checks. */
  | { op: 'check'; path: string; expect: RecordedFile; maxLinks: number }
  | { op: 'mkdir'; path: string }
  | { op: 'remove'; path: string }
  /** Removes every symbolic link, FIFO, socket or device under a directory (a recycled release). */
  | { op: 'scrub'; path: string };

/** The inode and modification time of a name the worker created or checked, by its path. */
export type FileStats = [path: string, ino: bigint, mtimeNs: bigint];

/**
 * A file to carry over from another release is not what the exporter wrote
 * there (changed in place, replaced, a link): nothing of that release can be
 * trusted without reading it, so the export writes every file anew.
 */
export class CarriedFileDamaged extends Error {}

/** What the worker answers for each batch. */
interface BatchResult {
  error: string | null;
  damaged: string | null;
  stats: FileStats[];
}

/** Operations per message; batches amortise the hop to the worker. */
const BATCH_OPS = 512;
/**
 * Bytes of pending writes (a text counted by its length) before `ready`
 * waits: bounds the memory they hold.
 * Links, directories and removals hold next to none, so carrying thousands
 * of unchanged files over does not wait for the worker (it did for 0.1 s a
 * release at the mainnet preset, when the bound counted batches).
 */
const MAX_IN_FLIGHT_BYTES = 64 * 1024 * 1024;
/** Batches sent and not yet applied before `ready` waits, whatever they hold. */
const MAX_IN_FLIGHT_BATCHES = 256;

/**
 * File operations applied in order by one worker thread (file-ops.worker.mjs).
 * `push` never waits, so queuing a file costs no promise; producers call
 * `ready` between chunks of work, which waits while too many batches are
 * pending, and `drain` waits for everything pushed so far. The first
 * failure is reported by every later push, ready and drain.
 */
export class FileQueue {
  // Plain JavaScript needs none of the process's flags: under a loader such as tsx (tests, benchmarks) the worker
  // would load it too, 70 ms of start-up instead of 25.
  private readonly worker = new Worker(new URL('./file-ops.worker.mjs', import.meta.url), { execArgv: [] });
  private batch: FileOp[] = [];
  private sent = 0;
  private applied = 0;
  /** The bytes of writes in each batch sent and not yet applied, oldest first. */
  private inFlight: number[] = [];
  private inFlightBytes = 0;
  /** The number of the batch (in sending order) holding the newest removal; -1: none. */
  private lastRemoval = -1;
  private failure: Error | null = null;
  private waiters: (() => void)[] = [];

  /** `onStats` gets the inode and mtime of every name the worker created or checked. */
  constructor(onStats: (stats: FileStats[]) => void) {
    this.worker.on('message', ({ error, damaged, stats }: BatchResult) => {
      this.applied++;
      this.inFlightBytes -= this.inFlight.shift() ?? 0;
      if (!this.failure) {
        try {
          onStats(stats);
        } catch (err) {
          this.failure = err as Error;
        }
      }
      if (damaged !== null) this.failure ??= new CarriedFileDamaged(damaged);
      if (error !== null) this.failure ??= new Error(`writing the release failed: ${error}`);
      this.wake();
    });
    this.worker.on('error', (err: Error) => {
      this.failure ??= err;
      this.wake();
    });
  }

  push(op: FileOp): void {
    if (this.failure) throw this.failure;
    this.batch.push(op);
    if (op.op === 'remove' || op.op === 'scrub') this.lastRemoval = this.sent;
    if (this.batch.length >= BATCH_OPS) this.send();
  }

  /** Waits until every removal pushed so far has been applied (what is pushed meanwhile need not be). */
  async removalsApplied(): Promise<void> {
    const upTo = this.lastRemoval;
    if (upTo === this.sent) this.send();
    while (this.applied <= upTo && !this.failure) await this.wait();
    if (this.failure) throw this.failure;
  }

  /** Waits while the pending batches hold MAX_IN_FLIGHT_BYTES of writes, or there are MAX_IN_FLIGHT_BATCHES of them. */
  async ready(): Promise<void> {
    while ((this.inFlightBytes >= MAX_IN_FLIGHT_BYTES || this.sent - this.applied >= MAX_IN_FLIGHT_BATCHES) && !this.failure) await this.wait();
    if (this.failure) throw this.failure;
  }

  /** Waits until every operation pushed so far has been applied (later pushes need not be). */
  async drain(): Promise<void> {
    if (this.batch.length > 0) this.send();
    const upTo = this.sent;
    while (this.applied < upTo && !this.failure) await this.wait();
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private send(): void {
    const ops = this.batch;
    this.batch = [];
    this.sent++;
    const bytes = ops.reduce((sum, op) => sum + (op.op === 'write' ? (typeof op.data === 'string' ? op.data.length : op.data.byteLength) : 0), 0);
    this.inFlight.push(bytes);
    this.inFlightBytes += bytes;
    this.worker.postMessage(ops, ops.flatMap((op) => (op.op === 'write' && op.transfer ? [(op.data as Uint8Array).buffer as ArrayBuffer] : [])));
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
