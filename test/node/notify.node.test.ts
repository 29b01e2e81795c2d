/**
 * End to end against a real `litecoind -regtest`: the job publishes, a watched
 * address receives a peg-out, the job sends pegout.received; the block is
 * invalidated and a longer branch without that peg-out mined, and the next
 * run sends event.retracted naming it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, type ResolvedConfig } from '../../src/config.js';
import { runJob, type JobOptions } from '../../src/job.js';
import { NETWORKS } from '../../src/domain/network.js';
import { addWatch } from '../../src/notify/watchlist.js';
import { silentProgress } from '../../src/progress.js';
import { Db } from '../../src/store/db.js';
import { activateMweb, createWallet, mwebAddress, nodeTestsEnabled, pegOut, startRegtestNode, type RegtestNode } from '../../scripts/lib/regtest.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const enabled = nodeTestsEnabled();

describe.skipIf(!enabled)('watchlist against a live litecoind -regtest', () => {
  let node: RegtestNode;
  let work: string;
  let config: ResolvedConfig;
  let receiver: Receiver;
  const job: JobOptions = { source: 'rpc', allowPrivateWebhooks: true, horizon: 40, progress: silentProgress, log: () => undefined };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pegscope-notify-node-'));
    node = await startRegtestNode();
    receiver = await startReceiver();
    await createWallet(node, 'carol');
    await activateMweb(node, async () => { await node.walletRpc('miner', 'sendtoaddress', await mwebAddress(node, 'carol'), '10'); });
    await node.mine(5);
    config = resolveConfig({ network: 'regtest', db: join(work, 'regtest.duckdb'), out: join(work, 'out'), rpcUrl: node.rpcUrl, rpcUser: node.user, rpcPassword: node.password });
    await runJob(config, job);
  }, 300_000);

  afterAll(async () => {
    await receiver?.close();
    await node?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('sends pegout.received, then event.retracted naming it when a reorg removes its block', async () => {
    const watched = await node.walletRpc<string>('miner', 'getnewaddress', '', 'bech32');
    const db = await Db.open(config.dbPath);
    const added = await addWatch(db, NETWORKS.regtest, { address: watched, url: receiver.url, label: 'node', allowPrivate: true }, Date.now()).finally(() => db.close());
    receiver.useSecret(added.secret);

    const orphanMwebTxid = await pegOut(node, 'carol', watched, '0.75');
    const [orphanBlock] = await node.mine(2);
    await runJob(config, job);
    expect(receiver.received.map((r) => [r.verified, r.body?.type])).toEqual([[true, 'pegout.received']]);
    const sent = receiver.received[0]!.body!.data;
    expect(sent).toMatchObject({ network: 'regtest', address: watched, label: 'node', amount: '0.75', amount_litoshi: 75_000_000, block_hash: orphanBlock });

    await node.rpc('invalidateblock', orphanBlock);
    // The orphaned peg-out is back in the mempool; keep it out of the new branch.
    await node.rpc('prioritisetransaction', orphanMwebTxid, 0, -100_000_000);
    await node.mine(3);
    await runJob(config, job);
    expect(receiver.received.map((r) => [r.verified, r.body?.type])).toEqual([[true, 'pegout.received'], [true, 'event.retracted']]);
    expect(receiver.received[1]!.body!.data).toMatchObject({ retracts: { id: sent.id, type: 'pegout.received' }, txid: sent.txid, vout: sent.vout, amount: '0.75' });
  }, 300_000);
});
