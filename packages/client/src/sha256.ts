/**
 * SHA-256 in plain JS for short messages: range keys here, and in the
 * pipeline (src/chain) the headers, small transactions and
 * merkle pairs a block is made of. node:crypto costs ~2 µs per call in
 * binding overhead alone and is not in browsers; this runs a 64-byte
 * compression in well under a microsecond without allocating, which makes
 * generating 600,000 blocks several times faster, and parsing them too.
 * Checked against node:crypto in test/sim.test.ts.
 */
import { high32, SHA512_IV, SHA512_K } from './sha2.js';

const K = high32(SHA512_K.slice(0, 64));
const IV = high32(SHA512_IV);
const W = new Int32Array(64);
const H = new Int32Array(8);
const TAIL = new Uint8Array(128);
const DIGEST = new Uint8Array(32);
const DIGEST_PARTS: Uint8Array[] = [DIGEST];

function compress(bytes: Uint8Array, off: number): void {
  for (let i = 0; i < 16; i++) {
    const p = off + 4 * i;
    W[i] = (bytes[p]! << 24) | (bytes[p + 1]! << 16) | (bytes[p + 2]! << 8) | bytes[p + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const x = W[i - 15]!, y = W[i - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
  }
  let a = H[0]!, b = H[1]!, c = H[2]!, d = H[3]!, e = H[4]!, f = H[5]!, g = H[6]!, h = H[7]!;
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
  }
  H[0] = (H[0]! + a) | 0; H[1] = (H[1]! + b) | 0; H[2] = (H[2]! + c) | 0; H[3] = (H[3]! + d) | 0;
  H[4] = (H[4]! + e) | 0; H[5] = (H[5]! + f) | 0; H[6] = (H[6]! + g) | 0; H[7] = (H[7]! + h) | 0;
}

/** SHA-256 of the concatenated parts into `out` (32 bytes). */
function digestInto(parts: readonly Uint8Array[], out: Uint8Array): Uint8Array {
  H.set(IV);
  let total = 0;
  let fill = 0;
  for (const part of parts) {
    total += part.length;
    let i = 0;
    if (fill > 0) {
      while (fill < 64 && i < part.length) TAIL[fill++] = part[i++]!;
      if (fill < 64) continue;
      compress(TAIL, 0);
      fill = 0;
    }
    for (; i + 64 <= part.length; i += 64) compress(part, i);
    while (i < part.length) TAIL[fill++] = part[i++]!;
  }
  TAIL[fill++] = 0x80;
  const end = fill <= 56 ? 64 : 128;
  TAIL.fill(0, fill, end);
  const bits = total * 8;
  const hi = Math.floor(bits / 0x1_0000_0000);
  TAIL[end - 8] = hi >>> 24; TAIL[end - 7] = hi >>> 16; TAIL[end - 6] = hi >>> 8; TAIL[end - 5] = hi;
  TAIL[end - 4] = bits >>> 24; TAIL[end - 3] = bits >>> 16; TAIL[end - 2] = bits >>> 8; TAIL[end - 1] = bits;
  compress(TAIL, 0);
  if (end === 128) compress(TAIL, 64);
  for (let i = 0; i < 8; i++) {
    const v = H[i]!;
    out[4 * i] = v >>> 24; out[4 * i + 1] = v >>> 16; out[4 * i + 2] = v >>> 8; out[4 * i + 3] = v;
  }
  return out;
}

export function sha256(...parts: Uint8Array[]): Uint8Array {
  return digestInto(parts, new Uint8Array(32));
}

/** SHA-256 of the concatenated parts into `out` (32 bytes), without allocating. */
export const sha256Into: (parts: readonly Uint8Array[], out: Uint8Array) => Uint8Array = digestInto;

/** Double SHA-256 (Bitcoin's hash for txids, block hashes and merkle nodes). */
export function sha256d(...parts: Uint8Array[]): Uint8Array {
  return sha256dInto(parts, new Uint8Array(32));
}

/** Double SHA-256 of the concatenated parts into `out` (32 bytes), without allocating. */
export function sha256dInto(parts: readonly Uint8Array[], out: Uint8Array): Uint8Array {
  digestInto(parts, DIGEST);
  return digestInto(DIGEST_PARTS, out);
}
