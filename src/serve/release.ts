/**
 * A site is one network's `out/<network>`; its `current` symlink names the
 * published release. The symlink is resolved once per request and everything
 * that request reads comes from that one release directory, so a response
 * never mixes two releases and a new release is picked up without restart.
 *
 * The release directory itself is checked too, and again whenever a file is
 * missing: a release removed while serving is a 503, never an answer computed
 * from its absence, so nothing wrong is cached.
 *
 *
 * Those two system calls cost a sixth of a cached answer, so a resolved
 * release is reused while inotify (fs.watch) reports nothing on the two
 * directories whose entries decide it: the out dir (`current`) and the
 * release's parent (the release itself). The kernel queues that event when
 * the rename happens, before any client can ask afterwards, and the event
 * loop reads it before that request (a caller that does not pass through the
 * event loop between a change and its next call may see the old release for
 * up to REVALIDATE_MS). Where watching fails, or after REVALIDATE_MS anyway
 * (a moved ancestor directory sends no event), both are checked again.
 *
 * The router serves only what the release vouches for (docs/api.md "What the
 * router serves"): a file is read only when manifest.json lists it, only as a
 * regular file of the release directory's owner that really lies inside the
 * release (no symbolic link on its path; manifest.json with no other name),
 * within a size cap for its kind, and only when its bytes have the sha256 the
 * manifest gives. A file that fails any of these is a 503 naming no file,
 * content or size for the request, and a line in the log; nothing built from
 * it is cached. Whether the release has range files is the manifest's word too.
 */
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readFileSync, readlinkSync, readSync, realpathSync, statSync, watch, type BigIntStats, type FSWatcher } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createHash, type Hash } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import type { NetworkParams } from '../domain/network.js';
import type { Envelope } from '../api/envelope.js';
import { JOB_CHECK_FILE, parseJobCheck, type HealthDocument } from '../api/health.js';
import { AmountTableError, parseAmountTable, type AmountTable, type NetworkName } from '@pegscope/client';
import { Lru, type LruLimits } from '../lru.js';
import { RANGES_INDEX_PATH, RangeFormatError, rangePrefix, type RangeKind, type RangesIndexBody } from '@pegscope/client';
import { indexRange, type IndexedRange } from '../api/range-file.js';
import { AMOUNT_TABLE_PATH, MANIFEST_FILE, MANIFEST_SIGNATURE_FILE, REQUIRED_FILES } from '../api/release-files.js';
import { rangeFileOf } from './ranges.js';
import { ManifestFormatError, ManifestIndex, type ManifestEntry } from './manifest-index.js';

/** A file of the release with its precompressed siblings, as written by the export. */
export interface CachedFile {
  identity: Buffer;
  gzip: Buffer | null;
  br: Buffer | null;
  /** Strong validator: a digest of the bytes, so an unchanged file keeps its ETag across releases. */
  etag: string;
  /** A computed body: gzip/br are made on first demand. */
  compressible?: boolean;
}

/** A release file opened for streaming (dumps, manifest): read from this handle only, so the bytes match the ETag. */
export interface OpenFile {
  handle: FileHandle;
  size: number;
  mtimeMs: number;
  /** Strong validator of the bytes, as for CachedFile. */
  etag: string;
}

/** Where a release lies: enough to read its files, before its documents are loaded. */
export interface ReleaseRoot {
  id: string;
  dir: string;
  /** `dir` with every symbolic link resolved: a file is read only where its own real path is under it. */
  real: string;
  /** The directory's path and inode: every cached answer and file of this release is kept under it. */
  key: string;
  /** The directory's owner (uid): every file the router reads must have the same. */
  owner: number;
}

export interface Release extends ReleaseRoot {
  envelope: Envelope;
  /** api/health.json as published; analysis_age_seconds is recomputed per request. */
  health: HealthDocument;
  /** api/amounts.json, the table privacy is computed from. */
  amounts: AmountTable;
  /** Parsed data files reused by every request of this release (top lists, full-depth follow chains), sized by their JSON text. */
  parsed: Lru<string, unknown>;
  /** api/ranges.json: per-query documents are in range files; null for the one-file-per-query layout (the manifest lists no ranges.json). */
  ranges: RangesIndexBody | null;
}

/** The release cannot answer: a 503 whose message goes to the client. */
export class ReleaseUnavailable extends Error {}

