import type { ChainSource } from './chain/types.js';
import { createRpcSource } from './chain/rpc.js';
import { createSimSource, presetRates, SIM_MWEB_ACTIVATION_HEIGHT, type SimPresetName, type SimRates } from './chain/sim/index.js';
import { UsageError, type ResolvedConfig } from './config.js';

export interface SourceOptions {
  source?: 'rpc' | 'sim';
  preset?: SimPresetName;
  seed?: number;
  /**
   * Blocks the simulated chain gains per run past its preset's length (job
   * --grow, demo --live; docs/notifications.md "Watching the demo chain
   * grow"). The growing chain continues the preset's behaviour, but it is
   * not the fixed chain of the same preset: give it a database of its own.
   */
  grow?: number;
}

/** How far a growing simulated chain can grow past its preset (at a block every 10 s, more than 100 days). */
export const GROWTH_BLOCKS = 1_000_000;

/** The rates of a growing simulated chain: the preset's, with room to grow. */
export const growingRates = (preset: SimPresetName): Partial<SimRates> => ({ blocks: presetRates(preset).blocks + GROWTH_BLOCKS });

/**
 * Where a run of a growing simulated chain scans to: the preset's length
 * while the database is below it, then `grow` blocks past its cursor.
 */
export function growTarget(cursor: number, preset: SimPresetName, grow: number): number {
  const base = SIM_MWEB_ACTIVATION_HEIGHT - 1 + presetRates(preset).blocks;
  return cursor < base ? base : cursor + grow;
}

/** The simulated chain writes its ground truth next to the database. */
export function simTruthDir(dbPath: string): string {
  return `${dbPath.replace(/\.duckdb$/, '')}.truth`;
}

/** A node when one is configured (or --source rpc), the built-in simulated chain otherwise. */
export function openSource(config: ResolvedConfig, opts: SourceOptions): ChainSource {
  const kind = opts.source ?? (config.rpc ? 'rpc' : 'sim');
  if (kind === 'rpc') {
    if (opts.grow !== undefined) throw new UsageError('--grow makes the simulated chain grow; a node\'s chain grows by itself: drop --grow, or use --source sim');
    if (!config.rpc) {
      throw new UsageError('--source rpc needs a node: give --rpc-url (or LTC_RPC_URL) with --rpc-user/--rpc-password or --rpc-cookie, and --network mainnet|testnet|regtest');
    }
    return createRpcSource(config.rpc, config.network);
  }
  if (config.network.name !== 'sim') {
    throw new UsageError(`the simulated chain is network "sim", not "${config.network.name}"; use --network sim, or configure a node with --rpc-url`);
  }
  const preset = opts.preset ?? 'demo';
  return createSimSource({ preset, seed: opts.seed ?? 1, truthDir: simTruthDir(config.dbPath), rates: opts.grow !== undefined ? growingRates(preset) : undefined });
}
