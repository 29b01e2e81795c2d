/**
 * Litecoin Core's wire format, written (the parser in ../parse.ts reads it):
 *   block = header(80) | CompactSize n | tx × n | 0x01 | mw::Block
 *   tx    = version | [0x00 flags] | vin | vout | [witness] | [0x00 if flags & 8] | locktime
 *   mw::Block = Header(height VARINT, 5 × 32-byte roots/offsets, num_txos VARINT, num_kernels VARINT)
 *               | inputs | outputs | kernels
 * Hashes are double SHA-256 in internal byte order; display order is reversed.
 */
import { sha256d } from '@pegscope/client';

export { sha256, sha256d } from '@pegscope/client';

export const displayHex = (internal: Uint8Array): string => Buffer.from(internal).reverse().toString('hex');

/**
 * Scratch memory for one block: every ArrayBuffer V8 creates costs about a
 * microsecond, so writers and filler bytes take slices of one big buffer
 * instead. Whatever must outlive the block is copied out (`copy`).
 */
const ARENA = new Uint8Array(1 << 23);
let arenaPos = 0;

/** Starts a new block: everything handed out from the arena before is dead. */
export function resetArena(): void {
  arenaPos = 0;
}

/** `n` bytes of scratch memory valid until the next resetArena(). */
export function scratch(n: number): Uint8Array {
  if (arenaPos + n > ARENA.length) return new Uint8Array(n);
  const out = ARENA.subarray(arenaPos, arenaPos + n);
  arenaPos += n;
  return out;
}

export const copy = (bytes: Uint8Array): Uint8Array => bytes.slice();

/** A growable little-endian byte writer; it starts in scratch memory. */
export class Writer {
  private buf: Uint8Array;
  pos = 0;
  constructor(capacity = 512) {
    this.buf = scratch(capacity);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  u8(v: number): this { this.ensure(1); this.buf[this.pos++] = v; return this; }
  u32(v: number): this {
    this.ensure(4);
    const b = this.buf, p = this.pos;
    b[p] = v; b[p + 1] = v >>> 8; b[p + 2] = v >>> 16; b[p + 3] = v >>> 24;
    this.pos += 4;
    return this;
  }
  u64(v: number): this {
    this.u32(v % 0x1_0000_0000);
    return this.u32(Math.floor(v / 0x1_0000_0000));
  }
  bytes(b: Uint8Array): this { this.ensure(b.length); this.buf.set(b, this.pos); this.pos += b.length; return this; }

  compactSize(n: number): this {
    if (n < 0xfd) return this.u8(n);
    if (n <= 0xffff) return this.u8(0xfd).u8(n & 0xff).u8(n >>> 8);
    if (n <= 0xffffffff) return this.u8(0xfe).u32(n);
    return this.u8(0xff).u64(n);
  }

  /** Bitcoin Core's VARINT: MSB base-128 where each continuation byte carries a +1 offset. */
  varint(n: number): this {
    const tmp: number[] = [];
    for (;;) {
      tmp.push((n % 128) | (tmp.length ? 0x80 : 0));
      if (n <= 0x7f) break;
      n = Math.floor(n / 128) - 1;
    }
    for (let i = tmp.length - 1; i >= 0; i--) this.u8(tmp[i]!);
    return this;
  }

  varBytes(b: Uint8Array): this { return this.compactSize(b.length).bytes(b); }

  /** What was written (the writer must not be used afterwards). */
  take(): Uint8Array { return this.pos === this.buf.length ? this.buf : this.buf.subarray(0, this.pos); }
  view(from = 0, to = this.pos): Uint8Array { return this.buf.subarray(from, to); }
}

export interface TxIn {
  /** Internal byte order (32 bytes); all zero with vout 0xffffffff for the coinbase. */
  prevHash: Uint8Array;
  prevVout: number;
  scriptSig: Uint8Array;
  sequence: number;
  witness: Uint8Array[];
}

export interface TxOut {
  value: number;
  script: Uint8Array;
}

export interface SerializedTx {
  raw: Uint8Array;
  /** Internal byte order. */
  txidBytes: Uint8Array;
  readonly txid: string;
}

/** A canonical transaction; segwit serialization (marker 0x00, flag 0x01) when any input has a witness. */
export function serializeTx(inputs: readonly TxIn[], outputs: readonly TxOut[], version = 2, locktime = 0): SerializedTx {
  const segwit = inputs.some((i) => i.witness.length > 0);
  return finish(inputs, outputs, version, locktime, segwit ? 0x01 : 0);
}

/** The HogEx: marker 0x00, flag 0x08, no witness, one 0x00 byte (no MWEB body) before the locktime. */
export function serializeHogEx(inputs: readonly TxIn[], outputs: readonly TxOut[]): SerializedTx {
  return finish(inputs, outputs, 2, 0, 0x08);
}

function finish(inputs: readonly TxIn[], outputs: readonly TxOut[], version: number, locktime: number, flags: number): SerializedTx {
  const w = new Writer(64 + inputs.length * 180 + outputs.length * 44);
  w.u32(version);
  if (flags) w.u8(0x00).u8(flags);
  const bodyStart = w.pos;
  w.compactSize(inputs.length);
  for (const i of inputs) w.bytes(i.prevHash).u32(i.prevVout).varBytes(i.scriptSig).u32(i.sequence);
  w.compactSize(outputs.length);
  for (const o of outputs) w.u64(o.value).varBytes(o.script);
  const bodyEnd = w.pos;
  if (flags & 0x01) {
    for (const i of inputs) {
      w.compactSize(i.witness.length);
      for (const item of i.witness) w.varBytes(item);
    }
  }
  if (flags & 0x08) w.u8(0x00);
  w.u32(locktime);
  const raw = w.take();
  // The txid hashes version | vin | vout | locktime only.
  const txidBytes = flags
    ? sha256d(raw.subarray(0, 4), raw.subarray(bodyStart, bodyEnd), raw.subarray(raw.length - 4))
    : sha256d(raw);
  let txid: string | undefined;
  // Most txids are never shown (coinbases, most HogExes): format on first use.
  return { raw, txidBytes, get txid() { return (txid ??= displayHex(txidBytes)); } };
}

export function merkleRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return new Uint8Array(32);
  let level = leaves.slice();
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(level[i]!, level[i + 1] ?? level[i]!));
    level = next;
  }
  return level[0]!;
}

