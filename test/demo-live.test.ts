/**
 * `demo --live` (docs/notifications.md "Watching the demo chain grow"): the
 * simulated chain grows by a block every few seconds past its preset, the job
 * runs on each, and a watched address that appears in a new block gets its
 * signed webhook. The address is found by generating the same growing chain
 * ahead of the demo (it is deterministic).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSimSource } from '../src/chain/sim/index.js';
import { startDemo } from '../src/demo.js';
import { NETWORKS } from '../src/domain/network.js';
import { addWatch } from '../src/notify/watchlist.js';
import { growingRates, growTarget } from '../src/sources.js';
import { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';
import { startReceiver } from './helpers/webhook-receiver.js';

/** The first peg-out address of the growing tiny chain that appears only after the preset's length, and its height. */
const FIRST_NEW_PEGOUT = `SELECT address, min(height) AS height FROM pegouts WHERE address IS NOT NULL GROUP BY address
  HAVING min(height) > $1 AND address NOT IN (SELECT address FROM pegin_inputs WHERE address IS NOT NULL) ORDER BY height, address LIMIT 1`;

const work = mkdtempSync(join(tmpdir(), 'pegscope-demo-live-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('demo --live', () => {
  it('grows the chain a block at a time, and a watched address gets its webhook within 60 s', async () => {
    const base = growTarget(-1, 'tiny', 1);
    const ahead = await Db.open(':memory:');
    const source = createSimSource({ preset: 'tiny', seed: 1, rates: growingRates('tiny'), worker: false });
    let upcoming: { address: string; height: number } | undefined;
    try {
      await scanChain(ahead, source, { to: base + 40 });
      upcoming = await ahead.one<{ address: string; height: number }>(FIRST_NEW_PEGOUT, [base]);
    } finally {
      await source.close();
      ahead.close();
    }
    expect(upcoming, 'a new peg-out address within 40 blocks of the preset\'s end').toBeDefined();

    const receiver = await startReceiver();
    const dbPath = join(work, 'sim-live.duckdb');
    const db = await Db.open(dbPath);
    try {
      const watch = await addWatch(db, NETWORKS.sim, { address: upcoming!.address, url: receiver.url, allowPrivate: true, label: 'live' }, Date.now());
      receiver.useSecret(watch.secret);
    } finally {
      db.close();
    }
    const lines: string[] = [];
    const demo = await startDemo({ host: '127.0.0.1', port: 0, preset: 'tiny', db: dbPath, out: join(work, 'out'), live: { every: '1s' }, log: (l) => lines.push(l), print: () => undefined });
    try {
      const started = Date.now();
      while (!receiver.received.some((r) => r.body?.type === 'pegout.received') && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 250));
      const event = receiver.received.find((r) => r.body?.type === 'pegout.received');
      expect(event, lines.slice(-20).join('\n')).toBeDefined();
      expect(event!.verified).toBe(true);
      expect(event!.body!.data).toMatchObject({ address: upcoming!.address, height: upcoming!.height, label: 'live' });
      // Published as it grew: the release is past the preset's length.
      const health = await (await fetch(`${demo.url}/api/health`)).json() as { as_of_height: number };
      expect(health.as_of_height).toBeGreaterThanOrEqual(upcoming!.height);
      expect(lines.some((l) => l.startsWith(`scan: 1 new blocks up to ${base + 1} `))).toBe(true);
    } finally {
      await demo.close();
      await receiver.close();
    }
  }, 180_000);
});
