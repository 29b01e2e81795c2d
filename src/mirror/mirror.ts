/**
 * `pegscope mirror ORIGIN_URL --out DIR --public-key KEY`: a verified copy
 * of a signed release, with no node and no DuckDB (docs/mirror.md). The
 * origin's manifest.json is checked against its signature, every file
 * whose sha256 the local current release has is hard-linked from it, the
 * others are downloaded and checked, and the copy is published with the
 * exporter's own layout, swap and pruning (src/export/publish.ts), so
 * `serve`, nginx and the host configs read it as they read an export.
 */
import { link, lstat, mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { parseSignature, parseTrustedComment, SignatureError, type MinisignPublicKey } from '@pegscope/client';
import { MANIFEST_FILE, MANIFEST_SIGNATURE_FILE } from '../api/release-files.js';
import { acquireJobLock } from '../lock.js';
import { silentProgress, type Progress } from '../progress.js';
import { currentRelease, pruneReleases, publishRelease, RELEASE_ID_PATTERN, RELEASES, startRelease } from '../export/publish.js';
import { STATE_DIR } from '../export/state.js';
import { readManifest, sha256OfFile, type ManifestEntry, type ManifestHead } from '../export/manifest-read.js';
import { blake2b512OfFile, verifyPrehashed, type VerifiedSignature } from '../trust/minisign.js';
import { repeatUntilStopped, sleep } from '../every.js';
import { downloadTo, fetchSmall, fetchToFile, originBase, OriginError, type Origin } from './origin.js';

/** Beside the releases: the downloads of a pull, kept across a kill (one file per sha256) and removed once it is published. */
export const DOWNLOADS_DIR = '.mirror';
const OBJECTS = 'objects';
const MAX_SIGNATURE_BYTES = 4096;
/** The x10 preset's manifest is over 1 GB; it is streamed to disk and hashed there, never held in memory. */
const MAX_MANIFEST_BYTES = 64 * 2 ** 30;

export interface MirrorOptions {
  origin: string;
  /** The network's output directory: current, releases/ (the layout `serve --out` reads). */
  outDir: string;
  publicKeys: readonly MinisignPublicKey[];
  keep: number;
  /** Downloads at once. */
  concurrency?: number;
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
  progress?: Progress;
  log: (line: string) => void;
}

export interface Tally { files: number; bytes: number }

export interface MirrorSummary {
  command: 'mirror';
  ok: boolean;
  /** published: a new release is current; up-to-date: the origin's is already current; refused: nothing changed. */
  status: 'published' | 'up-to-date' | 'refused';
  origin: string;
  release_id: string | null;
  network: string | null;
  as_of_height: number | null;
  previous: { release_id: string; as_of_height: number } | null;
  /** Files and bytes the manifest lists. */
  files: number;
  bytes: number;
  /** Downloaded in this pull (bytes: what came over the network, resumed parts included only for what they added). */
  fetched: Tally;
  /**
   * What a killed pull had downloaded: files it had checked (taken whole),
   * and bytes of those it left half-way, continued with a Range request.
   */
  resumed: Tally;
  /** Hard-linked from the local current release. */
  linked: Tally;
  /** Downloaded, but with another size or sha256 than the manifest lists. */
  refused: Tally;
  /** Why the pull was refused, one line each. */
  problems: string[];
  seconds: number;
}

/** A refusal of the whole pull: the current release stays as it was. */
export class MirrorRefusal extends Error {}

interface Local {
  dir: string;
  id: string;
  head: ManifestHead;
  signedAt: number | null;
  bySha: Map<string, { path: string; size: number }>;
}

interface Signed { signature: string; verified: VerifiedSignature; id: string; network: string; height: number; signedAt: number }

const emptyTally = (): Tally => ({ files: 0, bytes: 0 });

/** One pull: refuses (status 'refused', problems saying why) rather than throws for anything the origin got wrong. */
export async function pullRelease(opts: MirrorOptions): Promise<MirrorSummary> {
  const started = performance.now();
  const summary: MirrorSummary = {
    command: 'mirror', ok: false, status: 'refused', origin: opts.origin, release_id: null, network: null, as_of_height: null, previous: null,
    files: 0, bytes: 0, fetched: emptyTally(), resumed: emptyTally(), linked: emptyTally(), refused: emptyTally(), problems: [], seconds: 0,
  };
  const origin: Origin = {
    base: originBase(opts.origin), attempts: opts.attempts ?? 5, backoffMs: opts.backoffMs ?? 500, timeoutMs: opts.timeoutMs ?? 60_000,
  };
  await mkdir(opts.outDir, { recursive: true });
  const unlock = acquireJobLock(join(opts.outDir, DOWNLOADS_DIR));
  try {
    await pull(origin, opts, summary);
  } catch (err) {
    if (!(err instanceof MirrorRefusal || err instanceof OriginError || err instanceof SignatureError)) throw err;
    summary.problems.push(err.message);
  } finally {
    unlock();
    summary.seconds = Math.round(performance.now() - started) / 1000;
  }
  summary.ok = summary.problems.length === 0;
  if (!summary.ok) summary.status = 'refused';
  return summary;
}

async function pull(origin: Origin, opts: MirrorOptions, summary: MirrorSummary): Promise<void> {
  const onRetry = (why: string) => opts.log(`mirror: ${why}`);
  const downloads = join(opts.outDir, DOWNLOADS_DIR);
  await mkdir(join(downloads, OBJECTS), { recursive: true });
  const manifestPath = join(downloads, MANIFEST_FILE);
  // A kill right after publishing leaves this name linked to the published manifest: removed, never written through.
  await rm(manifestPath, { force: true });
  const signed = await fetchSigned(origin, opts.publicKeys, manifestPath, onRetry);
  Object.assign(summary, { release_id: signed.id, network: signed.network, as_of_height: signed.height });
  const entries = await manifestEntries(manifestPath, signed);
  summary.files = entries.length;
  summary.bytes = entries.reduce((n, e) => n + e.size, 0);

  const local = await localRelease(opts.outDir);
  if (local) summary.previous = { release_id: local.id, as_of_height: local.head.as_of_height };
  if (local && checkSuccession(local, signed)) {
    summary.status = 'up-to-date';
    opts.log(`mirror: ${signed.network} release ${signed.id} (height ${signed.height}) is current already`);
    return;
  }

  const sources = await fetchMissing(origin, opts, entries, local, summary, onRetry);
  if (summary.refused.files > 0) throw new MirrorRefusal(`${summary.refused.files} files of the origin do not match its signed manifest; the current release is unchanged`);

  // The origin's release can be here already, not current: the operator pointed current back at an older one.
  await rm(join(opts.outDir, RELEASES, signed.id), { recursive: true, force: true });
  const release = await startRelease(opts.outDir, signed.id);
  const made = new Set<string>();
  for (const entry of entries) {
    const parent = dirname(join(release.dir, entry.path));
    if (!made.has(parent)) {
      await mkdir(parent, { recursive: true });
      made.add(parent);
    }
    await link(sources.get(entry.path)!, join(release.dir, entry.path));
  }
  await link(manifestPath, join(release.dir, MANIFEST_FILE));
  await writeFile(join(release.dir, MANIFEST_SIGNATURE_FILE), signed.signature);
  await publishRelease(opts.outDir, release, signed.id);
  const pruned = await pruneReleases(opts.outDir, opts.keep);
  await removeEmptyStates(opts.outDir);
  await rm(join(downloads, OBJECTS), { recursive: true, force: true });
  await rm(manifestPath, { force: true });
  summary.status = 'published';
  opts.log(`mirror: published ${signed.network} release ${signed.id} (height ${signed.height}): ${summary.fetched.files} files fetched (${summary.fetched.bytes} bytes), `
    + `${summary.linked.files} linked, ${summary.resumed.files} resumed${pruned.length ? `; pruned ${pruned.join(', ')}` : ''}`);
}

/** manifest.json (into `manifestPath`) and its signature from the origin, the signature checked and its trusted comment read. */
async function fetchSigned(origin: Origin, keys: readonly MinisignPublicKey[], manifestPath: string, onRetry: (why: string) => void): Promise<Signed> {
  const signature = new TextDecoder().decode(await fetchSmall(origin, MANIFEST_SIGNATURE_FILE, MAX_SIGNATURE_BYTES, onRetry));
  await fetchToFile(origin, MANIFEST_FILE, manifestPath, MAX_MANIFEST_BYTES, onRetry);
  let verified: VerifiedSignature;
  try {
    verified = verifyPrehashed(await blake2b512OfFile(manifestPath), signature, keys);
  } catch (err) {
    throw new MirrorRefusal(`${MANIFEST_SIGNATURE_FILE}: ${(err as Error).message}; the current release is unchanged`);
  }
  const { fields } = verified;
  const height = Number(fields.as_of_height);
  const signedAt = Number(fields.timestamp);
  if (fields.file !== undefined && fields.file !== MANIFEST_FILE) throw new MirrorRefusal(`${MANIFEST_SIGNATURE_FILE} signs ${fields.file}, not ${MANIFEST_FILE}`);
  if (!fields.network || !Number.isSafeInteger(height) || height < 0 || !Number.isSafeInteger(signedAt) || !RELEASE_ID_PATTERN.test(fields.release ?? '')) {
    throw new MirrorRefusal(`${MANIFEST_SIGNATURE_FILE}: its trusted comment lacks network, as_of_height, release or timestamp (docs/verifying.md): ${verified.trustedComment}`);
  }
  return { signature, verified, id: fields.release!, network: fields.network, height, signedAt };
}

/** The manifest's files, in path order, checked against the trusted comment; a path that would leave the release or overwrite the manifest is refused. */
async function manifestEntries(path: string, signed: Signed): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  let head: ManifestHead | null = null;
  try {
    for await (const entry of readManifest(path, (h) => { head = h; })) {
      if (entry.path === MANIFEST_FILE || entry.path === MANIFEST_SIGNATURE_FILE) throw new MirrorRefusal(`manifest.json lists ${entry.path}, which the release's own manifest or signature would overwrite`);
      entries.push(entry);
    }
  } catch (err) {
    throw err instanceof MirrorRefusal ? err : new MirrorRefusal(`the origin's ${(err as Error).message}`);
  }
  const h = head as ManifestHead | null;
  if (!h || h.network !== signed.network || h.as_of_height !== signed.height) {
    throw new MirrorRefusal(`manifest.json says ${h?.network} at height ${h?.as_of_height}, its signature ${signed.network} at height ${signed.height}`);
  }
  return entries;
}

