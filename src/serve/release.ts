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
 * Those two system calls cost a sixth of a cached answer, so a resolved
 * release is reused while inotify (fs.watch) reports nothing on the two
 * directories whose entries decide it: the out dir (`current`) and the
 * release's parent (the release itself). The kernel queues that event when
 * the rename happens, before any client can ask afterwards, and the event
 * loop reads it before that request (a caller that does not pass through the
 * event loop between a change and its next call may see the old release for
 * up to REVALIDATE_MS). Where watching fails, or after REVALIDATE_MS anyway
 * (a moved ancestor directory sends no event), both are checked again.
 */
import { constants as fsConstants, readFileSync, readlinkSync, statSync, watch, type BigIntStats, type FSWatcher } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createHash, type Hash } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import type { NetworkParams } from '../domain/network.js';
import type { Envelope } from '../api/envelope.js';
import type { HealthDocument } from '../api/health.js';
import { AmountTableError, parseAmountTable, type AmountTable, type NetworkName } from '@pegscope/client';
import { Lru, type LruLimits } from '../lru.js';
import { RANGES_INDEX_PATH, RangeFormatError, type RangeKind, type RangesIndexBody } from '@pegscope/client';
import { indexRange, type IndexedRange } from '../api/range-file.js';
import { rangeFileOf } from './ranges.js';

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

export interface Release {
  id: string;
  dir: string;
  /** The directory's path and inode: every cached answer and file of this release is kept under it. */
  key: string;
  envelope: Envelope;
  /** api/health.json as published; analysis_age_seconds is recomputed per request. */
  health: HealthDocument;
  /** api/amounts.json, the table privacy is computed from. */
  amounts: AmountTable;
  /** Parsed data files reused by every request of this release (top lists, full-depth follow chains), sized by their JSON text. */
  parsed: Lru<string, unknown>;
  /** api/ranges.json: per-query documents are in range files; null for the one-file-per-query layout. */
  ranges: RangesIndexBody | null;
}

