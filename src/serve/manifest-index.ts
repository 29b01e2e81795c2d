/**
 * Lookups in a release's manifest.json without loading it: the manifest has
 * one `"path":{"size","sha256",…}` line per file in byte order of the path
 * (docs/static-hosting.md "What is in a release"), so a path is found by a
 * binary search over the file's bytes, a few page-sized reads each. The x10
 * files-layout manifest is over a gigabyte; this keeps the router's memory
 * the same at every size.
 */
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from 'node:fs';

export interface ManifestEntry {
  size: number;
  sha256: string;
}

/** A manifest that is not in the shape the exporter writes. */
export class ManifestFormatError extends Error {}

/** Longer than any line the exporter writes (a path is at most a few hundred bytes). */
const MAX_LINE_BYTES = 4096;
/** Below this span the search reads the rest at once and scans it. */
const SCAN_BYTES = 16 * 1024;
const NEWLINE = 0x0a;
const MEMBER = /^("(?:[^"\\]|\\.)*"):(\{[^{}]*\}),?$/;

/**
 * A manifest.json opened for lookups. Opened per use and closed at once: a
 * descriptor kept with a release could be closed by a release switch while an
 * older request still reads through it (or, reused, point at another file).
 */
export class ManifestIndex {
  /** Byte offsets of the first member line and of the line after the last one. */
  private readonly first: number;
  private readonly end: number;

  private constructor(private readonly fd: number, size: number) {
    this.first = this.lineEnd(0) + 1;
    this.end = this.lineStart(size - 1);
    if (this.first > this.end) throw new ManifestFormatError('its head line is not followed by file lines');
  }

  /**
   * Opens the manifest at `path`; symbolic links and anything but a regular
   * file are refused, and so is a manifest with another name (every export
   * writes its own, so a hard link is planted) or, when `owner` is given,
   * with another owner.
   */
  static open(path: string, owner?: number): ManifestIndex {
    const fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) throw new ManifestFormatError('it is not a regular file');
      if (stats.nlink !== 1) throw new ManifestFormatError(`it has ${stats.nlink} links (a hard link to it, or it to another file)`);
      if (owner !== undefined && stats.uid !== owner) throw new ManifestFormatError(`it is owned by uid ${stats.uid}, not by the release directory's owner (uid ${owner})`);
      return new ManifestIndex(fd, stats.size);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  /** One lookup in the manifest at `path` (`owner`: as for open). */
  static lookupIn(path: string, rel: string, owner?: number): ManifestEntry | null {
    const manifest = ManifestIndex.open(path, owner);
    try {
      return manifest.lookup(rel);
    } finally {
      manifest.close();
    }
  }

  /** The entry the manifest lists for a release-relative path, or null when it lists none. */
  lookup(path: string): ManifestEntry | null {
    let lo = this.first;
    let hi = this.end;
    // Invariant: a line for `path`, if any, starts in [lo, hi); lo and hi are line starts.
    while (hi - lo > SCAN_BYTES) {
      const start = this.lineStart(lo + Math.floor((hi - lo) / 2));
      const line = this.readLine(start);
      const member = parseMember(line.text);
      if (member.path === path) return member.entry;
      if (member.path < path) lo = start + line.bytes;
      else hi = start;
    }
    const span = this.read(lo, hi - lo);
    for (const text of span.toString('utf8').split('\n')) {
      if (text === '') continue;
      const member = parseMember(text);
      if (member.path === path) return member.entry;
      if (member.path > path) return null;
    }
    return null;
  }

  private read(position: number, length: number): Buffer {
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, buffer, done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return buffer.subarray(0, done);
  }

  /** The start of the line that holds byte `offset`. */
  private lineStart(offset: number): number {
    const from = Math.max(0, offset - MAX_LINE_BYTES);
    const before = this.read(from, offset - from);
    const newline = before.lastIndexOf(NEWLINE);
    if (newline === -1 && from > 0) throw new ManifestFormatError(`a line is longer than ${MAX_LINE_BYTES} bytes`);
    return newline === -1 ? from : from + newline + 1;
  }

  /** The offset of the newline that ends the line starting at `start`. */
  private lineEnd(start: number): number {
    const newline = this.read(start, MAX_LINE_BYTES).indexOf(NEWLINE);
    if (newline === -1) throw new ManifestFormatError(`a line is longer than ${MAX_LINE_BYTES} bytes`);
    return start + newline;
  }

  private readLine(start: number): { text: string; bytes: number } {
    const end = this.lineEnd(start);
    return { text: this.read(start, end - start).toString('utf8'), bytes: end - start + 1 };
  }
}

function parseMember(line: string): { path: string; entry: ManifestEntry } {
  const parts = MEMBER.exec(line);
  if (!parts) throw new ManifestFormatError(`a line is not a file entry: ${JSON.stringify(line.slice(0, 80))}`);
  const path = JSON.parse(parts[1]!) as string;
  const entry = JSON.parse(parts[2]!) as Partial<ManifestEntry>;
  if (!Number.isSafeInteger(entry.size) || typeof entry.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(entry.sha256)) {
    throw new ManifestFormatError(`the entry of ${JSON.stringify(path)} lacks a size or sha256`);
  }
  return { path, entry: { size: entry.size!, sha256: entry.sha256 } };
}
