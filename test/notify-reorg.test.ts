import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../src/analysis/analyze.js';
import { NETWORKS } from '../src/domain/network.js';
import { deliverDue } from '../src/notify/deliver.js';
import { recordEvents } from '../src/notify/record.js';
import { addWatch } from '../src/notify/watchlist.js';
import { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';
import { finalChain, fixtureSource, loadRecording, orphanChain } from './helpers/fixture-source.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

/**
 * The regtest recording: a chain whose last 4 blocks a reorg replaced, the
 * orphaned ones holding a peg-out to ORPHANED that the new chain does not
 * have; and a kill during delivery.
 */
const dir = mkdtempSync(join(tmpdir(), 'pegscope-notify-reorg-'));
const rec = loadRecording();
const ORPHANED = rec.truth.reorg.orphaned_pegouts[0].address as string;
const CHILD = join(import.meta.dirname, 'helpers', 'deliver-child.ts');
const deliver = { allowPrivate: true, log: () => undefined };

async function watch(db: Db, address: string, receiver: Receiver): Promise<string> {
  const added = await addWatch(db, NETWORKS.regtest, { address, url: receiver.url, since: 0, allowPrivate: true }, Date.now());
  receiver.useSecret(added.secret);
  return added.id;
}

describe('a reorg retracts the events of the blocks it removed', () => {
  let receiver: Receiver;
  beforeAll(async () => { receiver = await startReceiver(); });
  afterAll(() => receiver.close());

  it('sends event.retracted naming each event already sent whose block is gone, once', async () => {
    const db = await Db.open(join(dir, 'reorg.duckdb'));
    try {
      await scanChain(db, fixtureSource(rec, orphanChain(rec)).source);
      await analyze(db, { now: 1_700_000_000, horizon: 40 });
      const id = await watch(db, ORPHANED, receiver);
      await recordEvents(db, 'regtest', Date.now());
      await deliverDue(db, deliver);
      const sent = receiver.received.map((r) => r.body!.data);
      expect(sent.map((d) => d.type)).toContain('pegout.received');
      expect(sent.every((d) => Number(d.height) > rec.truth.reorg.fork_height)).toBe(true);

      const scanned = await scanChain(db, fixtureSource(rec, finalChain(rec)).source);
      expect(scanned.reorgDepth).toBe(4);
      await analyze(db, { now: 1_700_000_100, horizon: 40 });
      expect(await recordEvents(db, 'regtest', Date.now())).toEqual({ events: 0, retracted: sent.length, cancelled: 0 });
      await deliverDue(db, deliver);
      const retractions = receiver.received.slice(sent.length);
      expect(retractions.every((r) => r.verified && r.body!.type === 'event.retracted')).toBe(true);
      expect(retractions.map((r) => r.body!.data.retracts)).toEqual(sent.map((d) => ({ id: d.id, type: d.type })));
      expect(retractions[0]!.body!.data).toMatchObject({ watch_id: id, txid: sent[0]!.txid, vout: sent[0]!.vout, amount: sent[0]!.amount, height: sent[0]!.height });
      // Again: nothing new.
      expect(await recordEvents(db, 'regtest', Date.now())).toEqual({ events: 0, retracted: 0, cancelled: 0 });
    } finally {
      db.close();
    }
  }, 120_000);
});

describe('a kill during delivery', () => {
  it('loses no event: after a restart every event arrives at least once under its original id', async () => {
    const path = join(dir, 'kill.duckdb');
    let killed = false;
    let child: ReturnType<typeof spawn> | null = null;
    // The second request never gets an answer: the child (one attempt at a time) is killed while it waits.
    const receiver = await startReceiver((n) => {
      if (n === 2 && !killed) {
        killed = true;
        child!.kill('SIGKILL');
        return 'hang';
      }
      return 200;
    });
    const run = (): Promise<{ code: number | null; out: string }> => new Promise((resolve) => {
      let out = '';
      child = spawn(process.execPath, ['--import', 'tsx', CHILD, path, '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
      child.stdout!.on('data', (c: Buffer) => { out += String(c); });
      child.on('exit', (code) => resolve({ code, out }));
    });
    try {
      const ids = await (async () => {
        const db = await Db.open(path);
        try {
          await scanChain(db, fixtureSource(rec, finalChain(rec)).source);
          await analyze(db, { now: 1_700_000_000, horizon: 40 });
          // Five watches (the orphaned peg-out's address, four funding addresses) with one secret, the one the receiver checks with.
          const secret = (await addWatch(db, NETWORKS.regtest, { address: ORPHANED, url: receiver.url, since: 0, allowPrivate: true }, Date.now())).secret;
          receiver.useSecret(secret);
          for (const { address } of await db.all<{ address: string }>('SELECT DISTINCT address FROM pegin_inputs WHERE address IS NOT NULL ORDER BY address LIMIT 4')) {
            await addWatch(db, NETWORKS.regtest, { address, url: receiver.url, since: 0, secret, allowPrivate: true }, Date.now());
          }
          await recordEvents(db, 'regtest', Date.now());
          return (await db.all<{ id: string }>('SELECT id FROM watch_events ORDER BY id')).map((e) => e.id);
        } finally {
          db.close();
        }
      })();
      expect(ids.length).toBeGreaterThanOrEqual(3);
      const first = await run();
      expect(first.out).not.toContain('done');
      expect(killed).toBe(true);
      const second = await run();
      expect(second).toEqual({ code: 0, out: 'done\n' });
      expect(receiver.received.every((r) => r.verified)).toBe(true);
      const received = receiver.received.map((r) => r.id);
      expect([...new Set(received)].sort()).toEqual(ids);
      // The attempt cut by the kill is made again under the same id; nothing else twice.
      expect(received.length).toBe(ids.length + 1);
      expect(received.filter((id) => id === received[1]).length).toBe(2);
      const db = await Db.open(path);
      try {
        expect(await db.all('SELECT DISTINCT status FROM watch_outbox')).toEqual([{ status: 'delivered' }]);
      } finally {
        db.close();
      }
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
