/**
 * Ed25519 signature checks for minisign's `Ed` signatures (docs/verifying.md):
 * the platform's WebCrypto where it has Ed25519 (Node, current browsers),
 * else @noble/ed25519 (audited; bundled into dist/index.js at build time, so
 * the package keeps zero runtime dependencies). Where there is no WebCrypto
 * at all (React Native's Hermes) noble hashes with the SHA-512 below.
 */
import { hashes, verifyAsync } from '@noble/ed25519';
import { MASK64 as MASK, SHA512_IV as IV, SHA512_K as K } from './sha2.js';

type Subtle = { importKey: SubtleCrypto['importKey']; verify: SubtleCrypto['verify']; digest: SubtleCrypto['digest'] };

const subtleCrypto = (): Subtle | undefined => (globalThis as { crypto?: { subtle?: Subtle } }).crypto?.subtle;

/** Whether WebCrypto has Ed25519: asked once, by importing a valid key (the base point's encoding). */
let webCryptoEd25519: Promise<boolean> | null = null;
const BASE_POINT = new Uint8Array(32).fill(0x66);
BASE_POINT[0] = 0x58;

// A copy: a Node Buffer is a view into a shared pool, so its .buffer holds other bytes too.
const buffer = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer as ArrayBuffer;

/**
 * Whether `signature` (64 bytes) is `publicKey`'s (32 bytes) Ed25519
 * signature of `message`. A key or signature either implementation rejects
 * as malformed (not a curve point, an out-of-range scalar) does not verify.
 */
export async function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
  const subtle = subtleCrypto();
  webCryptoEd25519 ??= subtle
    ? subtle.importKey('raw', buffer(BASE_POINT), { name: 'Ed25519' }, false, ['verify']).then(() => true, () => false)
    : Promise.resolve(false);
  try {
    if (subtle && (await webCryptoEd25519)) {
      const key = await subtle.importKey('raw', buffer(publicKey), { name: 'Ed25519' }, false, ['verify']);
      return await subtle.verify({ name: 'Ed25519' }, key, buffer(signature), buffer(message));
    }
    return await verifyWithNoble(signature, message, publicKey);
  } catch {
    return false;
  }
}

/** @noble/ed25519's check, with RFC 8032's rules (no ZIP 215 leniency: WebCrypto's rules too). */
export function verifyWithNoble(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
  return verifyAsync(signature, message, publicKey, { zip215: false });
}

hashes.sha512Async = async (message: Uint8Array): Promise<Uint8Array<ArrayBuffer>> => {
  const subtle = subtleCrypto();
  return subtle ? new Uint8Array(await subtle.digest('SHA-512', buffer(message))) : sha512(message);
};

const rotr = (x: bigint, n: bigint): bigint => ((x >> n) | (x << (64n - n))) & MASK;

/** SHA-512 with BigInt: short and slow, for the few kilobytes a signature covers where the platform has no hash. */
export function sha512(message: Uint8Array): Uint8Array<ArrayBuffer> {
  const blocks = new Uint8Array(Math.ceil((message.length + 17) / 128) * 128);
  blocks.set(message);
  blocks[message.length] = 0x80;
  const view = new DataView(blocks.buffer);
  view.setBigUint64(blocks.length - 8, BigInt(message.length) * 8n);
  const h = IV.slice();
  const w: bigint[] = [];
  for (let at = 0; at < blocks.length; at += 128) {
    for (let i = 0; i < 80; i++) {
      w[i] = i < 16
        ? view.getBigUint64(at + 8 * i)
        : (w[i - 16]! + (rotr(w[i - 15]!, 1n) ^ rotr(w[i - 15]!, 8n) ^ (w[i - 15]! >> 7n)) + w[i - 7]!
          + (rotr(w[i - 2]!, 19n) ^ rotr(w[i - 2]!, 61n) ^ (w[i - 2]! >> 6n))) & MASK;
    }
    let [a, b, c, d, e, f, g, k] = h as [bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint];
    for (let i = 0; i < 80; i++) {
      const t1 = k + (rotr(e, 14n) ^ rotr(e, 18n) ^ rotr(e, 41n)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!;
      const t2 = (rotr(a, 28n) ^ rotr(a, 34n) ^ rotr(a, 39n)) + ((a & b) ^ (a & c) ^ (b & c));
      [k, g, f, e, d, c, b, a] = [g, f, e, (d + t1) & MASK, c, b, a, (t1 + t2) & MASK];
    }
    [a, b, c, d, e, f, g, k].forEach((v, i) => { h[i] = (h[i]! + v) & MASK; });
  }
  const out = new DataView(new ArrayBuffer(64));
  h.forEach((v, i) => out.setBigUint64(8 * i, v));
  return new Uint8Array(out.buffer);
}
