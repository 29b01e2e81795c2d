import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/cli.js';
import { resolveConfig } from '../src/config.js';
import { deliverUntil, runJob, type JobOptions } from '../src/job.js';
import { silentProgress } from '../src/progress.js';
import { Db } from '../src/store/db.js';
import { deliverDue } from '../src/notify/deliver.js';
import { recordEvents } from '../src/notify/record.js';
import { listWatches } from '../src/notify/watchlist.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

/**
 * Watches on the simulated chain (tiny preset, seed 3), through the real job:
 * scan → analyze → export → record → signed delivery to a receiver on
 * 127.0.0.1 that verifies every signature with the standardwebhooks package.
 */
const dir = mkdtempSync(join(tmpdir(), 'pegscope-notify-'));
const config = resolveConfig({ network: 'sim', db: join(dir, 'sim.duckdb'), out: join(dir, 'out') });
const lines: string[] = [];
const job: JobOptions = { source: 'sim', preset: 'tiny', seed: 3, allowPrivateWebhooks: true, progress: silentProgress, log: (l) => lines.push(l) };
/** A peg-in at 3200 funded by FUNDER, whose peg-out at 3228 pays RECEIVER (a link of confidence 0.99 on this chain). */
const FUNDER = 'rltc1qetl90v72ycyhklk9ed6ry5vegvl6c9zcs59nd8';
const RECEIVER = 'rltc1q9lt3p3wzp2a78hlctheee8dwz38vhj76gk87tj';
/** An address that funded two peg-ins before 3100. */
const EARLY = 'rltc1qek2xqj982h36yglrmdxqq2en44xq87qzj03v8e';

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '', stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((c) => { stdout += String(c); return true; });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((c) => { stderr += String(c); return true; });
  try {
    return { code: await main([...args, '--network', 'sim', '--db', config.dbPath]), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = undefined;
  }
}

/** `watch add` through the CLI: the id and secret it prints. */
async function addWatch(address: string, url: string, ...more: string[]): Promise<{ id: string; secret: string }> {
  const { code, stdout, stderr } = await cli(['watch', 'add', address, '--webhook', url, '--allow-private-webhooks', ...more]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return { id: /^watch (w_[0-9a-f]+) on /m.exec(stdout)![1]!, secret: /^secret (whsec_\S+)$/m.exec(stdout)![1]! };
}

/** The id the contract derives: from (watch, type, txid, vout), and a link's peg-in. */
const idOf = (...parts: (string | number)[]): string => `evt_${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32)}`;
/** Coins as the API writes them: exact, trailing zeros trimmed. */
const coins = (litoshi: number): string => `${Math.trunc(litoshi / 1e8)}.${String(litoshi % 1e8).padStart(8, '0')}`.replace(/\.?0+$/, '');

async function withDb<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const db = await Db.open(config.dbPath);
  try {
    return await work(db);
  } finally {
    db.close();
  }
}

/** Every file under `root`. */
function allFiles(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? allFiles(path) : [path];
  });
}

