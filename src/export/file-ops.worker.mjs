// Applies a release's file operations in order with synchronous system calls,
// one batch per message. Creating hundreds of thousands of small files through
// the promise API costs the exporter's thread more than the kernel work itself.
//
// Nothing is ever written through a name that exists: a file is created anew
// (O_EXCL, O_NOFOLLOW) after its name is removed, so a symbolic or hard link
// planted in a recycled release cannot redirect a write. A file carried over
// from another release is checked against what the exporter recorded when it
// wrote it (docs/static-hosting.md "Damage and planted links"); the inode and
// modification time of every name created are reported, for the files index.
import { closeSync, constants, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const uid = process.getuid?.();

/** A carried file that fails its check: the export writes every file anew (export.ts). */
class Damaged extends Error {}

function unlinkIfThere(path) {
  try {
    unlinkSync(path);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
}

function write(path, data) {
  unlinkIfThere(path);
  const fd = openSync(path, CREATE, 0o666);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    return fstatSync(fd, { bigint: true });
  } finally {
    closeSync(fd);
  }
}

/** The bytes of a regular file, read without following a link. */
function readBytes(path, size) {
  const fd = openSync(path, READ);
  try {
    const bytes = Buffer.allocUnsafe(Number(size));
    let done = 0;
    for (let n; done < bytes.length && (n = readSync(fd, bytes, done, bytes.length - done, done)) > 0;) done += n;
    return bytes.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/**
 * How the file at `path` compares with the one the files index records
 * (`expect`: size, sha256, ino and mtime_ns, the last two null for an index
 * of an earlier pegscope): `why` it is damaged; or its `stats` when it is the
 * inode the exporter wrote (inode, size and mtime equal); or its verified
 * `bytes` when it has the right bytes in another inode, or one with more names
 * than releases give it (a hard link from or to outside): those are copied
 * into a file of the release's own, never linked.
 */
function inspect(path, expect, maxLinks) {
  const stats = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  if (!stats) return { why: 'is missing' };
  if (!stats.isFile()) return { why: 'is not a regular file (a symbolic link or a special file)' };
  if (uid !== undefined && stats.uid !== BigInt(uid)) return { why: `is owned by uid ${stats.uid}, not by the exporter (uid ${uid})` };
  if (stats.size !== BigInt(expect.size)) return { why: `has ${stats.size} bytes, the files index lists ${expect.size}` };
  const same = expect.ino === null || (stats.ino === BigInt(expect.ino) && stats.mtimeNs === BigInt(expect.mtime_ns));
  if (same && stats.nlink <= BigInt(maxLinks)) return { stats };
  const bytes = readBytes(path, stats.size);
  if (createHash('sha256').update(bytes).digest('hex') !== expect.sha256) return { why: 'does not have the sha256 the files index lists (changed in place or replaced)' };
  return { bytes };
}

/** Removes every entry under `dir` that is neither a directory nor a regular file (links, FIFOs, sockets, devices); never follows one. */
function scrub(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) scrub(path);
    else if (!entry.isFile()) unlinkSync(path);
  }
}

/** Applies one operation; returns the stats of the name it created or checked, if any. */
function apply(op) {
  switch (op.op) {
    case 'write':
      return write(op.path, op.data);
    case 'link':
      linkSync(op.from, op.path);
      return lstatSync(op.path, { bigint: true });
    case 'carry': {
      const { why, stats, bytes } = inspect(op.from, op.expect, op.maxLinks);
      if (why) throw new Damaged(`${op.from} ${why}`);
      if (bytes) return write(op.path, bytes);
      linkSync(op.from, op.path);
      return stats;
    }
    case 'check': {
      const { why, stats, bytes } = inspect(op.path, op.expect, op.maxLinks);
      if (why) throw new Damaged(`${op.path} ${why}`);
      return bytes ? write(op.path, bytes) : stats;
    }
    case 'mkdir':
      mkdirSync(op.path, { recursive: true });
      return null;
    case 'remove':
      rmSync(op.path, { force: true });
      return null;
    case 'scrub':
      scrub(op.path);
      return null;
    default:
      throw new Error(`unknown file operation ${JSON.stringify(op.op)}`);
  }
}

parentPort.on('message', (ops) => {
  // [path, ino, mtime_ns] of every name created or checked, in order.
  const stats = [];
  try {
    for (const op of ops) {
      const created = apply(op);
      if (created) stats.push([op.path, created.ino, created.mtimeNs]);
    }
    parentPort.postMessage({ error: null, damaged: null, stats });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    parentPort.postMessage({ error: err instanceof Damaged ? null : message, damaged: err instanceof Damaged ? message : null, stats });
  }
});
