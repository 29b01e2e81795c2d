/**
 * Against a real `litecoind -regtest`: MWEB activation, peg-ins from known
 * funding addresses, peg-outs from an MWEB-only wallet, scan, reorg, SIGKILL
 * and resume, node down. Every block of the live node is also parsed from raw
 * and compared with the node's own getblock-2 answer.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeAuthError, NodeSyncingError, NodeUnreachableError, NetworkMismatchError, TxIndexMissingError } from '../../src/chain/errors.js';
import { parseBlock } from '../../src/chain/parse.js';
import { parseTransaction } from '../../src/chain/raw-tx.js';
import { blockFromVerboseJson } from '../../src/chain/verbose.js';
import type { VerboseBlockJson } from '../../src/chain/types.js';
import { createRpcSource } from '../../src/chain/rpc.js';
import type { RpcConfig } from '../../src/config.js';
import { parseNodeValue } from '../../src/domain/amount.js';
import { NETWORKS } from '../../src/domain/network.js';
import { Db } from '../../src/store/db.js';
import { scanChain } from '../../src/store/scan.js';
import { createWallet, mwebActivationHeight, mwebAddress, nodeTestsEnabled, pegIn, pegOut, startRegtestNode, type RegtestNode } from '../../scripts/lib/regtest.js';
import { REFUSED_URL } from '../helpers/net.js';

const regtest = NETWORKS.regtest;
const enabled = nodeTestsEnabled();

interface NodeVout { value: number; n: number; scriptPubKey: { hex: string; type: string; address?: string; addresses?: string[] } }
interface NodeTx { txid: string; hex: string; vin: { txid?: string; vout?: number; coinbase?: string }[]; vout: NodeVout[] }
type NodeBlock = Omit<VerboseBlockJson, 'tx'> & { height: number; tx: NodeTx[] };

const coin = (value: number | string) => parseNodeValue(value);
const addressOf = (out: Pick<NodeVout, 'scriptPubKey'>) => out.scriptPubKey.address ?? out.scriptPubKey.addresses?.[0] ?? null;

describe.skipIf(!enabled)('scan against a live litecoind -regtest', () => {
  let node: RegtestNode;
  let work: string;
  let rpcConfig: RpcConfig;
  const known = {
    aliceFunding: '', bobFunding1: '', bobFunding2: '',
    alicePeginTxid: '', bobPeginTxid: '', carolPeginTxid: '',
    pegoutAddr1: '', pegoutAddr2: '', pegoutAddr3: '',
  };

  const source = () => createRpcSource(rpcConfig, regtest);
  const openDb = (name: string) => Db.open(join(work, `${name}.duckdb`));

  async function nodeBlock(height: number): Promise<NodeBlock> {
    return node.rpc<NodeBlock>('getblock', await node.rpc<string>('getblockhash', height), 2);
  }

  /** Every peg-in/peg-out/input the node shows from activation to its tip, in the store's terms. */
  async function nodeView(from: number) {
    const tip = await node.rpc<number>('getblockcount');
    const pegins: unknown[] = [], pegouts: unknown[] = [], inputs: unknown[] = [];
    for (let h = from; h <= tip; h++) {
      const b = await nodeBlock(h);
      for (const tx of b.tx) {
        const pegOutputs = tx.vout.filter((o) => o.scriptPubKey.type === 'witness_mweb_pegin');
        if (pegOutputs.length > 0) {
          const prevs = await Promise.all(tx.vin.map(async (vin, n) => {
            const prev = await node.rpc<NodeTx>('getrawtransaction', vin.txid, true);
            const out = prev.vout[vin.vout!]!;
            return { pegin_txid: tx.txid, n, height: h, prev_txid: vin.txid, prev_vout: vin.vout, address: addressOf(out), value: coin(out.value) };
          }));
          inputs.push(...prevs);
          const totals = new Map<string, number>();
          for (const p of prevs) totals.set(p.address!, (totals.get(p.address!) ?? 0) + p.value);
          const source_address = [...totals].sort((a, b) => b[1] - a[1])[0]![0];
          for (const o of pegOutputs) {
            pegins.push({ txid: tx.txid, vout: o.n, height: h, amount: coin(o.value), kernel_id: o.scriptPubKey.hex.slice(4), input_count: tx.vin.length, source_address });
          }
        }
        if (tx.vout[0]?.scriptPubKey.type === 'witness_mweb_hogaddr') {
          for (const o of tx.vout.slice(1)) pegouts.push({ txid: tx.txid, vout: o.n, height: h, amount: coin(o.value), address: addressOf(o), script_hex: o.scriptPubKey.hex });
        }
      }
    }
    return { pegins, pegouts, inputs };
  }

  async function storedView(db: Db) {
    const big = (rows: Record<string, unknown>[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
    return {
      pegins: big(await db.all('SELECT txid, vout, height, amount, kernel_id, input_count, source_address FROM pegins ORDER BY height, txid, vout')),
      pegouts: big(await db.all('SELECT txid, vout, height, amount, address, script_hex FROM pegouts ORDER BY height, txid, vout')),
      inputs: big(await db.all('SELECT pegin_txid, n, height, prev_txid, prev_vout, address, value FROM pegin_inputs ORDER BY height, pegin_txid, n')),
    };
  }

  async function dump(db: Db) {
    const out: Record<string, unknown> = {};
    for (const t of ['blocks', 'pegins', 'pegin_inputs', 'pegouts']) {
      out[t] = (await db.all(`SELECT * FROM ${t} ORDER BY ALL`)).map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
    }
    out.cursor = await db.getMeta('cursor_height');
    return out;
  }

  /** The rows `db` holds equal those of a scan of the whole chain into a fresh database. */
  async function expectSameAsFreshScan(db: Db, name: string) {
    const fresh = await openDb(name);
    try {
      await scanChain(fresh, source());
      expect(await dump(db)).toEqual(await dump(fresh));
    } finally {
      fresh.close();
    }
  }

  const sortRows = (rows: unknown[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pegscope-node-test-'));
    node = await startRegtestNode();
    rpcConfig = { url: node.rpcUrl, user: node.user, password: node.password, timeoutMs: 30_000, batchSize: 50, concurrency: 4 };
    for (const w of ['alice', 'bob', 'carol']) await createWallet(node, w);
    known.aliceFunding = await node.walletRpc<string>('alice', 'getnewaddress', '', 'bech32');
    known.bobFunding1 = await node.walletRpc<string>('bob', 'getnewaddress', '', 'bech32');
    known.bobFunding2 = await node.walletRpc<string>('bob', 'getnewaddress', '', 'legacy');
    // Fund at 429 so the coins are confirmed when everyone pegs in at tip 431.
    await node.mine(429 - (await node.rpc<number>('getblockcount')));
    await node.walletRpc('miner', 'sendtoaddress', known.aliceFunding, '5');
    await node.walletRpc('miner', 'sendtoaddress', known.bobFunding1, '3');
    await node.walletRpc('miner', 'sendtoaddress', known.bobFunding2, '4');
    await node.mine(2);
    // The node mines the activation block only with a peg-in waiting.
    known.alicePeginTxid = await pegIn(node, 'alice', '5', true);
    known.bobPeginTxid = await pegIn(node, 'bob', '6.5');
    known.carolPeginTxid = await node.walletRpc<string>('miner', 'sendtoaddress', await mwebAddress(node, 'carol'), '10');
    await node.mine(1);
    known.pegoutAddr1 = await node.walletRpc<string>('miner', 'getnewaddress', '', 'bech32');
    known.pegoutAddr2 = await node.walletRpc<string>('miner', 'getnewaddress', '', 'legacy');
    known.pegoutAddr3 = await node.walletRpc<string>('miner', 'getnewaddress', '', 'p2sh-segwit');
    await node.mine(5);
    // carol holds only MWEB coins: her peg-outs.
    await pegOut(node, 'carol', known.pegoutAddr1, '1.25');
    await node.mine(1);
    await pegOut(node, 'carol', known.pegoutAddr2, '2');
    await node.mine(1);
    await pegOut(node, 'carol', known.pegoutAddr3, '0.5');
    await pegOut(node, 'alice', known.pegoutAddr1, '3');
    await node.mine(10);
  });

  afterAll(async () => {
    await node?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('MWEB activates at 432 with the three peg-ins', async () => {
    expect(await mwebActivationHeight(node)).toBe(432);
    const b = await nodeBlock(432);
    const pegTxids = b.tx.filter((t) => t.vout.some((o) => o.scriptPubKey.type === 'witness_mweb_pegin')).map((t) => t.txid);
    expect(pegTxids.sort()).toEqual([known.alicePeginTxid, known.bobPeginTxid, known.carolPeginTxid].sort());
  });

  it('every block of the live node parsed from raw equals its getblock 2 answer', async () => {
    const tip = await node.rpc<number>('getblockcount');
    for (let h = 400; h <= tip; h++) {
      const hash = await node.rpc<string>('getblockhash', h);
      const [raw, json] = await Promise.all([node.rpc<string>('getblock', hash, 0), node.rpc<NodeBlock>('getblock', hash, 2)]);
      const parsed = parseBlock(Buffer.from(raw, 'hex'), regtest);
      expect(parsed.txs.map((t) => t.txid)).toEqual(json.tx.map((t) => t.txid));
      expect(parsed.txs.map((t) => t.outputs.map((o) => [o.value, o.type, o.address]))).toEqual(
        json.tx.map((t) => t.vout.map((o) => [parseNodeValue(o.value), o.scriptPubKey.type, addressOf(o)])));
      const { txs: _t, mwebHeader: _h, mwebBody: _b, ...summary } = parsed;
      expect(summary).toEqual(blockFromVerboseJson(json));
    }
  });

  it('parses a peg-in in its mempool form: MWEB flag with the MWEB transaction attached', async () => {
    // A wallet with canonical coins only: the miner holds MWEB coins and would pay MWEB-to-MWEB.
    await createWallet(node, 'dave');
    await node.walletRpc('miner', 'sendtoaddress', await node.walletRpc<string>('dave', 'getnewaddress', '', 'bech32'), '0.8');
    await node.mine(1);
    const txid = await pegIn(node, 'dave', '0.7');
    const [raw, json] = await Promise.all([node.rpc<string>('getrawtransaction', txid, false), node.rpc<NodeTx>('getrawtransaction', txid, true)]);
    const tx = parseTransaction(Buffer.from(raw, 'hex'), regtest);
    expect(tx.txid).toBe(txid);
    expect(tx.isHogEx).toBe(false);
    // The node lists the attached MWEB outputs too (ismweb, no value); the canonical ones come first.
    const canonical = json.vout.filter((o) => !(o as { ismweb?: boolean }).ismweb);
    expect(tx.outputs.map((o) => [o.value, o.type, o.address])).toEqual(canonical.map((o) => [parseNodeValue(o.value), o.scriptPubKey.type, addressOf(o)]));
    expect(tx.mweb).not.toBeNull();
    const pegin = tx.outputs.find((o) => o.type === 'witness_mweb_pegin')!;
    expect(tx.mweb!.kernels.filter((k) => k.peginAmount !== null).map((k) => k.peginAmount)).toEqual([pegin.value]);
    expect(tx.mweb!.outputCount).toBeGreaterThan(0);
    await node.mine(1);
  });

  it('scan stores every peg-in, peg-out and funding input the node shows', async () => {
    const db = await openDb('main');
    try {
      const result = await scanChain(db, source(), { batchBlocks: 7 });
      const tip = await node.rpc<number>('getblockcount');
      expect(result).toMatchObject({ fromHeight: 432, toHeight: tip, blocks: tip - 431, reorgDepth: 0 });
      const view = await nodeView(432);
      const stored = await storedView(db);
      expect(sortRows(stored.pegins)).toEqual(sortRows(view.pegins));
      expect(sortRows(stored.pegouts)).toEqual(sortRows(view.pegouts));
      expect(sortRows(stored.inputs)).toEqual(sortRows(view.inputs));

      // The known actors, independent of the node view above.
      const bob = stored.pegins.find((p) => p.txid === known.bobPeginTxid)!;
      expect(bob).toMatchObject({ input_count: 2, source_address: known.bobFunding2 });
      expect(stored.inputs.filter((i) => i.pegin_txid === known.bobPeginTxid).map((i) => [i.address, i.value]).sort())
        .toEqual([[known.bobFunding1, 300_000_000], [known.bobFunding2, 400_000_000]].sort());
      const alice = stored.pegins.find((p) => p.txid === known.alicePeginTxid)!;
      expect(alice).toMatchObject({ input_count: 1, source_address: known.aliceFunding });
      expect(alice.amount).toBeLessThan(500_000_000);
      expect(alice.amount).toBeGreaterThan(499_990_000);
      const out = (addr: string) => stored.pegouts.filter((p) => p.address === addr).map((p) => p.amount).sort();
      expect(out(known.pegoutAddr1)).toEqual([125_000_000, 300_000_000]);
      expect(out(known.pegoutAddr2)).toEqual([200_000_000]);
      expect(out(known.pegoutAddr3)).toEqual([50_000_000]);
      expect(stored.pegouts.find((p) => p.address === known.pegoutAddr2)!.height)
        .toBe(1 + (stored.pegouts.find((p) => p.amount === 125_000_000)!.height as number));
      const supply = await db.one<{ supply: bigint }>('SELECT supply FROM blocks ORDER BY height DESC LIMIT 1');
      const hogex = (await nodeBlock(tip)).tx.at(-1)!;
      expect(Number(supply!.supply)).toBe(coin(hogex.vout[0]!.value));
    } finally {
      db.close();
    }
  });

  it('a reorg (invalidateblock + a different branch) removes the orphaned peg-out and adds the new one', async () => {
    const db = await openDb('main');
    try {
      const orphanAddr = await node.walletRpc<string>('miner', 'getnewaddress', '', 'bech32');
      const newAddr = await node.walletRpc<string>('miner', 'getnewaddress', '', 'bech32');
      const orphanMwebTxid = await pegOut(node, 'carol', orphanAddr, '0.75');
      const [orphanBlock] = await node.mine(2);
      await scanChain(db, source());
      expect((await storedView(db)).pegouts.some((p) => p.address === orphanAddr)).toBe(true);

      await node.rpc('invalidateblock', orphanBlock);
      // The orphaned peg-out is back in the mempool; keep it out of the new branch.
      await node.rpc('prioritisetransaction', orphanMwebTxid, 0, -100_000_000);
      await pegOut(node, 'alice', newAddr, '0.6');
      await node.mine(3);
      const result = await scanChain(db, source());
      expect(result.reorgDepth).toBe(2);
      const stored = await storedView(db);
      expect(stored.pegouts.some((p) => p.address === orphanAddr)).toBe(false);
      expect(stored.pegouts.filter((p) => p.address === newAddr).map((p) => p.amount)).toEqual([60_000_000]);
      const view = await nodeView(432);
      expect(sortRows(stored.pegouts)).toEqual(sortRows(view.pegouts));
      expect(sortRows(stored.pegins)).toEqual(sortRows(view.pegins));

      await expectSameAsFreshScan(db, 'fresh-after-reorg');
    } finally {
      db.close();
    }
  });

  it('a scan killed with SIGKILL mid-way and resumed stores exactly the rows of an uninterrupted scan', async () => {
    // A longer chain with pegs spread over it, scanned one block per transaction, so the kill lands mid-way.
    for (let i = 0; i < 4; i++) {
      await pegIn(node, 'miner', String(1 + i / 10));
      await pegOut(node, 'carol', await node.walletRpc<string>('miner', 'getnewaddress', '', 'bech32'), '0.1');
      await node.mine(50);
    }
    const path = join(work, 'killed.duckdb');
    // The child stops inside its 21st transaction, before the COMMIT: a step hook, never a race with a fast child.
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/scan-child.ts', path, node.rpcUrl, node.user, node.password, '1', '21'],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    const killedAt = await new Promise<number>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        if (!buffer.includes('paused\n') || child.killed) return;
        child.kill('SIGKILL');
        resolve([...buffer.matchAll(/progress (\d+)/g)].map((m) => Number(m[1])).at(-1) ?? 0);
      });
      child.on('exit', (code, signal) => { if (signal !== 'SIGKILL') reject(new Error(`scan child exited (${code}) before it paused: ${stderr}`)); });
    });
    await new Promise((r) => child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r));
    const tip = await node.rpc<number>('getblockcount');

    const db = await Db.open(path);
    try {
      const cursor = Number(await db.getMeta('cursor_height'));
      // The scan's setup takes two of the 21 transactions: 18 one-block batches were committed, the next was killed before its COMMIT.
      expect(killedAt).toBe(18);
      expect(cursor).toBeLessThan(tip);
      expect((await db.one<{ top: number | null }>('SELECT max(height) AS top FROM blocks'))!.top ?? 431).toBeLessThanOrEqual(cursor);
      await scanChain(db, source(), { batchBlocks: 5 });
      await expectSameAsFreshScan(db, 'uninterrupted');
    } finally {
      db.close();
    }
  });

  it('clear errors: wrong credentials, node unreachable, network mismatch; the database is untouched', async () => {
    const db = await openDb('main');
    try {
      const before = await dump(db);
      await expect(scanChain(db, createRpcSource({ ...rpcConfig, password: 'wrong' }, regtest))).rejects.toThrow(NodeAuthError);
      await expect(scanChain(db, createRpcSource({ ...rpcConfig, password: 'wrong' }, regtest))).rejects.toThrow(/rejected the RPC user\/password \(HTTP 401\)/);
      const down = createRpcSource({ ...rpcConfig, url: REFUSED_URL }, regtest, { retries: 2, backoffMs: 50 });
      const err = await scanChain(db, down).catch((e: Error) => e);
      expect(err).toBeInstanceOf(NodeUnreachableError);
      expect((err as Error).message).toMatch(/cannot reach the Litecoin node at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\) after 3 attempts/);
      expect((err as Error).message).not.toContain(node.password);
      await expect(scanChain(db, createRpcSource(rpcConfig, NETWORKS.mainnet))).rejects.toThrow(NetworkMismatchError);
      expect(await dump(db)).toEqual(before);
    } finally {
      db.close();
    }
  });

  it('authenticates with the cookie file', async () => {
    const info = await createRpcSource({ ...rpcConfig, user: undefined, password: undefined, cookieFile: node.cookieFile }, regtest).info();
    expect(info).toMatchObject({ chain: 'regtest', mwebActivationHeight: 432, initialBlockDownload: false });
  });

  it('a node in initial block download with every block it has headers for is scanned with a warning; one still syncing only with --allow-syncing', async () => {
    const tip = await node.rpc<number>('getblockcount');
    const copied = tip - 10;
    // A node restored from this chain two days later: its clock (-mocktime) makes the tip old, so it stays in initial block download.
    const restored = await startRegtestNode({ fundMiner: false, extraArgs: [`-mocktime=${Math.floor(Date.now() / 1000) + 2 * 86_400}`] });
    const copy = async (from: number, to: number) => {
      // Read 16 at a time (below the node's work queue), submit in order.
      for (let start = from; start <= to; start += 16) {
        const heights = Array.from({ length: Math.min(16, to - start + 1) }, (_, i) => start + i);
        const raws = await Promise.all(heights.map(async (h) => node.rpc<string>('getblock', await node.rpc<string>('getblockhash', h), 0)));
        for (const raw of raws) expect(await restored.rpc('submitblock', raw)).toBeNull();
      }
    };
    const restoredSource = () => createRpcSource({ ...rpcConfig, url: restored.rpcUrl, user: restored.user, password: restored.password }, regtest);
    const db = await openDb('restored');
    const reference = await openDb('restored-reference');
    try {
      await copy(1, copied);
      expect(await restored.rpc('getblockchaininfo')).toMatchObject({ blocks: copied, headers: copied, initialblockdownload: true });
      const logs: string[] = [];
      expect(await scanChain(db, restoredSource(), { log: (line) => logs.push(line) })).toMatchObject({ fromHeight: 432, toHeight: copied });
      expect(logs).toContain(`warning: the node reports initial block download but has every block it knows of (${copied}): `
        + 'its tip is more than a day old (usual for testnet and restored regtest chains); scanning it');
      await scanChain(reference, source(), { to: copied });
      expect(await dump(db)).toEqual(await dump(reference));

      // Three more blocks and the header of a fourth without its block: now it really is syncing.
      await copy(copied + 1, copied + 3);
      const header = await node.rpc<string>('getblockheader', await node.rpc<string>('getblockhash', copied + 4), false);
      await restored.rpc('submitheader', header);
      expect(await restored.rpc('getblockchaininfo')).toMatchObject({ blocks: copied + 3, headers: copied + 4, initialblockdownload: true });
      const before = await dump(db);
      await expect(scanChain(db, restoredSource())).rejects.toThrow(NodeSyncingError);
      await expect(scanChain(db, restoredSource())).rejects.toThrow(`the node is still in initial block download (blocks ${copied + 3}/${copied + 4}); `
        + 'try again when it has synced (blocks equal headers), or pass --allow-syncing to scan the blocks it has now');
      expect(await dump(db)).toEqual(before);
      logs.length = 0;
      expect(await scanChain(db, restoredSource(), { allowSyncing: true, log: (line) => logs.push(line) }))
        .toMatchObject({ fromHeight: copied + 1, toHeight: copied + 3, blocks: 3 });
      expect(logs).toContain(`warning: the node is still syncing (blocks ${copied + 3}/${copied + 4}); --allow-syncing: scanning the ${copied + 3} blocks it has`);
      await scanChain(reference, source(), { to: copied + 3 });
      expect(await dump(db)).toEqual(await dump(reference));
    } finally {
      db.close();
      reference.close();
      await restored.stop();
    }
  });

  it('node down mid-life: the scan fails with a clear error and leaves the database as it was', async () => {
    const db = await openDb('main');
    try {
      const before = await dump(db);
      await node.stop();
      const err = await scanChain(db, createRpcSource(rpcConfig, regtest, { retries: 1, backoffMs: 50 })).catch((e: Error) => e);
      expect(err).toBeInstanceOf(NodeUnreachableError);
      expect(await dump(db)).toEqual(before);
    } finally {
      db.close();
    }
  });
});

