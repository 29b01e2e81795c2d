import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scanChain } from '../src/store/scan.js';
import { Db } from '../src/store/db.js';
import { NETWORKS } from '../src/domain/network.js';
import { NetworkMismatchError, NodeSyncingError } from '../src/chain/errors.js';
import type { ChainSource } from '../src/chain/types.js';
import { finalChain, fixtureSource, loadRecording, orphanChain, type Recording } from './helpers/fixture-source.js';

let rec: Recording;
const dbs: Db[] = [];
beforeAll(() => { rec = loadRecording(); });
afterEach(() => { while (dbs.length) dbs.pop()!.close(); });

async function memoryDb(): Promise<Db> {
  const db = await Db.open(':memory:');
  dbs.push(db);
  return db;
}

const num = (v: unknown) => Number(v);

async function pegins(db: Db) {
  const rows = await db.all<Record<string, unknown>>('SELECT txid, vout, height, amount, kernel_id, input_count, source_address FROM pegins ORDER BY txid, vout');
  return rows.map((r) => ({ id: `${r.txid}:${r.vout}`, height: r.height, amount_sat: num(r.amount), kernel_id: r.kernel_id, input_count: r.input_count, source_address: r.source_address }));
}

async function pegouts(db: Db) {
  const rows = await db.all<Record<string, unknown>>('SELECT txid, vout, height, amount, address, script_hex FROM pegouts ORDER BY txid, vout');
  return rows.map((r) => ({ id: `${r.txid}:${r.vout}`, height: r.height, amount_sat: num(r.amount), address: r.address, script_pubkey: r.script_hex }));
}

/** Everything the scan stored, for comparing two databases. */
async function dump(db: Db) {
  const tables = ['blocks', 'pegins', 'pegin_inputs', 'pegouts'];
  const out: Record<string, unknown> = {};
  for (const t of tables) out[t] = (await db.all(`SELECT * FROM ${t} ORDER BY ALL`)).map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  out.cursor = await db.getMeta('cursor_height');
  return out;
}

