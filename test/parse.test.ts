import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError } from '../src/chain/bytes.js';
import { coinbaseTag, parseBlock } from '../src/chain/parse.js';
import { parseTransaction } from '../src/chain/raw-tx.js';
import { blockFromVerboseJson } from '../src/chain/verbose.js';
import type { VerboseBlockJson, VerboseTxJson } from '../src/chain/types.js';
import { parseNodeValue } from '../src/domain/amount.js';
import { NETWORKS } from '../src/domain/network.js';
import { MAINNET_BLOCK_HEIGHTS, mainnetBlock, recordingLines, recordingTruth } from './helpers/fixtures.js';

const regtest = NETWORKS.regtest;
const mainnet = NETWORKS.mainnet;

const lines = recordingLines('chain.jsonl');
const verbose = new Map(lines.filter((l) => l.method === 'getblock' && l.params[1] === 2).map((l) => [l.params[0] as string, l.result as VerboseBlock]));
const rawBlocks = lines.filter((l) => l.method === 'getblock' && l.params[1] === 0).map((l) => ({ hash: l.params[0] as string, hex: l.result as string }));
const rawTxs = lines.filter((l) => l.method === 'getrawtransaction').map((l) => l.result as VerboseTx);
const truth = recordingTruth();

type VerboseTx = VerboseTxJson & { hex: string; vin: (VerboseTxJson['vin'][number] & { scriptSig?: { hex: string } })[] };
type VerboseBlock = VerboseBlockJson & { height: number; tx: VerboseTx[]; mweb: { height: number; num_txos: number; num_kernels: number; kernel_root: string; output_root: string; leaf_root: string; kernels: { kernel_id: string; fee: number; features: number }[] } };

/** What the node says about one transaction, in the parser's terms. */
function nodeTx(tx: VerboseTx) {
  return {
    txid: tx.txid,
    inputs: tx.vin.map((vin) => (vin.coinbase !== undefined ? { prevTxid: null, prevVout: 0xffffffff } : { prevTxid: vin.txid, prevVout: vin.vout })),
    outputs: tx.vout.map((out) => ({
      n: out.n,
      value: parseNodeValue(out.value),
      scriptHex: out.scriptPubKey.hex,
      type: out.scriptPubKey.type,
      address: out.scriptPubKey.address ?? out.scriptPubKey.addresses?.[0] ?? null,
    })),
  };
}

function parsedTx(tx: ReturnType<typeof parseTransaction>) {
  return { txid: tx.txid, inputs: tx.inputs, outputs: tx.outputs.map((out) => out.toJSON()) };
}