/**
 * A file of the release failed a check (not listed as found, a link, not a
 * regular file, another owner, too large, other bytes than the manifest's):
 * the client gets a message naming no file, content or size (a planted link
 * could point anywhere), the operator's log gets `detail`. Re-running export
 * rewrites what fails its checks (docs/static-hosting.md "Damage and planted
 * links").
 */
export class ReleaseDamaged extends ReleaseUnavailable {
  constructor(readonly release: string, readonly detail: string) {
    super(`the published release ${release} cannot be read (a file failed its checks; the operator's log names it); re-run \`pegscope export\`, which rewrites damaged files, or restore it`);
  }
}

/** The most a file of each kind may hold to be read into memory; a larger one is damage, never a read without bound. */
function maxBytesOf(rel: string): number {
  if (rel.startsWith('api/range/')) return 64 * 1024 * 1024;
  if (rel.startsWith('data/')) return 128 * 1024 * 1024;
  return 16 * 1024 * 1024;
}

/** A cached entry's cost beyond its bytes (map slot, objects), so many tiny entries are bounded too. */
export const ENTRY_OVERHEAD_BYTES = 256;

/** The longest a resolved release is trusted without looking at `current` again, events or not. */
const REVALIDATE_MS = 1_000;

export class Site {
  private release: Release | null = null;
  /** The watches that vouch for `release`, and when it was last resolved; null while nothing vouches. */
  private watching: { watchers: FSWatcher[]; dirs: string; checkedAt: number } | null = null;

  constructor(
    readonly network: NetworkParams,
    readonly outDir: string,
    readonly hostnames: readonly string[],
    private readonly files: FileCache,
    private readonly dataLimits: LruLimits,
  ) {}

  /** The release `current` points at now; loads its in-memory state when it changed. */
  current(): Release {
    const watching = this.watching;
    if (watching && this.release && performance.now() - watching.checkedAt < REVALIDATE_MS) return this.release;
    const release = this.resolveCurrent();
    if (watching?.dirs === watchedDirs(this.outDir, release.dir)) {
      // Watched all along and nothing happened: the release is vouched for again.
      watching.checkedAt = performance.now();
      return release;
    }
    this.unwatch();
    if (!this.watch(release.dir)) return release;
    // A change between that look and the new watch would go unseen: look again, now watched.
    try {
      const again = this.resolveCurrent();
      if (again.key !== release.key) this.unwatch();
      return again;
    } catch (err) {
      this.unwatch();
      throw err;
    }
  }

  /**
   * When the job last checked the chain (api/health.ts JOB_CHECK_FILE), in
   * unix seconds; null when it recorded none or the file is unreadable.
   * Read per health request: the file is tiny and the answer is never cached.
   */
  lastCheck(): number | null {
    try {
      return parseJobCheck(readFileSync(join(this.outDir, JOB_CHECK_FILE), 'utf8'))?.checked_at ?? null;
    } catch {
      return null;
    }
  }

  /** Stops watching (the server closes). */
  close(): void {
    this.unwatch();
  }

  private resolveCurrent(): Release {
    let dir: string;
    try {
      dir = resolve(this.outDir, readlinkSync(join(this.outDir, 'current')));
    } catch {
      throw new ReleaseUnavailable(`no release published yet for ${this.network.name}; run \`pegscope export\` (or \`pegscope job\`)`);
    }
    const key = releaseKey(dir);
    if (this.release?.key === key) return this.release;
    this.release = this.load(dir, key);
    return this.release;
  }

  /** Watches the directories that decide the release in `dir`; false where that is not possible. */
  private watch(dir: string): boolean {
    const watchers: FSWatcher[] = [];
    const forget = (): void => this.unwatch();
    try {
      for (const path of new Set([this.outDir, dirname(dir)])) {
        // Not persistent: watching never keeps a process alive.
        const watcher = watch(path, { persistent: false }, forget);
        watcher.on('error', forget);
        watchers.push(watcher);
      }
    } catch {
      // No inotify (limits, platform): every request checks, as it always could.
      for (const watcher of watchers) watcher.close();
      return false;
    }
    this.watching = { watchers, dirs: watchedDirs(this.outDir, dir), checkedAt: performance.now() };
    return true;
  }

  private unwatch(): void {
    for (const watcher of this.watching?.watchers ?? []) watcher.close();
    this.watching = null;
  }

  /** The release loaded last (for cache statistics), without touching the file system. */
  get loaded(): Release | null {
    return this.release;
  }

