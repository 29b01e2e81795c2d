// The wallet package's Ed25519 (packages/client/src/ed25519.ts): WebCrypto's,
// and the bundled @noble/ed25519 fallback with its BigInt SHA-512, checked
// against node:crypto and RFC 8032's first test vector.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha512, verifyEd25519, verifyWithNoble } from '../packages/client/src/ed25519.js';

const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
// RFC 8032, 7.1, TEST 1: the empty message.
const RFC_PUBLIC = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const RFC_SIGNATURE = hex('e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b');

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const key = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(12));
const message = new TextEncoder().encode('{"version":"1","network":"mainnet"}');
const signature = new Uint8Array(sign(null, message, privateKey));

describe('SHA-512 for platforms without WebCrypto', () => {
  it('equals node:crypto at every padding boundary', () => {
    for (const length of [0, 1, 55, 111, 112, 113, 127, 128, 129, 239, 240, 256, 1_000, 5_021]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 255);
      expect(Buffer.from(sha512(bytes)).toString('hex'), `${length} bytes`).toBe(createHash('sha512').update(bytes).digest('hex'));
    }
  });
});

describe.each([
  ['WebCrypto (Node has Ed25519)', verifyEd25519],
  ['the bundled @noble/ed25519', verifyWithNoble],
])('%s', (_name, verify) => {
  it('accepts RFC 8032\'s test vector and node:crypto\'s signature', async () => {
    expect(await verify(RFC_SIGNATURE, new Uint8Array(0), RFC_PUBLIC)).toBe(true);
    expect(await verify(signature, message, key)).toBe(true);
  });

  it('refuses a changed message, another key, a changed signature, and a malformed key or signature without throwing', async () => {
    const changed = message.slice();
    changed[3]! ^= 1;
    expect(await verify(signature, changed, key)).toBe(false);
    expect(await verify(signature, message, RFC_PUBLIC)).toBe(false);
    const flipped = signature.slice();
    flipped[10]! ^= 1;
    expect(await verify(flipped, message, key)).toBe(false);
    const outOfRange = signature.slice();
    outOfRange.fill(0xff, 32);
    expect(await verify(outOfRange, message, key)).toBe(false);
    expect(await verifyEd25519(signature, message, new Uint8Array(32).fill(0xff))).toBe(false);
  });
});