describe('raw block parser vs the node (regtest-small)', () => {
  it('has the 28 raw blocks with pegs to compare', () => {
    expect(rawBlocks).toHaveLength(28);
  });

  for (const { hash, hex } of rawBlocks) {
    it(`block ${hash.slice(0, 12)} equals getblock 2`, () => {
      const json = verbose.get(hash)!;
      const block = parseBlock(Buffer.from(hex, 'hex'), regtest);
      expect(block.hash).toBe(json.hash);
      expect(block.prevHash).toBe(json.previousblockhash);
      expect(block.time).toBe(json.time);
      expect(block.txCount).toBe(json.tx.length);
      expect(block.txs.map(parsedTx)).toEqual(json.tx.map(nodeTx));
      // Peg-ins, HogEx, peg-outs, supply, MWEB counts and coinbase: raw path and verbose path agree.
      const fromJson = blockFromVerboseJson(json);
      const { txs: _txs, mwebHeader, mwebBody, ...summary } = block;
      expect(summary).toEqual(fromJson);
      expect(block.mweb).toEqual({ height: json.height, numTxos: json.mweb.num_txos, numKernels: json.mweb.num_kernels });
      expect(mwebHeader).toMatchObject({ kernelRoot: json.mweb.kernel_root, outputRoot: json.mweb.output_root, leafsetRoot: json.mweb.leaf_root });
      expect(mwebBody!.kernels.map((k) => [k.features, k.fee])).toEqual(json.mweb.kernels.map((k) => [k.features, k.fee]));
      // The HogEx is the last transaction and vout[0] its supply output.
      const hogex = json.tx.at(-1)!;
      expect(block.hogexTxid).toBe(hogex.txid);
      expect(block.supply).toBe(parseNodeValue(hogex.vout[0]!.value));
      expect(block.txs.at(-1)!.isHogEx).toBe(true);
      expect(block.txs.slice(0, -1).some((tx) => tx.isHogEx)).toBe(false);
    });
  }

  it('peg-out kernels carry exactly the HogEx peg-outs (as a multiset of script and amount)', () => {
    for (const { hex } of rawBlocks) {
      const block = parseBlock(Buffer.from(hex, 'hex'), regtest);
      const fromKernels = block.mwebBody!.kernels.flatMap((k) => k.pegouts.map((p) => `${p.scriptHex}:${p.amount}`)).sort();
      expect(fromKernels).toEqual(block.pegouts.map((p) => `${p.scriptHex}:${p.amount}`).sort());
      const peginKernels = block.mwebBody!.kernels.filter((k) => k.peginAmount !== null).map((k) => k.peginAmount).sort();
      expect(peginKernels).toEqual(block.pegins.map((p) => p.amount).sort());
    }
  });

  it('finds every peg-in and peg-out of the ground truth, with kernel ids, amounts and addresses', () => {
    const blocks = rawBlocks.map(({ hex }) => parseBlock(Buffer.from(hex, 'hex'), regtest));
    const pegins = blocks.flatMap((b) => b.pegins).map((p) => ({ id: `${p.txid}:${p.vout}`, amount_sat: p.amount, kernel_id: p.kernelId }));
    expect(pegins.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      truth.pegins.map((p: Record<string, unknown>) => ({ id: p.id, amount_sat: p.amount_sat, kernel_id: p.kernel_id })).sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)),
    );
    const pegouts = blocks.flatMap((b) => b.pegouts).map((p) => ({ id: `${p.txid}:${p.vout}`, amount_sat: p.amount, address: p.address, script_pubkey: p.scriptHex }));
    // The recorded raw blocks include orphaned block 890; the truth lists its peg-out apart.
    const expected = [...truth.pegouts, ...truth.reorg.orphaned_pegouts.map((p: Record<string, unknown>) => ({ ...p, id: p.orphan_id }))]
      .map((p: Record<string, unknown>) => ({ id: p.id, amount_sat: p.amount_sat, address: p.address, script_pubkey: p.script_pubkey }));
    const byId = (a: { id: unknown }, b: { id: unknown }) => String(a.id).localeCompare(String(b.id));
    const orphanIds = new Set(truth.reorg.orphaned_pegouts.map((p: { orphan_id: string }) => p.orphan_id));
    const inRecording = expected.filter((p) => pegouts.some((q) => q.id === p.id) || !orphanIds.has(p.id));
    expect(pegouts.sort(byId)).toEqual(inRecording.sort(byId));
  });

  it('parses every recorded getrawtransaction hex (funding txs and HogExes) to the node answer', () => {
    expect(rawTxs).toHaveLength(19);
    for (const tx of rawTxs) {
      const parsed = parseTransaction(Buffer.from(tx.hex, 'hex'), regtest);
      expect(parsedTx(parsed)).toEqual(nodeTx(tx));
      expect(parsed.isHogEx).toBe(tx.vout[0]?.scriptPubKey.type === 'witness_mweb_hogaddr');
    }
    expect(rawTxs.some((tx) => tx.hex.startsWith('02000000000801'))).toBe(true);
  });
});