  private load(dir: string, key: string): Release {
    const real = realpathOf(dir);
    const root: ReleaseRoot = { id: basename(dir), dir, real, key, owner: ownerOf(real) };
    try {
      for (const rel of REQUIRED_FILES) this.files.required(root, rel);
      const health = JSON.parse(this.files.required(root, 'api/health.json').identity.toString('utf8')) as HealthDocument;
      if (!health?.health) throw new Error('api/health.json has no health object');
      const envelope = {
        version: health.version,
        network: health.network,
        unit: health.unit,
        as_of_height: Number(health.as_of_height),
        updated_at: Number(health.updated_at),
      } as Envelope;
      if (envelope.network !== this.network.name) {
        throw new Error(`it is a ${envelope.network} release but this site serves ${this.network.name}`);
      }
      // Checked as a wallet checks it: the router scores with what wallets fetch.
      const amounts = amountTableOf(this.files.required(root, AMOUNT_TABLE_PATH).identity.toString('utf8'), this.network.name);
      const rangesFile = this.files.read(root, RANGES_INDEX_PATH);
      const ranges = rangesFile ? JSON.parse(rangesFile.identity.toString('utf8')) as RangesIndexBody : null;
      if (ranges && ranges.layout !== 'ranges') throw new Error(`${RANGES_INDEX_PATH} does not describe a range layout`);
      return { ...root, envelope, health, amounts, parsed: new Lru(this.dataLimits), ranges };
    } catch (err) {
      if (err instanceof ReleaseUnavailable) throw err;
      // The message goes to clients: the release id, not the server's paths.
      const reason = err instanceof SyntaxError ? 'a document is not valid JSON' : (err as Error).message;
      throw new ReleaseUnavailable(`the published release ${basename(dir)} cannot be read (${reason}); re-run \`pegscope export\``);
    }
  }

  /**
   * A file of the release, or null when its manifest does not list it (and the
   * release still stands, checked after the miss). `rel` is built from
   * validated parts only.
   */
  file(release: Release, rel: string): CachedFile | null {
    const file = this.files.read(release, rel);
    if (!file) assertPresent(release);
    return file;
  }

  /**
   * The range of a ranges release that holds `key` of `kind`, indexed once
   * (kept while it stays in the bounded index cache). Every range of the
   * layout exists, so a missing or malformed one makes the release unavailable.
   */
  range(release: Release, kind: RangeKind, key: string): IndexedRange {
    const rel = rangeFileOf(release.ranges!, kind, key);
    const cacheKey = `${release.key}\n${rel}`;
    const hit = this.files.ranges.get(cacheKey);
    if (hit) return hit;
    const bytes = this.files.listed(release, rel)?.bytes;
    if (!bytes) {
      assertPresent(release);
      throw new ReleaseDamaged(release.id, `manifest.json does not list ${rel}`);
    }
    let range: IndexedRange;
    try {
      range = indexRange(bytes);
    } catch (err) {
      if (!(err instanceof RangeFormatError || err instanceof SyntaxError)) throw err;
      throw new ReleaseDamaged(release.id, `${rel} is not a range file: ${err.message}`);
    }
    // A range copied over another has valid bytes of its own: its header must name what was asked.
    const { kind: named, prefix } = range.header.range;
    if (named !== kind || prefix !== rangePrefix(key, release.ranges!.kinds[kind].prefix_length)) {
      throw new ReleaseDamaged(release.id, `${rel} holds the ${named} range ${prefix}`);
    }
    this.files.ranges.set(cacheKey, range, range.bytes + cacheKey.length + ENTRY_OVERHEAD_BYTES);
    return range;
  }

  /** A JSON data file parsed once per release (while it stays in the release's bounded cache). */
  data<T>(release: Release, rel: string): T | null {
    const hit = release.parsed.get(rel);
    if (hit !== undefined) return hit as T;
    const file = this.file(release, rel);
    if (!file) return null;
    let value: T;
    try {
      value = JSON.parse(file.identity.toString('utf8')) as T;
    } catch {
      throw new ReleaseUnavailable(`${rel} of release ${release.id} is not valid JSON; re-run \`pegscope export\``);
    }
    release.parsed.set(rel, value, file.identity.length + rel.length + ENTRY_OVERHEAD_BYTES);
    return value;
  }

