/**
 * Raw Litecoin block and transaction parser, MWEB extension included.
 *
 * Layout (Litecoin Core 0.21.2):
 *   block  = header(80) | CompactSize n | tx × n | [0x01 | mw::Block]   (the tail only from MWEB activation on)
 *   tx     = version(4) | [0x00 | flags] | vin | vout | [witness if flags&1] | [mweb_tx if flags&8] | locktime(4)
 *   mweb_tx is an optional pointer: 0x00 (none: the HogEx) or 0x01 | mw::Transaction.
 * Txids hash only version | vin | vout | locktime, so MWEB data never changes a txid.
 */
import { createHash, hash as oneShotHash } from 'node:crypto';
import { parseNodeValue, type Litoshi } from '../domain/amount.js';
import { decodeScript, type DecodedScript } from '../domain/address.js';
import type { NetworkParams } from '../domain/network.js';
import { sha256dInto, sha256Into } from './sha256.js';
import type { ParsedBlock, ParsedTx, Pegin, Pegout, TxInput, TxOutput } from './types.js';

export class ParseError extends Error {}

const HEADER_SIZE = 80;
const FLAG_WITNESS = 0x01;
const FLAG_MWEB = 0x08;
/** A coinbase tag is made of printable ASCII runs at least this long (shorter ones are mostly random bytes). */
const MIN_TAG_RUN = 4;

/** A forward-only reader over a byte array. */
class Reader {
  pos = 0;
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array, start = 0) {
    this.pos = start;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number { return this.bytes.length - this.pos; }

  private need(n: number): void {
    if (this.pos + n > this.bytes.length) {
      throw new ParseError(`unexpected end of data at byte ${this.pos} (needed ${n} more of ${this.bytes.length})`);
    }
  }

  u8(): number { this.need(1); return this.bytes[this.pos++]!; }
  u32(): number { this.need(4); const v = this.view.getUint32(this.pos, true); this.pos += 4; return v; }
  /** 64-bit little-endian amount; litoshi always fit a safe integer. */
  u64(): number {
    this.need(8);
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
    const value = hi * 0x1_0000_0000 + lo;
    if (!Number.isSafeInteger(value)) throw new ParseError(`amount ${value} at byte ${this.pos - 8} is not a safe integer`);
    return value;
  }
  skip(n: number): void { this.need(n); this.pos += n; }
  take(n: number): Uint8Array { this.need(n); const out = this.bytes.subarray(this.pos, this.pos + n); this.pos += n; return out; }

  /** Bitcoin's CompactSize (vector lengths). */
  compactSize(): number {
    const first = this.u8();
    if (first < 0xfd) return first;
    if (first === 0xfd) { this.need(2); const v = this.view.getUint16(this.pos, true); this.pos += 2; return v; }
    if (first === 0xfe) return this.u32();
    return this.u64();
  }

  /** Bitcoin Core's VARINT (MSB base-128 with the +1 offset), used by MWEB heights, sizes and amounts. */
  varint(): number {
    let n = 0;
    for (;;) {
      const ch = this.u8();
      n = n * 128 + (ch & 0x7f);
      if (!Number.isSafeInteger(n)) throw new ParseError(`VARINT at byte ${this.pos} overflows`);
      if (ch & 0x80) n += 1;
      else return n;
    }
  }

  bytesVector(): Uint8Array { return this.take(this.compactSize()); }
}

/** Up to this preimage size the JS SHA-256 beats node:crypto's per-call overhead (measured crossover ≈ 180 bytes). */
const JS_HASH_MAX = 160;
/** Above this size streaming the parts into createHash beats copying them together for the one-shot hash. */
const CONCAT_HASH_MAX = 2048;
const DIGEST = Buffer.alloc(32);
const REVERSED = Buffer.alloc(32);

/** Double SHA-256 of the concatenated parts, shown as Bitcoin shows hashes (byte-reversed hex). */
function hashId(parts: readonly Uint8Array[], length: number): string {
  if (length <= JS_HASH_MAX) {
    sha256dInto(parts, DIGEST);
  } else if (parts.length === 1 || length <= CONCAT_HASH_MAX) {
    // The outer hash of the 32-byte digest is a single JS compression.
    sha256Into([oneShotHash('sha256', parts.length === 1 ? parts[0]! : Buffer.concat(parts), 'buffer')], DIGEST);
  } else {
    const inner = createHash('sha256');
    for (const part of parts) inner.update(part);
    sha256Into([inner.digest()], DIGEST);
  }
  return reversedHex(DIGEST);
}

