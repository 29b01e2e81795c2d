/**
 * What `pegscope verify --public-key` adds to the manifest check
 * (docs/verifying.md): manifest.json.minisig must verify against one of the
 * trusted keys and name this manifest's network and height; the wallet's
 * index api/signed.json must be signed by the same release, and its digests
 * (and its shards') must be the manifest's. The manifest check proves the
 * files are the manifest's, so together the index is proved to match the files.
 */
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RANGES_INDEX_PATH, SignatureError, type MinisignPublicKey } from '@pegscope/client';
import { AMOUNT_TABLE_PATH, MANIFEST_FILE, MANIFEST_SIGNATURE_FILE, SIGNED_INDEX_PATH, SIGNED_INDEX_SIGNATURE_PATH, shardLength, signedShardPath } from '../api/release-files.js';
import { blake2b512OfFile, verifyBytes, verifyPrehashed, type VerifiedSignature } from '../trust/minisign.js';

/** The manifest's digests of the files the signed index covers, by path: what verify collects as it reads the manifest. */
export type IndexedDigests = Map<string, string>;

/** Files whose manifest digests the index check needs: the index, its shards, the range files and the indexed singletons. */
export const isIndexedPath = (path: string): boolean =>
  path === SIGNED_INDEX_PATH || path === AMOUNT_TABLE_PATH || path === RANGES_INDEX_PATH || path.startsWith('api/signed/') || path.startsWith('api/range/');

/** The signature part of `verify --json`: what verified, or the first problem. */
export interface SignatureReport {
  ok: boolean;
  /** The first problem found, when not ok. */
  problem?: string;
  key_id?: string;
  network?: string;
  as_of_height?: number;
  release?: string;
  /** Unix seconds of signing. */
  timestamp?: number;
  /** Whether api/signed.json, its signature and its shards checked. */
  index_ok?: boolean;
}

/** A problem found: a signature missing or not verifying, or the index disagreeing with the manifest. */
export interface TrustProblem { kind: 'signature' | 'index'; path: string; detail: string }
type Fail = (path: string, detail: string) => void;

/** A signed index is small; anything larger is not one pegscope wrote. */
const MAX_INDEX_BYTES = 16 << 20;

interface SignedIndex {
  network: string;
  as_of_height: number;
  files: Record<string, string>;
  ranges: Record<string, { prefix_length: number; shard_length: number; shards: Record<string, string> }>;
}

interface Shard { kind: string; shard: string; ranges: Record<string, string> }

/**
 * Checks the release's signatures against `publicKeys`, and its signed index
 * against the manifest's digests; returns the problems in the order found,
 * and the summary for `--json`.
 */
export async function checkSignatures(root: string, head: ReleaseHead, digests: IndexedDigests,
  publicKeys: readonly MinisignPublicKey[]): Promise<{ problems: TrustProblem[]; report: SignatureReport }> {
  const problems: TrustProblem[] = [];
  const failWith = (kind: TrustProblem['kind']): Fail => (path, detail) => { problems.push({ kind, path, detail }); };
  const manifest = await checkManifestSignature(root, head, publicKeys, failWith('signature'));
  const index = await checkIndexSignature(root, head, publicKeys, manifest, failWith('signature'));
  if (index) await checkIndexDigests(root, index, head, digests, failWith('index'));
  const fields = manifest?.fields;
  const first = problems[0];
  return {
    problems,
    report: {
      ok: problems.length === 0,
      ...(first ? { problem: `${first.path} ${first.detail}` } : {}),
      ...(fields ? { key_id: manifest.keyIdHex, network: fields.network, as_of_height: Number(fields.as_of_height), release: fields.release, timestamp: Number(fields.timestamp) } : {}),
      index_ok: index !== null && !problems.some((p) => p.kind === 'index' || p.path.startsWith(SIGNED_INDEX_PATH)),
    },
  };
}

/** Without keys: an unsigned or signed index is still checked against the manifest's digests, when the release has one. */
export async function checkUnsignedIndex(root: string, head: ReleaseHead, digests: IndexedDigests): Promise<TrustProblem[]> {
  if (!digests.has(SIGNED_INDEX_PATH)) return [];
  const problems: TrustProblem[] = [];
  const fail: Fail = (path, detail) => { problems.push({ kind: 'index', path, detail }); };
  const index = await readSmallFile(join(root, SIGNED_INDEX_PATH));
  if ('problem' in index) fail(SIGNED_INDEX_PATH, index.problem);
  else await checkIndexDigests(root, index.bytes, head, digests, fail);
  return problems;
}