  /**
   * A release file opened for streaming, or null when the manifest does not
   * list it. manifest.json itself is the root of trust and is opened as it
   * is, and so is its signature (docs/verifying.md), which it cannot list
   * (null when the release is unsigned); every other file must have the
   * manifest's size, and its sha256 is checked in the pass that computes its ETag.
   */
  async open(release: Release, rel: string): Promise<OpenFile | null> {
    const unlisted = rel === MANIFEST_FILE || rel === MANIFEST_SIGNATURE_FILE;
    const entry = unlisted ? null : this.files.lookup(release, rel);
    if (!entry && !unlisted) {
      assertPresent(release);
      return null;
    }
    let handle: FileHandle;
    try {
      assertInside(release, rel);
      handle = await open(join(release.real, rel), OPEN_FLAGS);
    } catch (err) {
      if (rel === MANIFEST_SIGNATURE_FILE && isMissing(err)) {
        assertPresent(release);
        return null;
      }
      throw refusal(release, rel, err);
    }
    try {
      const stats = await handle.stat({ bigint: true });
      checkStats(release, rel, stats, entry, rel === MANIFEST_SIGNATURE_FILE ? SIGNATURE_MAX_BYTES : Number.MAX_SAFE_INTEGER);
      const digest = await this.files.digest(handle, stats);
      if (entry && digest.sha256 !== entry.sha256) throw new ReleaseDamaged(release.id, `${rel} does not have the sha256 manifest.json lists`);
      return { handle, size: Number(stats.size), mtimeMs: Number(stats.mtimeMs), etag: digest.etag };
    } catch (err) {
      await handle.close();
      throw err instanceof ReleaseUnavailable ? err : unreadable(err);
    }
  }
}

/** A minisign signature is four short lines; anything larger is not one. */
const SIGNATURE_MAX_BYTES = 4096;

/** Read-only; never through a symbolic link; a FIFO opens without waiting for a writer (and is refused by its stats). */
const OPEN_FLAGS = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK;

/** The real path of a release directory (`current` may name it through links the operator chose). */
function realpathOf(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch (err) {
    if (isMissing(err)) throw missingRelease(dir);
    throw unreadable(err);
  }
}

/** The owner of a release directory. */
function ownerOf(real: string): number {
  try {
    return statSync(real).uid;
  } catch (err) {
    if (isMissing(err)) throw missingRelease(real);
    throw unreadable(err);
  }
}

/** `rel` resolves to itself under the release's real path: no component of it is a symbolic link. */
function assertInside(root: ReleaseRoot, rel: string): void {
  const path = join(root.real, rel);
  if (realpathSync.native(path) !== path) throw new ReleaseDamaged(root.id, `${rel} is a symbolic link or lies under one`);
}

/** A listed file's stats: a regular file of the release's owner, within its kind's cap, of the listed size. */
function checkStats(root: ReleaseRoot, rel: string, stats: BigIntStats, entry: ManifestEntry | null, maxBytes: number): void {
  if (!stats.isFile()) throw new ReleaseDamaged(root.id, `${rel} is not a regular file`);
  if (stats.uid !== BigInt(root.owner)) throw new ReleaseDamaged(root.id, `${rel} is owned by uid ${stats.uid}, not by the release directory's owner (uid ${root.owner})`);
  // Every export writes its own manifest: another name for it is a planted hard link (ManifestIndex.open).
  if (rel === MANIFEST_FILE && stats.nlink !== 1n) throw new ReleaseDamaged(root.id, `${MANIFEST_FILE} has ${stats.nlink} links`);
  if (stats.size > BigInt(maxBytes)) throw new ReleaseDamaged(root.id, `${rel} is larger than the ${maxBytes} bytes a file of its kind may have`);
  if (entry && stats.size !== BigInt(entry.size)) throw new ReleaseDamaged(root.id, `${rel} has ${stats.size} bytes, manifest.json lists ${entry.size}`);
}

/** Why a listed file could not be opened: the release is gone, the file is missing or refused. */
function refusal(root: ReleaseRoot, rel: string, err: unknown): ReleaseUnavailable {
  if (err instanceof ReleaseUnavailable) return err;
  if (releaseKey(root.dir) !== root.key) return replaced(root);
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return new ReleaseDamaged(root.id, `${rel} is a symbolic link`);
  if (rel === MANIFEST_FILE && isMissing(err)) return new ReleaseDamaged(root.id, `it has no ${MANIFEST_FILE}`);
  if (isMissing(err)) return new ReleaseDamaged(root.id, `${rel} is listed in ${MANIFEST_FILE} but missing`);
  return unreadable(err);
}

