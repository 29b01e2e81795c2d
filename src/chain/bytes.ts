/**
 * Byte-level reading and hashing shared by the raw transaction, MWEB and block
 * parsers (raw-tx.ts, mweb.ts, parse.ts).
 */
import { createHash, hash as oneShotHash } from 'node:crypto';
import { sha256dInto, sha256Into } from '@pegscope/client';

export class ParseError extends Error {}

/** A forward-only reader over a byte array. */
export class Reader {
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
export function hashId(parts: readonly Uint8Array[], length: number): string {
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
export function reversedHex(hash: Uint8Array): string {
  for (let i = 0; i < 32; i++) REVERSED[i] = hash[31 - i]!;
  return REVERSED.toString('hex');
}

export const hexOf = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

export const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
