/**
 * Key files (docs/verifying.md): `pegscope keygen` writes a pair, the job
 * reads its secret key, and `verify` and `mirror` read the public keys they
 * trust. No message here quotes a secret key file's content.
 */
import { constants, readFileSync, statSync } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { parsePublicKey, SignatureError, type MinisignPublicKey } from '@pegscope/client';
import { encodeSecretKey, generateSecretKey, parseSecretKey, publicKeyFile, type SecretKey } from './minisign.js';

/** A key file that cannot be used: what was wrong and what to do; never the key itself. */
export class KeyFileError extends Error {
  override readonly name = 'KeyFileError';
}

const code = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? String(err);

/**
 * Writes a new key pair: the secret key file created with mode 0600 and
 * O_EXCL (an existing file is never overwritten), then the public key file,
 * also only when it does not exist yet. Returns the key.
 */
export async function createKeyPair(secretPath: string, publicPath: string): Promise<SecretKey> {
  for (const [path, what] of [[secretPath, '--secret-key'], [publicPath, '--public-key']] as const) {
    if (await stat(path).then(() => true, () => false)) throw new KeyFileError(`${what} ${path} exists; pegscope never overwrites a key file: move it away or give another path`);
  }
  const key = generateSecretKey();
  await writeNew(secretPath, '--secret-key', encodeSecretKey(key), 0o600);
  try {
    await writeNew(publicPath, '--public-key', publicKeyFile(key), 0o644);
  } catch (err) {
    // The secret key was made here a moment ago and signed nothing yet: without its public half it is of no use.
    await rm(secretPath, { force: true });
    throw err;
  }
  return key;
}

async function writeNew(path: string, what: string, text: string, mode: number): Promise<void> {
  let handle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  } catch (err) {
    if (code(err) === 'EEXIST') throw new KeyFileError(`${what} ${path} exists; pegscope never overwrites a key file: move it away or give another path`);
    throw new KeyFileError(`${what} ${path} cannot be created (${code(err)})`);
  }
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The secret key in a minisign secret key file without a password (`pegscope keygen`, `minisign -G -W`). */
export function readSecretKeyFile(path: string, what = '--sign-key'): SecretKey {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KeyFileError(`${what} ${path} cannot be read (${code(err)}); make a key with \`pegscope keygen --secret-key FILE --public-key FILE\``);
  }
  try {
    return parseSecretKey(text);
  } catch (err) {
    if (err instanceof SignatureError) throw new KeyFileError(`${what} ${path}: ${err.message}`);
    throw err;
  }
}

/** The mode of a secret key file that other users can read or change, else null (keygen makes it 0600). */
export function sharedKeyFileMode(path: string): number | null {
  const mode = statSync(path).mode & 0o777;
  return (mode & 0o077) === 0 ? null : mode;
}

/** A public key's base64 line as `minisign -P` takes it: 56 characters starting "RW". */
const KEY_LINE = /^RW[A-Za-z0-9+/]{54}$/;

/**
 * The public keys given as `--public-key` values, each a key (`RWQ…`) or a
 * public key file, several in one value separated by commas (key rotation:
 * the old key and the new one). Duplicates count once.
 */
export function readPublicKeys(values: readonly string[], what = '--public-key'): MinisignPublicKey[] {
  const keys = new Map<string, MinisignPublicKey>();
  for (const item of values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)) {
    const key = KEY_LINE.test(item) ? parseKey(item, what, item) : parseKey(readPublicKeyFile(item, what), what, item);
    keys.set(key.line, key);
  }
  if (keys.size === 0) throw new KeyFileError(`${what} names no key; give a key (RW…) or a public key file`);
  return [...keys.values()];
}

function readPublicKeyFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new KeyFileError(`${what} ${path} is neither a minisign public key (RW…, 56 characters) nor a readable file (${code(err)})`);
  }
}

function parseKey(text: string, what: string, given: string): MinisignPublicKey {
  try {
    return parsePublicKey(text);
  } catch (err) {
    if (err instanceof SignatureError) throw new KeyFileError(`${what} ${given}: ${err.message}`);
    throw err;
  }
}
