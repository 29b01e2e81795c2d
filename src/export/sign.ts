/**
 * Signing a release (docs/verifying.md): manifest.json gets
 * manifest.json.minisig (minisign's `ED`, prehashed), and the wallet's index
 * api/signed.json gets api/signed.json.minisig (`Ed`, its bytes), both with
 * the trusted comment that names the release. The secret key stays in this
 * process's memory: it is never written, logged or put in an error.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import type { AnalysisStamp } from '../api/envelope.js';
import { blake2b512OfFile, formatTrustedComment, signBytes, signPrehashed, type SecretKey } from '../trust/minisign.js';

/** What signs a release: the key, the release id, and the clock of the signing time. */
export interface ReleaseSigner {
  key: SecretKey;
  releaseId: string;
  /** Unix milliseconds now (tests pin it). */
  now: () => number;
}

/** The trusted comment of a release file's signature: timestamp, file, network, as_of_height, release, key_id (docs/verifying.md). */
export function releaseTrustedComment(file: string, stamp: AnalysisStamp, signer: ReleaseSigner): string {
  return formatTrustedComment([
    ['timestamp', Math.floor(signer.now() / 1000)], ['file', file], ['network', stamp.network],
    ['as_of_height', stamp.as_of_height], ['release', signer.releaseId], ['key_id', signer.key.keyIdHex],
  ]);
}

/** The `Ed` signature of a small file a wallet checks on its own (api/signed.json). */
export function signSmallFile(bytes: Uint8Array, file: string, stamp: AnalysisStamp, signer: ReleaseSigner): string {
  return signBytes(bytes, signer.key, releaseTrustedComment(file, stamp, signer), 'Ed');
}

/**
 * Writes `<path>.minisig`, the `ED` signature of the file at `path`
 * (`file` is its path in the release), hashing it once as it streams; returns
 * the signature's size. Written under a temporary name and renamed over
 * whatever was there, so a name a recycled release shares is never written through.
 */
export async function signReleaseFile(path: string, file: string, stamp: AnalysisStamp, signer: ReleaseSigner): Promise<number> {
  const text = signPrehashed(await blake2b512OfFile(path), signer.key, releaseTrustedComment(file, stamp, signer));
  const tmp = `${path}.minisig.tmp`;
  try {
    await writeFile(tmp, text, { flag: 'w', mode: 0o644 });
    await rename(tmp, `${path}.minisig`);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return Buffer.byteLength(text);
}
