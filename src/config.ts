import { readFileSync } from 'node:fs';
import { networkParams, type NetworkParams } from './domain/network.js';

/**
 * A usage error: the CLI prints it and exits 2, as two lines (what was
 * wrong, and where the usage is) unless `showUsage` is false: an error the
 * usage cannot help with, such as a port in use, is one line.
 */
export class UsageError extends Error {
  constructor(message: string, readonly showUsage = true) {
    super(message);
  }
}

export interface RpcConfig {
  url: string;
  user?: string;
  password?: string;
  cookieFile?: string;
  /** Per-call timeout and batch/concurrency bounds. */
  timeoutMs: number;
  batchSize: number;
  concurrency: number;
  /** Largest answer read from the node, in bytes (default 64 MiB; PEGSCOPE_RPC_MAX_ANSWER_MB). */
  maxAnswerBytes?: number;
}

export interface CommonOptions {
  network?: string;
  db?: string;
  out?: string;
  rpcUrl?: string;
  rpcUser?: string;
  rpcPassword?: string;
  rpcCookie?: string;
}

export interface ResolvedConfig {
  network: NetworkParams;
  dbPath: string;
  outDir: string;
  /** Set when a node is configured (flag or environment); otherwise the sim is the source. */
  rpc: RpcConfig | null;
}

const env = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
};

/**
 * A whole number from the environment within [min, max], or `fallback` when
 * unset; anything else is a usage error naming the variable.
 */
export function envInteger(name: string, min: number, max: number, fallback: number): number {
  const text = env(name);
  return text === undefined ? fallback : parseWholeNumber(text, name, min, max);
}

/** A whole number within [min, max] given as `what` (a flag or a variable), or a usage error naming it. */
export function parseWholeNumber(text: string, what: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new UsageError(`${what} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

/**
 * The node's JSON-RPC URL, given as `what` (--rpc-url, LTC_RPC_URL, a config
 * file's rpcUrl): only http and https are accepted.
 */
export function parseRpcUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Whatever precedes an @ may be a password: never shown.
    throw new UsageError(`${what} is not a URL: "${text.replace(/[^/]*@/, '…@')}"; give the node's JSON-RPC address, e.g. http://127.0.0.1:9332`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${what} must be an http:// or https:// URL, got ${url.protocol}//…; Litecoin Core's JSON-RPC speaks HTTP, e.g. http://127.0.0.1:9332`);
  }
  return url;
}

const MIB = 1024 * 1024;

/** Flags first, then environment (PEGSCOPE_*, LTC_RPC_*), then defaults (README.md). */
export function resolveConfig(opts: CommonOptions): ResolvedConfig {
  const rpcUrlFrom = opts.rpcUrl !== undefined ? '--rpc-url' : env('LTC_RPC_URL') !== undefined ? 'LTC_RPC_URL' : 'PEGSCOPE_RPC_URL';
  const rpcUrl = opts.rpcUrl ?? env('LTC_RPC_URL') ?? env('PEGSCOPE_RPC_URL');
  if (rpcUrl !== undefined) parseRpcUrl(rpcUrl, rpcUrlFrom);
  const cookie = opts.rpcCookie ?? env('PEGSCOPE_RPC_COOKIE');
  const defaultNetwork = rpcUrl ? 'mainnet' : 'sim';
  const name = opts.network ?? env('PEGSCOPE_NETWORK') ?? defaultNetwork;
  let network: NetworkParams;
  try {
    network = networkParams(name);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (network.name === 'sim' && rpcUrl && opts.network === 'sim') {
    throw new UsageError('--network sim uses the built-in simulated chain; drop --rpc-url or choose mainnet, testnet or regtest');
  }
  return {
    network,
    dbPath: opts.db ?? env('PEGSCOPE_DB') ?? `data/${network.name}.duckdb`,
    outDir: opts.out ?? env('PEGSCOPE_OUT') ?? `out/${network.name}`,
    rpc: rpcUrl && network.name !== 'sim'
      ? {
          url: rpcUrl,
          user: opts.rpcUser ?? env('LTC_RPC_USER'),
          password: opts.rpcPassword ?? env('LTC_RPC_PASSWORD'),
          cookieFile: cookie,
          timeoutMs: envInteger('PEGSCOPE_RPC_TIMEOUT_MS', 1, 3_600_000, 30_000),
          batchSize: envInteger('PEGSCOPE_RPC_BATCH', 1, 10_000, 50),
          concurrency: envInteger('PEGSCOPE_RPC_CONCURRENCY', 1, 256, 8),
          maxAnswerBytes: envInteger('PEGSCOPE_RPC_MAX_ANSWER_MB', 1, 4096, 64) * MIB,
        }
      : null,
  };
}

/** Reads `user:password` from a Litecoin Core .cookie file. */
export function readCookie(file: string): { user: string; password: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new UsageError(`cannot read RPC cookie file ${file}: ${(err as Error).message}; point --rpc-cookie at <datadir>/.cookie of a running node`);
  }
  const colon = text.indexOf(':');
  if (colon < 0) throw new UsageError(`RPC cookie file ${file} is not of the form user:password`);
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** Parses durations like 30s, 5m, 1h (given as `what`, e.g. --every) into milliseconds, at most `maxMs`. */
export function parseDuration(text: string, what = 'duration', maxMs = Number.MAX_SAFE_INTEGER): number {
  const match = /^(\d+)(s|m|h)$/.exec(text);
  if (!match) throw new UsageError(`${what}: "${text}" is not a duration; use a number followed by s, m or h (e.g. 5m)`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'];
  const ms = Number(match[1]) * unit;
  if (ms <= 0) throw new UsageError(`${what}: duration "${text}" must be positive`);
  if (ms > maxMs) throw new UsageError(`${what}: duration "${text}" is too long; at most ${Math.floor(maxMs / 3_600_000)}h`);
  return ms;
}