/** What a watch covers: the out dir (`current`) and the release's parent (the release itself). */
function watchedDirs(outDir: string, releaseDir: string): string {
  return `${outDir}\n${dirname(releaseDir)}`;
}

/** Path and inode of a release directory; ReleaseUnavailable when it is gone or not a directory. */
function releaseKey(dir: string): string {
  let stats;
  try {
    stats = statSync(dir, { throwIfNoEntry: false });
  } catch (err) {
    throw unreadable(err);
  }
  if (!stats?.isDirectory()) throw missingRelease(dir);
  return `${stats.dev}:${stats.ino}:${dir}`;
}

function missingRelease(dir: string): ReleaseUnavailable {
  return new ReleaseUnavailable(`the published release ${basename(dir)} is missing from the out directory; re-run \`pegscope export\` or restore it`);
}

/**
 * A file the manifest does not list is "not in this release" only while the
 * release still stands: the same directory, with its manifest (removed
 * files-first or not, a release being deleted loses one or the other).
 */
function assertPresent(root: ReleaseRoot): void {
  const marker = lstatSync(join(root.real, MANIFEST_FILE), { throwIfNoEntry: false });
  if (releaseKey(root.dir) !== root.key || !marker?.isFile()) throw replaced(root);
}

function replaced(root: ReleaseRoot): ReleaseUnavailable {
  return new ReleaseUnavailable(`the published release ${root.id} was removed or replaced while being read; re-run \`pegscope export\` or restore it`);
}

export interface FileCacheLimits {
  /** Release files kept in memory with their compressed siblings. */
  files: LruLimits;
  /** Files above this are read each time instead of evicting everything else. */
  maxFileBytes: number;
  /** ETags of streamed files, by inode. */
  digests: LruLimits;
  /** Indexed range files, sized by the file. */
  ranges: LruLimits;
  /** Files whose sha256 was checked, by release, path and identity (inode, size, mtime). */
  verified: LruLimits;
}

/** A streamed file's validator and the sha256 it is checked against the manifest with, from one pass. */
export interface FileDigest {
  etag: string;
  sha256: string;
}

/** A listed file's bytes, with the identity its sha256 check is kept under. */
interface ListedBytes {
  bytes: Buffer;
  identity: string;
}

/**
 * Release files in memory, LRU by entries and bytes. Entries are keyed by the
 * release key, and releases are immutable, so an entry never goes stale.
 */
export class FileCache {
  readonly files: Lru<string, CachedFile>;
  readonly ranges: Lru<string, IndexedRange>;
  private readonly digests: Lru<string, Promise<FileDigest>>;
  /** A file whose bytes matched the manifest is not hashed again while its identity stays the same. */
  private readonly verified: Lru<string, string>;

  constructor(private readonly limits: FileCacheLimits) {
    this.files = new Lru(limits.files);
    this.ranges = new Lru(limits.ranges);
    this.digests = new Lru(limits.digests);
    this.verified = new Lru(limits.verified);
  }

  /** A listed file with its listed .gz/.br siblings, or null when the manifest does not list it. */
  read(root: ReleaseRoot, rel: string): CachedFile | null {
    const key = `${root.key}\n${rel}`;
    const hit = this.files.get(key);
    if (hit) return hit;
    const identity = this.listed(root, rel)?.bytes;
    if (!identity) return null;
    const sibling = (suffix: string): Buffer | null => this.listed(root, `${rel}${suffix}`)?.bytes ?? null;
    const file: CachedFile = { identity, gzip: sibling('.gz'), br: sibling('.br'), etag: etagOf(identity) };
    const size = file.identity.length + (file.gzip?.length ?? 0) + (file.br?.length ?? 0);
    if (size <= this.limits.maxFileBytes) this.files.set(key, file, size + key.length + ENTRY_OVERHEAD_BYTES);
    return file;
  }

  /** A file every release has: the manifest must list it, and it must pass every check. */
  required(root: ReleaseRoot, rel: string): CachedFile {
    const file = this.read(root, rel);
    if (!file) throw new ReleaseDamaged(root.id, `manifest.json does not list ${rel}`);
    return file;
  }

  /** The manifest's entry for `rel`, or null; a manifest that is missing, linked or malformed makes the release unavailable. */
  lookup(root: ReleaseRoot, rel: string): ManifestEntry | null {
    try {
      return ManifestIndex.lookupIn(join(root.real, MANIFEST_FILE), rel, root.owner);
    } catch (err) {
      if (err instanceof ManifestFormatError) throw new ReleaseDamaged(root.id, `${MANIFEST_FILE} ${err.message}`);
      throw refusal(root, MANIFEST_FILE, err);
    }
  }