describe('watchlist on the simulated chain', () => {
  let receiver: Receiver;
  let funder: { id: string; secret: string };

  beforeAll(async () => {
    receiver = await startReceiver();
    await runJob(config, { ...job, to: 3150 });
  }, 180_000);
  afterAll(() => receiver.close());

  it('sends the exact events of the blocks where the address appears, signed, after the release is published', async () => {
    funder = await addWatch(FUNDER, receiver.url, '--label', 'cold wallet');
    receiver.useSecret(funder.secret);
    const listed = await cli(['watch', 'list']);
    expect(listed.stdout).toContain(`${funder.id} ${FUNDER} → http://127.0.0.1:`);
    expect(listed.stdout).not.toContain(funder.secret);
    expect(listed.stdout).not.toContain('/hooks/pegscope');

    const result = await runJob(config, { ...job, to: 3300 });
    const expected = await withDb(async (db) => {
      const pegin = (await db.one<{ txid: string; vout: number; height: number; amount: bigint; hash: string }>(
        `SELECT p.txid, p.vout, p.height, p.amount, b.hash FROM pegins p JOIN pegin_inputs i ON i.pegin_txid = p.txid JOIN blocks b ON b.height = p.height WHERE i.address = $1`, [FUNDER]))!;
      const link = (await db.one<{ txid: string; vout: number; height: number; amount: bigint; confidence: number; hash: string }>(
        `SELECT pegout_txid AS txid, pegout_vout AS vout, pegout_height AS height, pegout_amount AS amount, confidence, b.hash
         FROM a_links JOIN blocks b ON b.height = pegout_height WHERE pegin_txid = $1`, [pegin.txid]))!;
      return [
        {
          id: idOf(funder.id, 'pegin.funded', pegin.txid, pegin.vout), type: 'pegin.funded', network: 'sim', watch_id: funder.id, address: FUNDER, label: 'cold wallet',
          height: 3200, block_hash: pegin.hash, txid: pegin.txid, vout: pegin.vout, amount: coins(Number(pegin.amount)), amount_litoshi: Number(pegin.amount), confidence: null,
        },
        {
          id: idOf(funder.id, 'link.found', link.txid, link.vout, pegin.txid, pegin.vout), type: 'link.found', network: 'sim', watch_id: funder.id, address: FUNDER, label: 'cold wallet',
          height: 3228, block_hash: link.hash, txid: link.txid, vout: link.vout, amount: coins(Number(link.amount)), amount_litoshi: Number(link.amount), confidence: link.confidence,
          link: { pegin_txid: pegin.txid, pegin_vout: pegin.vout, pegin_height: 3200, pegin_amount: coins(Number(pegin.amount)), pegin_amount_litoshi: Number(pegin.amount) },
        },
      ];
    });
    expect(expected[1]!.confidence).toBeGreaterThanOrEqual(0.5);
    expect(receiver.received.map((r) => r.verified)).toEqual([true, true]);
    expect(receiver.received.map((r) => r.id)).toEqual(expected.map((e) => e.id));
    expect(receiver.received.map((r) => r.body!.data)).toEqual(expected);
    expect(receiver.received.map((r) => r.body!.type)).toEqual(['pegin.funded', 'link.found']);
    // Delivered after the release was published: the job's own log says so, in that order.
    expect(lines.findIndex((l) => l.startsWith(`published ${result.release_id}`))).toBeLessThan(lines.findIndex((l) => l.startsWith('notify: 2 delivered')));
    expect(lines.join('\n')).not.toContain(funder.secret);
    // The watchlist is never published.
    const release = join(config.outDir, readlinkSync(join(config.outDir, 'current')));
    for (const file of allFiles(release)) {
      const text = readFileSync(file).toString('latin1');
      expect(text.includes(FUNDER) ? text : '').not.toContain(funder.id);
      expect(text).not.toContain(funder.secret.slice(6, 30));
    }
  }, 180_000);

  it('a rerun over the same blocks mints no second id and sends nothing again; a new label sends attribution.changed', async () => {
    const before = receiver.received.length;
    await runJob(config, { ...job, to: 3300 });
    expect(receiver.received.length).toBe(before);
    const labels = join(dir, 'labels.csv');
    writeFileSync(labels, `address,entity,category,confidence,source\n${FUNDER},Example Exchange,exchange,0.9,test\n`);
    await runJob(config, { ...job, to: 3300, labels: [labels] });
    const sent = receiver.received.slice(before);
    expect(sent.map((r) => [r.verified, r.body?.type])).toEqual([[true, 'attribution.changed']]);
    expect(sent[0]!.body!.data).toMatchObject({
      watch_id: funder.id, height: 3300, txid: null, amount: null,
      attribution: { previous: null, current: { entity: 'Example Exchange', category: 'exchange', via: 'direct', confidence: 0.9 } },
    });
  }, 180_000);

  it('a receiver answering 500 twice then 200 gets each event three times under the same id, then nothing more', async () => {
    const attempts = new Map<string, number>();
    const flaky = await startReceiver((_n, req) => {
      const id = String(req.headers['webhook-id']);
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      return attempts.get(id)! <= 2 ? 500 : 200;
    });
    try {
      const early = await addWatch(EARLY, flaky.url, '--since', '0', '--min-confidence', '0.99');
      flaky.useSecret(early.secret);
      const quick = { allowPrivate: true, log: () => undefined, retry: { delayMs: () => 0, windowMs: 60_000 } };
      await withDb(async (db) => {
        await recordEvents(db, 'sim', Date.now());
        for (let pass = 0; pass < 4; pass++) await deliverDue(db, quick);
      });
      const ids = [...attempts.keys()];
      expect(ids.length).toBeGreaterThanOrEqual(2);
      expect([...attempts.values()]).toEqual(ids.map(() => 3));
      expect(flaky.received.every((r) => r.verified)).toBe(true);
      expect(flaky.received.map((r) => r.id).sort()).toEqual(ids.flatMap((id) => [id, id, id]).sort());
      const listed = (await withDb(listWatches)).find((w) => w.id === early.id)!;
      expect([listed.pending, listed.delivered, listed.failed]).toEqual([0n, BigInt(ids.length), 0n]);
    } finally {
      await flaky.close();
    }
  }, 60_000);

  it('job --every delivers between runs: a retry due before the next run is made then', async () => {
    const once = new Set<string>();
    const flaky = await startReceiver((_n, req) => {
      const id = String(req.headers['webhook-id']);
      if (once.has(id)) return 200;
      once.add(id);
      return 500;
    });
    try {
      const watch = await addWatch(EARLY, flaky.url, '--since', '0');
      const retry = { delayMs: () => 300, windowMs: 60_000 };
      await withDb(async (db) => {
        await recordEvents(db, 'sim', Date.now());
        expect((await deliverDue(db, { allowPrivate: true, log: () => undefined, retry })).retrying).toBeGreaterThan(0);
      });
      const until = Date.now() + 2_000;
      await deliverUntil([config], { ...job, delivery: { retry } }, until, new AbortController().signal);
      expect(Date.now()).toBeGreaterThanOrEqual(until);
      const delivered = flaky.received.filter((r) => r.at < until);
      expect(delivered.length).toBe(2 * once.size);
      const listed = (await withDb(listWatches)).find((w) => w.id === watch.id)!;
      expect([listed.pending, listed.delivered]).toEqual([0n, BigInt(once.size)]);
      await cli(['watch', 'remove', watch.id]);
    } finally {
      await flaky.close();
    }
  }, 60_000);

  it('a receiver that keeps failing is given up after the retry window and `watch list` shows it failed', async () => {
    const down = await startReceiver(() => 503);
    try {
      const watch = await addWatch(EARLY, down.url, '--since', '0');
      const noWindow = { allowPrivate: true, log: () => undefined, retry: { delayMs: () => 1, windowMs: 0 } };
      await withDb(async (db) => {
        await recordEvents(db, 'sim', Date.now());
        await deliverDue(db, noWindow);
        expect(await deliverDue(db, noWindow)).toEqual({ delivered: 0, retrying: 0, failed: 0, deferred: 0 });
      });
      const listed = await cli(['watch', 'list']);
      expect(listed.stdout).toMatch(new RegExp(`${watch.id} .*: 0 pending, 0 delivered, [1-9]\\d* failed`));
      expect((await cli(['watch', 'remove', watch.id])).stdout).toContain(`removed ${watch.id}`);
    } finally {
      await down.close();
    }
  }, 60_000);

  it('a receiver that hangs: the attempt times out, the release was already published and the job ends on time', async () => {
    const hang = await startReceiver(() => 'hang');
    try {
      const watch = await addWatch(RECEIVER, hang.url, '--since', '0');
      const started = Date.now();
      const result = await runJob(config, { ...job, to: 3300, delivery: { limits: { timeoutMs: 500, maxHeaderBytes: 16_384 } } });
      const took = Date.now() - started;
      expect(hang.received.length).toBeGreaterThan(0);
      // The export was done before the first attempt reached the receiver.
      const publishedAt = statSync(join(config.outDir, 'releases', result.release_id, 'manifest.json')).mtimeMs;
      expect(publishedAt).toBeLessThanOrEqual(hang.received[0]!.at);
      // One watch's events go one after the other, each cut at 0.5 s.
      expect(Date.now() - hang.received[0]!.at).toBeLessThan(hang.received.length * 500 + 2_000);
      expect(took).toBeLessThan(120_000);
      const rows = await withDb((db) => db.all<{ status: string; last_error: string }>('SELECT status, last_error FROM watch_outbox WHERE watch_id = $1', [watch.id]));
      expect(rows.length).toBe(hang.received.length);
      expect(rows.every((r) => r.status === 'pending' && r.last_error === 'no answer within 0.5 s')).toBe(true);
      await cli(['watch', 'remove', RECEIVER]);
    } finally {
      await hang.close();
    }
  }, 180_000);

  it('refuses a webhook on 127.0.0.1 without the allowance, with a clear message and exit 2', async () => {
    const { code, stderr, stdout } = await cli(['watch', 'add', FUNDER, '--webhook', 'http://127.0.0.1:9/x?token=abc']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/the webhook is refused: http:\/\/127\.0\.0\.1:9 resolves to 127\.0\.0\.1, a loopback, private or link-local address; .*--allow-private-webhooks/);
    expect(stderr).not.toContain('token=abc');
    expect(stdout).toBe('');
  });

  it('refuses bad input with exit 2: an address of another network, a bad confidence, a bad secret file, an unknown id', async () => {
    const bad = async (args: string[], message: RegExp) => {
      const { code, stderr } = await cli(args);
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
    };
    await bad(['watch', 'add', 'ltc1qhw80dfq8x5ww2zl4s0ct5rl6fu8ez2mgn6ftpz', '--webhook', 'https://example.com/h'], /is not a sim address/);
    await bad(['watch', 'add', FUNDER, '--webhook', 'https://example.com/h', '--min-confidence', '1.5'], /--min-confidence must be a number from 0 to 1/);
    await bad(['watch', 'add', FUNDER, '--webhook', 'ftp://example.com/h'], /http or https/);
    await bad(['watch', 'add', FUNDER, '--webhook', 'https://u:p@example.com/h'], /user name or password/);
    const secretFile = join(dir, 'secret');
    writeFileSync(secretFile, 'whsec_c2hvcnQ=\n');
    await bad(['watch', 'add', FUNDER, '--webhook', 'https://example.com/h', '--secret-file', secretFile], /--secret-file: a secret holds 24 to 64 bytes/);
    await bad(['watch', 'remove', 'w_000000000000'], /no watch has the id or address/);
    await bad(['watch', 'test', 'w_000000000000'], /no watch has the id/);
  });

  it('`watch test` sends a signed watch.test event; --secret-file takes an existing secret', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const secretFile = join(dir, 'secret-ok');
    writeFileSync(secretFile, `${secret}\n`);
    const test = await startReceiver();
    try {
      const { code, stdout } = await cli(['watch', 'add', FUNDER, '--webhook', test.url, '--allow-private-webhooks', '--secret-file', secretFile]);
      expect(code).toBe(0);
      expect(stdout).not.toContain('secret');
      const id = /^watch (w_[0-9a-f]+) /.exec(stdout)![1]!;
      test.useSecret(secret);
      const sent = await cli(['watch', 'test', id, '--allow-private-webhooks']);
      expect(sent.code).toBe(0);
      expect(sent.stdout).toMatch(/^evt_[0-9a-f]{32} delivered: HTTP 200$/m);
      expect(test.received.map((r) => [r.verified, r.body?.type])).toEqual([[true, 'watch.test']]);
      await cli(['watch', 'remove', id]);
    } finally {
      await test.close();
    }
  });
});
