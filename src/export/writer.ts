import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { wrapJson, type AnalysisStamp } from '../api/envelope.js';
import { FileQueue } from './file-queue.js';
import { stampOf, type Manifest, type ManifestEntry } from './manifest.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Files at least this large get a .gz sibling; at least BR_MIN a .br one when it beats gzip clearly. */
export const GZ_MIN = 4096;
export const BR_MIN = 65536;
const BR_GAIN = 0.9;

export interface PreviousRelease {
  dir: string;
  manifest: Manifest;
}

export interface WriterCounts {
  files: number;
  written: number;
  /** Hard-linked from the previous release. */
  reused: number;
  /** Already in place: unchanged in the recycled release the writer writes into. */
  kept: number;
  bytes: number;
}

type How = 'written' | 'reused' | 'kept';
const SIBLINGS = ['', '.gz', '.br'];

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/**
 * Writes the files of one release directory and records them for the
 * manifest. A file whose bytes equal the previous release's is hard-linked
 * from there (with its compressed siblings) instead of written, unless
 * `reuse` is off; either way the resulting tree is the same. File operations
 * run in order on a worker thread: call `finish` before reading the tree.
 *
 * `recycled` is the manifest of an old release whose directory `dir` is (one
 * the export would prune anyway): its files that already hold the right bytes
 * stay untouched, every other name is removed before it is written or linked
 * (never written through, since releases share inodes), and names the new
 * release lacks are removed by `finish`.
 */
export class ReleaseWriter {
  private readonly entries = new Map<string, ManifestEntry>();
  private readonly how = new Map<string, How>();
  /** Files of the recycled release not yet kept or removed. */
  private readonly stale: Map<string, ManifestEntry>;
  private readonly stamps: [number, number][] = [];
  private readonly dirs = new Set<string>();
  private readonly files = new FileQueue();
  readonly counts: WriterCounts = { files: 0, written: 0, reused: 0, kept: 0, bytes: 0 };

  constructor(
    readonly dir: string,
    readonly stamp: AnalysisStamp,
    private readonly previous: PreviousRelease | null,
    private readonly reuse: boolean,
    recycled: Manifest | null = null,
  ) {
    this.stale = new Map(Object.entries(recycled?.files ?? {}));
  }

  /** A file of the release with these bytes (`bytes` counts what was actually written). */
  async put(path: string, data: string | Buffer, stampIndex?: number): Promise<void> {
    const hash = sha256(data);
    if (await this.keepOrClearRecycled(path, hash, stampIndex)) return;
    const before = this.previous?.manifest.files[path];
    if (before && before.sha256 === hash && this.reuse) {
      await this.linkPrevious(path, before, stampIndex);
      return;
    }
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    await this.ensureDir(path);
    await this.forget(path);
    await this.files.push({ op: 'write', path: join(this.dir, path), data: bytes });
    this.record(path, { size: bytes.length, sha256: hash, ...(stampIndex === undefined ? {} : { stamp: stampIndex }) }, 'written');
    await this.compress(path, bytes);
  }

  /**
   * A per-query document `{envelope, key: body}`. When its body is unchanged
   * since the previous release it keeps that release's stamp (and bytes), so
   * unchanged documents are reused and only changed ones carry the new analysis.
   */
  async putDocument(path: string, key: string, body: string): Promise<void> {
    const before = this.previous?.manifest.files[path];
    const oldStamp = before && this.previous ? stampOf(this.previous.manifest, before) : null;
    if (oldStamp) {
      const old = wrapJson(oldStamp, key, body);
      if (sha256(old) === before!.sha256) {
        await this.put(path, old, this.stampIndex(oldStamp));
        return;
      }
    }
    await this.put(path, wrapJson(this.stamp, key, body), this.stampIndex(this.stamp));
  }

  /**
   * Links a file (and its compressed siblings) unchanged from the previous
   * release, keeping its stamp; false when the previous release lacks it.
   */
  async reuseUnchanged(path: string): Promise<boolean> {
    const before = this.previous?.manifest.files[path];
    if (!before || !this.reuse) return false;
    const stamp = stampOf(this.previous!.manifest, before);
    const stampIndex = stamp ? this.stampIndex(stamp) : undefined;
    if (await this.keepOrClearRecycled(path, before.sha256, stampIndex)) return true;
    await this.linkPrevious(path, before, stampIndex);
    return true;
  }

  /** A second name (hard link) for a file already in this release, counted like the file it names. */
  async alias(path: string, existing: string): Promise<void> {
    const entry = this.entries.get(existing);
    if (!entry) throw new Error(`cannot alias ${path}: ${existing} is not in the release`);
    if (await this.keepOrClearRecycled(path, entry.sha256, entry.stamp)) return;
    await this.ensureDir(path);
    for (const ext of SIBLINGS) {
      const sibling = this.entries.get(existing + ext);
      if (!sibling) continue;
      await this.files.push({ op: 'link', from: join(this.dir, existing + ext), path: join(this.dir, path + ext) });
      this.entries.set(path + ext, sibling);
      this.counts.files++;
      this.counts[this.how.get(existing + ext) ?? 'written']++;
    }
  }

  /** A file something else (DuckDB COPY) wrote into the release; swapped for a link when unchanged. */
  async adopt(path: string): Promise<void> {
    const full = join(this.dir, path);
    const bytes = await readFile(full);
    const hash = sha256(bytes);
    const before = this.previous?.manifest.files[path];
    if (before && before.sha256 === hash && this.reuse) {
      await this.files.push({ op: 'remove', path: full });
      await this.linkPrevious(path, before);
      return;
    }
    this.record(path, { size: bytes.length, sha256: hash }, 'written');
  }

