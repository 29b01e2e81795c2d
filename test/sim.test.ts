import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBlock, type RawBlock } from '../src/chain/parse.js';
import { parseTransaction } from '../src/chain/raw-tx.js';
import { createSimSource, readSimTruth, SIM_LABELS_FILE, SIM_MWEB_ACTIVATION_HEIGHT, type SimTruth } from '../src/chain/sim/index.js';
import { sha256d } from '@pegscope/client';
import { NETWORKS } from '../src/domain/network.js';
import { recordingLines } from './helpers/fixtures.js';
import { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';

const work = mkdtempSync(join(tmpdir(), 'pegscope-sim-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const nodeSha256d = (b: Uint8Array) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
const reversedHex = (b: Uint8Array) => Buffer.from(b).reverse().toString('hex');

/** Content hash of the base tables in a fixed order: equal iff the stored rows are equal. */
async function contentHash(db: Db): Promise<string> {
  const tables: [string, string][] = [
    ['blocks', 'height'], ['pegins', 'txid, vout'], ['pegin_inputs', 'pegin_txid, n'], ['pegouts', 'txid, vout'],
  ];
  const parts: string[] = [];
  for (const [table, order] of tables) {
    const row = await db.one<{ h: string; n: bigint }>(`SELECT md5(coalesce(string_agg(CAST(t AS VARCHAR), '|' ORDER BY ${order}), '')) AS h, count(*) AS n FROM ${table} t`);
    parts.push(`${table}:${row!.n}:${row!.h}`);
  }
  return parts.join(' ');
}

async function scanTiny(seed: number, name: string): Promise<{ hash: string; pegins: number; pegouts: number }> {
  const db = await Db.open(':memory:');
  const source = createSimSource({ preset: 'tiny', seed, truthDir: join(work, name) });
  const result = await scanChain(db, source, { batchBlocks: 500 });
  await source.close();
  const hash = await contentHash(db);
  db.close();
  return { hash, pegins: result.pegins, pegouts: result.pegouts };
}

describe('sim SHA-256', () => {
  it('matches node:crypto for any message, split anywhere', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), (bytes, cut) => {
      const at = bytes.length ? cut % bytes.length : 0;
      expect(Buffer.from(sha256d(bytes.subarray(0, at), bytes.subarray(at))).equals(nodeSha256d(bytes))).toBe(true);
    }), { numRuns: 300 });
  });
});

describe('sim determinism through the real scanner', () => {
  it('writes the labels when the source is created, before any block, as the truth describes them', async () => {
    const dir = join(work, 'labels-first.truth');
    const source = createSimSource({ preset: 'tiny', seed: 4, truthDir: dir });
    const rows = readFileSync(join(dir, SIM_LABELS_FILE), 'utf8').trim().split('\n');
    await source.blockHashes([SIM_MWEB_ACTIVATION_HEIGHT]);
    await source.close();
    const rates = readSimTruth(dir).meta.rates;
    // The header, every exchange deposit address, and SimPay's two hot-wallet addresses.
    expect(rows).toHaveLength(1 + rates.exchanges! * rates.depositAddressesPerExchange! + 2);
    expect(readFileSync(join(dir, SIM_LABELS_FILE), 'utf8').trim().split('\n')).toEqual(rows);
    expect(readSimTruth(dir).meta.counts.labels).toBe(rows.length - 1);
  });

  it('the same seed stores identical rows and truth; another seed differs', async () => {
    const a = await scanTiny(1, 'a.truth');
    const b = await scanTiny(1, 'b.truth');
    const c = await scanTiny(2, 'c.truth');
    expect(a.pegins).toBeGreaterThan(100);
    expect(a.pegouts).toBeGreaterThan(100);
    expect(b.hash).toBe(a.hash);
    expect(c.hash).not.toBe(a.hash);
    const file = (dir: string) => readFileSync(join(work, dir, 'pegouts.jsonl'), 'utf8');
    expect(file('b.truth')).toBe(file('a.truth'));
    expect(file('c.truth')).not.toBe(file('a.truth'));
    // The truth describes exactly the chain the scanner stored.
    const truth = readSimTruth(join(work, 'a.truth'));
    expect(truth.pegins.length).toBe(a.pegins);
    expect(truth.pegouts.length).toBe(a.pegouts);
  }, 120_000);
});

