/**
 * Litecoin Core JSON-RPC client: batched requests, bounded concurrency, a
 * per-request timeout, a cap on the size of each answer, and retries with
 * backoff on transient failures only (node warming up, work queue full,
 * connection refused or reset while it restarts). Text the node, or a server
 * in front of it, sends reaches messages only through remoteText.
 */
import pLimit from 'p-limit';
import { parseRpcUrl, readCookie, type RpcConfig } from '../config.js';
import type { NetworkParams } from '../domain/network.js';
import {
  AnswerTooLargeError, NodeAuthError, NodeSyncingError, NodeUnreachableError, NotJsonRpcError, remoteText, RpcCallError,
  TxIndexMissingError,
} from './errors.js';
import type { ChainInfo, ChainSource } from './types.js';
import type { VerboseBlockJson } from './types.js';

const RPC_IN_WARMUP = -28;
const RPC_INVALID_ADDRESS_OR_KEY = -5;
const RPC_METHOD_NOT_FOUND = -32601;
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
/**
 * Answers are read up to this size. One call's answer stays far below it (a
 * raw block is at most ~8 MB of hex, a verbose one a few tens of MB); a batch
 * whose answer is larger is split in halves and asked again, so memory stays
 * bounded by cap × concurrency whatever the node, or something else, sends.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** Connection failures of a node that restarts or is briefly overloaded; anything else is not retried. */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
]);

export interface RpcOptions {
  /** Attempts after the first for transient failures (default 5: about 8 s of backoff). */
  retries?: number;
  backoffMs?: number;
}

export interface RpcCall { method: string; params: unknown[] }

