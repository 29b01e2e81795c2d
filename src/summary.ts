import { realpath } from 'node:fs/promises';
import { basename } from 'node:path';
import { RELEASE_ID_PATTERN } from './export/publish.js';
import type { Problem, VerifyResult } from './export/verify.js';
import type { SignatureReport } from './export/verify-signature.js';
import type { ChangeCounts } from './export/changes.js';

/**
 * The one-object summaries `job --json` and `verify --json` print on
 * standard output (README "The CLI"), for scripts: what a run published or
 * checked, in the names the release itself uses.
 */


export interface JobSummary {
  command: 'job';
  network: string;
  /** False when the chain, labels and analysis were the ones the current release shows: nothing was published, release_id is that release. */
  published: boolean;
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
  /** With --public-key: the signature's key id, network, as_of_height, release and timestamp, or the problem (docs/verifying.md). */
  signature?: SignatureReport;
  seconds: number;
}

/** A release directory's id from its real path (out/<network>/current resolved), or null. */
export const releaseIdOf = (realDir: string): string | null => (RELEASE_ID_PATTERN.test(basename(realDir)) ? basename(realDir) : null);

/** Seconds since `startedMs` (performance.now()), to the millisecond. */
export const secondsSince = (startedMs: number): number => Math.round(performance.now() - startedMs) / 1000;

/** verify's result as `verify --json` prints it; the problems in path order. */
export async function verifySummary(result: VerifyResult, ok: boolean, problems: readonly Problem[], startedMs: number): Promise<VerifySummary> {
  return {
    command: 'verify', ok, dir: result.dir, release_id: releaseIdOf(await realpath(result.dir)), network: result.head.network,
    as_of_height: result.head.as_of_height, files: result.files, bytes: result.bytes, problem_counts: result.problems,
    problems: problems.map(({ kind, path, detail }) => ({ kind, path, detail })), ...(result.signature ? { signature: result.signature } : {}), seconds: secondsSince(startedMs),
  };
}
