/**
 * End to end against a real `litecoind -regtest`: wallets make true round trips
 * (unique amounts, whole balance out) and decoys (two identical peg-ins, one of
 * which pegs out; a wallet that never pegs out). scan → analyze must find the
 * true round trips with high confidence and link none of the decoys.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analysis/analyze.js';
import { createRpcSource } from '../../src/chain/rpc.js';
import { NETWORKS } from '../../src/domain/network.js';
import { Db } from '../../src/store/db.js';
import { scanChain } from '../../src/store/scan.js';
import { createWallet, nodeTestsEnabled, pegIn, pegOut, startRegtestNode, type RegtestNode } from '../../scripts/lib/regtest.js';

const enabled = nodeTestsEnabled();

interface LinkRow { pegin_txid: string; pegout_address: string; confidence: number; amount_diff: bigint }

describe.skipIf(!enabled)('analysis against a live litecoind -regtest', () => {
  let node: RegtestNode;
  let work: string;
  let db: Db;
  const funding: Record<string, string> = {};
  const peginTxid: Record<string, string> = {};
  const exitAddress: Record<string, string> = {};

  /** Pegs the wallet's whole MWEB balance out to `address`. */
  async function pegOutAll(wallet: string, address: string): Promise<void> {
    const balance = await node.walletRpc<number>(wallet, 'getbalance');
    await pegOut(node, wallet, address, balance.toFixed(8), true);
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pegscope-analysis-node-'));
    node = await startRegtestNode();
    const amounts: Record<string, string> = { alice: '2.34567891', dave: '3.14159265', bob: '1', carol: '1' };
    for (const [wallet, amount] of Object.entries(amounts)) {
      await createWallet(node, wallet);
      funding[wallet] = await node.walletRpc<string>(wallet, 'getnewaddress', '', 'bech32');
      await node.mine(1);
      await node.walletRpc('miner', 'sendtoaddress', funding[wallet], amount);
    }
    await node.mine(Math.max(1, 431 - (await node.rpc<number>('getblockcount'))));
    // Everyone pegs in the whole funding UTXO; bob and carol end up with identical peg-in amounts.
    for (const [wallet, amount] of Object.entries(amounts)) peginTxid[wallet] = await pegIn(node, wallet, amount, true);
    await node.mine(30);
    exitAddress.alice = await node.walletRpc<string>('miner', 'getnewaddress', '', 'bech32');
    exitAddress.bob = await node.walletRpc<string>('miner', 'getnewaddress', '', 'bech32');
    exitAddress.dave = funding.dave!;
    await pegOutAll('alice', exitAddress.alice);
    await node.mine(4);
    await pegOutAll('bob', exitAddress.bob);
    await node.mine(3);
    await pegOutAll('dave', exitAddress.dave);
    await node.mine(10);

    db = await Db.open(join(work, 'analysis.duckdb'));
    const rpc = { url: node.rpcUrl, user: node.user, password: node.password, timeoutMs: 30_000, batchSize: 50, concurrency: 4 };
    await scanChain(db, createRpcSource(rpc, NETWORKS.regtest));
    await analyze(db);
  });

  afterAll(async () => {
    db?.close();
    await node?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('finds the true round trips with high confidence and MWEB-fee-sized differences', async () => {
    const links = await db.all<LinkRow>('SELECT pegin_txid, pegout_address, confidence, amount_diff FROM a_links WHERE confidence >= 0.5');
    const byPegin = new Map(links.map((l) => [l.pegin_txid, l]));
    for (const wallet of ['alice', 'dave']) {
      const link = byPegin.get(peginTxid[wallet]!);
      expect(link, `${wallet}'s round trip`).toBeDefined();
      expect(link!.pegout_address).toBe(exitAddress[wallet]);
      expect(link!.confidence).toBeGreaterThanOrEqual(0.9);
      expect(Number(link!.amount_diff)).toBeGreaterThanOrEqual(6_131);
      expect(Number(link!.amount_diff)).toBeLessThanOrEqual(9_500);
    }
  });

  it('links none of the decoys: identical peg-in amounts and the wallet that never pegged out', async () => {
    const decoys = await db.all('SELECT * FROM a_links WHERE pegin_txid IN ($1, $2) OR pegout_address = $3',
      [peginTxid.bob!, peginTxid.carol!, exitAddress.bob!]);
    expect(decoys).toEqual([]);
    const amounts = await db.all<{ amount: bigint }>('SELECT amount FROM pegins WHERE txid IN ($1, $2)', [peginTxid.bob!, peginTxid.carol!]);
    expect(amounts).toHaveLength(2);
    expect(amounts[0]!.amount).toBe(amounts[1]!.amount);
    const count = await db.one<{ n: bigint }>('SELECT count(*) AS n FROM a_links');
    expect(Number(count!.n)).toBe(2);
  });

  it('records the peg-out back to a funding address as reuse', async () => {
    expect(await db.all('SELECT address, pegin_txid FROM a_reuse')).toEqual([{ address: funding.dave, pegin_txid: peginTxid.dave }]);
  });
});