  /** Where a file of this release lives (for writers that need a path, e.g. COPY); its directory exists on return. */
  async pathFor(path: string): Promise<string> {
    await this.ensureDir(path);
    await this.clearRecycled(path);
    await this.files.drain();
    return join(this.dir, path);
  }

  /** Waits for every file operation and stops the worker; the tree is complete when it resolves. */
  async finish(): Promise<void> {
    try {
      for (const path of [...this.stale.keys()]) await this.clearRecycled(path);
      await this.files.drain();
    } finally {
      await this.files.close();
    }
  }

  /** Stops the worker after a failure, leaving pending operations unapplied. */
  async abandon(): Promise<void> {
    await this.files.close();
  }

  /** Files and stamps for manifest.json, in an order that does not depend on write timing. */
  manifestParts(): { stamps: [number, number][]; files: Record<string, ManifestEntry> } {
    const stamps = [...this.stamps].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const remap = this.stamps.map((pair) => stamps.indexOf(pair));
    const paths = [...this.entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const files: Record<string, ManifestEntry> = {};
    for (const path of paths) {
      const entry = this.entries.get(path)!;
      files[path] = entry.stamp === undefined ? entry : { ...entry, stamp: remap[entry.stamp]! };
    }
    return { stamps, files };
  }

  private stampIndex(stamp: AnalysisStamp): number {
    const at = this.stamps.findIndex(([h, t]) => h === stamp.as_of_height && t === stamp.updated_at);
    if (at >= 0) return at;
    this.stamps.push([stamp.as_of_height, stamp.updated_at]);
    return this.stamps.length - 1;
  }

  /**
   * Takes the recycled release's file at this name when it already has these
   * bytes (with its compressed siblings) and returns true; otherwise removes
   * it so the name can get new bytes, and returns false.
   */
  private async keepOrClearRecycled(path: string, hash: string, stampIndex?: number): Promise<boolean> {
    if (this.stale.get(path)?.sha256 !== hash) {
      await this.clearRecycled(path);
      return false;
    }
    for (const ext of SIBLINGS) {
      const sibling = this.stale.get(path + ext);
      if (!sibling) continue;
      this.stale.delete(path + ext);
      const stamped = ext === '' && stampIndex !== undefined ? { stamp: stampIndex } : {};
      this.record(path + ext, { size: sibling.size, sha256: sibling.sha256, ...stamped }, 'kept');
    }
    return true;
  }

  /** Removes the recycled release's file at this name (and its siblings) before the name gets new bytes. */
  private async clearRecycled(path: string): Promise<void> {
    for (const ext of SIBLINGS) {
      if (this.stale.delete(path + ext)) await this.files.push({ op: 'remove', path: join(this.dir, path + ext) });
    }
  }

  private async linkPrevious(path: string, before: ManifestEntry, stampIndex?: number): Promise<void> {
    await this.ensureDir(path);
    await this.files.push({ op: 'link', from: join(this.previous!.dir, path), path: join(this.dir, path) });
    const entry: ManifestEntry = { size: before.size, sha256: before.sha256, ...(stampIndex === undefined ? {} : { stamp: stampIndex }) };
    this.record(path, entry, 'reused');
    for (const ext of SIBLINGS.slice(1)) {
      const sibling = this.previous!.manifest.files[path + ext];
      if (!sibling) continue;
      await this.files.push({ op: 'link', from: join(this.previous!.dir, path + ext), path: join(this.dir, path + ext) });
      this.record(path + ext, sibling, 'reused');
    }
  }

  /**
   * Drops a name already in this release before it is written again, so the
   * write makes a new file instead of truncating an inode the previous
   * release shares.
   */
  private async forget(path: string): Promise<void> {
    for (const name of SIBLINGS.map((ext) => path + ext)) {
      if (!this.entries.delete(name)) continue;
      await this.files.push({ op: 'remove', path: join(this.dir, name) });
      this.counts.files--;
      this.counts[this.how.get(name) ?? 'written']--;
    }
  }

  private async compress(path: string, bytes: Buffer): Promise<void> {
    if (bytes.length < GZ_MIN) return;
    const gz = await gzipAsync(bytes, { level: 9 });
    await this.files.push({ op: 'write', path: join(this.dir, `${path}.gz`), data: gz });
    this.record(`${path}.gz`, { size: gz.length, sha256: sha256(gz) }, 'written');
    if (bytes.length < BR_MIN) return;
    const br = await brotliAsync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    if (br.length >= gz.length * BR_GAIN) return;
    await this.files.push({ op: 'write', path: join(this.dir, `${path}.br`), data: br });
    this.record(`${path}.br`, { size: br.length, sha256: sha256(br) }, 'written');
  }

  private record(path: string, entry: ManifestEntry, how: How): void {
    this.entries.set(path, entry);
    this.how.set(path, how);
    this.counts.files++;
    this.counts[how]++;
    if (how === 'written') this.counts.bytes += entry.size;
  }

  private async ensureDir(path: string): Promise<void> {
    const dir = dirname(join(this.dir, path));
    if (this.dirs.has(dir)) return;
    this.dirs.add(dir);
    await this.files.push({ op: 'mkdir', path: dir });
  }
}
