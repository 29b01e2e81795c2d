import { Worker } from 'node:worker_threads';

export type FileOp =
  /** `transfer`: the queue takes `data`, which must own its whole ArrayBuffer (not a pooled Buffer), and moves it to the worker instead of copying it. */
  | { op: 'write'; path: string; data: string | Uint8Array; transfer?: boolean }
  | { op: 'link'; from: string; path: string }
  | { op: 'mkdir'; path: string }
  | { op: 'remove'; path: string };

/** Operations per message; batches amortise the hop to the worker. */
const BATCH_OPS = 512;
/** Batches sent and not yet applied before `ready` waits; bounds the memory held by pending writes. */
const MAX_IN_FLIGHT = 8;

/**
 * File operations applied in order by one worker thread (file-ops.worker.mjs).
 * `push` never waits, so queuing a file costs no promise; producers call
 * `ready` between chunks of work, which waits while too many batches are
 * pending, and `drain` waits for everything pushed so far. The first
 * failure is reported by every later push, ready and drain.
 */
export class FileQueue {
  private readonly worker = new Worker(new URL('./file-ops.worker.mjs', import.meta.url));
  private batch: FileOp[] = [];
  private sent = 0;
  private applied = 0;
  private failure: Error | null = null;
  private waiters: (() => void)[] = [];

  constructor() {
    this.worker.on('message', (error: string | null) => {
      this.applied++;
      if (error !== null && !this.failure) this.failure = new Error(`writing the release failed: ${error}`);
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
    if (this.batch.length >= BATCH_OPS) this.send();
  }

  /** Waits until fewer than MAX_IN_FLIGHT batches are pending. */
  async ready(): Promise<void> {
    while (this.sent - this.applied >= MAX_IN_FLIGHT && !this.failure) await this.wait();
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