export interface HeaderFields {
  version: number;
  prevHash: Uint8Array;
  merkleRoot: Uint8Array;
  time: number;
  bits: number;
  nonce: number;
}

export function serializeHeader(h: HeaderFields): Uint8Array {
  return new Writer(80).u32(h.version).bytes(h.prevHash).bytes(h.merkleRoot).u32(h.time).u32(h.bits).u32(h.nonce).take();
}

/** Kernel feature bits (mw::KernelFeatures). */
export const KERNEL_FEE = 0x01, KERNEL_PEGIN = 0x02, KERNEL_PEGOUT = 0x04, KERNEL_STEALTH = 0x10;

export interface Kernel {
  fee: number;
  peginAmount: number | null;
  pegouts: TxOut[];
  /** stealth excess (33) | excess (33) | signature (64): opaque filler in the simulation. */
  opaque: Uint8Array;
}

/** Serialized kernel: features | fee | [peg-in amount] | [peg-outs] | stealth excess | excess | signature. */
export function writeKernel(w: Writer, k: Kernel): void {
  let features = KERNEL_FEE | KERNEL_STEALTH;
  if (k.peginAmount !== null) features |= KERNEL_PEGIN;
  if (k.pegouts.length > 0) features |= KERNEL_PEGOUT;
  w.u8(features).varint(k.fee);
  if (k.peginAmount !== null) w.varint(k.peginAmount);
  if (k.pegouts.length > 0) {
    w.compactSize(k.pegouts.length);
    for (const p of k.pegouts) w.varint(p.value).varBytes(p.script);
  }
  w.bytes(k.opaque);
}

export interface MwebHeaderFields {
  height: number;
  /** output root, kernel root, leafset root, kernel offset, stealth offset: 160 bytes. */
  roots: Uint8Array;
  numTxos: number;
  numKernels: number;
}

export function serializeMwebHeader(h: MwebHeaderFields): Uint8Array {
  return new Writer(180).varint(h.height).bytes(h.roots).varint(h.numTxos).varint(h.numKernels).take();
}

/**
 * The MWEB block as it follows the transaction vector. The simulation carries
 * no MWEB inputs or outputs (commitments and range proofs reveal nothing the
 * analysis reads); kernels carry the fees and the peg data like the real ones.
 */
export function serializeMwebBlock(header: Uint8Array, kernels: readonly Kernel[]): Uint8Array {
  const w = new Writer(header.length + 8 + kernels.length * 180);
  w.bytes(header).compactSize(0).compactSize(0).compactSize(kernels.length);
  for (const k of kernels) writeKernel(w, k);
  return w.take();
}

export function kernelBytes(k: Kernel): Uint8Array {
  const w = new Writer(200);
  writeKernel(w, k);
  return w.take();
}
