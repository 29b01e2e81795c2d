/**
 * minisign's text formats (docs/verifying.md): public keys, signature files
 * and trusted comments. Parsing only, shared by the wallet client, the
 * explorer page and the batch job (whose signer encodes them, src/trust);
 * the Ed25519 checks themselves are done by the caller's crypto.
 */
import { hex } from './range.js';

/** `Ed`: Ed25519 over the bytes; `ED`: Ed25519 over their BLAKE2b-512 (minisign's default). */
export type SignatureAlgorithm = 'Ed' | 'ED';

/** Why a verifying client refused a file (docs/verifying.md, "Clients refuse"). */
export type VerificationFailure = 'signature' | 'rollback' | 'freeze' | 'digest' | 'mismatch';

/**
 * A file refused by a check against the pinned keys or against what was
 * asked for: `failure` says which.
 * @remarks SignatureError is its `signature` case.
 */
export class VerificationError extends Error {
  // Its name is set in index.ts, on the prototype (an Error subclass inherits the name 'Error').
  constructor(message: string, readonly failure: VerificationFailure, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A signature or key that is missing, malformed, from a key not trusted, or does not verify. */
export class SignatureError extends VerificationError {
  declare readonly name: 'SignatureError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'signature', options);
  }
}

export interface MinisignPublicKey {
  /** 8 bytes, as stored. */
  keyId: Uint8Array;
  /** The key id as minisign prints it: 16 upper-case hex digits of the little-endian number. */
  keyIdHex: string;
  /** The Ed25519 public key, 32 bytes. */
  key: Uint8Array;
  /** The base64 line (`RWQ…`), what `minisign -P` takes. */
  line: string;
}

export interface MinisignSignature {
  algorithm: SignatureAlgorithm;
  keyId: Uint8Array;
  keyIdHex: string;
  /** The Ed25519 signature of the file (or of its BLAKE2b-512 for `ED`), 64 bytes. */
  signature: Uint8Array;
  untrustedComment: string;
  /** The trusted comment's text, without `trusted comment: `. */
  trustedComment: string;
  /** The Ed25519 signature of signature ‖ trusted comment, 64 bytes. */
  globalSignature: Uint8Array;
}

const UNTRUSTED = 'untrusted comment: ';
const TRUSTED = 'trusted comment: ';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_LINE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Strict standard base64 (padding required); SignatureError naming `what` otherwise. */
export function base64Decode(text: string, what: string): Uint8Array {
  if (!B64_LINE.test(text) || text.length % 4 !== 0) throw new SignatureError(`${what} is not base64`);
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  let j = 0;
  for (let i = 0; i < text.length; i += 4) {
    const n = [0, 1, 2, 3].reduce((acc, k) => (acc << 6) | Math.max(0, B64.indexOf(text[i + k]!)), 0);
    for (const shift of [16, 8, 0]) if (j < bytes.length) bytes[j++] = (n >> shift) & 255;
  }
  return bytes;
}

export function keyIdHex(keyId: Uint8Array): string {
  return hex(keyId.slice().reverse()).toUpperCase();
}

function algorithmOf(bytes: Uint8Array, what: string): SignatureAlgorithm {
  const name = String.fromCharCode(bytes[0]!, bytes[1]!);
  if (name === 'Ed' || name === 'ED') return name;
  throw new SignatureError(`${what} uses algorithm "${name}"; minisign's Ed25519 ("Ed" or "ED") is allowed`);
}

/** A public key file (two lines) or its base64 line alone. */
export function parsePublicKey(text: string): MinisignPublicKey {
  const lines = text.trim().split(/\r?\n/);
  const line = (lines.length === 2 && lines[0]!.startsWith(UNTRUSTED) ? lines[1]! : lines.length === 1 ? lines[0]! : '').trim();
  if (!line) throw new SignatureError('a public key is minisign\'s key file or its base64 line ("RW…")');
  const bytes = base64Decode(line, 'the public key');
  if (bytes.length !== 42 || algorithmOf(bytes, 'the public key') !== 'Ed') {
    throw new SignatureError(`the public key has ${bytes.length} bytes; a minisign Ed25519 key has 42 and starts "Ed"`);
  }
  const keyId = bytes.slice(2, 10);
  return { keyId, keyIdHex: keyIdHex(keyId), key: bytes.slice(10), line };
}

/** A `.minisig` file's four lines. */
export function parseSignature(text: string): MinisignSignature {
  const lines = text.split(/\r?\n/);
  if (lines.length < 4 || !lines[0]!.startsWith(UNTRUSTED) || !lines[2]!.startsWith(TRUSTED) || lines.slice(4).some((l) => l !== '')) {
    throw new SignatureError('not a minisign signature: expected an untrusted comment, a signature, a trusted comment and a global signature');
  }
  const body = base64Decode(lines[1]!.trim(), 'the signature');
  const global = base64Decode(lines[3]!.trim(), 'the global signature');
  if (body.length !== 74 || global.length !== 64) throw new SignatureError('not a minisign signature: wrong signature length');
  const keyId = body.slice(2, 10);
  return {
    algorithm: algorithmOf(body, 'the signature'), keyId, keyIdHex: keyIdHex(keyId), signature: body.slice(10),
    untrustedComment: lines[0]!.slice(UNTRUSTED.length), trustedComment: lines[2]!.slice(TRUSTED.length), globalSignature: global,
  };
}

/** What the global signature covers: the signature, then the trusted comment (UTF-8). */
export function globalSignedBytes(signature: Uint8Array, trustedComment: string): Uint8Array {
  const comment = new TextEncoder().encode(trustedComment);
  const bytes = new Uint8Array(signature.length + comment.length);
  bytes.set(signature);
  bytes.set(comment, signature.length);
  return bytes;
}

/** minisign's `name:value` fields, tab-separated; a bare word (minisign's `hashed`) has the value ''. */
export function parseTrustedComment(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const part of text.split('\t')) {
    const colon = part.indexOf(':');
    if (colon < 0) fields[part] = '';
    else fields[part.slice(0, colon)] = part.slice(colon + 1);
  }
  return fields;
}