/** The manifest's network and height. */
interface ReleaseHead { network: string; as_of_height: number }

/** The manifest's signature, checked; null (and the problem given to `fail`) when it is missing or does not verify. */
async function checkManifestSignature(root: string, head: ReleaseHead, keys: readonly MinisignPublicKey[], fail: Fail): Promise<VerifiedSignature | null> {
  const read = await readSmallFile(join(root, MANIFEST_SIGNATURE_FILE));
  if ('problem' in read) {
    fail(MANIFEST_SIGNATURE_FILE, read.absent ? 'is missing: the release is not signed (the publisher exports with --sign-key)' : read.problem);
    return null;
  }
  try {
    const verified = verifyPrehashed(await blake2b512OfFile(join(root, MANIFEST_FILE)), read.bytes.toString('utf8'), keys);
    const wrong = fieldMismatch(verified, MANIFEST_FILE, head);
    if (wrong) {
      fail(MANIFEST_SIGNATURE_FILE, wrong);
      return null;
    }
    return verified;
  } catch (err) {
    if (!(err instanceof SignatureError)) throw err;
    fail(MANIFEST_SIGNATURE_FILE, `does not verify: ${err.message}`);
    return null;
  }
}

/** Why a verified signature's trusted comment does not describe `file` of this release, or null. */
function fieldMismatch(verified: VerifiedSignature, file: string, head: ReleaseHead): string | null {
  const { fields } = verified;
  if (fields.file !== file) return `signs ${JSON.stringify(fields.file ?? '')}, not ${file}`;
  if (fields.network !== head.network) return `names network ${JSON.stringify(fields.network ?? '')}; the manifest's is ${head.network}`;
  if (fields.as_of_height !== String(head.as_of_height)) return `names as_of_height ${JSON.stringify(fields.as_of_height ?? '')}; the manifest's is ${head.as_of_height}`;
  if (!/^\d+$/.test(fields.timestamp ?? '')) return 'has no timestamp in its trusted comment';
  return null;
}

/**
 * api/signed.json, signed by one of the keys for this release (the same
 * release id as the manifest's signature) and naming the manifest's network
 * and height; returns its bytes, or null when it cannot be read.
 */
async function checkIndexSignature(root: string, head: ReleaseHead, keys: readonly MinisignPublicKey[],
  manifestSignature: VerifiedSignature | null, fail: Fail): Promise<Buffer | null> {
  const index = await readSmallFile(join(root, SIGNED_INDEX_PATH));
  if ('problem' in index) {
    fail(SIGNED_INDEX_PATH, index.absent ? 'is missing: a signed release carries the wallet\'s index (docs/verifying.md)' : index.problem);
    return null;
  }
  const bytes = index.bytes;
  const signature = await readSmallFile(join(root, SIGNED_INDEX_SIGNATURE_PATH));
  if ('problem' in signature) fail(SIGNED_INDEX_SIGNATURE_PATH, signature.absent ? 'is missing: the wallet\'s index is not signed' : signature.problem);
  else {
    try {
      const verified = verifyBytes(bytes, signature.bytes.toString('utf8'), keys);
      const wrong = fieldMismatch(verified, SIGNED_INDEX_PATH, head)
        ?? (manifestSignature && verified.fields.release !== manifestSignature.fields.release
          ? `names release ${JSON.stringify(verified.fields.release ?? '')}; manifest.json.minisig names ${manifestSignature.fields.release}` : null);
      if (wrong) fail(SIGNED_INDEX_SIGNATURE_PATH, wrong);
    } catch (err) {
      if (!(err instanceof SignatureError)) throw err;
      fail(SIGNED_INDEX_SIGNATURE_PATH, `does not verify: ${err.message}`);
    }
  }
  return bytes;
}

/**
 * The index's facts and digests against the manifest's: the network and
 * height, the listed files, each shard and, through the shards, every range
 * file. An unsigned index is checked the same way (`verify` without keys).
 */
