/**
 * Signing and checking in minisign's formats with node:crypto (docs/verifying.md):
 * the batch job signs releases, `verify` and `mirror` check them. The parsers
 * are the wallet package's, so the job, the mirror and the wallet read one
 * implementation; the encoders only the signer needs live here, out of the
 * wallet's install.
 */
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import {
  SignatureError, base64Decode, globalSignedBytes, keyIdHex, parseSignature, parseTrustedComment,
  type MinisignPublicKey, type MinisignSignature, type SignatureAlgorithm,
} from '@pegscope/client';

export interface SecretKey {
  keyId: Uint8Array;
  keyIdHex: string;
  /** The Ed25519 seed, 32 bytes. */
  seed: Uint8Array;
  publicKey: Uint8Array;
}

const UNTRUSTED = 'untrusted comment: ';
const TRUSTED = 'trusted comment: ';
const SECRET_KEY_BYTES = 158;
// Offsets of minisign's secret key: algorithm, kdf, checksum algorithm, salt (32), opslimit (8), memlimit (8), key id, key (64), checksum (32).
const KDF_AT = 2;
const KEY_ID_AT = 54;
const KEY_AT = 62;
// DER wrappers that make node:crypto keys of raw Ed25519 bytes.
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

const base64 = (...parts: Uint8Array[]): string => Buffer.concat(parts).toString('base64');

/** A public key file: minisign's comment line, then the base64 line `minisign -P` takes. */
export function encodePublicKey(keyId: Uint8Array, key: Uint8Array): string {
  return `${UNTRUSTED}minisign public key ${keyIdHex(keyId)}\n${base64(Buffer.from('Ed'), keyId, key)}\n`;
}

/** A `.minisig` file's four lines. */
export function encodeSignature(s: Omit<MinisignSignature, 'keyIdHex'>): string {
  const body = base64(Buffer.from(s.algorithm), s.keyId, s.signature);
  return `${UNTRUSTED}${s.untrustedComment}\n${body}\n${TRUSTED}${s.trustedComment}\n${base64(s.globalSignature)}\n`;
}

/** minisign's `name:value` fields, tab-separated (what parseTrustedComment reads). */
export function formatTrustedComment(fields: ReadonlyArray<readonly [string, string | number]>): string {
  return fields.map(([name, value]) => {
    const text = `${name}:${value}`;
    if (/[\t\r\n]/.test(text)) throw new SignatureError(`a trusted comment field holds no tab or line break: ${name}`);
    return text;
  }).join('\t');
}

function privateKeyOf(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
}

function publicKeyOf(key: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519, key]), format: 'der', type: 'spki' });
}

function rawPublicKey(privateKey: KeyObject): Uint8Array {
  return new Uint8Array(createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519.length));
}

/** A new key pair with a random key id. */
export function generateSecretKey(): SecretKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  const seed = new Uint8Array(privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_ED25519.length));
  const keyId = new Uint8Array(randomBytes(8));
  return { keyId, keyIdHex: keyIdHex(keyId), seed, publicKey: rawPublicKey(privateKey) };
}

/** minisign's secret key file without a password, as `minisign -G -W` writes it. */
export function encodeSecretKey(key: SecretKey): string {
  const bytes = new Uint8Array(SECRET_KEY_BYTES);
  bytes.set(new TextEncoder().encode('Ed'), 0);
  bytes.set(new TextEncoder().encode('B2'), 4);
  bytes.set(key.keyId, KEY_ID_AT);
  bytes.set(key.seed, KEY_AT);
  bytes.set(key.publicKey, KEY_AT + 32);
  return `${UNTRUSTED}minisign secret key ${key.keyIdHex}\n${base64(bytes)}\n`;
}

export function publicKeyFile(key: SecretKey): string {
  return encodePublicKey(key.keyId, key.publicKey);
}

/**
 * Reads a secret key file. Errors never quote the file's content; a key
 * whose public half does not derive from its seed is refused (a damaged file).
 */
export function parseSecretKey(text: string): SecretKey {
  const lines = text.trim().split(/\r?\n/);
  if (lines.length !== 2 || !lines[0]!.startsWith(UNTRUSTED)) throw new SignatureError('not a minisign secret key file (two lines: a comment, then the key)');
  const bytes = base64Decode(lines[1]!.trim(), 'the secret key');
  if (bytes.length !== SECRET_KEY_BYTES || String.fromCharCode(bytes[0]!, bytes[1]!) !== 'Ed') {
    throw new SignatureError('not a minisign Ed25519 secret key');
  }
  if (bytes[KDF_AT] !== 0 || bytes[KDF_AT + 1] !== 0) {
    throw new SignatureError('the secret key is protected by a password, which pegscope does not read: make one with `pegscope keygen` or `minisign -G -W`');
  }
  const keyId = bytes.slice(KEY_ID_AT, KEY_AT);
  const seed = bytes.slice(KEY_AT, KEY_AT + 32);
  const publicKey = bytes.slice(KEY_AT + 32, KEY_AT + 64);
  if (Buffer.compare(Buffer.from(rawPublicKey(privateKeyOf(seed))), Buffer.from(publicKey)) !== 0) {
    throw new SignatureError('the secret key is damaged: its public half does not match its seed');
  }
  return { keyId, keyIdHex: keyIdHex(keyId), seed, publicKey };
}

