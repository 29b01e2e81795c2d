/**
 * Litecoin Core JSON-RPC source: batched requests, bounded concurrency, a
 * per-request timeout and retries with backoff on transient failures (node
 * warming up, work queue full, connection refused while it restarts).
 */
import pLimit from 'p-limit';
import { readCookie, type RpcConfig } from '../config.js';
import type { NetworkParams } from '../domain/network.js';
import { initialDownloadError, NodeAuthError, NodeSyncingError, NodeUnreachableError, RpcCallError, TxIndexMissingError } from './errors.js';
import type { VerboseBlockJson } from './verbose.js';
import type { ChainInfo, ChainSource } from './types.js';

const RPC_IN_WARMUP = -28;
const RPC_INVALID_ADDRESS_OR_KEY = -5;
/**
 * Raw blocks per request are sized from the blocks seen so far: about this many
 * bytes per answer. Small blocks then share a request (each HTTP answer costs
 * a fixed delay on Litecoin Core's server; measured on regtest: 200 small blocks
 * took 224 ms at 10 per request, 124 ms at 50), and megabyte blocks do not pile
 * up into one huge JSON string.
 */
const RAW_BYTES_PER_REQUEST = 4 * 1024 * 1024;
const FIRST_BLOCKS_PER_REQUEST = 10;
/** Verbose answers are several times larger than raw ones: 10 blocks per request was fastest. */
const VERBOSE_BLOCKS_PER_REQUEST = 10;

export interface RpcOptions {
  /** Attempts after the first for transient failures (default 5: about 8 s of backoff). */
  retries?: number;
  backoffMs?: number;
}

export interface RpcCall { method: string; params: unknown[] }

interface RpcReply { id: number | string | null; result: unknown; error: { code: number; message: string } | null }

/** A transient failure worth retrying; anything else fails at once. */
class Transient extends Error {}

/** A JSON-RPC client for one node; credentials never appear in errors or logs. */
export class RpcClient {
  private readonly url: string;
  private readonly shownUrl: string;
  private auth: string;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly retries: number;
  private readonly backoffMs: number;

  constructor(private readonly config: RpcConfig, opts: RpcOptions = {}) {
    const url = new URL(config.url);
    // Credentials inside the URL are moved to the Authorization header (fetch refuses them in URLs).
    const urlUser = decodeURIComponent(url.username);
    const urlPassword = decodeURIComponent(url.password);
    url.username = '';
    url.password = '';
    this.url = url.toString();
    this.shownUrl = `${url.protocol}//${url.host}`;
    this.auth = this.authHeader(urlUser, urlPassword);
    this.limit = pLimit(Math.max(1, config.concurrency));
    this.retries = opts.retries ?? 5;
    this.backoffMs = opts.backoffMs ?? 250;
  }

  private authHeader(urlUser = '', urlPassword = ''): string {
    let user = this.config.user ?? urlUser;
    let password = this.config.password ?? urlPassword;
    if (this.config.cookieFile && !this.config.password && !urlPassword) ({ user, password } = readCookie(this.config.cookieFile));
    return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }

  async call<T>(method: string, ...params: unknown[]): Promise<T> {
    const [result] = await this.batch<T>([{ method, params }]);
    return result!;
  }

  /** Runs calls as JSON-RPC batches of `batchSize`, `concurrency` at a time; results in call order. */
  async batch<T>(calls: readonly RpcCall[], batchSize = this.config.batchSize): Promise<T[]> {
    const size = Math.max(1, batchSize);
    const chunks: RpcCall[][] = [];
    for (let i = 0; i < calls.length; i += size) chunks.push(calls.slice(i, i + size));
    const results = await Promise.all(chunks.map((chunk) => this.limit(() => this.withRetries(chunk))));
    return results.flat() as T[];
  }

  private async withRetries(calls: RpcCall[]): Promise<unknown[]> {
    let refreshedCookie = false;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.post(calls);
      } catch (err) {
        if (err instanceof NodeAuthError && this.config.cookieFile && !refreshedCookie) {
          // The node writes a new cookie on every start: read it again once.
          refreshedCookie = true;
          this.auth = this.authHeader();
          continue;
        }
        if (!(err instanceof Transient)) throw err;
        if (attempt >= this.retries) {
          if (/warming up|work queue/i.test(err.message)) throw new NodeSyncingError(`the node at ${this.shownUrl} stays busy: ${err.message}; try again when it has finished starting`);
          throw new NodeUnreachableError(`cannot reach the Litecoin node at ${this.shownUrl} (${err.message}) after ${attempt + 1} attempts; `
            + 'check that litecoind runs with -server, that --rpc-url (or LTC_RPC_URL) has the right host and port, and that -rpcbind/-rpcallowip admit this machine');
        }
        await new Promise((resolve) => setTimeout(resolve, this.backoffMs * 2 ** attempt));
      }
    }
  }

  private async post(calls: RpcCall[]): Promise<unknown[]> {
    const body = JSON.stringify(calls.map((call, id) => ({ jsonrpc: '1.0', id, method: call.method, params: call.params })));
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: this.auth },
        body,
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
    } catch (err) {
      throw new Transient(networkReason(err, this.config.timeoutMs));
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      const how = this.config.cookieFile ? `the cookie file ${this.config.cookieFile}` : 'the RPC user/password';
      throw new NodeAuthError(`the node at ${this.shownUrl} rejected ${how} (HTTP ${res.status}); `
        + 'check --rpc-user/--rpc-password (LTC_RPC_USER/LTC_RPC_PASSWORD) against the node\'s rpcuser/rpcauth, or use --rpc-cookie <datadir>/.cookie');
    }
    if (res.status === 503) {
      await res.body?.cancel();
      throw new Transient('HTTP 503, work queue depth exceeded');
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new Transient(networkReason(err, this.config.timeoutMs));
    }
    let replies: RpcReply[];
    try {
      replies = JSON.parse(text) as RpcReply[];
    } catch {
      throw new RpcCallError(calls[0]!.method, res.status, `HTTP ${res.status} with a non-JSON body: ${text.slice(0, 200)}`);
    }
    if (!Array.isArray(replies)) {
      // A whole-request failure comes back as one reply object instead of an array.
      const single = replies as RpcReply;
      if (single?.error?.code === RPC_IN_WARMUP) throw new Transient(`node warming up: ${single.error.message}`);
      if (single?.error) throw this.callError(calls[0]!, single.error.code, single.error.message);
      throw new RpcCallError(calls[0]!.method, res.status, `expected a batch answer, got: ${text.slice(0, 200)}`);
    }
    const out: unknown[] = new Array(calls.length);
    for (const reply of replies) {
      const id = Number(reply.id);
      const call = calls[id];
      if (!call) continue;
      if (reply.error) {
        if (reply.error.code === RPC_IN_WARMUP) throw new Transient(`node warming up: ${reply.error.message}`);
        throw this.callError(call, reply.error.code, reply.error.message);
      }
      out[id] = reply.result;
    }
    return out;
  }

  private callError(call: RpcCall, code: number, message: string): Error {
    if (call.method === 'getrawtransaction' && code === RPC_INVALID_ADDRESS_OR_KEY && /txindex/i.test(message)) {
      return new TxIndexMissingError(`the node cannot look up transaction ${String(call.params[0])} (${message}); `
        + 'pegscope needs the previous outputs of peg-in inputs: restart litecoind with -txindex=1 and wait for the index to build');
    }
    return new RpcCallError(call.method, code, message);
  }
}