/** A 32-byte hash in display order (byte-reversed hex), through one reused buffer. */
function reversedHex(hash: Uint8Array): string {
  for (let i = 0; i < 32; i++) REVERSED[i] = hash[31 - i]!;
  return REVERSED.toString('hex');
}

const hexOf = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** An output whose type and address are decoded on first use: most outputs of a block are never looked at. */
class RawOutput implements TxOutput {
  private decoded: DecodedScript | undefined;
  constructor(readonly n: number, readonly value: Litoshi, readonly script: Uint8Array, readonly network: NetworkParams) {}
  private get decodedScript(): DecodedScript { return (this.decoded ??= decodeScript(this.script, this.network)); }
  get scriptHex(): string { return hexOf(this.script); }
  get type(): string { return this.decodedScript.type; }
  get address(): string | null { return this.decodedScript.address; }
  toJSON(): TxOutput { return { n: this.n, value: this.value, scriptHex: this.scriptHex, type: this.type, address: this.address }; }
}

/** A parsed transaction plus what the block parser needs (coinbase scriptSig, typed outputs). */
export interface RawTx extends ParsedTx {
  outputs: RawOutput[];
  /** scriptSig of the first input (the coinbase data for a coinbase). */
  firstScriptSig: Uint8Array;
  /** The MWEB transaction body carried inside the transaction (mempool form of peg-ins), if any. */
  mweb: MwebBody | null;
  /** Indexes of the witness_mweb_pegin outputs, found without decoding the others. */
  peginVouts: number[];
}

/** Where a transaction's parts lie in its block (or raw transaction) bytes. */
interface TxLayout {
  start: number;
  /** Inputs start here (after the marker and flags of an extended serialization). */
  inputsAt: number;
  outputsAt: number;
  /** End of the outputs: witness and MWEB data follow in an extended serialization. */
  outputsEnd: number;
  end: number;
  extended: boolean;
}

/**
 * A transaction whose txid, inputs and outputs are computed on first access: a
 * block's walk only finds boundaries and peg-in outputs, and most transactions
 * are never looked at again (the scan hashes only peg-ins, HogEx and the
 * transactions a peg-in spends).
 */
class LazyTx implements RawTx {
  private txidCache: string | undefined;
  private inputsCache: TxInput[] | undefined;
  private outputsCache: RawOutput[] | undefined;
  private readonly inputsAt: number;
  private readonly outputsAt: number;
  constructor(
    readonly isHogEx: boolean,
    readonly mweb: MwebBody | null,
    readonly peginVouts: number[],
    private readonly bytes: Uint8Array,
    private readonly layout: TxLayout,
    private readonly network: NetworkParams,
  ) {
    this.inputsAt = layout.inputsAt;
    this.outputsAt = layout.outputsAt;
  }

  /** Txids hash version | vin | vout | locktime: marker, flags, witness and MWEB data are left out. */
  get txid(): string {
    if (this.txidCache !== undefined) return this.txidCache;
    const { start, inputsAt, outputsEnd, end, extended } = this.layout;
    const b = this.bytes;
    return (this.txidCache = extended
      ? hashId([b.subarray(start, start + 4), b.subarray(inputsAt, outputsEnd), b.subarray(end - 4, end)], 8 + outputsEnd - inputsAt)
      : hashId([b.subarray(start, end)], end - start));
  }

  get inputs(): TxInput[] {
    if (this.inputsCache) return this.inputsCache;
    const r = new Reader(this.bytes, this.inputsAt);
    const count = r.compactSize();
    const inputs: TxInput[] = [];
    for (let i = 0; i < count; i++) {
      const prevHash = r.take(32);
      const prevVout = r.u32();
      r.skip(r.compactSize() + 4);
      const coinbase = prevVout === 0xffffffff && prevHash.every((b) => b === 0);
      inputs.push(coinbase ? { prevTxid: null, prevVout } : { prevTxid: reversedHex(prevHash), prevVout });
    }
    return (this.inputsCache = inputs);
  }

