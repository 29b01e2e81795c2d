/**
 * Raw transactions (Litecoin Core 0.21.2):
 *   tx = version(4) | [0x00 | flags] | vin | vout | [witness if flags&1] | [mweb_tx if flags&8] | locktime(4)
 *   mweb_tx is an optional pointer: 0x00 (none: the HogEx) or 0x01 | mw::Transaction.
 * Txids hash only version | vin | vout | locktime, so MWEB data never changes a txid.
 */
import type { Litoshi } from '../domain/amount.js';
import { decodeScript, type DecodedScript } from '../domain/address.js';
import type { NetworkParams } from '../domain/network.js';
import { hashId, hexOf, ParseError, Reader, reversedHex } from './bytes.js';
import { readMwebBody, type MwebBody } from './mweb.js';
import type { ParsedTx, TxInput, TxOutput } from './types.js';

const FLAG_WITNESS = 0x01;
const FLAG_MWEB = 0x08;

/** An output whose type and address are decoded on first use: most outputs of a block are never looked at. */
export class RawOutput implements TxOutput {
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

export function readTx(r: Reader, network: NetworkParams): RawTx {
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

/** Parses one raw transaction (`getrawtransaction <txid> false`), MWEB flag included. */
export function parseTransaction(raw: Uint8Array, network: NetworkParams): RawTx {
  const r = new Reader(raw);
  const tx = readTx(r, network);
  if (r.remaining !== 0) throw new ParseError(`transaction ${tx.txid}: ${r.remaining} unexpected bytes after the locktime`);
  return tx;
}