describe('transaction parser on real mainnet blocks', () => {
  const blocks = MAINNET_BLOCK_HEIGHTS.map((h) => mainnetBlock<VerboseBlock>(h));

  it('parses every transaction hex of blocks 2383206-2383209 to the node answer (txids, types, legacy addresses arrays)', () => {
    let outputs = 0;
    for (const block of blocks) {
      for (const tx of block.tx) {
        const parsed = parseTransaction(Buffer.from(tx.hex, 'hex'), mainnet);
        expect(parsedTx(parsed)).toEqual(nodeTx(tx));
        outputs += tx.vout.length;
      }
    }
    expect(outputs).toBeGreaterThan(500);
  });

  it('builds the verbose-path block: HogEx supply, no pegs, MWEB counts, pool tag', () => {
    const block = blockFromVerboseJson(blocks.find((b) => b.height === 2383208)!);
    expect(block.supply).toBe(793_199_220_526);
    expect(block.pegins).toEqual([]);
    expect(block.pegouts).toEqual([]);
    expect(block.mweb).toEqual({ height: 2383208, numTxos: 12555, numKernels: 0 });
    expect(block.txCount).toBe(287);
    expect(block.coinbase).toEqual({ address: 'LQ5X1r32bU3v2TgVxE9osb2YnCZNFY6ikm', tag: '/poolin.com/' });
  });
});

describe('parser edge cases', () => {
  const hex = rawBlocks[0]!.hex;

  it('rejects a truncated block with a ParseError naming the position', () => {
    expect(() => parseBlock(Buffer.from(hex.slice(0, hex.length - 200), 'hex'), regtest)).toThrow(ParseError);
    expect(() => parseBlock(Buffer.from(hex.slice(0, hex.length - 200), 'hex'), regtest)).toThrow(/unexpected end of data at byte/);
  });

  it('rejects trailing garbage after the MWEB block', () => {
    expect(() => parseBlock(Buffer.from(`${hex}00`, 'hex'), regtest)).toThrow(/unexpected bytes after the block/);
  });

  it('parses a pre-MWEB block (no MWEB tail) with no supply, no HogEx and no MWEB header', () => {
    const json = verbose.get(rawBlocks[0]!.hash)!;
    const raw = Buffer.concat([Buffer.from(hex.slice(0, 160), 'hex'), Buffer.from([1]), Buffer.from(json.tx[0]!.hex, 'hex')]);
    const block = parseBlock(raw, regtest);
    expect(block).toMatchObject({ txCount: 1, supply: null, hogexTxid: null, mweb: null, pegins: [], pegouts: [] });
    expect(block.txs[0]!.txid).toBe(json.tx[0]!.txid);
    expect(block.coinbase.address).toBe(json.tx[0]!.vout[0]!.scriptPubKey.address ?? json.tx[0]!.vout[0]!.scriptPubKey.addresses?.[0]);
  });

  it('rejects an MWEB-only transaction (its id is not a hash of canonical data) with a clear ParseError', () => {
    const mwebOnly = Buffer.from(`02000000000800000${'1'}${'00'.repeat(64)}000000${'00'.repeat(4)}`, 'hex');
    expect(() => parseTransaction(mwebOnly, regtest)).toThrow(/MWEB-only transaction/);
  });

  it('coinbase tag keeps printable runs of 4+ characters after the height push', () => {
    expect(coinbaseTag(Buffer.from('03685d24' + '0d' + Buffer.from('/F2Pool/').toString('hex') + 'fabe6d6d01', 'hex'))).toBe('/F2Pool/');
    expect(coinbaseTag(Buffer.from('02b00100', 'hex'))).toBe('');
    // Each push is searched on its own: the 'c' ending a nonce push does not glue onto the next push's text.
    expect(coinbaseTag(Buffer.from('03685d2404d3989263' + '0c' + Buffer.from('/poolin.com/').toString('hex'), 'hex'))).toBe('/poolin.com/');
    expect(coinbaseTag(Buffer.from('0141' + '0f' + Buffer.from('abc').toString('hex') + '00' + Buffer.from('hello world').toString('hex'), 'hex'))).toBe('hello world');
  });
});