/** The local current release, with its files by sha256 (what a pull links instead of downloading), or null before the first pull. */
async function localRelease(outDir: string): Promise<Local | null> {
  const dir = await currentRelease(outDir);
  if (!dir) return null;
  let head: ManifestHead | null = null;
  const bySha = new Map<string, { path: string; size: number }>();
  for await (const entry of readManifest(join(dir, MANIFEST_FILE), (h) => { head = h; })) {
    if (!bySha.has(entry.sha256)) bySha.set(entry.sha256, { path: entry.path, size: entry.size });
  }
  const text = await readFile(join(dir, MANIFEST_SIGNATURE_FILE), 'utf8').catch(() => null);
  // Checked when it was pulled; read here only for the rollback rule.
  const signedAt = text === null ? NaN : Number(parseTrustedComment(parseSignature(text).trustedComment).timestamp);
  return { dir, id: basename(dir), head: head!, signedAt: Number.isSafeInteger(signedAt) ? signedAt : null, bySha };
}

/**
 * Whether the origin's release may follow the local one: the same network,
 * never a lower height, nor at the same height one signed earlier
 * (rollback). True when it is the local current release already.
 */
function checkSuccession(local: Local, signed: Signed): boolean {
  if (local.head.network !== signed.network) {
    throw new MirrorRefusal(`the origin publishes ${signed.network}, this copy holds ${local.head.network}: use another --out for another network`);
  }
  if (local.id === signed.id) return true;
  if (signed.height < local.head.as_of_height) {
    throw new MirrorRefusal(`rollback refused: the origin's release ${signed.id} is at height ${signed.height}, below this copy's ${local.head.as_of_height} (release ${local.id})`);
  }
  if (signed.height === local.head.as_of_height && local.signedAt !== null && signed.signedAt < local.signedAt) {
    throw new MirrorRefusal(`rollback refused: the origin's release ${signed.id} was signed before this copy's ${local.id} at the same height ${signed.height}`);
  }
  return false;
}

