/**
 * Signs a published release as docs/verifying.md describes (manifest.json.minisig,
 * algorithm ED, the trusted comment's fields), with src/trust/minisign.ts: for
 * tests that need a signed origin.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { formatTrustedComment, signBytes, type SecretKey } from '../../src/trust/minisign.js';

export interface SignedFields { network?: string; as_of_height?: number; release?: string; timestamp?: number }

/** Writes `<dir>/manifest.json.minisig`; `fields` overrides what the manifest's head and the directory name say. */
export function signRelease(dir: string, key: SecretKey, fields: SignedFields = {}): string {
  const manifest = readFileSync(join(dir, 'manifest.json'));
  const head = JSON.parse(`${manifest.toString('utf8').split('\n', 1)[0]}}}`) as { network: string; as_of_height: number };
  const comment = formatTrustedComment([
    ['timestamp', fields.timestamp ?? Math.floor(Date.now() / 1000)], ['file', 'manifest.json'], ['network', fields.network ?? head.network],
    ['as_of_height', fields.as_of_height ?? head.as_of_height], ['release', fields.release ?? basename(dir)], ['key_id', key.keyIdHex],
  ]);
  const signature = signBytes(new Uint8Array(manifest), key, comment, 'ED');
  writeFileSync(join(dir, 'manifest.json.minisig'), signature);
  return signature;
}