describe('sim worker thread', () => {
  it('generates the same blocks and truth as generation in this thread', async () => {
    const blocksOf = async (worker: boolean, dir: string) => {
      const source = createSimSource({ preset: 'tiny', seed: 9, worker, truthDir: join(work, dir) });
      const hashes = await source.blockHashes(Array.from({ length: 2_000 }, (_, i) => i));
      const raws = await source.rawBlocks(hashes.slice(-500));
      await source.close();
      return { hashes, raws: raws.map((r) => Buffer.from(r).toString('hex')) };
    };
    const inline = await blocksOf(false, 'inline.truth');
    const threaded = await blocksOf(true, 'worker.truth');
    expect(threaded).toEqual(inline);
    const inlineTruth = readSimTruth(join(work, 'inline.truth'));
    const workerTruth = readSimTruth(join(work, 'worker.truth'));
    expect(workerTruth.meta.tip_height).toBe(1_999);
    expect(workerTruth.pegouts).toEqual(inlineTruth.pegouts);
    expect(workerTruth.meta.counts).toEqual(inlineTruth.meta.counts);
  });
});

describe('sim fast-forward', () => {
  it('a source started mid-chain, or asked for a height that left its window, gives the same blocks', async () => {
    const first = createSimSource({ preset: 'tiny', seed: 5 });
    const sequential = await first.blockHashes(Array.from({ length: first.tip + 1 }, (_, i) => i));
    const [lastRaw] = await first.rawBlocks([sequential.at(-1)!]);
    const resumed = createSimSource({ preset: 'tiny', seed: 5, windowBlocks: 100 });
    expect(await resumed.blockHashes([2500, 2501])).toEqual([sequential[2500], sequential[2501]]);
    // Height 10 left the 100-block window: the source regenerates from genesis.
    expect(await resumed.blockHashes([10])).toEqual([sequential[10]]);
    await expect(resumed.rawBlocks([sequential[2501]!])).rejects.toThrow(/not in the simulated chain/);
    expect(await resumed.blockHashes([resumed.tip])).toEqual([sequential.at(-1)]);
    const [raw] = await resumed.rawBlocks([sequential.at(-1)!]);
    expect(Buffer.from(raw!).equals(Buffer.from(lastRaw!))).toBe(true);
  });
});

/** Field names and value types, recursively (arrays by their first element). */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (value instanceof Uint8Array) return 'bytes';
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (typeof value === 'object') {
    const json = typeof (value as { toJSON?: () => unknown }).toJSON === 'function' ? (value as { toJSON: () => unknown }).toJSON() : value;
    return Object.fromEntries(Object.entries(json as object).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shape(v)]));
  }
  return typeof value;
}

function fixtureBlocks(): RawBlock[] {
  return recordingLines('chain.jsonl')
    .filter((l) => l.method === 'getblock' && l.params[1] === 0)
    .map((l) => parseBlock(Buffer.from(l.result as string, 'hex'), NETWORKS.regtest));
}