  /** The bytes of a file the manifest lists, checked (see the top of this file); null when it lists none. */
  listed(root: ReleaseRoot, rel: string): ListedBytes | null {
    const entry = this.lookup(root, rel);
    if (!entry) return null;
    const read = readInside(root, rel, entry);
    const key = `${root.key}\n${rel}`;
    if (this.verified.get(key) !== read.identity) {
      if (createHash('sha256').update(read.bytes).digest('hex') !== entry.sha256) {
        throw new ReleaseDamaged(root.id, `${rel} does not have the sha256 manifest.json lists`);
      }
      this.verified.set(key, read.identity);
    }
    return read;
  }

  /**
   * The ETag and sha256 of an open file, hashed once per inode and content
   * (size and mtime): hard-linked files of later releases reuse it, and
   * concurrent requests share one pass over a large dump.
   */
  digest(handle: FileHandle, stats: BigIntStats): Promise<FileDigest> {
    const key = identityOf(stats);
    let digest = this.digests.get(key);
    if (!digest) {
      digest = hashFile(handle, Number(stats.size));
      this.digests.set(key, digest);
      digest.catch(() => this.digests.delete(key));
    }
    return digest;
  }
}

/**
 * What a file's check is kept under: a rewrite in place changes its ctime,
 * which no one can set back (unlike mtime), even when size and mtime are kept.
 */
const identityOf = (stats: BigIntStats): string => `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;

/** Reads a listed file whole: inside the release, never through a link, never a FIFO or device, never past its kind's cap. */
function readInside(root: ReleaseRoot, rel: string, entry: ManifestEntry): ListedBytes {
  let fd: number;
  try {
    assertInside(root, rel);
    fd = openSync(join(root.real, rel), OPEN_FLAGS);
  } catch (err) {
    throw refusal(root, rel, err);
  }
  try {
    const stats = fstatSync(fd, { bigint: true });
    checkStats(root, rel, stats, entry, maxBytesOf(rel));
    const bytes = Buffer.allocUnsafe(entry.size);
    let done = 0;
    while (done < bytes.length) {
      const n = readSync(fd, bytes, done, bytes.length - done, done);
      if (n === 0) throw new ReleaseDamaged(root.id, `${rel} changed while being read`);
      done += n;
    }
    return { bytes, identity: identityOf(stats) };
  } catch (err) {
    throw err instanceof ReleaseUnavailable ? err : unreadable(err);
  } finally {
    closeSync(fd);
  }
}

/** The ETag of a body: every body the router sends, file or computed, is named by the same digest. */
export function etagOf(bytes: Buffer): string {
  return quoted(etagHash().update(bytes));
}

const etagHash = (): Hash => createHash('sha1');
const quoted = (hash: Hash): string => `"${hash.digest('base64url')}"`;

const HASH_CHUNK_BYTES = 1024 * 1024;

async function hashFile(handle: FileHandle, size: number): Promise<FileDigest> {
  const etag = etagHash();
  const sha256 = createHash('sha256');
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(size, HASH_CHUNK_BYTES)));
  for (let position = 0; position < size;) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - position), position);
    if (bytesRead === 0) throw new ReleaseUnavailable('a file of the published release changed while being read; re-run `pegscope export`');
    etag.update(buffer.subarray(0, bytesRead));
    sha256.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return { etag: quoted(etag), sha256: sha256.digest('hex') };
}

function isMissing(err: unknown): boolean {
  // ELOOP: O_NOFOLLOW met a symbolic link.
  return ['ENOENT', 'ENOTDIR', 'EISDIR', 'ELOOP'].includes((err as NodeJS.ErrnoException).code ?? '');
}

function unreadable(err: unknown): ReleaseUnavailable {
  const code = (err as NodeJS.ErrnoException).code;
  return new ReleaseUnavailable(`a file of the published release cannot be read (${code ?? 'error'}); check the permissions of the out directory`);
}

/** The release's amount table, checked as a wallet checks it (the router scores with what wallets fetch). */
function amountTableOf(text: string, network: NetworkName): AmountTable {
  try {
    return parseAmountTable(text, { network }).table;
  } catch (err) {
    throw err instanceof AmountTableError ? new Error(`api/amounts.json is ${err.message}`) : err;
  }
}
