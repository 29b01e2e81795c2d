/**
 * The simulated chain as a ChainSource: blocks are generated on demand, in
 * order, and kept in a sliding window. A height below the window (a scan that
 * resumes after its cursor, a reorg check) regenerates the chain from genesis
 * without materializing the bytes of blocks nobody will read.
 */
import { NETWORKS } from '../../domain/network.js';
import type { ChainInfo, ChainSource } from '../types.js';
import { SIM_MWEB_ACTIVATION_HEIGHT, SimChain } from './chain.js';
import { presetRates, type SimPresetName, type SimRates } from './presets.js';
import { nullTruth, truthWriter, type TruthSink } from './truth.js';

export interface SimSourceOptions {
  preset: SimPresetName;
  seed: number;
  /** Where the ground truth is written (e.g. data/sim.truth); none when omitted. */
  truthDir?: string;
  rates?: Partial<SimRates>;
  /** Blocks kept for rawBlocks after their hash was handed out (default 20,000; a scan batch must fit). */
  windowBlocks?: number;
}

const DEFAULT_WINDOW = 20_000;

export interface SimSource extends ChainSource {
  readonly rates: SimRates;
  readonly tip: number;
  /** Wallets in MWEB, scheduled events and retained transactions right now (memory is flat when these are). */
  inFlight(): { wallets: number; events: number; retainedTxs: number };
}

export function createSimSource(opts: SimSourceOptions): SimSource {
  if (!Number.isSafeInteger(opts.seed) || opts.seed < 0) {
    throw new Error(`sim seed must be a non-negative integer, got ${opts.seed}`);
  }
  const rates = presetRates(opts.preset, opts.rates);
  const tip = SIM_MWEB_ACTIVATION_HEIGHT - 1 + rates.blocks;
  const WINDOW = opts.windowBlocks ?? DEFAULT_WINDOW;
  // The window is a ring indexed by height % WINDOW; byHash is rebuilt from it when it grows too large.
  const ringHeight = new Int32Array(WINDOW).fill(-1);
  const ringHash: string[] = new Array<string>(WINDOW).fill('');
  const ringRaw: (Uint8Array | null)[] = new Array<Uint8Array | null>(WINDOW).fill(null);
  const byHash = new Map<string, number>();
  const slot = (height: number) => (ringHeight[height % WINDOW] === height ? height % WINDOW : -1);
  let truth: TruthSink = nullTruth;
  let chain: SimChain;

  const restart = () => {
    truth.abandon();
    truth = opts.truthDir ? truthWriter(opts.truthDir) : nullTruth;
    chain = new SimChain(rates, opts.seed, truth);
    ringHeight.fill(-1);
    byHash.clear();
  };
  restart();

  const generateTo = (height: number) => {
    if (height > tip || height < 0) throw new Error(`height ${height} is outside the simulated chain (0..${tip})`);
    if (height <= chain.height && slot(height) < 0) restart();
    while (chain.height < height) {
      const block = chain.next(chain.height + 1 > height - WINDOW);
      const i = block.height % WINDOW;
      ringHeight[i] = block.height;
      ringHash[i] = block.hash;
      ringRaw[i] = block.raw;
      if (byHash.size >= 2 * WINDOW) byHash.clear();
      byHash.set(block.hash, block.height);
    }
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
    inFlight: () => chain.inFlight,
    async info(): Promise<ChainInfo> {
      return { chain: 'sim', blocks: tip, headers: tip, initialBlockDownload: false, mwebActivationHeight: SIM_MWEB_ACTIVATION_HEIGHT };
    },
    async blockHashes(heights) {
      return heights.map((h) => {
        generateTo(h);
        return hashAt(h);
      });
    },
    async rawBlocks(hashes) {
      return hashes.map((hash) => {
        const found = rawOf(hash);
        let raw = found?.raw;
        if (found && !raw) {
          // Generated only to move forward: regenerate with bytes.
          restart();
          generateTo(found.height);
          raw = rawOf(hash)?.raw;
        }
        if (!raw) throw new Error(`block ${hash} is not in the simulated chain (seed ${opts.seed}, preset ${opts.preset}); ask blockHashes for its height first`);
        return raw;
      });
    },
    async rawTransactions(txids) {
      return txids.map((txid) => {
        const raw = chain.rawTransaction(txid);
        if (!raw) {
          throw new Error(`transaction ${txid} is not known to the simulated chain: it keeps funding transactions only until `
            + 'shortly after the block that spends them; rescan from an earlier height');
        }
        return raw;
      });
    },
    async close() {
      if (chain.height >= 0) {
        truth.finish({
          generator: 'pegscope sim', preset: opts.preset, seed: opts.seed, network: 'sim',
          mweb_activation_height: SIM_MWEB_ACTIVATION_HEIGHT, tip_height: chain.height,
          tip_hash: hashAt(chain.height) ?? '', rates: { ...rates },
        }, chain.labels());
      } else {
        truth.abandon();
      }
      truth = nullTruth;
    },
  };
}