export async function checkIndexDigests(root: string, bytes: Buffer, head: ReleaseHead, digests: IndexedDigests, fail: Fail): Promise<void> {
  let index: SignedIndex;
  try {
    index = JSON.parse(bytes.toString('utf8')) as SignedIndex;
    if (typeof index.files !== 'object' || typeof index.ranges !== 'object' || index.files === null || index.ranges === null) throw new Error('members');
  } catch {
    fail(SIGNED_INDEX_PATH, 'is not the wallet\'s index (JSON with files and ranges)');
    return;
  }
  if (index.network !== head.network || index.as_of_height !== head.as_of_height) {
    fail(SIGNED_INDEX_PATH, `names ${String(index.network)} at height ${String(index.as_of_height)}; the manifest's release is ${head.network} at ${head.as_of_height}`);
  }
  for (const [path, sha256] of Object.entries(index.files)) {
    if (digests.get(path) !== sha256) fail(SIGNED_INDEX_PATH, `lists ${path} with sha256 ${String(sha256)}; manifest.json ${digests.has(path) ? `says ${digests.get(path)!}` : 'does not list it'}`);
  }
  for (const path of [AMOUNT_TABLE_PATH, RANGES_INDEX_PATH]) {
    if (digests.has(path) && !(path in index.files)) fail(SIGNED_INDEX_PATH, `does not list ${path}`);
  }
  const listed = new Set<string>();
  for (const [kind, entry] of Object.entries(index.ranges)) {
    if (!/^[a-z]+$/.test(kind) || !Number.isSafeInteger(entry.prefix_length) || entry.shard_length !== shardLength(entry.prefix_length)) {
      fail(SIGNED_INDEX_PATH, `has a malformed entry for ranges of kind ${JSON.stringify(kind)}`);
      continue;
    }
    for (const [shard, sha256] of Object.entries(entry.shards)) {
      const path = signedShardPath(kind, shard);
      if (!/^[0-9a-f]+$/.test(shard) || shard.length !== entry.shard_length) fail(SIGNED_INDEX_PATH, `names shard ${JSON.stringify(shard)} of ${kind}, not ${entry.shard_length} hex digits`);
      else if (digests.get(path) !== sha256) fail(path, `has sha256 ${digests.get(path) ?? '(not in manifest.json)'}; api/signed.json says ${String(sha256)}`);
      else await checkShard(root, path, kind, shard, entry.prefix_length, digests, listed, fail);
    }
  }
  for (const path of digests.keys()) {
    if (path.startsWith('api/range/') && !listed.has(path)) fail(path, 'is a range file no shard of api/signed.json lists');
  }
}

async function checkShard(root: string, path: string, kind: string, shard: string, prefixLength: number, digests: IndexedDigests,
  listed: Set<string>, fail: Fail): Promise<void> {
  const read = await readSmallFile(join(root, path));
  if ('problem' in read) {
    fail(path, read.problem);
    return;
  }
  let parsed: Shard;
  try {
    parsed = JSON.parse(read.bytes.toString('utf8')) as Shard;
  } catch {
    fail(path, 'cannot be read as a shard of the signed index');
    return;
  }
  if (parsed.kind !== kind || parsed.shard !== shard || typeof parsed.ranges !== 'object' || parsed.ranges === null) {
    fail(path, `names kind ${JSON.stringify(parsed.kind)} and shard ${JSON.stringify(parsed.shard)}, not ${kind} and ${shard}`);
    return;
  }
  for (const [prefix, sha256] of Object.entries(parsed.ranges)) {
    const range = `api/range/${kind}/${prefix}.json`;
    if (prefix.length !== prefixLength || !prefix.startsWith(shard) || !/^[0-9a-f]+$/.test(prefix)) fail(path, `lists prefix ${JSON.stringify(prefix)}, which is not in shard ${shard}`);
    else {
      listed.add(range);
      if (digests.get(range) !== sha256) fail(path, `lists ${range} with sha256 ${String(sha256)}; manifest.json ${digests.has(range) ? `says ${digests.get(range)!}` : 'does not list it'}`);
    }
  }
}

/** A small regular file's bytes, never through a symbolic link; or why not (`absent` when there is no such name). */
async function readSmallFile(path: string): Promise<{ bytes: Buffer } | { problem: string; absent: boolean }> {
  const stats = await lstat(path).catch(() => null);
  if (!stats) return { problem: 'is missing', absent: true };
  if (!stats.isFile()) return { problem: 'is not a regular file (a symbolic link or a special file)', absent: false };
  if (stats.size > MAX_INDEX_BYTES) return { problem: `has ${stats.size} bytes, more than a signature or the index ever has`, absent: false };
  return { bytes: await readFile(path) };
}