/** The file each manifest path is linked from: the local current release, the downloads a killed pull left, or a new download. */
async function fetchMissing(origin: Origin, opts: MirrorOptions, entries: readonly ManifestEntry[], local: Local | null,
  summary: MirrorSummary, onRetry: (why: string) => void): Promise<Map<string, string>> {
  const objects = join(opts.outDir, DOWNLOADS_DIR, OBJECTS);
  const sources = new Map<string, string>();
  const wanted = new Map<string, ManifestEntry>();
  for (const entry of entries) {
    const here = local?.bySha.get(entry.sha256);
    if (here && here.size === entry.size && await isRegularFile(join(local!.dir, here.path), entry.size)) {
      sources.set(entry.path, join(local!.dir, here.path));
      summary.linked.files++;
      summary.linked.bytes += entry.size;
      continue;
    }
    sources.set(entry.path, join(objects, entry.sha256));
    if (!wanted.has(entry.sha256)) wanted.set(entry.sha256, entry);
  }
  const progress = opts.progress ?? silentProgress;
  const total = [...wanted.values()].reduce((n, e) => n + e.size, 0);
  let done = 0;
  const limit = pLimit(opts.concurrency ?? 8);
  progress.start('mirror', total, 'bytes');
  try {
    await Promise.all([...wanted.values()].map((entry) => limit(async () => {
      const object = join(objects, entry.sha256);
      if (await isRegularFile(object, entry.size) && await sha256OfFile(object, entry.size) === entry.sha256) {
        summary.resumed.files++;
        summary.resumed.bytes += entry.size;
        progress.update(done += entry.size);
        return;
      }
      const part = `${object}.part`;
      const got = await downloadTo(origin, entry.path, entry.size, part, (n) => progress.update(done += n), onRetry).catch(async (err: Error) => {
        await rm(part, { force: true });
        summary.problems.push(err.message);
        return null;
      });
      if (got === null) return;
      summary.fetched.files++;
      summary.fetched.bytes += got.fetched;
      summary.resumed.bytes += got.kept;
      progress.update(done += got.kept);
      const sha256 = await sha256OfFile(part);
      if (sha256 !== entry.sha256) {
        await rm(part, { force: true });
        summary.refused.files++;
        summary.refused.bytes += entry.size;
        summary.problems.push(`${entry.path}: the origin's bytes have sha256 ${sha256}; the signed manifest says ${entry.sha256}`);
        return;
      }
      await rename(part, object);
    })));
  } finally {
    progress.stop();
  }
  if (summary.problems.length > 0 && summary.refused.files === 0) throw new MirrorRefusal(`${summary.problems.length} files could not be downloaded; the current release is unchanged, and what was downloaded is kept for the next pull`);
  return sources;
}