  get firstScriptSig(): Uint8Array {
    const r = new Reader(this.bytes, this.inputsAt);
    if (r.compactSize() === 0) return new Uint8Array(0);
    r.skip(36);
    return r.bytesVector();
  }

  get outputs(): RawOutput[] {
    if (this.outputsCache) return this.outputsCache;
    const r = new Reader(this.bytes, this.outputsAt);
    const count = r.compactSize();
    const outputs: RawOutput[] = [];
    for (let n = 0; n < count; n++) {
      const value = r.u64();
      outputs.push(new RawOutput(n, value, r.bytesVector(), this.network));
    }
    return (this.outputsCache = outputs);
  }
}

/** OP_9 PUSH32 (witness version 9, 32-byte program) and OP_8 PUSH32, checked in place without decoding. */
const isPeginScript = (bytes: Uint8Array, at: number, length: number): boolean =>
  length === 34 && bytes[at] === 0x59 && bytes[at + 1] === 0x20;
const isHogAddrScript = (bytes: Uint8Array, at: number, length: number): boolean =>
  length === 34 && bytes[at] === 0x58 && bytes[at + 1] === 0x20;

function readTx(r: Reader, network: NetworkParams): RawTx {
  const start = r.pos;
  r.skip(4);
  let flags = 0;
  // An empty input vector followed by a non-zero byte is the extended-serialization marker.
  if (r.bytes[r.pos] === 0x00 && r.bytes[r.pos + 1] !== 0x00) {
    r.skip(1);
    flags = r.u8();
    if ((flags & ~(FLAG_WITNESS | FLAG_MWEB)) !== 0) throw new ParseError(`unknown transaction flags 0x${flags.toString(16)} at byte ${r.pos - 1}`);
  }
  const bodyStart = r.pos;
  const inputCount = r.compactSize();
  for (let i = 0; i < inputCount; i++) {
    r.skip(36);
    r.skip(r.compactSize() + 4);
  }
  const outputsAt = r.pos;
  const outputCount = r.compactSize();
  const peginVouts: number[] = [];
  let firstIsHogAddr = false;
  for (let n = 0; n < outputCount; n++) {
    r.skip(8);
    const length = r.compactSize();
    if (isPeginScript(r.bytes, r.pos, length)) peginVouts.push(n);
    if (n === 0) firstIsHogAddr = isHogAddrScript(r.bytes, r.pos, length);
    r.skip(length);
  }
  const bodyEnd = r.pos;
  if (flags & FLAG_WITNESS) {
    for (let i = 0; i < inputCount; i++) {
      const items = r.compactSize();
      for (let k = 0; k < items; k++) r.skip(r.compactSize());
    }
  }
  let mweb: MwebBody | null = null;
  let isHogEx = false;
  if (flags & FLAG_MWEB) {
    const present = r.u8();
    if (present === 0x01) {
      r.skip(64); // kernel offset, stealth offset
      mweb = readMwebBody(r);
    } else if (present === 0x00) {
      // Litecoin Core marks a transaction with the MWEB flag but no MWEB body as the HogEx.
      isHogEx = outputCount > 0 && firstIsHogAddr;
    } else {
      throw new ParseError(`bad MWEB transaction marker 0x${present.toString(16)} at byte ${r.pos - 1}`);
    }
  }
  r.skip(4);
  if (mweb && inputCount === 0 && outputCount === 0) {
    // Its id is a BLAKE3 hash of the MWEB body; such transactions never appear in a block's transaction vector.
    throw new ParseError('MWEB-only transaction (no canonical inputs or outputs): pegscope reads only canonical transactions');
  }
  const layout: TxLayout = { start, inputsAt: bodyStart, outputsAt, outputsEnd: bodyEnd, end: r.pos, extended: flags !== 0 };
  return new LazyTx(isHogEx, mweb, peginVouts, r.bytes, layout, network);
}

/** A kernel's public peg data (the amounts are in clear in the serialized kernel). */
export interface MwebKernel {
  features: number;
  fee: Litoshi | null;
  peginAmount: Litoshi | null;
  pegouts: { amount: Litoshi; scriptHex: string }[];
}

export interface MwebBody {
  inputCount: number;
  outputCount: number;
  kernels: MwebKernel[];
}