function networkReason(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

interface BlockchainInfo {
  chain: string;
  blocks: number;
  headers: number;
  initialblockdownload: boolean;
  softforks?: { mweb?: { height?: number; active?: boolean; bip9?: { status: string; since?: number } } };
}

/** A ChainSource over Litecoin Core's JSON-RPC; `verboseBlocks` is the verbosity-2 fallback path. */
export interface RpcSource extends ChainSource {
  readonly client: RpcClient;
  verboseBlocks(hashes: readonly string[]): Promise<VerboseBlockJson[]>;
}

export function createRpcSource(config: RpcConfig, network: NetworkParams, opts: RpcOptions = {}): RpcSource {
  const client = new RpcClient(config, opts);
  let txindexChecked = false;
  let blocksSeen = 0, bytesSeen = 0;
  const blocksPerRequest = (): number => {
    if (blocksSeen === 0) return Math.min(config.batchSize, FIRST_BLOCKS_PER_REQUEST);
    const fit = Math.floor(RAW_BYTES_PER_REQUEST / (bytesSeen / blocksSeen));
    return Math.max(1, Math.min(config.batchSize, fit));
  };

  const checkTxindex = async (): Promise<void> => {
    if (txindexChecked) return;
    const indexes = await client.call<Record<string, { synced: boolean; best_block_height: number }>>('getindexinfo');
    const txindex = indexes.txindex;
    if (!txindex) {
      throw new TxIndexMissingError('the node runs without a transaction index; pegscope needs it to read the funding inputs of peg-ins: '
        + 'restart litecoind with -txindex=1 (building it takes a while on mainnet), then scan again');
    }
    if (!txindex.synced) {
      throw new NodeSyncingError(`the node's transaction index is still being built (at block ${txindex.best_block_height}); try again when getindexinfo shows txindex synced`);
    }
    txindexChecked = true;
  };

  return {
    network,
    client,
    async info(): Promise<ChainInfo> {
      const info = await client.call<BlockchainInfo>('getblockchaininfo');
      if (info.initialblockdownload) throw initialDownloadError(info.blocks, info.headers);
      await checkTxindex();
      return {
        chain: info.chain,
        blocks: info.blocks,
        headers: info.headers,
        initialBlockDownload: info.initialblockdownload,
        mwebActivationHeight: network.mwebActivationHeight ?? mwebHeightFromSoftforks(info),
      };
    },
    blockHashes: (heights) => client.batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] }))),
    async rawBlocks(hashes) {
      const hex = await client.batch<string>(hashes.map((hash) => ({ method: 'getblock', params: [hash, 0] })), blocksPerRequest());
      const blocks = hex.map((h) => Buffer.from(h, 'hex'));
      blocksSeen += blocks.length;
      for (const block of blocks) bytesSeen += block.length;
      return blocks;
    },
    async rawTransactions(txids) {
      const hex = await client.batch<string>(txids.map((txid) => ({ method: 'getrawtransaction', params: [txid, false] })));
      return hex.map((h) => Buffer.from(h, 'hex'));
    },
    verboseBlocks: (hashes) => client.batch<VerboseBlockJson>(hashes.map((hash) => ({ method: 'getblock', params: [hash, 2] })),
      Math.min(config.batchSize, VERBOSE_BLOCKS_PER_REQUEST)),
    async close() {},
  };
}

/** Regtest's activation height comes from the node (BIP9: softforks.mweb). */
function mwebHeightFromSoftforks(info: BlockchainInfo): number {
  const mweb = info.softforks?.mweb;
  const height = mweb?.height ?? (mweb?.bip9?.status === 'active' ? mweb.bip9.since : undefined);
  if (height === undefined) {
    throw new NodeSyncingError(`MWEB is not active on this ${info.chain} node yet (softforks.mweb: ${JSON.stringify(mweb ?? null)}); `
      + 'on regtest mine past the activation height (432) with a peg-in waiting, then scan');
  }
  return height;
}