export class ReleaseUnavailable extends Error {}

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
    try {
      const health = JSON.parse(this.files.read(`${key}\napi/health.json`, join(dir, 'api', 'health.json'))?.identity.toString('utf8') ?? 'null') as HealthDocument | null;
      const amountsFile = this.files.read(`${key}\napi/amounts.json`, join(dir, 'api', 'amounts.json'));
      if (!health?.health || !amountsFile) throw new Error('api/health.json or api/amounts.json is missing');
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
      const amounts = amountTableOf(amountsFile.identity.toString('utf8'), this.network.name);
      const rangesFile = this.files.read(`${key}\n${RANGES_INDEX_PATH}`, join(dir, RANGES_INDEX_PATH));
      const ranges = rangesFile ? JSON.parse(rangesFile.identity.toString('utf8')) as RangesIndexBody : null;
      if (ranges && ranges.layout !== 'ranges') throw new Error(`${RANGES_INDEX_PATH} does not describe a range layout`);
      return { id: basename(dir), dir, key, envelope, health, amounts, parsed: new Lru(this.dataLimits), ranges };
    } catch (err) {
      if (err instanceof ReleaseUnavailable) throw err;
      // The message goes to clients: the release id, not the server's paths.
      const reason = err instanceof SyntaxError ? 'a document is not valid JSON' : (err as Error).message;
      throw new ReleaseUnavailable(`the published release ${basename(dir)} cannot be read (${reason}); re-run \`pegscope export\``);
    }
  }

  /** A file of the release, or null when it does not exist. `rel` is built from validated parts only. */
  file(release: Release, rel: string): CachedFile | null {
    const file = this.files.read(`${release.key}\n${rel}`, join(release.dir, rel));
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
    const bytes = readOptional(join(release.dir, rel));
    if (!bytes) {
      assertPresent(release);
      throw new ReleaseUnavailable(`the published release ${release.id} lacks ${rel}; re-run \`pegscope export\``);
    }
    let range: IndexedRange;
    try {
      range = indexRange(bytes);
    } catch (err) {
      if (!(err instanceof RangeFormatError || err instanceof SyntaxError)) throw err;
      throw new ReleaseUnavailable(`${rel} of release ${release.id} is not a range file (${err.message}); re-run \`pegscope export\``);
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
   * A release file opened for streaming, or null when it does not exist.
   * Symbolic links are refused (O_NOFOLLOW), as is anything but a regular file.
   */
  async open(release: Release, rel: string): Promise<OpenFile | null> {
    let handle: FileHandle;
    try {
      handle = await open(join(release.dir, rel), fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    } catch (err) {
      if (!isMissing(err)) throw unreadable(err);
      assertPresent(release);
      return null;
    }
    try {
      const stats = await handle.stat({ bigint: true });
      if (!stats.isFile()) {
        await handle.close();
        return null;
      }
      return { handle, size: Number(stats.size), mtimeMs: Number(stats.mtimeMs), etag: await this.files.digest(handle, stats) };
    } catch (err) {
      await handle.close();
      throw err instanceof ReleaseUnavailable ? err : unreadable(err);
    }
  }
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
  if (!stats?.isDirectory()) {
    throw new ReleaseUnavailable(`the published release ${basename(dir)} is missing from the out directory; re-run \`pegscope export\` or restore it`);
  }
  return `${stats.dev}:${stats.ino}:${dir}`;
}

/** A missing file means "not in this release" only while the release itself is still there. */
function assertPresent(release: Release): void {
  if (releaseKey(release.dir) !== release.key) {
    throw new ReleaseUnavailable(`the published release ${release.id} was removed or replaced while being read; re-run \`pegscope export\` or restore it`);
  }
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
}

/**
 * Release files in memory, LRU by entries and bytes. Entries are keyed by the
 * release key, and releases are immutable, so an entry never goes stale.
 */
export class FileCache {
  readonly files: Lru<string, CachedFile>;
  readonly ranges: Lru<string, IndexedRange>;
  private readonly digests: Lru<string, Promise<string>>;

  constructor(private readonly limits: FileCacheLimits) {
    this.files = new Lru(limits.files);
    this.ranges = new Lru(limits.ranges);
    this.digests = new Lru(limits.digests);
  }

  read(key: string, path: string): CachedFile | null {
    const hit = this.files.get(key);
    if (hit) return hit;
    const identity = readOptional(path);
    if (!identity) return null;
    const file: CachedFile = { identity, gzip: readOptional(`${path}.gz`), br: readOptional(`${path}.br`), etag: etagOf(identity) };
    const size = file.identity.length + (file.gzip?.length ?? 0) + (file.br?.length ?? 0);
    if (size <= this.limits.maxFileBytes) this.files.set(key, file, size + key.length + ENTRY_OVERHEAD_BYTES);
    return file;
  }

  /**
   * The ETag of an open file, hashed once per inode and content (size and
   * mtime): hard-linked files of later releases reuse it, and concurrent
   * requests share one pass over a large dump.
   */
  digest(handle: FileHandle, stats: BigIntStats): Promise<string> {
    const key = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;
    let digest = this.digests.get(key);
    if (!digest) {
      digest = hashFile(handle, Number(stats.size));
      this.digests.set(key, digest);
      digest.catch(() => this.digests.delete(key));
    }
    return digest;
  }
}

/** The ETag of a body: every body the router sends, file or computed, is named by the same digest. */
export function etagOf(bytes: Buffer): string {
  return quoted(etagHash().update(bytes));
}

const etagHash = (): Hash => createHash('sha1');
const quoted = (hash: Hash): string => `"${hash.digest('base64url')}"`;

const HASH_CHUNK_BYTES = 1024 * 1024;

async function hashFile(handle: FileHandle, size: number): Promise<string> {
  const hash = etagHash();
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(size, HASH_CHUNK_BYTES)));
  for (let position = 0; position < size;) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - position), position);
    if (bytesRead === 0) throw new ReleaseUnavailable('a file of the published release changed while being read; re-run `pegscope export`');
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return quoted(hash);
}

function isMissing(err: unknown): boolean {
  // ELOOP: O_NOFOLLOW met a symbolic link.
  return ['ENOENT', 'ENOTDIR', 'EISDIR', 'ELOOP'].includes((err as NodeJS.ErrnoException).code ?? '');
}

function unreadable(err: unknown): ReleaseUnavailable {
  const code = (err as NodeJS.ErrnoException).code;
  return new ReleaseUnavailable(`a file of the published release cannot be read (${code ?? 'error'}); check the permissions of the out directory`);
}

function readOptional(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (err) {
    if (isMissing(err)) return null;
    throw unreadable(err);
  }
}

/** The release's amount table, checked as a wallet checks it (the router scores with what wallets fetch). */
function amountTableOf(text: string, network: NetworkName): AmountTable {
  try {
    return parseAmountTable(text, { network }).table;
  } catch (err) {
    throw err instanceof AmountTableError ? new Error(`api/amounts.json is ${err.message}`) : err;
  }
}
