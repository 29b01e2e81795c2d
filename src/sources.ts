import type { ChainSource } from './chain/types.js';
import { createRpcSource } from './chain/rpc.js';
import { createSimSource, type SimPresetName } from './chain/sim/index.js';
import { UsageError, type ResolvedConfig } from './config.js';

export interface SourceOptions {
  source?: 'rpc' | 'sim';
  preset?: SimPresetName;
  seed?: number;
}

/** The simulated chain writes its ground truth next to the database. */
export function simTruthDir(dbPath: string): string {
  return `${dbPath.replace(/\.duckdb$/, '')}.truth`;
}

/** A node when one is configured (or --source rpc), the built-in simulated chain otherwise. */
export function openSource(config: ResolvedConfig, opts: SourceOptions): ChainSource {
  const kind = opts.source ?? (config.rpc ? 'rpc' : 'sim');
  if (kind === 'rpc') {
    if (!config.rpc) {
      throw new UsageError('--source rpc needs a node: give --rpc-url (or LTC_RPC_URL) with --rpc-user/--rpc-password or --rpc-cookie, and --network mainnet|testnet|regtest');
    }
    return createRpcSource(config.rpc, config.network);
  }
  if (config.network.name !== 'sim') {
    throw new UsageError(`the simulated chain is network "sim", not "${config.network.name}"; use --network sim, or configure a node with --rpc-url`);
  }
  return createSimSource({ preset: opts.preset ?? 'demo', seed: opts.seed ?? 1, truthDir: simTruthDir(config.dbPath) });
}