export interface MwebHeader {
  height: number;
  outputRoot: string;
  kernelRoot: string;
  leafsetRoot: string;
  kernelOffset: string;
  stealthOffset: string;
  /** Cumulative sizes: outputMmrSize is the node's `num_txos`. */
  outputMmrSize: number;
  kernelMmrSize: number;
}

const INPUT_STEALTH_KEY = 0x01, INPUT_EXTRA_DATA = 0x02;
const MESSAGE_STANDARD = 0x01, MESSAGE_EXTRA_DATA = 0x02;
const KERNEL_FEE = 0x01, KERNEL_PEGIN = 0x02, KERNEL_PEGOUT = 0x04, KERNEL_HEIGHT_LOCK = 0x08,
  KERNEL_STEALTH = 0x10, KERNEL_EXTRA_DATA = 0x20;
const RANGE_PROOF_SIZE = 675;

/** The roots and offsets are kept as bytes and shown as hex on access: the scan reads only the height and sizes. */
class RawMwebHeader implements MwebHeader {
  constructor(readonly height: number, private readonly roots: Uint8Array, readonly outputMmrSize: number, readonly kernelMmrSize: number) {}
  private root(i: number): string { return hexOf(this.roots.subarray(32 * i, 32 * i + 32)); }
  get outputRoot(): string { return this.root(0); }
  get kernelRoot(): string { return this.root(1); }
  get leafsetRoot(): string { return this.root(2); }
  get kernelOffset(): string { return this.root(3); }
  get stealthOffset(): string { return this.root(4); }
}

function readMwebHeader(r: Reader): MwebHeader {
  const height = r.varint();
  const roots = r.take(5 * 32);
  const outputMmrSize = r.varint();
  const kernelMmrSize = r.varint();
  return new RawMwebHeader(height, roots, outputMmrSize, kernelMmrSize);
}

function readMwebBody(r: Reader): MwebBody {
  const inputCount = r.compactSize();
  for (let i = 0; i < inputCount; i++) {
    const features = r.u8();
    r.skip(32 + 33 + 33); // output id, commitment, output pubkey
    if (features & INPUT_STEALTH_KEY) r.skip(33);
    if (features & INPUT_EXTRA_DATA) r.bytesVector();
    r.skip(64);
  }
  const outputCount = r.compactSize();
  for (let i = 0; i < outputCount; i++) {
    r.skip(33 + 33 + 33); // commitment, sender and receiver pubkeys
    const features = r.u8();
    if (features & MESSAGE_STANDARD) r.skip(33 + 1 + 8 + 16); // key exchange pubkey, view tag, masked value, masked nonce
    if (features & MESSAGE_EXTRA_DATA) r.bytesVector();
    r.skip(RANGE_PROOF_SIZE + 64);
  }
  const kernelCount = r.compactSize();
  const kernels: MwebKernel[] = [];
  for (let i = 0; i < kernelCount; i++) kernels.push(readKernel(r));
  return { inputCount, outputCount, kernels };
}

function readKernel(r: Reader): MwebKernel {
  const features = r.u8();
  const fee = features & KERNEL_FEE ? r.varint() : null;
  const peginAmount = features & KERNEL_PEGIN ? r.varint() : null;
  const pegouts: MwebKernel['pegouts'] = [];
  if (features & KERNEL_PEGOUT) {
    const count = r.compactSize();
    for (let i = 0; i < count; i++) {
      const amount = r.varint();
      pegouts.push({ amount, scriptHex: hexOf(r.bytesVector()) });
    }
  }
  if (features & KERNEL_HEIGHT_LOCK) r.varint();
  if (features & KERNEL_STEALTH) r.skip(33);
  if (features & KERNEL_EXTRA_DATA) r.bytesVector();
  r.skip(33 + 64); // excess, signature
  return { features, fee, peginAmount, pegouts };
}

/** A block with its transactions kept, for callers that need more than ParsedBlock (input resolution, tests). */
export interface RawBlock extends ParsedBlock {
  txs: RawTx[];
  mwebHeader: MwebHeader | null;
  mwebBody: MwebBody | null;
}