describe('transaction parser round trip (property)', () => {
  const compact = (n: number): Buffer => {
    if (n < 0xfd) return Buffer.from([n]);
    const b = Buffer.alloc(3);
    b[0] = 0xfd;
    b.writeUInt16LE(n, 1);
    return b;
  };
  const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
  const u64 = (n: number) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
  const sha256d = (b: Buffer) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest().reverse().toString('hex');

  const input = fc.record({ prev: fc.uint8Array({ minLength: 32, maxLength: 32 }), vout: fc.nat({ max: 0xfffffffe }), script: fc.uint8Array({ maxLength: 300 }), witness: fc.array(fc.uint8Array({ maxLength: 80 }), { maxLength: 3 }) });
  const output = fc.record({ value: fc.nat({ max: 8_400_000_000_000_000 }), script: fc.uint8Array({ maxLength: 300 }) });
  const tx = fc.record({ inputs: fc.array(input, { minLength: 1, maxLength: 4 }), outputs: fc.array(output, { minLength: 1, maxLength: 4 }), segwit: fc.boolean(), lockTime: fc.nat({ max: 0xffffffff }) });

  const roundTrip = (t: fc.Arbitrary<{ inputs: { prev: Uint8Array; vout: number; script: Uint8Array; witness: Uint8Array[] }[]; outputs: { value: number; script: Uint8Array }[]; segwit: boolean; lockTime: number }>) =>
    fc.property(t, (t) => {
      const vin = Buffer.concat([compact(t.inputs.length), ...t.inputs.flatMap((i) => [Buffer.from(i.prev), u32(i.vout), compact(i.script.length), Buffer.from(i.script), u32(0xffffffff)])]);
      const vout = Buffer.concat([compact(t.outputs.length), ...t.outputs.flatMap((o) => [u64(o.value), compact(o.script.length), Buffer.from(o.script)])]);
      const witness = Buffer.concat(t.inputs.flatMap((i) => [compact(i.witness.length), ...i.witness.flatMap((w) => [compact(w.length), Buffer.from(w)])]));
      const version = u32(2), lock = u32(t.lockTime);
      const raw = t.segwit ? Buffer.concat([version, Buffer.from([0, 1]), vin, vout, witness, lock]) : Buffer.concat([version, vin, vout, lock]);
      const parsed = parseTransaction(raw, regtest);
      expect(parsed.txid).toBe(sha256d(Buffer.concat([version, vin, vout, lock])));
      expect(parsed.inputs).toEqual(t.inputs.map((i) => ({ prevTxid: Buffer.from(i.prev).reverse().toString('hex'), prevVout: i.vout })));
      expect(parsed.outputs.map((o) => [o.n, o.value, o.scriptHex])).toEqual(t.outputs.map((o, n) => [n, o.value, Buffer.from(o.script).toString('hex')]));
      expect(parsed.isHogEx).toBe(false);
    });

  it('parses any serialized transaction back to its inputs, outputs and txid (with or without witness)', () => {
    fc.assert(roundTrip(tx), { numRuns: 300 });
  });

  it('computes txids of large transactions too (the hash switches from JS to node:crypto by preimage size)', () => {
    const large = fc.record({ prev: fc.uint8Array({ minLength: 32, maxLength: 32 }), vout: fc.nat({ max: 0xfffffffe }), script: fc.uint8Array({ minLength: 1100, maxLength: 1500 }), witness: fc.array(fc.uint8Array({ maxLength: 80 }), { maxLength: 3 }) });
    fc.assert(roundTrip(fc.record({ inputs: fc.array(large, { minLength: 1, maxLength: 4 }), outputs: fc.array(output, { minLength: 1, maxLength: 4 }), segwit: fc.boolean(), lockTime: fc.nat({ max: 0xffffffff }) })), { numRuns: 100 });
  });
});