function blake2b512(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('blake2b512').update(bytes).digest());
}

/** A file's BLAKE2b-512, streamed (a manifest can be larger than one string holds): what an `ED` signature of it covers. */
export async function blake2b512OfFile(path: string): Promise<Uint8Array> {
  const hash = createHash('blake2b512');
  await pipeline(createReadStream(path), hash);
  return new Uint8Array(hash.digest());
}

/** A `.minisig` file for `bytes`: `ED` (prehashed, minisign's default) or `Ed` (the bytes themselves, for small files a wallet checks). */
export function signBytes(bytes: Uint8Array, key: SecretKey, trustedComment: string, algorithm: SignatureAlgorithm = 'ED'): string {
  return signMessage(algorithm === 'ED' ? blake2b512(bytes) : bytes, algorithm, key, trustedComment);
}

/** An `ED` `.minisig` of a file whose BLAKE2b-512 is `prehash` (blake2b512OfFile). */
export function signPrehashed(prehash: Uint8Array, key: SecretKey, trustedComment: string): string {
  return signMessage(prehash, 'ED', key, trustedComment);
}

function signMessage(message: Uint8Array, algorithm: SignatureAlgorithm, key: SecretKey, trustedComment: string): string {
  const privateKey = privateKeyOf(key.seed);
  const signature = new Uint8Array(sign(null, message, privateKey));
  const globalSignature = new Uint8Array(sign(null, globalSignedBytes(signature, trustedComment), privateKey));
  return encodeSignature({
    algorithm, keyId: key.keyId, signature, untrustedComment: `signature from pegscope secret key ${key.keyIdHex}`, trustedComment, globalSignature,
  });
}

export interface VerifiedSignature {
  keyIdHex: string;
  trustedComment: string;
  fields: Record<string, string>;
}

/** Checks a `.minisig` of `bytes` against any of `publicKeys`; throws SignatureError saying what failed. */
export function verifyBytes(bytes: Uint8Array, signatureText: string, publicKeys: readonly MinisignPublicKey[]): VerifiedSignature {
  const sig = parseSignature(signatureText);
  return verifyMessage(sig.algorithm === 'ED' ? blake2b512(bytes) : bytes, sig, publicKeys);
}

/**
 * Checks a `.minisig` of a file whose BLAKE2b-512 is `prehash`
 * (blake2b512OfFile) against any of `publicKeys`. Only an `ED` signature
 * covers a prehash: an `Ed` one is refused, saying so.
 */
export function verifyPrehashed(prehash: Uint8Array, signatureText: string, publicKeys: readonly MinisignPublicKey[]): VerifiedSignature {
  const sig = parseSignature(signatureText);
  if (sig.algorithm !== 'ED') throw new SignatureError('the signature is of algorithm "Ed" (the bytes themselves); this file must be signed prehashed ("ED", minisign\'s default)');
  return verifyMessage(prehash, sig, publicKeys);
}

function verifyMessage(message: Uint8Array, sig: MinisignSignature, publicKeys: readonly MinisignPublicKey[]): VerifiedSignature {
  const key = publicKeys.find((k) => Buffer.compare(Buffer.from(k.keyId), Buffer.from(sig.keyId)) === 0);
  if (!key) throw new SignatureError(`signed by key ${sig.keyIdHex}, which is not among the trusted keys (${publicKeys.map((k) => k.keyIdHex).join(', ')})`);
  const publicKey = publicKeyOf(key.key);
  if (!verify(null, message, publicKey, sig.signature)) {
    throw new SignatureError(`the signature by key ${sig.keyIdHex} does not match the file`);
  }
  if (!verify(null, globalSignedBytes(sig.signature, sig.trustedComment), publicKey, sig.globalSignature)) {
    throw new SignatureError(`the trusted comment's signature by key ${sig.keyIdHex} does not verify`);
  }
  return { keyIdHex: sig.keyIdHex, trustedComment: sig.trustedComment, fields: parseTrustedComment(sig.trustedComment) };
}