describe.skipIf(!enabled)('a fresh node without -txindex', () => {
  let node: RegtestNode;
  beforeAll(async () => { node = await startRegtestNode({ fundMiner: false, waitForRpc: false, extraArgs: ['-txindex=0'] }); });
  afterAll(async () => { await node?.stop(); });

  it('retries while the node starts (connection refused, then warming up) and then gets its answer', async () => {
    const config: RpcConfig = { url: node.rpcUrl, user: node.user, password: node.password, timeoutMs: 10_000, batchSize: 10, concurrency: 1 };
    const source = createRpcSource(config, regtest, { retries: 8, backoffMs: 100 });
    expect(await source.client.call<number>('getblockcount')).toBe(0);
  });

  it('a fresh node is in initial block download with blocks equal to headers: not refused for that, the missing -txindex is reported', async () => {
    const config: RpcConfig = { url: node.rpcUrl, user: node.user, password: node.password, timeoutMs: 10_000, batchSize: 10, concurrency: 1 };
    const db = await Db.open(':memory:');
    try {
      // Its genesis block is years old: Litecoin Core reports initial block download although there is nothing to download.
      expect(await node.rpc('getblockchaininfo')).toMatchObject({ blocks: 0, headers: 0, initialblockdownload: true });
      await expect(scanChain(db, createRpcSource(config, regtest))).rejects.toThrow(TxIndexMissingError);
      const address = 'rltc1qw4v2ym8cupwazjwhqhe95ldy7emh4zlhcvfyl6';
      const [hash] = await node.mine(1, address);
      await expect(createRpcSource(config, regtest).info()).rejects.toThrow(TxIndexMissingError);
      const coinbase = (await node.rpc<{ tx: string[] }>('getblock', hash, 1)).tx[0]!;
      await node.mine(1, address);
      await expect(createRpcSource(config, regtest).rawTransactions([coinbase])).rejects.toThrow(/restart litecoind with -txindex=1/);
    } finally {
      db.close();
    }
  });

});