/** Parses one raw block (`getblock <hash> 0`). */
export function parseBlock(raw: Uint8Array, network: NetworkParams): RawBlock {
  if (raw.length < HEADER_SIZE + 1) throw new ParseError(`block of ${raw.length} bytes is shorter than a header`);
  const header = raw.subarray(0, HEADER_SIZE);
  const hash = hashId([header], HEADER_SIZE);
  const prevHash = reversedHex(header.subarray(4, 36));
  const time = new DataView(raw.buffer, raw.byteOffset + 68, 4).getUint32(0, true);
  const r = new Reader(raw, HEADER_SIZE);
  const txCount = r.compactSize();
  const txs: RawTx[] = [];
  for (let i = 0; i < txCount; i++) txs.push(readTx(r, network));
  let mwebHeader: MwebHeader | null = null;
  let mwebBody: MwebBody | null = null;
  if (r.remaining > 0) {
    const present = r.u8();
    if (present === 0x01) {
      mwebHeader = readMwebHeader(r);
      mwebBody = readMwebBody(r);
    } else if (present !== 0x00) {
      throw new ParseError(`block ${hash}: bad MWEB block marker 0x${present.toString(16)} after ${txCount} transactions`);
    }
  }
  if (r.remaining !== 0) throw new ParseError(`block ${hash}: ${r.remaining} unexpected bytes after the block`);
  return { ...summarize(hash, prevHash, time, txs), txs, mwebHeader, mwebBody,
    mweb: mwebHeader ? { height: mwebHeader.height, numTxos: mwebHeader.outputMmrSize, numKernels: mwebBody?.kernels.length ?? null } : null };
}

/** The HogEx is the last transaction of a block; search from the end. */
function lastWhere<T>(items: readonly T[], test: (item: T) => boolean): T | null {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return items[i]!;
  return null;
}

function summarize(hash: string, prevHash: string, time: number, txs: RawTx[]): Omit<ParsedBlock, 'mweb'> {
  const pegins: Pegin[] = [];
  for (const tx of txs) {
    for (const vout of tx.peginVouts) {
      const out = tx.outputs[vout]!;
      pegins.push({ txid: tx.txid, vout, amount: out.value, kernelId: out.scriptHex.slice(4), inputs: tx.inputs });
    }
  }
  const hogex = lastWhere(txs, (tx) => tx.isHogEx);
  const pegouts: Pegout[] = hogex
    ? hogex.outputs.slice(1).map((out) => ({ txid: hogex.txid, vout: out.n, amount: out.value, address: out.address, scriptHex: out.scriptHex }))
    : [];
  const coinbase = txs[0];
  return {
    hash, prevHash, time, txCount: txs.length,
    supply: hogex ? hogex.outputs[0]!.value : null,
    hogexTxid: hogex?.txid ?? null,
    pegins, pegouts,
    coinbase: {
      address: coinbase ? coinbaseAddress(coinbase.outputs) : null,
      tag: coinbase ? coinbaseTag(coinbase.firstScriptSig) : '',
    },
  };
}

/** Coinbase scripts repeat (a pool pays itself at a few addresses), so their addresses are remembered. */
const coinbaseAddresses = new Map<string, string | null>();
const MAX_COINBASE_ADDRESSES = 4096;

/** The first output with an address, as Litecoin Core would show it. */
function coinbaseAddress(outputs: readonly RawOutput[]): string | null {
  for (const out of outputs) {
    const key = `${out.network.name}:${latin1(out.script)}`;
    let address = coinbaseAddresses.get(key);
    if (address === undefined) {
      address = out.address;
      if (coinbaseAddresses.size >= MAX_COINBASE_ADDRESSES) coinbaseAddresses.clear();
      coinbaseAddresses.set(key, address);
    }
    if (address !== null) return address;
  }
  return null;
}

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/** Parses one raw transaction (`getrawtransaction <txid> false`), MWEB flag included. */
export function parseTransaction(raw: Uint8Array, network: NetworkParams): RawTx {
  const r = new Reader(raw);
  const tx = readTx(r, network);
  if (r.remaining !== 0) throw new ParseError(`transaction ${tx.txid}: ${r.remaining} unexpected bytes after the locktime`);
  return tx;
}

/** Pushes up to this size at the start of a coinbase are the BIP34 height and extranonces, not text. */
const MAX_LEADING_PUSH = 8;

