import { createReadStream, type Dirent } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { ManifestError, readManifest, sha256OfFile, type ManifestEntry, type ManifestHead } from './manifest-read.js';
import { UsageError } from '../config.js';
import { silentProgress, type Progress } from '../progress.js';
import { MANIFEST_FILE, MANIFEST_SIGNATURE_FILE } from '../api/release-files.js';
import type { MinisignPublicKey } from '@pegscope/client';
import { checkSignatures, checkUnsignedIndex, isIndexedPath, type IndexedDigests, type SignatureReport } from './verify-signature.js';

/**
 * `pegscope verify DIR`: does a release directory hold exactly what its
 * manifest.json lists, byte for byte? For a mirror checking what it
 * downloaded, and for an operator checking a published tree. Exit status
 * (cli.ts): 0 ok, 1 problems found (a manifest that cannot be read is one),
 * 2 DIR is not a release directory (UsageError: missing, not a directory,
 * no manifest.json, or one that is a symbolic link or not a regular file).
 *
 * The manifest and the tree are both walked in path order and merged, so
 * memory stays at one directory listing and one batch of checks, whatever
 * the release's size (the x10 manifest is over 1 GB: more than one
 * JavaScript string can hold).
 */

/**
 * `signature` and `index` (docs/verifying.md): a signature missing or not verifying, the signed index disagreeing with the manifest;
 * `invalid-manifest`: manifest.json cannot be parsed as the exporter writes it; nothing after its bad line is checked.
 */
export type ProblemKind = 'missing' | 'changed' | 'extra' | 'not-a-file' | 'unreadable' | 'invalid-manifest' | 'signature' | 'index';

export interface Problem {
  kind: ProblemKind;
  /** Release-relative path, '/'-separated as in the manifest. */
  path: string;
  detail: string;
}


export interface VerifyResult {
  dir: string;
  head: ManifestHead;
  /** Files the manifest lists, and their bytes. */
  files: number;
  bytes: number;
  problems: Record<ProblemKind, number>;
  /** With public keys: what the signatures say, or the first problem with them. */
  signature?: SignatureReport;
}

export interface VerifyOptions {
  /** Called once per problem, in path order. */
  onProblem?: (problem: Problem) => void;
  progress?: Progress;
  /** Files hashed at once. */
  concurrency?: number;
  /** Trusted keys: the release must be signed by one of them (docs/verifying.md). */
  publicKeys?: readonly MinisignPublicKey[];
}

/** Checks settled before the walk goes on: bounds memory, keeps problems in path order. */
const BATCH = 256;

export const isOk = (result: VerifyResult): boolean => Object.values(result.problems).every((n) => n === 0);

export function formatProblem(problem: Problem): string {
  return `${problem.kind}: ${problem.path} ${problem.detail}`;
}

export function formatVerdict(result: VerifyResult): string {
  const listed = `${result.files} files, ${result.bytes} bytes, ${result.head.network} as of height ${result.head.as_of_height}`;
  const signed = result.signature?.ok ? `; signed by key ${result.signature.key_id!} for release ${result.signature.release!}, its wallet's index too` : '';
  if (isOk(result)) return `ok: ${result.dir} matches its manifest.json (${listed})${signed}`;
  if (result.problems['invalid-manifest'] > 0) return `FAILED: ${result.dir}: its manifest.json cannot be read as a pegscope manifest (fetch it again, or re-export)`;
  const counts = Object.entries(result.problems).filter(([, n]) => n > 0).map(([kind, n]) => `${n} ${kind}`);
  const { signature, index: _index, ...files } = result.problems;
  const what = Object.values(files).some((n) => n > 0) ? 'does not match its manifest.json'
    : signature > 0 ? 'is not signed by a trusted key as required' : 'has a signed index that does not match its manifest.json';
  return `FAILED: ${result.dir} ${what}: ${counts.join(', ')} (manifest lists ${listed})`;
}