describe('every simulated block passes the structural checks of the regtest recording', () => {
  const blocks: { height: number; hash: string; raw: Uint8Array; parsed: RawBlock }[] = [];
  let truth: SimTruth;
  const truthDir = join(work, 'structure.truth');
  const prevTxs = new Map<string, Uint8Array>();

  beforeAll(async () => {
    const source = createSimSource({ preset: 'tiny', seed: 3, truthDir });
    const heights = Array.from({ length: source.tip + 1 }, (_, i) => i);
    const hashes = await source.blockHashes(heights);
    for (let from = 0; from <= source.tip; from += 500) {
      const raws = await source.rawBlocks(hashes.slice(from, from + 500));
      raws.forEach((raw, i) => {
        const parsed = parseBlock(raw, NETWORKS.sim);
        blocks.push({ height: from + i, hash: hashes[from + i]!, raw, parsed });
      });
      // Funding transactions are only kept until shortly after they are spent: fetch them as a scanner would.
      for (const { parsed } of blocks.slice(from)) {
        for (const p of parsed.pegins) {
          const txids = p.inputs.map((i) => i.prevTxid!);
          (await source.rawTransactions(txids)).forEach((tx, k) => prevTxs.set(txids[k]!, tx));
        }
      }
    }
    await source.close();
    truth = readSimTruth(truthDir);
  }, 60_000);

  it('has the field set and types of the recorded regtest blocks', () => {
    const fixtures = fixtureBlocks();
    const real = fixtures.find((b) => b.pegins.length > 0 && b.pegouts.length > 0) ?? fixtures[0]!;
    const sim = blocks.find((b) => b.parsed.pegins.length > 0 && b.parsed.pegouts.length > 0)!.parsed;
    const top = (b: RawBlock) => shape({ ...b, txs: undefined, pegins: undefined, pegouts: undefined, mwebBody: undefined });
    expect(top(sim)).toEqual(top(real));
    expect(shape(sim.pegins[0])).toEqual(shape(real.pegins.find((p) => p.inputs.length === 1) ?? real.pegins[0]));
    expect(shape(sim.pegouts[0])).toEqual(shape(real.pegouts[0]));
    const kernel = (b: RawBlock, features: number) => shape(b.mwebBody!.kernels.find((k) => k.features === features));
    for (const features of [0x13, 0x15]) expect(kernel(sim, features)).toEqual(kernel(real, features));
  });

  it('chains real double-SHA256 hashes, commits to its transactions and carries the BIP34 height', () => {
    for (let i = 0; i < blocks.length; i++) {
      const { raw, hash, parsed, height } = blocks[i]!;
      expect(reversedHex(nodeSha256d(raw.subarray(0, 80)))).toBe(hash);
      expect(parsed.hash).toBe(hash);
      expect(parsed.prevHash).toBe(i === 0 ? '0'.repeat(64) : blocks[i - 1]!.hash);
      let level: Buffer[] = parsed.txs.map((tx) => Buffer.from(tx.txid, 'hex').reverse());
      while (level.length > 1) {
        const next: Buffer[] = [];
        for (let k = 0; k < level.length; k += 2) next.push(nodeSha256d(Buffer.concat([level[k]!, level[k + 1] ?? level[k]!])));
        level = next;
      }
      expect(Buffer.from(raw.subarray(36, 68)).equals(level[0]!)).toBe(true);
      if (i > 0) expect(parsed.time).toBeGreaterThan(blocks[i - 1]!.parsed.time);
      expect(parsed.txs[0]!.inputs[0]!.prevTxid).toBeNull();
      const push = parsed.txs[0]!.firstScriptSig;
      expect(Buffer.from(push.subarray(1, 1 + push[0]!)).readUIntLE(0, push[0]!)).toBe(height);
    }
  });

  it('spaces blocks about 150 s apart and leaves most blocks without pegs', () => {
    const span = blocks.at(-1)!.parsed.time - blocks[0]!.parsed.time;
    expect(span / (blocks.length - 1)).toBeGreaterThan(140);
    expect(span / (blocks.length - 1)).toBeLessThan(160);
    const mweb = blocks.filter((b) => b.height >= SIM_MWEB_ACTIVATION_HEIGHT);
    const empty = mweb.filter((b) => b.parsed.pegins.length === 0 && b.parsed.pegouts.length === 0).length;
    expect(empty / mweb.length).toBeGreaterThan(0.6);
    expect(empty / mweb.length).toBeLessThan(0.95);
  });

  it('lays out every HogEx like Litecoin Core and keeps the supply consistent with all flows', () => {
    let prevHogex: string | null = null;
    let prevSupply = 0;
    for (const { parsed, height } of blocks) {
      if (height < SIM_MWEB_ACTIVATION_HEIGHT) {
        expect(parsed.mwebHeader).toBeNull();
        expect(parsed.hogexTxid).toBeNull();
        continue;
      }
      const hogex = parsed.txs.at(-1)!;
      expect(hogex.isHogEx).toBe(true);
      expect(hogex.txid).toBe(parsed.hogexTxid);
      expect(hogex.outputs[0]!.type).toBe('witness_mweb_hogaddr');
      const expectedInputs = [
        ...(prevHogex ? [{ prevTxid: prevHogex, prevVout: 0 }] : []),
        ...parsed.pegins.map((p) => ({ prevTxid: p.txid, prevVout: p.vout })),
      ];
      expect(hogex.inputs).toEqual(expectedInputs);
      expect(parsed.mwebHeader!.height).toBe(height);
      expect(parsed.mweb!.numKernels).toBe(parsed.mwebBody!.kernels.length);

      const kernels = parsed.mwebBody!.kernels;
      const peginKernels = kernels.filter((k) => k.peginAmount !== null);
      expect(peginKernels.map((k) => k.peginAmount).sort()).toEqual(parsed.pegins.map((p) => p.amount).sort());
      expect(peginKernels.every((k) => k.fee === 3_900 && k.features === 0x13)).toBe(true);
      const kernelPegouts = kernels.flatMap((k) => k.pegouts.map((p) => `${p.scriptHex}:${p.amount}`)).sort();
      expect(kernelPegouts).toEqual(parsed.pegouts.map((p) => `${p.scriptHex}:${p.amount}`).sort());
      for (const p of parsed.pegins) {
        const tx = parsed.txs.find((t) => t.txid === p.txid)!;
        expect(tx.outputs[p.vout]!.scriptHex).toMatch(/^5920[0-9a-f]{64}$/);
      }

      const fees = kernels.reduce((sum, k) => sum + (k.fee ?? 0), 0);
      const pegins = parsed.pegins.reduce((sum, p) => sum + p.amount, 0);
      const pegouts = parsed.pegouts.reduce((sum, p) => sum + p.amount, 0);
      expect(parsed.supply).toBe(prevSupply + pegins - pegouts - fees);
      prevSupply = parsed.supply!;
      prevHogex = hogex.txid;
    }
  });

  it('serializes the HogEx with marker 0x00, flag 0x08, no witness and one 0x00 before the locktime, last before the MWEB block', () => {
    for (const { raw, parsed, height } of blocks.filter((b) => b.parsed.pegouts.length > 0 || b.parsed.pegins.length > 1)) {
      const hogex = parsed.txs.at(-1)!;
      const le32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
      const le64 = (n: number) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
      const vin = hogex.inputs.map((i) => Buffer.concat([Buffer.from(i.prevTxid!, 'hex').reverse(), le32(i.prevVout), Buffer.from([0x00]), le32(0xffffffff)]));
      const vout = hogex.outputs.map((o) => Buffer.concat([le64(o.value), Buffer.from([o.scriptHex.length / 2]), Buffer.from(o.scriptHex, 'hex')]));
      const body = Buffer.concat([Buffer.from([vin.length]), ...vin, Buffer.from([vout.length]), ...vout]);
      const expected = Buffer.concat([le32(2), Buffer.from([0x00, 0x08]), body, Buffer.from([0x00]), le32(0)]);
      const at = Buffer.from(raw).indexOf(expected);
      expect(at).toBeGreaterThan(80);
      // The MWEB block follows: 0x01, then the MWEB header starting with the height as a VARINT.
      expect(raw[at + expected.length]).toBe(0x01);
      expect(raw[at + expected.length + 1]! & 0x80).toBe(height > 127 ? 0x80 : 0);
      expect(reversedHex(nodeSha256d(Buffer.concat([le32(2), body, le32(0)])))).toBe(hogex.txid);
    }
  });

  it('serves every funding and multi-hop transaction a peg-in spends', () => {
    for (const { parsed } of blocks) {
      for (const p of parsed.pegins) {
        for (const input of p.inputs) {
          const tx = parseTransaction(prevTxs.get(input.prevTxid!)!, NETWORKS.sim);
          expect(tx.txid).toBe(input.prevTxid);
          expect(tx.outputs[input.prevVout]!.address).toMatch(/^(rltc1|[mn2Q])/);
        }
      }
    }
  });

  it('writes a truth that names every peg of the chain', () => {
    const pegins = new Set(blocks.flatMap((b) => b.parsed.pegins.map((p) => `${p.txid}:${p.vout}`)));
    const pegouts = new Set(blocks.flatMap((b) => b.parsed.pegouts.map((p) => `${p.txid}:${p.vout}`)));
    expect(new Set(truth.pegins.map((p) => p.pegin))).toEqual(pegins);
    expect(new Set(truth.pegouts.map((p) => p.pegout))).toEqual(pegouts);
    for (const p of truth.pegouts) for (const s of p.source_pegins) expect(pegins.has(s)).toBe(true);
    expect(truth.meta.tip_height).toBe(blocks.at(-1)!.height);
    const labels = readFileSync(join(truthDir, SIM_LABELS_FILE), 'utf8').split('\n');
    expect(labels[0]).toBe('address,entity,category,confidence,source');
  });
});

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;