/**
 * Pool tag of a coinbase: printable ASCII runs of its scriptSig, joined by a space
 * (e.g. "/poolin.com/"). Leading small pushes (BIP34 height, extranonce) are skipped
 * first: pools write their text as raw bytes, so the rest is searched byte by byte.
 */
export function coinbaseTag(scriptSig: Uint8Array): string {
  let pos = 0;
  while (pos < scriptSig.length) {
    const op = scriptSig[pos]!;
    if (op < 1 || op > MAX_LEADING_PUSH) break;
    pos += 1 + op;
  }
  return printableRuns(scriptSig.subarray(pos)).join(' ');
}

function printableRuns(data: Uint8Array): string[] {
  const runs: string[] = [];
  let start = 0;
  for (let i = 0; i <= data.length; i++) {
    const byte = data[i];
    if (byte !== undefined && byte >= 0x20 && byte <= 0x7e) continue;
    if (i - start >= MIN_TAG_RUN) {
      const trimmed = latin1(data.subarray(start, i)).trim();
      if (trimmed.length >= MIN_TAG_RUN) runs.push(trimmed);
    }
    start = i + 1;
  }
  return runs;
}

/** The parts of a `getblock <hash> 2` answer the fallback path reads. */
export interface VerboseBlockJson {
  hash: string;
  previousblockhash?: string;
  time: number;
  tx: VerboseTxJson[];
  mweb?: { height: number; num_txos: number; num_kernels: number };
}

export interface VerboseTxJson {
  txid: string;
  vin: { coinbase?: string; txid?: string; vout?: number }[];
  vout: { value: number | string; n: number; scriptPubKey: { hex: string; type: string; address?: string; addresses?: string[] } }[];
}

/** Verbosity-2 fallback: the same ParsedBlock built from the node's JSON instead of raw bytes. */
export function blockFromVerboseJson(json: VerboseBlockJson, network: NetworkParams): ParsedBlock {
  void network; // addresses come from the node's own JSON here
  const txs = json.tx.map(txFromVerboseJson);
  const pegins: Pegin[] = [];
  for (const tx of txs) {
    for (const out of tx.outputs) {
      if (out.type === 'witness_mweb_pegin') {
        pegins.push({ txid: tx.txid, vout: out.n, amount: out.value, kernelId: out.scriptHex.slice(4), inputs: tx.inputs });
      }
    }
  }
  const hogex = lastWhere(txs, (tx) => tx.outputs[0]?.type === 'witness_mweb_hogaddr');
  const coinbase = json.tx[0];
  const coinbaseHex = coinbase?.vin[0]?.coinbase;
  return {
    hash: json.hash,
    prevHash: json.previousblockhash ?? '0'.repeat(64),
    time: json.time,
    txCount: txs.length,
    supply: hogex ? hogex.outputs[0]!.value : null,
    hogexTxid: hogex?.txid ?? null,
    pegins,
    pegouts: hogex
      ? hogex.outputs.slice(1).map((out) => ({ txid: hogex.txid, vout: out.n, amount: out.value, address: out.address, scriptHex: out.scriptHex }))
      : [],
    mweb: json.mweb ? { height: json.mweb.height, numTxos: json.mweb.num_txos, numKernels: json.mweb.num_kernels } : null,
    coinbase: {
      address: txs[0]?.outputs.find((out) => out.address !== null)?.address ?? null,
      tag: coinbaseHex ? coinbaseTag(Buffer.from(coinbaseHex, 'hex')) : '',
    },
  };
}

/** One transaction of a verbose answer; `address` (new nodes) or `addresses[0]` (0.21 nodes). */
export function txFromVerboseJson(tx: VerboseTxJson): ParsedTx {
  return {
    txid: tx.txid,
    isHogEx: tx.vout[0]?.scriptPubKey.type === 'witness_mweb_hogaddr',
    inputs: tx.vin.map((vin) => (vin.coinbase !== undefined ? { prevTxid: null, prevVout: 0xffffffff } : { prevTxid: vin.txid!, prevVout: vin.vout! })),
    outputs: tx.vout.map((out) => ({
      n: out.n,
      value: parseNodeValue(out.value),
      scriptHex: out.scriptPubKey.hex,
      type: out.scriptPubKey.type,
      address: out.scriptPubKey.address ?? out.scriptPubKey.addresses?.[0] ?? null,
    })),
  };
}