export async function verifyRelease(dir: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const root = await releaseRoot(dir);
  const manifestPath = join(root, MANIFEST_FILE);
  const progress = options.progress ?? silentProgress;
  const limit = pLimit(options.concurrency ?? 8);
  const result: VerifyResult = {
    dir, head: { version: '', network: '', as_of_height: 0, updated_at: 0 }, files: 0, bytes: 0,
    problems: { missing: 0, changed: 0, extra: 0, 'not-a-file': 0, unreadable: 0, 'invalid-manifest': 0, signature: 0, index: 0 },
  };
  const report = (problem: Problem | null): void => {
    if (!problem) return;
    result.problems[problem.kind]++;
    options.onProblem?.(problem);
  };

  let batch: Promise<Problem | null>[] = [];
  const flush = async (): Promise<void> => {
    for (const problem of await Promise.all(batch)) report(problem);
    batch = [];
    progress.update(result.files);
  };
  progress.start('verify', await countEntries(manifestPath), 'files');
  const digests: IndexedDigests = new Map();
  try {
    const entries = readManifest(manifestPath, (head) => { result.head = head; }, (entry) => { if (isIndexedPath(entry.path)) digests.set(entry.path, entry.sha256); })[Symbol.asyncIterator]();
    const files = walkSorted(root)[Symbol.asyncIterator]();
    let entry = await entries.next();
    let file = await files.next();
    while (!entry.done || !file.done) {
      const listed = entry.done ? undefined : entry.value;
      const found = file.done ? undefined : file.value;
      if (listed && (!found || listed.path < found.path)) {
        batch.push(Promise.resolve({ kind: 'missing', path: listed.path, detail: 'is listed in manifest.json but not in the directory' }));
      } else if (found && (!listed || found.path < listed.path)) {
        if (found.path !== MANIFEST_FILE && found.path !== MANIFEST_SIGNATURE_FILE) batch.push(Promise.resolve({ kind: 'extra', path: found.path, detail: 'is not listed in manifest.json' }));
      } else if (listed && found) {
        batch.push(found.regular
          ? limit(() => checkFile(join(root, listed.path), listed))
          : Promise.resolve({ kind: 'not-a-file', path: listed.path, detail: 'is listed in manifest.json but is not a regular file here (a symbolic link or a special file)' }));
      }
      if (listed && (!found || listed.path <= found.path)) {
        result.files++;
        result.bytes += listed.size;
        entry = await entries.next();
      }
      if (found && (!listed || found.path <= listed.path)) file = await files.next();
      if (batch.length >= BATCH) await flush();
    }
    await flush();
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    await flush();
    report({ kind: 'invalid-manifest', path: MANIFEST_FILE, detail: err.message.replace(`${MANIFEST_FILE} `, '') });
  } finally {
    progress.stop();
  }
  if (options.publicKeys) {
    const { problems, report: signature } = await checkSignatures(root, result.head, digests, options.publicKeys);
    for (const problem of problems) report(problem);
    result.signature = signature;
  } else {
    for (const problem of await checkUnsignedIndex(root, result.head, digests)) report(problem);
  }
  return result;
}

/** The directory itself, symlinks (out/<network>/current) resolved; a directory holding `current` is pointed at it. */
async function releaseRoot(dir: string): Promise<string> {
  let root: string;
  try {
    root = await realpath(dir);
    if (!(await stat(root)).isDirectory()) throw new UsageError(`${dir} is not a directory; give a release directory such as out/mainnet/current`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot open ${dir} (${(err as NodeJS.ErrnoException).code ?? String(err)}); give a release directory such as out/mainnet/current`);
  }
  const manifest = await lstat(join(root, MANIFEST_FILE)).catch(() => null);
  if (!manifest && await stat(join(root, 'current', MANIFEST_FILE)).then(() => true, () => false)) {
    throw new UsageError(`${dir} is a network's output directory, not a release; give ${join(dir, 'current')}`);
  }
  if (!manifest) throw new UsageError(`${dir} has no manifest.json: it is not a pegscope release, or the copy is incomplete (fetch manifest.json again)`);
  // A manifest that points elsewhere would vouch for files it does not describe; the router refuses it too.
  if (!manifest.isFile()) throw new UsageError(`${dir}/manifest.json is ${manifest.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; a release's manifest must be a regular file inside it (fetch manifest.json again)`);
  return root;
}

async function checkFile(path: string, listed: ManifestEntry): Promise<Problem | null> {
  try {
    const size = (await stat(path)).size;
    if (size !== listed.size) return { kind: 'changed', path: listed.path, detail: `has ${size} bytes; manifest.json says ${listed.size}` };
    const sha256 = await sha256OfFile(path, size);
    if (sha256 !== listed.sha256) return { kind: 'changed', path: listed.path, detail: `has sha256 ${sha256}; manifest.json says ${listed.sha256}` };
    return null;
  } catch (err) {
    return { kind: 'unreadable', path: listed.path, detail: `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
}


/** Files in the manifest (its lines less the head and the closing line), for progress. */
async function countEntries(path: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return Math.max(0, lines - 2);
}

interface TreeFile { path: string; regular: boolean }

/**
 * Every non-directory entry under root, in the manifest's path order: siblings
 * sorted with a '/' after directory names, so a directory's files come where
 * their full paths sort (`api/block.json` before `api/block/1.json`).
 */
async function* walkSorted(root: string, prefix = ''): AsyncGenerator<TreeFile> {
  const key = (entry: Dirent): string => (entry.isDirectory() ? `${entry.name}/` : entry.name);
  const entries = (await readdir(prefix ? join(root, prefix) : root, { withFileTypes: true }))
    .map((entry) => ({ entry, key: key(entry) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const { entry } of entries) {
    const path = prefix + entry.name;
    if (entry.isDirectory()) yield* walkSorted(root, `${path}/`);
    else yield { path, regular: entry.isFile() };
  }
}