describe('sim distributions stay within the documented ranges (docs/simulation.md, demo preset)', () => {
  let truth: SimTruth;
  let inFlightWallets = 0;
  beforeAll(async () => {
    const dir = join(work, 'demo.truth');
    const source = createSimSource({ preset: 'demo', seed: 1, truthDir: dir });
    for (let from = 0; from <= source.tip; from += 2_000) {
      await source.blockHashes(Array.from({ length: Math.min(2_000, source.tip - from + 1) }, (_, i) => from + i));
    }
    inFlightWallets = source.inFlight().wallets;
    await source.close();
    truth = readSimTruth(dir);
  }, 120_000);

  it('peg-in amounts: round 20-40 %, whole round inputs 20-40 %, clusters 5-15 %', () => {
    const n = truth.pegins.length;
    expect(n).toBeGreaterThan(3_000);
    const share = (f: (p: SimTruth['pegins'][number]) => boolean) => truth.pegins.filter(f).length / n;
    expect(share((p) => p.amount_kind === 'round')).toBeGreaterThan(0.2);
    expect(share((p) => p.amount_kind === 'round')).toBeLessThan(0.4);
    expect(share((p) => p.amount_kind === 'round_input')).toBeGreaterThan(0.2);
    expect(share((p) => p.amount_kind === 'round_input')).toBeLessThan(0.4);
    expect(share((p) => p.cluster)).toBeGreaterThan(0.05);
    expect(share((p) => p.cluster)).toBeLessThan(0.15);
    const round = new Set([0.01, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 250, 500, 1000].map((c) => Math.round(c * 1e8)));
    expect(truth.pegins.filter((p) => p.amount_kind === 'round').every((p) => round.has(p.amount_sat))).toBe(true);
    expect(truth.pegins.filter((p) => p.amount_kind === 'round_input').every((p) => !round.has(p.amount_sat))).toBe(true);
  });

  it('round trips: 55-80 % of peg-outs, gaps heavy-tailed around the preset median, fees varied', () => {
    const trips = truth.pegouts.filter((p) => p.round_trip);
    expect(trips.length / truth.pegouts.length).toBeGreaterThan(0.55);
    expect(trips.length / truth.pegouts.length).toBeLessThan(0.8);
    const gaps = trips.map((p) => p.gap_blocks!).sort((a, b) => a - b);
    const median = truth.meta.rates.gapMedianBlocks!;
    expect(quantile(gaps, 0.5)).toBeGreaterThan(median * 0.5);
    expect(quantile(gaps, 0.5)).toBeLessThan(median * 1.5);
    expect(quantile(gaps, 0.05)).toBeLessThan(median / 5);
    expect(quantile(gaps, 0.95)).toBeGreaterThan(median * 5);
    const diffs = trips.map((p) => p.amount_difference_sat!);
    expect(Math.min(...diffs)).toBeGreaterThanOrEqual(3_900 + 2_231);
    expect(Math.max(...diffs)).toBeLessThan(200_000);
    const common = diffs.filter((d) => d === 6_410).length / diffs.length;
    expect(common).toBeGreaterThan(0.2);
    expect(common).toBeLessThan(0.5);
    expect(new Set(diffs).size).toBeGreaterThan(50);
  });

  it('destinations, mixing and multi-hop cycles', () => {
    const n = truth.pegouts.length;
    const kinds = (k: string) => truth.pegouts.filter((p) => p.destination_kind === k).length / n;
    expect(kinds('funding_address_reuse')).toBeGreaterThan(0.08);
    expect(kinds('funding_address_reuse')).toBeLessThan(0.2);
    expect(kinds('exchange')).toBeGreaterThan(0.2);
    expect(kinds('exchange')).toBeLessThan(0.35);
    const exchangeAddresses = new Set(truth.pegouts.filter((p) => p.destination_kind === 'exchange').map((p) => p.address));
    expect(exchangeAddresses.size).toBe(truth.meta.rates.exchanges! * truth.meta.rates.depositAddressesPerExchange!);
    const mixed = truth.pegouts.filter((p) => p.source_pegin === null).length / n;
    expect(mixed).toBeGreaterThan(0.03);
    expect(mixed).toBeLessThan(0.2);

    const chains = new Map<number, typeof truth.cycles>();
    for (const c of truth.cycles) chains.set(c.chain_id, [...(chains.get(c.chain_id) ?? []), c]);
    expect(chains.size).toBeGreaterThan(20);
    const pegoutById = new Map(truth.pegouts.map((p) => [p.pegout, p]));
    for (const cycles of chains.values()) {
      cycles.sort((a, b) => a.cycle - b.cycle);
      expect(cycles[0]!.n_cycles).toBeGreaterThanOrEqual(2);
      expect(cycles[0]!.n_cycles).toBeLessThanOrEqual(5);
      cycles.forEach((c, i) => {
        expect(c.cycle).toBe(i + 1);
        if (i > 0) expect(c.funded_by_pegout).toBe(cycles[i - 1]!.pegout);
        expect(c.destination_kind === 'next_hop').toBe(c.cycle < c.n_cycles);
        expect(pegoutById.get(c.pegout)!.source_pegins).toContain(c.pegin);
      });
    }
  });

  it('forgets wallets whose exits are done (flat memory)', () => {
    expect(inFlightWallets).toBeLessThan(truth.pegins.length * 0.1);
  });
});
