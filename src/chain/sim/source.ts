/**
 * The simulated chain as a ChainSource: blocks are generated on demand, in
 * order (by default in a worker thread running ahead of the scanner), and
 * kept in a sliding window. A height below the window (a scan that resumes
 * after its cursor, a reorg check) regenerates the chain from genesis without
 * materializing the bytes of blocks nobody will read.
 */
import { NETWORKS } from '../../domain/network.js';
import type { ChainInfo, ChainSource } from '../types.js';
import { SIM_MWEB_ACTIVATION_HEIGHT, simLabels } from './chain.js';
import { inlineGenerator, workerGenerator, type Generator, type GeneratorConfig, type InFlight } from './generator.js';
import { presetRates, type SimPresetName, type SimRates } from './presets.js';
import { writeSimLabels } from './truth.js';

export interface SimSourceOptions {
  preset: SimPresetName;
  seed: number;
  /** Where the ground truth is written (e.g. data/sim.truth); none when omitted. */
  truthDir?: string;
  rates?: Partial<SimRates>;
  /** Blocks kept for rawBlocks after their hash was handed out (default 40,000; the scanner's prefetched batches must fit in three quarters of it). */
  windowBlocks?: number;
  /** Generate in a worker thread (default true); false keeps everything in this thread. */
  worker?: boolean;
}

const DEFAULT_WINDOW = 40_000;
/** The worker runs at most this far ahead of the highest height asked for (and at most a quarter of the window). */
const MAX_AHEAD = 5_000;

export interface SimSource extends ChainSource {
  readonly rates: SimRates;
  readonly tip: number;
  /** Wallets in MWEB, scheduled events and retained transactions right now (memory is flat when these are). */
  inFlight(): InFlight;
}

export function createSimSource(opts: SimSourceOptions): SimSource {
  if (!Number.isSafeInteger(opts.seed) || opts.seed < 0) {
    throw new Error(`sim seed must be a non-negative integer, got ${opts.seed}`);
  }
  const rates = presetRates(opts.preset, opts.rates);
  const tip = SIM_MWEB_ACTIVATION_HEIGHT - 1 + rates.blocks;
  const WINDOW = opts.windowBlocks ?? DEFAULT_WINDOW;
  const config: GeneratorConfig = { preset: opts.preset, seed: opts.seed, rates, truthDir: opts.truthDir ?? null };
  // Before any block: a job imports the labels ahead of its analysis, so its first release has them too.
  if (opts.truthDir) writeSimLabels(opts.truthDir, simLabels(rates, opts.seed));

  // The window is a ring indexed by height % WINDOW; byHash is rebuilt from it when it grows too large.
  const ringHeight = new Int32Array(WINDOW).fill(-1);
  const ringHash: string[] = new Array<string>(WINDOW).fill('');
  const ringRaw: (Uint8Array | null)[] = new Array<Uint8Array | null>(WINDOW).fill(null);
  const byHash = new Map<string, number>();
  const slot = (height: number) => (ringHeight[height % WINDOW] === height ? height % WINDOW : -1);
  let highestAsked = -1;

  const store = (block: { height: number; hash: string; raw: Uint8Array | null }) => {
    const i = block.height % WINDOW;
    ringHeight[i] = block.height;
    ringHash[i] = block.hash;
    ringRaw[i] = block.raw;
    if (byHash.size >= 2 * WINDOW) byHash.clear();
    byHash.set(block.hash, block.height);
  };
  const start = (): Generator => (opts.worker ?? true ? workerGenerator(config, store, tip, Math.min(MAX_AHEAD, Math.floor(WINDOW / 4))) : inlineGenerator(config, store));
  let generator = start();
  const restart = () => {
    generator.stop();
    ringHeight.fill(-1);
    byHash.clear();
    highestAsked = -1;
    generator = start();
  };

  const generateTo = async (height: number) => {
    if (height > tip || height < 0) throw new Error(`height ${height} is outside the simulated chain (0..${tip})`);
    // Below the window: start again from genesis (the worker may already be ahead of `height`).
    if (height <= generator.height && slot(height) < 0) restart();
    highestAsked = Math.max(highestAsked, height);
    await generator.want(height, height - WINDOW + 1);
  };
  const hashAt = (height: number): string => ringHash[slot(height)]!;
  const rawOf = (hash: string): { height: number; raw: Uint8Array | null } | undefined => {
    let height = byHash.get(hash);
    if (height === undefined) {
      const i = ringHash.indexOf(hash);
      if (i < 0) return undefined;
      height = ringHeight[i]!;
    }
    const i = slot(height);
    return i < 0 || ringHash[i] !== hash ? undefined : { height, raw: ringRaw[i]! };
  };

  return {
    network: NETWORKS.sim,
    rates,
    tip,
    inFlight: () => generator.inFlight(),
    async info(): Promise<ChainInfo> {
      return { chain: 'sim', blocks: tip, headers: tip, initialBlockDownload: false, mwebActivationHeight: SIM_MWEB_ACTIVATION_HEIGHT };
    },
    async blockHashes(heights) {
      const hashes: string[] = [];
      // Ask for the highest first: one request to the worker per call instead of one per block.
      if (heights.length > 0) await generateTo(Math.max(...heights));
      for (const h of heights) {
        await generateTo(h);
        hashes.push(hashAt(h));
      }
      return hashes;
    },
    async rawBlocks(hashes) {
      const raws: Uint8Array[] = [];
      for (const hash of hashes) {
        const found = rawOf(hash);
        let raw = found?.raw;
        if (found && !raw) {
          // Generated only to move forward: regenerate with bytes.
          restart();
          await generateTo(found.height);
          raw = rawOf(hash)?.raw;
        }
        if (!raw) throw new Error(`block ${hash} is not in the simulated chain (seed ${opts.seed}, preset ${opts.preset}); ask blockHashes for its height first`);
        raws.push(raw);
      }
      return raws;
    },
    async rawTransactions(txids) {
      return txids.map((txid) => {
        const raw = generator.rawTransaction(txid);
        if (!raw) {
          throw new Error(`transaction ${txid} is not known to the simulated chain: it keeps funding transactions only until `
            + 'shortly after the block that spends them; rescan from an earlier height');
        }
        return raw;
      });
    },
    async close() {
      if (highestAsked >= 0 && config.truthDir) await generator.finish(highestAsked, hashAt(highestAsked) ?? '');
      else generator.stop();
    },
  };
}
