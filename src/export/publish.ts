import { execFile } from 'node:child_process';
import { mkdir, open, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { JOB_CHECK_FILE, type JobCheck } from '../api/health.js';
import { completeStateDir, isDocsIndexFile, STATE_DIR } from './state.js';

/**
 * Release directories of one network's out dir (docs/static-hosting.md):
 *   releases/.tmp-<id>/   being written (removed by the next export if a kill left it)
 *   releases/<id>/        complete and durable
 *   current -> releases/<id>   swapped by rename, so readers see one or the other
 *   state/.tmp-<id>/, state/<id>/   the exporter's own state of each release
 *     (state.ts), renamed into place before the release; a state directory
 *     without its release is a kill's leftover, removed by the next export
 */
export const RELEASES = 'releases';
export const CURRENT = 'current';
const TMP_PREFIX = '.tmp-';

const execFileAsync = promisify(execFile);

/** What releaseId makes: `<UTC time to the millisecond>-h<as_of_height>`. */
export const RELEASE_ID_PATTERN = /^\d{8}T\d{9}Z-h\d+$/;

/** Sortable by time; the height says what it holds. */
export function releaseId(asOfHeight: number, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${stamp}-h${asOfHeight}`;
}

export interface StartedRelease {
  /** The temporary directory to write the release into. */
  dir: string;
  /** The temporary directory to write the release's state into. */
  stateDir: string;
  /** When `dir` holds a recycled old release (its files index describes the files already there): its id. */
  recycled: string | null;
}

/**
 * The temporary directories of a new release and its state; leftovers of
 * killed exports are removed first. With `recycleAt` set and at least that
 * many complete releases, the oldest one that is not current (the one
 * pruning would remove after this export) is renamed into place instead, so
 * its unchanged files need no work at all; its state stays where it is for
 * the writer to read, and goes with the next pruning.
 */
export async function startRelease(outDir: string, id: string, recycleAt?: number): Promise<StartedRelease> {
  const releases = join(outDir, RELEASES);
  await mkdir(releases, { recursive: true });
  await mkdir(join(outDir, STATE_DIR), { recursive: true });
  for (const name of await readdir(releases)) {
    if (name.startsWith(TMP_PREFIX)) await rm(join(releases, name), { recursive: true, force: true });
  }
  await removeOrphanStates(outDir);
  const dir = join(releases, `${TMP_PREFIX}${id}`);
  const stateDir = join(outDir, STATE_DIR, `${TMP_PREFIX}${id}`);
  await mkdir(stateDir);
  const recycled = recycleAt === undefined ? null : await oldestPrunable(outDir, recycleAt);
  if (recycled) {
    await rename(join(releases, recycled), dir);
    return { dir, stateDir, recycled };
  }
  await mkdir(dir);
  return { dir, stateDir, recycled: null };
}

/** A release without a complete state is not recycled (pruning removes it after the export). */
async function oldestPrunable(outDir: string, atLeast: number): Promise<string | null> {
  const current = await currentRelease(outDir);
  const names = await completeReleases(outDir);
  const oldest = names.length >= atLeast ? names.find((name) => resolve(outDir, RELEASES, name) !== current) : undefined;
  return oldest && await completeStateDir(outDir, oldest) ? oldest : null;
}

/** Removes state directories without a complete release: a kill's half-written state, or the state of a release recycled or pruned. */
async function removeOrphanStates(outDir: string): Promise<void> {
  const releases = new Set(await completeReleases(outDir));
  for (const name of await readdir(join(outDir, STATE_DIR))) {
    if (!releases.has(name) && !isDocsIndexFile(name)) await rm(join(outDir, STATE_DIR, name), { recursive: true, force: true });
  }
}

/** The absolute path of the release current points at, or null (compared with resolve(), since outDir may be relative). */
export const currentRelease = (outDir: string): Promise<string | null> =>
  readlink(join(outDir, CURRENT)).then((target) => resolve(outDir, target), () => null);

const completeReleases = async (outDir: string): Promise<string[]> =>
  (await readdir(join(outDir, RELEASES))).filter((name) => !name.startsWith(TMP_PREFIX)).sort();

/**
 * Makes the release and its state durable and current: flush the file
 * system holding them, rename the state's temporary directory to the id,
 * then the release's, then point `current` at it by renaming a fresh
 * symlink over the old one (atomic on POSIX). So `current` never names a
 * release without its complete state.
 */
export async function publishRelease(outDir: string, started: StartedRelease, id: string): Promise<string> {
  await syncFileSystem(started.dir);
  await rename(started.stateDir, join(outDir, STATE_DIR, id));
  await fsyncDir(join(outDir, STATE_DIR));
  const finalDir = join(outDir, RELEASES, id);
  await rename(started.dir, finalDir);
  const tmpLink = join(outDir, `${CURRENT}${TMP_PREFIX}${id}`);
  await rm(tmpLink, { force: true });
  await symlink(join(RELEASES, id), tmpLink);
  await rename(tmpLink, join(outDir, CURRENT));
  await fsyncDir(join(outDir, RELEASES));
  await fsyncDir(outDir);
  return finalDir;
}

/** Removes all but the newest `keep` complete releases, never the current one, and the states of releases no longer there. */
export async function pruneReleases(outDir: string, keep: number): Promise<string[]> {
  const releases = join(outDir, RELEASES);
  const current = await currentRelease(outDir);
  const names = await completeReleases(outDir);
  const doomed = names.slice(0, Math.max(0, names.length - keep)).filter((name) => resolve(releases, name) !== current);
  for (const name of doomed) await rm(join(releases, name), { recursive: true, force: true });
  await removeOrphanStates(outDir);
  return doomed;
}

/**
 * Records the job's successful check beside the releases (api/health.ts
 * JOB_CHECK_FILE): written to a temporary name and renamed over the old one,
 * so the router reads one complete check or the previous.
 */
export async function recordCheck(outDir: string, check: JobCheck): Promise<void> {
  const path = join(outDir, JOB_CHECK_FILE);
  const tmp = `${path}${TMP_PREFIX}${process.pid}`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(`${JSON.stringify(check)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
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
