/**
 * Where the simulated blocks are made: in this thread, or in a worker thread
 * that runs ahead of the scanner (generation then overlaps parsing and
 * storing, which matters on a 2-core machine). Both run the same SimChain
 * with the same seed, so they produce the same bytes.
 */
import { Worker } from 'node:worker_threads';
import { SIM_MWEB_ACTIVATION_HEIGHT, SimChain, simLabels, type GeneratedBlock } from './chain.js';
import type { SimRates } from './presets.js';
import { nullTruth, truthWriter, type TruthMeta, type TruthSink } from './truth.js';

export interface GeneratorConfig {
  preset: string;
  seed: number;
  rates: SimRates;
  truthDir: string | null;
}

export interface InFlight { wallets: number; events: number; retainedTxs: number }

export interface Generator {
  /** Highest height delivered so far (-1 before the first block). */
  readonly height: number;
  /** Delivers blocks through `upTo` to the callback; bytes only from `materializeFrom` on. */
  want(upTo: number, materializeFrom: number): Promise<void>;
  rawTransaction(txid: string): Uint8Array | undefined;
  inFlight(): InFlight;
  /** Writes the truth through `upTo` (blocks generated ahead of it are left out) and stops. */
  finish(upTo: number, tipHash: string): Promise<void>;
  /** Stops without writing the truth. */
  stop(): void;
}

export type BlockSink = (block: GeneratedBlock) => void;

export function truthMeta(config: GeneratorConfig, upTo: number, tipHash: string): Omit<TruthMeta, 'counts'> {
  return {
    generator: 'pegscope sim', preset: config.preset, seed: config.seed, network: 'sim',
    mweb_activation_height: SIM_MWEB_ACTIVATION_HEIGHT, tip_height: upTo, tip_hash: tipHash, rates: { ...config.rates },
  };
}

export function inlineGenerator(config: GeneratorConfig, onBlock: BlockSink): Generator {
  const truth: TruthSink = config.truthDir ? truthWriter(config.truthDir) : nullTruth;
  const chain = new SimChain(config.rates, config.seed, truth);
  return {
    get height() { return chain.height; },
    async want(upTo, materializeFrom) {
      while (chain.height < upTo) onBlock(chain.next(chain.height + 1 >= materializeFrom));
    },
    rawTransaction: (txid) => chain.rawTransaction(txid),
    inFlight: () => chain.inFlight,
    async finish(upTo, tipHash) {
      truth.finish(truthMeta(config, upTo, tipHash), simLabels(config.rates, config.seed).length);
    },
    stop: () => truth.abandon(),
  };
}

const RETAIN_CHECK_BLOCKS = 1_000;

export type ToWorker =
  | { type: 'want'; upTo: number; materializeFrom: number }
  | { type: 'finish'; upTo: number; tipHash: string }
  | { type: 'stop' };

export type FromWorker =
  | { type: 'chunk'; blocks: GeneratedBlock[]; txs: { txid: string; raw: Uint8Array; until: number }[]; inFlight: InFlight }
  | { type: 'finished' }
  | { type: 'error'; message: string };

/** `ahead`: blocks the worker generates beyond the highest one asked for (must leave room in the source's window). */
export function workerGenerator(config: GeneratorConfig, onBlock: BlockSink, tip: number, ahead: number): Generator {
  const typescript = import.meta.url.endsWith('.ts');
  const url = new URL(`./worker${typescript ? '.ts' : '.js'}`, import.meta.url);
  // Under tsx or vitest the sources are TypeScript: the worker registers tsx's loader first.
  const worker = typescript
    ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, { eval: true, workerData: config })
    : new Worker(url, { workerData: config });
  worker.unref();
  const retained = new Map<string, { raw: Uint8Array; until: number }>();
  let height = -1;
  let requested = -1;
  let asked = -1;
  let inFlight: InFlight = { wallets: 0, events: 0, retainedTxs: 0 };
  let failure: Error | null = null;
  const waiters: { upTo: number; resolve: () => void; reject: (err: Error) => void }[] = [];
  let finished: { resolve: () => void; reject: (err: Error) => void } | null = null;

  const settle = () => {
    if (failure) finished?.reject(failure);
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i]!;
      if (failure) w.reject(failure);
      else if (height >= w.upTo) w.resolve();
      else continue;
      waiters.splice(i, 1);
    }
  };
  worker.on('message', (m: FromWorker) => {
    if (m.type === 'chunk') {
      for (const tx of m.txs) {
        const prev = retained.get(tx.txid);
        retained.set(tx.txid, { raw: tx.raw, until: Math.max(prev?.until ?? 0, tx.until) });
      }
      for (const block of m.blocks) {
        height = block.height;
        onBlock(block);
        // Evict by what the scanner asked for, not by how far the worker ran ahead.
        if (height % RETAIN_CHECK_BLOCKS === 0) {
          for (const [txid, entry] of retained) if (entry.until < asked) retained.delete(txid);
        }
      }
      inFlight = { ...m.inFlight, retainedTxs: retained.size };
    } else if (m.type === 'finished') {
      finished?.resolve();
    } else {
      failure = new Error(`simulated chain worker failed: ${m.message}`);
    }
    settle();
  });
  worker.on('error', (err: Error) => { failure = err; settle(); });
  worker.on('exit', (code) => {
    if (code !== 0 && !failure) failure = new Error(`simulated chain worker exited with code ${code}`);
    settle();
  });
  const post = (m: ToWorker) => worker.postMessage(m);

  return {
    get height() { return height; },
    want(upTo, materializeFrom) {
      if (failure) return Promise.reject(failure);
      asked = Math.max(asked, upTo);
      const target = Math.min(tip, upTo + ahead);
      if (target > requested) {
        requested = target;
        post({ type: 'want', upTo: target, materializeFrom });
      }
      if (height >= upTo) return Promise.resolve();
      worker.ref();
      return new Promise<void>((resolve, reject) => waiters.push({ upTo, resolve, reject })).finally(() => {
        if (waiters.length === 0) worker.unref();
      });
    },
    rawTransaction: (txid) => retained.get(txid)?.raw,
    inFlight: () => inFlight,
    async finish(upTo, tipHash) {
      if (failure) throw failure;
      worker.ref();
      await new Promise<void>((resolve, reject) => {
        finished = { resolve, reject };
        post({ type: 'finish', upTo, tipHash });
      });
      await worker.terminate();
    },
    stop() {
      // The worker closes its truth files and ends on its own; the unref'd thread never holds the process open.
      post({ type: 'stop' });
      worker.unref();
    },
  };
}