interface RpcReply { id: unknown; result: unknown; error: { code: unknown; message: unknown } | null }

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
  private readonly maxAnswerBytes: number;

  constructor(private readonly config: RpcConfig, opts: RpcOptions = {}) {
    const url = parseRpcUrl(config.url, '--rpc-url');
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
    this.maxAnswerBytes = config.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
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
    const results = await Promise.all(chunks.map((chunk) => this.limit(() => this.send(chunk))));
    return results.flat() as T[];
  }

  /** One batch; an answer over the cap is asked again in two halves, down to single calls. */
  private async send(calls: RpcCall[]): Promise<unknown[]> {
    try {
      return await this.withRetries(calls);
    } catch (err) {
      if (!(err instanceof AnswerTooLargeError) || calls.length === 1) throw err;
      const half = Math.ceil(calls.length / 2);
      return [...await this.send(calls.slice(0, half)), ...await this.send(calls.slice(half))];
    }
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
      throw this.connectionError(err);
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
    const text = await this.readAnswer(res, calls);
    return this.results(calls, res, text);
  }

  /** A failed connection: retried when the node may come back (refused, reset, timed out), otherwise final. */
  private connectionError(err: unknown): Error {
    const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return new Transient(`no answer within ${this.config.timeoutMs} ms`);
    const code = e.cause?.code;
    if (code !== undefined && TRANSIENT_CODES.has(code)) return new Transient(code);
    return new NodeUnreachableError(`cannot reach the Litecoin node at ${this.shownUrl} (${remoteText(code ?? e.cause?.message ?? e.message ?? err, 120)}); `
      + 'check --rpc-url (or LTC_RPC_URL): host, port (9332 mainnet, 19332 testnet, 19443 regtest) and scheme (litecoind speaks plain http unless a TLS proxy is in front)');
  }

  /** The body as text, read as a stream and given up past the cap (an endless body must not fill memory). */
  private async readAnswer(res: Response, calls: RpcCall[]): Promise<string> {
    const tooLarge = (bytes: number): AnswerTooLargeError => new AnswerTooLargeError(
      `the node's answer to ${callsLabel(calls)} is larger than ${this.maxAnswerBytes / (1024 * 1024)} MiB (stopped after ${bytes} bytes); `
      + 'one Litecoin Core answer is far smaller: check that --rpc-url points at litecoind, or raise PEGSCOPE_RPC_MAX_ANSWER_MB if the node really sends that much', bytes);
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > this.maxAnswerBytes) {
      await res.body?.cancel();
      throw tooLarge(0);
    }
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    if (res.body) {
      const reader = res.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.byteLength;
          if (bytes > this.maxAnswerBytes) {
            await reader.cancel();
            throw tooLarge(bytes);
          }
          chunks.push(value);
        }
      } catch (err) {
        if (err instanceof AnswerTooLargeError) throw err;
        throw this.connectionError(err);
      }
    }
    return Buffer.concat(chunks, bytes).toString('utf8');
  }

  /** Results in call order, matched by id; node errors mapped to clear ones. */
  private results(calls: RpcCall[], res: Response, text: string): unknown[] {
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw this.notJsonRpc(calls, res, text, 'a body that is not JSON');
    }
    if (!Array.isArray(answer)) {
      // A whole-request failure comes back as one reply object instead of an array.
      const single = answer as RpcReply | null;
      if (single?.error) throw this.replyError(calls[0]!, single.error);
      throw this.notJsonRpc(calls, res, text, 'no batch of replies');
    }
    const out: unknown[] = new Array(calls.length);
    const answered = new Set<number>();
    for (const reply of answer as RpcReply[]) {
      const id = reply?.id;
      const call = typeof id === 'number' ? calls[id] : undefined;
      if (!call || answered.has(id as number)) throw this.notJsonRpc(calls, res, text, `a reply with an id pegscope did not send (${remoteText(JSON.stringify(id ?? null), 40)})`);
      if (reply.error) throw this.replyError(call, reply.error);
      answered.add(id as number);
      out[id as number] = reply.result;
    }
    if (answered.size !== calls.length) throw this.notJsonRpc(calls, res, text, `replies to ${answered.size} of ${calls.length} calls`);
    return out;
  }

  private notJsonRpc(calls: RpcCall[], res: Response, text: string, what: string): NotJsonRpcError {
    const type = res.headers.get('content-type') ?? 'no content type';
    const hint = res.status === 404
      ? 'nothing answers JSON-RPC at that path: litecoind serves it at / on its RPC port; check the path of --rpc-url'
      : 'check that --rpc-url (or LTC_RPC_URL) points at litecoind\'s RPC port, not at a proxy or another service';
    return new NotJsonRpcError(`the server at ${this.shownUrl} is not a Litecoin Core JSON-RPC server: it answered ${callsLabel(calls)} with HTTP ${res.status} `
      + `(${remoteText(type, 60)}) and ${what}: "${remoteText(text, 80)}"; ${hint}`);
  }

  private replyError(call: RpcCall, error: NonNullable<RpcReply['error']>): Error {
    const code = Number(error.code);
    const message = remoteText(error.message);
    if (code === RPC_IN_WARMUP) return new Transient(`node warming up: ${message}`);
    if (call.method === 'getrawtransaction' && code === RPC_INVALID_ADDRESS_OR_KEY && /txindex/i.test(message)) {
      return new TxIndexMissingError(`the node cannot look up transaction ${remoteText(call.params[0], 64)} (${message}); `
        + 'pegscope needs the previous outputs of peg-in inputs: restart litecoind with -txindex=1 and wait for the index to build');
    }
    if (code === RPC_METHOD_NOT_FOUND) {
      return new RpcCallError(call.method, code, `${message}; pegscope needs Litecoin Core 0.21.2 or later with ${call.method} enabled (check -rpcwhitelist for this user)`);
    }
    return new RpcCallError(call.method, code, message);
  }
}

/** The calls of a request, for messages: "getblock" or "getblock ×50". */
function callsLabel(calls: readonly RpcCall[]): string {
  const method = calls[0]?.method ?? 'a request';
  return calls.length > 1 ? `${method} ×${calls.length}` : method;
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
    throw new NodeSyncingError(`MWEB is not active on this ${remoteText(info.chain, 40)} node yet (softforks.mweb: ${remoteText(JSON.stringify(mweb ?? null))}); `
      + 'on regtest mine past the activation height (432) with a peg-in waiting, then scan');
  }
  return height;
}
