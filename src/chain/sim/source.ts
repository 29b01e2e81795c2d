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
}

/** Blocks kept for rawBlocks after their hash was handed out. */
const WINDOW = 20_000;

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
  const byHeight = new Map<number, { hash: string; raw: Uint8Array | null }>();
  const byHash = new Map<string, number>();
  let truth: TruthSink = nullTruth;
  let chain: SimChain;

  const restart = () => {
    truth.abandon();
    truth = opts.truthDir ? truthWriter(opts.truthDir) : nullTruth;
    chain = new SimChain(rates, opts.seed, truth);
    byHeight.clear();
    byHash.clear();
  };
  restart();

  const generateTo = (height: number) => {
    if (height > tip || height < 0) throw new Error(`height ${height} is outside the simulated chain (0..${tip})`);
    if (height < chain.height - WINDOW + 1 || (height <= chain.height && !byHeight.has(height))) restart();
    while (chain.height < height) {
      const block = chain.next(chain.height + 1 > height - WINDOW);
      byHeight.set(block.height, { hash: block.hash, raw: block.raw });
      byHash.set(block.hash, block.height);
      const old = byHeight.get(block.height - WINDOW);
      if (old) {
        byHeight.delete(block.height - WINDOW);
        byHash.delete(old.hash);
      }
    }
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
        return byHeight.get(h)!.hash;
      });
    },
    async rawBlocks(hashes) {
      return hashes.map((hash) => {
        const height = byHash.get(hash);
        let raw = height === undefined ? undefined : byHeight.get(height)?.raw;
        if (height !== undefined && !raw) {
          // Generated only to move forward: regenerate with bytes.
          restart();
          generateTo(height);
          raw = byHeight.get(height)?.raw;
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
          tip_hash: byHeight.get(chain.height)?.hash ?? '', rates: { ...rates },
        }, chain.labels());
      } else {
        truth.abandon();
      }
      truth = nullTruth;
    },
  };
}
