import { createReadStream } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { CHANGES_FILE } from './api/release-files.js';
import { RELEASE_ID_PATTERN } from './export/publish.js';
import type { Problem, VerifyResult } from './export/verify.js';

/**
 * The one-object summaries `job --json` and `verify --json` print on
 * standard output (README "The CLI"), for scripts: what a run published or
 * checked, in the names the release itself uses.
 */

/** How many files changes.json lists as added, changed and removed. */
export interface ChangeCounts { added: number; changed: number; removed: number }

export interface JobSummary {
  command: 'job';
  network: string;
  release_id: string;
  as_of_height: number;
  /** The highest block scanned, and how many were new. */
  scanned_to: number;
  new_blocks: number;
  /** Files of the release: written by this export, hard-linked from the previous release, kept in place in a recycled one. */
  files: number;
  written: number;
  linked: number;
  kept: number;
  /** What changes.json lists: the files a mirror uploads or deletes. */
  changes: ChangeCounts;
  seconds: number;
}

export interface VerifySummary {
  command: 'verify';
  ok: boolean;
  dir: string;
  /** The release directory's name when it is a release id (a mirror's copy may have any name), else null. */
  release_id: string | null;
  network: string;
  as_of_height: number;
  files: number;
  bytes: number;
  problem_counts: VerifyResult['problems'];
  problems: Problem[];
  seconds: number;
}

/** A release directory's id from its real path (out/<network>/current resolved), or null. */
export const releaseIdOf = (realDir: string): string | null => (RELEASE_ID_PATTERN.test(basename(realDir)) ? basename(realDir) : null);

/** Seconds since `startedMs` (performance.now()), to the millisecond. */
export const secondsSince = (startedMs: number): number => Math.round(performance.now() - startedMs) / 1000;

/** The sections of changes.json, one file a line: streamed, since a first release's can be as large as its manifest. */
const SECTION = /^(?:\},)?"(added|changed|removed)":\{$/;

export async function countChanges(releaseDir: string): Promise<ChangeCounts> {
  const counts: ChangeCounts = { added: 0, changed: 0, removed: 0 };
  let section: keyof ChangeCounts | null = null;
  for await (const line of createInterface({ input: createReadStream(join(releaseDir, CHANGES_FILE)), crlfDelay: Infinity })) {
    const opened = SECTION.exec(line);
    if (opened) section = opened[1] as keyof ChangeCounts;
    else if (section && line.startsWith('"')) counts[section]++;
  }
  return counts;
}

/** verify's result as `verify --json` prints it; the problems in path order. */
export async function verifySummary(result: VerifyResult, ok: boolean, problems: readonly Problem[], startedMs: number): Promise<VerifySummary> {
  return {
    command: 'verify', ok, dir: result.dir, release_id: releaseIdOf(await realpath(result.dir)), network: result.head.network,
    as_of_height: result.head.as_of_height, files: result.files, bytes: result.bytes, problem_counts: result.problems,
    problems: problems.map(({ kind, path, detail }) => ({ kind, path, detail })), seconds: secondsSince(startedMs),
  };
}