function expectedPegins(truth: Recording['truth']) {
  return (truth.pegins as Record<string, unknown>[]).map((p) => {
    const inputs = p.funding_inputs as { address: string; amount_sat: number }[];
    const byAddress = new Map<string, number>();
    for (const i of inputs) byAddress.set(i.address, (byAddress.get(i.address) ?? 0) + i.amount_sat);
    const top = [...byAddress].sort((a, b) => b[1] - a[1])[0]![0];
    return { id: p.id, height: p.height, amount_sat: p.amount_sat, kernel_id: p.kernel_id, input_count: inputs.length, source_address: top };
  }).sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

function expectedPegouts(truth: Recording['truth']) {
  return (truth.pegouts as Record<string, unknown>[])
    .map((p) => ({ id: p.id, height: p.height, amount_sat: p.amount_sat, address: p.address, script_pubkey: p.script_pubkey }))
    .sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

describe('scanChain over the regtest-small recording', () => {
  it('stores every peg-in, peg-out and funding input of the ground truth', async () => {
    const db = await memoryDb();
    const { source } = fixtureSource(rec, finalChain(rec));
    const result = await scanChain(db, source, { batchBlocks: 37 });
    expect(result).toEqual({ fromHeight: 432, toHeight: 894, blocks: 463, pegins: 17, pegouts: 16, reorgDepth: 0 });
    expect(await pegins(db)).toEqual(expectedPegins(rec.truth));
    expect(await pegouts(db)).toEqual(expectedPegouts(rec.truth));
    const inputs = await db.all<Record<string, unknown>>('SELECT pegin_txid, n, prev_txid, prev_vout, address, value FROM pegin_inputs ORDER BY pegin_txid, n');
    const truthInputs = (rec.truth.pegins as { txid: string; funding_inputs: { txid: string; vout: number; address: string; amount_sat: number }[] }[])
      .flatMap((p) => p.funding_inputs.map((i, n) => ({ pegin_txid: p.txid, n, prev_txid: i.txid, prev_vout: i.vout, address: i.address, value: i.amount_sat })))
      .sort((a, b) => a.pegin_txid.localeCompare(b.pegin_txid) || a.n - b.n);
    expect(inputs.map((r) => ({ ...r, value: num(r.value) }))).toEqual(truthInputs);
    expect(await db.getMeta('cursor_height')).toBe('894');
    expect(await db.getMeta('network')).toBe('regtest');
    expect(await db.getMeta('mweb_activation_height')).toBe('432');
  });

  it('stores per-block counts, totals, supply and MWEB counts like the node reports them', async () => {
    const db = await memoryDb();
    const { source } = fixtureSource(rec, finalChain(rec));
    await scanChain(db, source);
    const b432 = await db.one<Record<string, unknown>>('SELECT * FROM blocks WHERE height = 432');
    const json = rec.verbose.get(rec.mainChain.find((b) => b.height === 432)!.hash)! as unknown as { tx: { txid: string }[]; mweb: { num_txos: number; num_kernels: number } };
    expect(b432).toMatchObject({ pegin_count: 3, pegout_count: 0, tx_count: json.tx.length, hogex_txid: json.tx.at(-1)!.txid, mweb_num_kernels: json.mweb.num_kernels });
    expect(num(b432!.mweb_num_txos)).toBe(json.mweb.num_txos);
    expect(num(b432!.pegin_total)).toBe(expectedPegins(rec.truth).filter((p) => p.height === 432).reduce((a, p) => a + (p.amount_sat as number), 0));
    const b775 = await db.one<Record<string, unknown>>('SELECT pegout_count, pegout_total FROM blocks WHERE height = 775');
    expect(b775!.pegout_count).toBe(3);
    // Supply only ever changes by peg-ins minus peg-outs minus MWEB fees: never grows by more than the peg-ins.
    const bad = await db.one<{ n: bigint }>(`SELECT count(*) AS n FROM (
      SELECT supply - lag(supply) OVER (ORDER BY height) AS delta, pegin_total, pegout_total FROM blocks) WHERE delta > pegin_total - pegout_total`);
    expect(bad!.n).toBe(0n);
  });

  it('resumes from the cursor and is idempotent: a second run stores nothing new', async () => {
    const db = await memoryDb();
    const { source } = fixtureSource(rec, finalChain(rec, 700));
    await scanChain(db, source, { batchBlocks: 50 });
    const full = fixtureSource(rec, finalChain(rec));
    const second = await scanChain(db, full.source, { batchBlocks: 50 });
    expect(second.fromHeight).toBe(701);
    expect(second.toHeight).toBe(894);
    const third = await scanChain(db, full.source);
    expect(third).toMatchObject({ fromHeight: 895, blocks: 0, reorgDepth: 0 });
    const once = await memoryDb();
    await scanChain(once, fixtureSource(rec, finalChain(rec)).source);
    expect(await dump(db)).toEqual(await dump(once));
  });

  it('--to bounds the scan', async () => {
    const db = await memoryDb();
    const result = await scanChain(db, fixtureSource(rec, finalChain(rec)).source, { to: 500 });
    expect(result).toMatchObject({ fromHeight: 432, toHeight: 500, blocks: 69 });
    expect(await db.getMeta('cursor_height')).toBe('500');
  });

  it('a reorg removes the orphaned peg-out and adds the replacement', async () => {
    const db = await memoryDb();
    await scanChain(db, fixtureSource(rec, orphanChain(rec)).source);
    const orphanId = rec.truth.reorg.orphaned_pegouts[0].orphan_id as string;
    expect((await pegouts(db)).map((p) => p.id)).toContain(orphanId);
    const result = await scanChain(db, fixtureSource(rec, finalChain(rec)).source);
    expect(result.reorgDepth).toBe(4);
    const ids = (await pegouts(db)).map((p) => p.id);
    expect(ids).not.toContain(orphanId);
    expect(ids).toEqual(expect.arrayContaining(rec.truth.reorg.replacement_pegouts));
    const once = await memoryDb();
    await scanChain(once, fixtureSource(rec, finalChain(rec)).source);
    expect(await dump(db)).toEqual(await dump(once));
  });

  it('a reorg that happens while the scan runs is undone before the scan goes on', async () => {
    const db = await memoryDb();
    const before = orphanChain(rec);
    const after = finalChain(rec);
    let current = before;
    const { source } = fixtureSource(rec, before);
    // The node switches branches right after handing out the hashes of the batch holding orphaned block 890.
    const moving: ChainSource = {
      ...source,
      blockHashes: async (heights) => {
        const hashes = heights.map((h) => current.get(h)!);
        if (heights.includes(890)) current = after;
        return hashes;
      },
      rawBlocks: (hashes) => fixtureSource(rec, after).source.rawBlocks(hashes),
    };
    const logs: string[] = [];
    const result = await scanChain(db, moving, { batchBlocks: 5, log: (line) => logs.push(line) });
    expect(result.reorgDepth).toBeGreaterThanOrEqual(1);
    expect(logs.some((l) => l.startsWith('reorg during scan'))).toBe(true);
    const stored = await db.all<{ height: number; hash: string }>('SELECT height, hash FROM blocks WHERE height >= 885 ORDER BY height');
    expect(stored).toEqual([...after].filter(([h]) => h >= 885 && h <= 893).map(([height, hash]) => ({ height, hash })));
    await scanChain(db, fixtureSource(rec, after).source);
    const once = await memoryDb();
    await scanChain(once, fixtureSource(rec, after).source);
    expect(await dump(db)).toEqual(await dump(once));
  });

  it('a reorg deeper than the search window is found too', async () => {
    const db = await memoryDb();
    // Pretend every block from 500 on was replaced: the stored hashes above 499 are rewritten.
    await scanChain(db, fixtureSource(rec, finalChain(rec)).source);
    await db.exec("UPDATE blocks SET hash = 'x' || hash WHERE height >= 500");
    const result = await scanChain(db, fixtureSource(rec, finalChain(rec)).source);
    expect(result).toMatchObject({ reorgDepth: 395, fromHeight: 500, toHeight: 894 });
    const once = await memoryDb();
    await scanChain(once, fixtureSource(rec, finalChain(rec)).source);
    expect(await dump(db)).toEqual(await dump(once));
  });

  it('resolves inputs from the batch and a cache: each previous transaction is fetched at most once', async () => {
    const db = await memoryDb();
    const { source, calls } = fixtureSource(rec, finalChain(rec));
    await scanChain(db, source, { batchBlocks: 1000 });
    expect(new Set(calls.txids).size).toBe(calls.txids.length);
    // HogExes of the same batch that pegged-in outputs spend are read from the batch itself.
    const hogexes = new Set((rec.truth.pegouts as { txid: string }[]).map((p) => p.txid));
    const spentHogexes = await db.all<{ prev_txid: string }>('SELECT DISTINCT prev_txid FROM pegin_inputs');
    expect(spentHogexes.filter((r) => hogexes.has(r.prev_txid)).length).toBeGreaterThan(0);
    expect(calls.txids.filter((t) => hogexes.has(t))).toEqual([]);
    expect(calls.txids.length).toBeGreaterThan(0);
  });

  it('falls back to verbosity 2 for a block the raw parser rejects, with the same rows', async () => {
    const db = await memoryDb();
    const { source } = fixtureSource(rec, finalChain(rec));
    const broken = rec.mainChain.find((b) => b.height === 775)!.hash; // three peg-outs
    const asked: string[] = [];
    const withFallback: ChainSource = {
      ...source,
      rawBlocks: async (hashes) => (await source.rawBlocks(hashes)).map((raw, i) => (hashes[i] === broken ? raw.subarray(0, 200) : raw)),
      verboseBlocks: async (hashes) => { asked.push(...hashes); return hashes.map((h) => rec.verbose.get(h)! as never); },
    };
    await scanChain(db, withFallback);
    expect(asked).toEqual([broken]);
    const once = await memoryDb();
    await scanChain(once, fixtureSource(rec, finalChain(rec)).source);
    // Block 775 was recorded raw, so both paths see its MWEB header: every stored row must agree.
    expect(await dump(db)).toEqual(await dump(once));
    const row = await db.one<{ pegout_count: number; mweb_num_kernels: number }>('SELECT pegout_count, mweb_num_kernels FROM blocks WHERE height = 775');
    expect(row).toEqual({ pegout_count: 3, mweb_num_kernels: 3 });
  });

  it('without a fallback a broken raw block fails the scan with a ParseError and stores nothing of its batch', async () => {
    const db = await memoryDb();
    const { source } = fixtureSource(rec, finalChain(rec));
    const broken = rec.mainChain.find((b) => b.height === 775)!.hash;
    const failing: ChainSource = { ...source, rawBlocks: async (hashes) => (await source.rawBlocks(hashes)).map((raw, i) => (hashes[i] === broken ? raw.subarray(0, 200) : raw)) };
    await expect(scanChain(db, failing, { batchBlocks: 50 })).rejects.toThrow(/unexpected end of data/);
    expect(Number(await db.getMeta('cursor_height'))).toBeLessThan(775);
    expect((await db.one<{ n: bigint }>('SELECT count(*) AS n FROM blocks WHERE height >= 775'))!.n).toBe(0n);
  });

  it('refuses a database of another network', async () => {
    const db = await memoryDb();
    await db.setMeta('network', 'mainnet');
    await expect(scanChain(db, fixtureSource(rec, finalChain(rec)).source)).rejects.toThrow(NetworkMismatchError);
    await expect(scanChain(db, fixtureSource(rec, finalChain(rec)).source)).rejects.toThrow(/holds mainnet data, not regtest/);
  });

  it('refuses a node on another chain than --network, and a node still syncing', async () => {
    const db = await memoryDb();
    const { source } = fixtureSource(rec, finalChain(rec));
    const mainnet: ChainSource = { ...source, network: NETWORKS.mainnet };
    await expect(scanChain(db, mainnet)).rejects.toThrow(/node is on chain "regtest" but --network is mainnet/);
    const syncing: ChainSource = { ...source, info: async () => ({ ...(await source.info()), initialBlockDownload: true, blocks: 600 }) };
    await expect(scanChain(db, syncing)).rejects.toThrow(NodeSyncingError);
    await expect(scanChain(db, syncing)).rejects.toThrow('the node is still in initial block download (blocks 600/894); '
      + 'try again when it has synced (blocks equal headers), or pass --allow-syncing to scan the blocks it has now');
    expect(await db.getMeta('cursor_height')).toBeUndefined();
  });

  it('scans a node in initial block download that has every block it has headers for (an old tip), with a warning', async () => {
    const db = await memoryDb();
    const { source } = fixtureSource(rec, finalChain(rec));
    const oldTip: ChainSource = { ...source, info: async () => ({ ...(await source.info()), initialBlockDownload: true }) };
    const logs: string[] = [];
    const result = await scanChain(db, oldTip, { log: (line) => logs.push(line) });
    expect(result).toMatchObject({ fromHeight: 432, toHeight: 894 });
    expect(logs[0]).toBe('warning: the node reports initial block download but has every block it knows of (894): '
      + 'its tip is more than a day old (usual for testnet and restored regtest chains); scanning it');
  });

  it('with --allow-syncing scans the blocks a syncing node has, and goes on from there once it has more', async () => {
    const db = await memoryDb();
    const { source } = fixtureSource(rec, finalChain(rec, 700));
    const syncing: ChainSource = { ...source, info: async () => ({ ...(await source.info()), initialBlockDownload: true, headers: 894 }) };
    const logs: string[] = [];
    expect(await scanChain(db, syncing, { allowSyncing: true, log: (line) => logs.push(line) })).toMatchObject({ fromHeight: 432, toHeight: 700 });
    expect(logs[0]).toBe('warning: the node is still syncing (blocks 700/894); --allow-syncing: scanning the 700 blocks it has');
    expect(await scanChain(db, fixtureSource(rec, finalChain(rec)).source)).toMatchObject({ fromHeight: 701, toHeight: 894 });
    const once = await memoryDb();
    await scanChain(once, fixtureSource(rec, finalChain(rec)).source);
    expect(await dump(db)).toEqual(await dump(once));
  });

  it('a failing source mid-scan leaves only whole batches behind, and a rerun completes them', async () => {
    const db = await memoryDb();
    const { source } = fixtureSource(rec, finalChain(rec));
    let calls = 0;
    const flaky: ChainSource = { ...source, rawBlocks: async (hashes) => { if (++calls === 4) throw new Error('connection reset'); return source.rawBlocks(hashes); } };
    await expect(scanChain(db, flaky, { batchBlocks: 40 })).rejects.toThrow('connection reset');
    const cursor = Number(await db.getMeta('cursor_height'));
    expect((cursor - 431) % 40).toBe(0);
    const top = await db.one<{ top: number }>('SELECT max(height) AS top FROM blocks');
    expect(top!.top).toBe(cursor);
    await scanChain(db, source, { batchBlocks: 40 });
    const once = await memoryDb();
    await scanChain(once, fixtureSource(rec, finalChain(rec)).source);
    expect(await dump(db)).toEqual(await dump(once));
  });
});