/**
 * publish.ts gives every release a directory of exporter state; a copy has
 * none to keep, so the empty ones go (a directory with content is an
 * exporter's, and stays).
 */
async function removeEmptyStates(outDir: string): Promise<void> {
  const states = join(outDir, STATE_DIR);
  for (const dir of [...(await readdir(states)).map((name) => join(states, name)), states]) {
    await rmdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST' && err.code !== 'ENOTDIR' && err.code !== 'ENOENT') throw err;
    });
  }
}

async function isRegularFile(path: string, size: number): Promise<boolean> {
  const info = await lstat(path).catch(() => null);
  return info !== null && info.isFile() && info.size === size;
}


/** --every: pulls, then waits; a refused or failed pull is logged and tried again at the next tick. Stops on SIGINT/SIGTERM or `stop`. */
export async function pullEvery(opts: MirrorOptions, intervalMs: number, onSummary: (summary: MirrorSummary) => void, stop?: AbortSignal): Promise<void> {
  await repeatUntilStopped(async (signal) => {
    const tick = Date.now();
    try {
      const summary = await pullRelease(opts);
      onSummary(summary);
      for (const problem of summary.problems) opts.log(`mirror: ${problem}`);
    } catch (err) {
      opts.log(`mirror failed: ${(err as Error).message}; the current release is unchanged; trying again in ${intervalMs / 1000}s`);
    }
    await sleep(tick + intervalMs - Date.now(), signal);
  }, stop);
  opts.log('mirror: stopped');
}
