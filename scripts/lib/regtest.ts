/**
 * A real `litecoind -regtest` for tests and benchmarks: loopback, an RPC port
 * retried when taken (bind-retry.ts), temp datadir, always stopped (on stop(), on test failure via afterAll, and on
 * process exit). Talks plain JSON-RPC over fetch, independent of src/chain/rpc.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PortTakenError, startOnSomePort, type RetryOptions } from './bind-retry.js';

export const LITECOIND = process.env.PEGSCOPE_LITECOIND ?? 'litecoind';

/**
 * Node tests run when litecoind is on PATH; with PEGSCOPE_NODE_TESTS=1 they must run,
 * and a missing litecoind is a failure, not a skip.
 */
export function nodeTestsEnabled(): boolean {
  const found = spawnSync(LITECOIND, ['-version'], { stdio: 'ignore' }).status === 0;
  if (process.env.PEGSCOPE_NODE_TESTS === '1' && !found) {
    throw new Error(`PEGSCOPE_NODE_TESTS=1 but "${LITECOIND}" cannot be run; install litecoind (Debian: apt-get install litecoind) or set PEGSCOPE_LITECOIND`);
  }
  return found;
}

export class NodeRpcError extends Error {
  constructor(readonly method: string, readonly code: number, message: string) {
    super(`${method}: ${message} (code ${code})`);
  }
}

export interface RegtestNode {
  rpcUrl: string;
  rpcPort: number;
  user: string;
  password: string;
  cookieFile: string;
  datadir: string;
  process: ChildProcess;
  rpc<T = unknown>(method: string, ...params: unknown[]): Promise<T>;
  walletRpc<T = unknown>(wallet: string, method: string, ...params: unknown[]): Promise<T>;
  /** Mines n blocks to `address` (default: the miner wallet's address); returns their hashes. */
  mine(n: number, address?: string): Promise<string[]>;
  minerAddress: string;
  stop(): Promise<void>;
}

export interface StartOptions extends RetryOptions {
  extraArgs?: string[];
  /** Create the `miner` wallet and mine 101 blocks so it can spend (default true; needs waitForRpc). */
  fundMiner?: boolean;
  /** Return only once the RPC answers (default true); false returns right after spawning. */
  waitForRpc?: boolean;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => { for (const child of running) child.kill('SIGKILL'); };
  process.on('exit', killAll);
  // Interrupted runs: kill the nodes, then let the signal do what it would have done.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { killAll(); process.kill(process.pid, signal); });
  }
}

/** -rpcauth line: the node stores only an HMAC of the password; the .cookie file is still written. */
function rpcAuth(user: string, password: string): string {
  const salt = randomBytes(16).toString('hex');
  return `${user}:${salt}$${createHmac('sha256', salt).update(password).digest('hex')}`;
}

/** Logged once the RPC server has bound its port and started, or when it could not bind. */
const RPC_BOUND = /HTTP: starting \d+ worker threads/;
const RPC_PORT_TAKEN = /Binding RPC on address .* failed|Unable to bind any endpoint for RPC server/;

export function startRegtestNode(opts: StartOptions = {}): Promise<RegtestNode> {
  installExitHook();
  return startOnSomePort((rpcPort) => startOn(rpcPort, opts), opts);
}

