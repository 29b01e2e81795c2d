import { execFile } from 'node:child_process';
import { mkdir, open, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { hasIndexes } from './manifest.js';

/**
 * Release directories of one network's out dir (SPEC §4):
 *   releases/.tmp-<id>/   being written (removed by the next export if a kill left it)
 *   releases/<id>/        complete and durable
 *   current -> releases/<id>   swapped by rename, so readers see one or the other
 */
export const RELEASES = 'releases';
export const CURRENT = 'current';
const TMP_PREFIX = '.tmp-';

const execFileAsync = promisify(execFile);

/** Sortable by time; the height says what it holds. */
export function releaseId(asOfHeight: number, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${stamp}-h${asOfHeight}`;
}

export interface StartedRelease {
  /** The temporary directory to write the release into. */
  dir: string;
  /** When `dir` holds a recycled old release (its files index describes the files already there): its id. */
  recycled: string | null;
}

/**
 * The temporary directory of a new release; leftovers of killed exports are
 * removed first. With `recycleAt` set and at least that many complete
 * releases, the oldest one that is not current (the one pruning would remove
 * after this export) is renamed into place instead, so its unchanged files
 * need no work at all.
 */
export async function startRelease(outDir: string, id: string, recycleAt?: number): Promise<StartedRelease> {
  const releases = join(outDir, RELEASES);
  await mkdir(releases, { recursive: true });
  for (const name of await readdir(releases)) {
    if (name.startsWith(TMP_PREFIX)) await rm(join(releases, name), { recursive: true, force: true });
  }
  const dir = join(releases, `${TMP_PREFIX}${id}`);
  const recycled = recycleAt === undefined ? null : await oldestPrunable(outDir, recycleAt);
  if (recycled) {
    await rename(join(releases, recycled), dir);
    return { dir, recycled };
  }
  await mkdir(dir);
  return { dir, recycled: null };
}

/** A release without files index is not recycled (pruning removes it after the export). */
async function oldestPrunable(outDir: string, atLeast: number): Promise<string | null> {
  const current = await currentRelease(outDir);
  const names = await completeReleases(outDir);
  const oldest = names.length >= atLeast ? names.find((name) => resolve(outDir, RELEASES, name) !== current) : undefined;
  return oldest && hasIndexes(join(outDir, RELEASES, oldest)) ? oldest : null;
}

/** The absolute path of the release current points at, or null (compared with resolve(), since outDir may be relative). */
export const currentRelease = (outDir: string): Promise<string | null> =>
  readlink(join(outDir, CURRENT)).then((target) => resolve(outDir, target), () => null);

const completeReleases = async (outDir: string): Promise<string[]> =>
  (await readdir(join(outDir, RELEASES))).filter((name) => !name.startsWith(TMP_PREFIX)).sort();

/**
 * Makes the release durable and current: flush the file system holding it,
 * rename the temporary directory to its id, then point `current` at it by
 * renaming a fresh symlink over the old one (atomic on POSIX).
 */
export async function publishRelease(outDir: string, tmpDir: string, id: string): Promise<string> {
  await syncFileSystem(tmpDir);
  const finalDir = join(outDir, RELEASES, id);
  await rename(tmpDir, finalDir);
  const tmpLink = join(outDir, `${CURRENT}${TMP_PREFIX}${id}`);
  await rm(tmpLink, { force: true });
  await symlink(join(RELEASES, id), tmpLink);
  await rename(tmpLink, join(outDir, CURRENT));
  await fsyncDir(join(outDir, RELEASES));
  await fsyncDir(outDir);
  return finalDir;
}

/** Removes all but the newest `keep` complete releases; never the current one. */
export async function pruneReleases(outDir: string, keep: number): Promise<string[]> {
  const releases = join(outDir, RELEASES);
  const current = await currentRelease(outDir);
  const names = await completeReleases(outDir);
  const doomed = names.slice(0, Math.max(0, names.length - keep)).filter((name) => resolve(releases, name) !== current);
  for (const name of doomed) await rm(join(releases, name), { recursive: true, force: true });
  return doomed;
}

/** syncfs(2) through coreutils `sync -f`: one call flushes every file of the release. */
async function syncFileSystem(dir: string): Promise<void> {
  await execFileAsync('sync', ['-f', dir]);
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