/** Resolves once the node has bound its RPC port (or has exited for another reason); a port taken throws PortTakenError. */
async function rpcBound(child: ChildProcess, datadir: string, rpcPort: number): Promise<void> {
  const debugLog = join(datadir, 'regtest', 'debug.log');
  const log = (): string => (existsSync(debugLog) ? readFileSync(debugLog, 'utf8') : '');
  const deadline = Date.now() + 60_000;
  while (!RPC_BOUND.test(log()) && Date.now() < deadline) {
    if (child.exitCode !== null) {
      if (RPC_PORT_TAKEN.test(log())) throw new PortTakenError(rpcPort, 'litecoind: Unable to bind any endpoint for RPC server');
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function startOn(rpcPort: number, opts: StartOptions): Promise<RegtestNode> {
  const datadir = mkdtempSync(join(tmpdir(), 'pegscope-regtest-'));
  const user = 'pegscope';
  const password = randomBytes(16).toString('hex');
  const child = spawn(LITECOIND, [
    '-regtest', `-datadir=${datadir}`, '-server', '-txindex=1', '-listen=0', '-dnsseed=0', '-upnp=0',
    `-rpcport=${rpcPort}`, '-rpcbind=127.0.0.1', '-rpcallowip=127.0.0.1', `-rpcauth=${rpcAuth(user, password)}`,
    '-fallbackfee=0.0001', '-rpcworkqueue=64', '-rpcthreads=8', '-printtoconsole=0', '-disablewallet=0',
    ...(opts.extraArgs ?? []),
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { running.delete(child); resolve(code); }));
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  const call = async <T>(path: string, method: string, params: unknown[]): Promise<T> => {
    const res = await fetch(`${rpcUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify({ jsonrpc: '1.0', id: method, method, params }),
    });
    const text = await res.text();
    let body: { result: T; error: { code: number; message: string } | null };
    try {
      body = JSON.parse(text);
    } catch {
      throw new NodeRpcError(method, res.status, `HTTP ${res.status}: ${text.slice(0, 200)}`);
    }
    if (body.error) throw new NodeRpcError(method, body.error.code, body.error.message);
    return body.result;
  };

  try {
    await rpcBound(child, datadir, rpcPort);
  } catch (err) {
    rmSync(datadir, { recursive: true, force: true });
    throw err;
  }

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null) {
      await call('', 'stop', []).catch(() => undefined);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(datadir, { recursive: true, force: true });
  };

  // Wait for the RPC server to accept calls (connection refused, then -28 while loading).
  const deadline = Date.now() + 60_000;
  while (opts.waitForRpc !== false) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`litecoind exited with code ${child.exitCode} before its RPC came up: ${stderr.trim()}`);
    }
    try {
      await call('', 'getblockchaininfo', []);
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`litecoind RPC on ${rpcUrl} did not come up within 60 s: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const node: RegtestNode = {
    rpcUrl, rpcPort, user, password, datadir, process: child,
    cookieFile: join(datadir, 'regtest', '.cookie'),
    rpc: (method, ...params) => call('', method, params),
    walletRpc: (wallet, method, ...params) => call(`/wallet/${encodeURIComponent(wallet)}`, method, params),
    minerAddress: '',
    mine: (n, address) => call<string[]>('', 'generatetoaddress', [n, address ?? node.minerAddress]),
    stop,
  };
  if (opts.fundMiner !== false && opts.waitForRpc !== false) {
    await createWallet(node, 'miner');
    node.minerAddress = await node.walletRpc<string>('miner', 'getnewaddress', '', 'bech32');
    await node.mine(101);
  }
  return node;
}

export async function createWallet(node: RegtestNode, name: string): Promise<void> {
  await node.rpc('createwallet', name);
}

/** The wallet's own MWEB address (`getnewaddress "" mweb`). */
export function mwebAddress(node: RegtestNode, wallet: string): Promise<string> {
  return node.walletRpc<string>(wallet, 'getnewaddress', '', 'mweb');
}

/** Pegs in: the wallet pays `amountCoin` to its own MWEB address. Returns the peg-in txid. */
export async function pegIn(node: RegtestNode, wallet: string, amountCoin: number | string, subtractFee = false): Promise<string> {
  const address = await mwebAddress(node, wallet);
  return node.walletRpc<string>(wallet, 'sendtoaddress', address, String(amountCoin), '', '', subtractFee);
}

/** Pegs out from the wallet's MWEB coins to a canonical address. Returns the wallet's MWEB txid. */
export async function pegOut(node: RegtestNode, wallet: string, address: string, amountCoin: number | string, subtractFee = false): Promise<string> {
  return node.walletRpc<string>(wallet, 'sendtoaddress', address, String(amountCoin), '', '', subtractFee);
}

/** MWEB activation height of the node (softforks.mweb). */
export async function mwebActivationHeight(node: RegtestNode): Promise<number> {
  const info = await node.rpc<{ softforks: { mweb?: { height?: number; bip9?: { since?: number; status: string } } } }>('getblockchaininfo');
  const mweb = info.softforks.mweb;
  const height = mweb?.height ?? (mweb?.bip9?.status === 'active' ? mweb.bip9.since : undefined);
  if (height === undefined) throw new Error('MWEB is not active on this node yet');
  return height;
}

/**
 * Mines until MWEB activates (BIP9 on regtest: block 432). The node will not
 * mine the activation block without a waiting peg-in (the first HogEx needs an
 * input), so `firstPegins` runs at the tip before it; by default the miner pegs in 1 coin.
 */
export async function activateMweb(node: RegtestNode, firstPegins?: () => Promise<void>): Promise<number> {
  const tip = await node.rpc<number>('getblockcount');
  const before = 431;
  if (tip < before) await node.mine(before - tip);
  if (firstPegins) await firstPegins();
  else await pegIn(node, 'miner', 1);
  await node.mine(1);
  const height = await mwebActivationHeight(node);
  if (height !== before + 1) throw new Error(`expected MWEB to activate at ${before + 1}, node says ${height}`);
  return height;
}
