/**
 * The range layout of a release (docs/static-hosting.md): how long each kind's prefix is,
 * and the host budget every release is checked against.
 */
import { RANGE_KINDS, type RangeKind } from '@pegscope/client';

/** Per-query documents packed into range files (the default), or one file per query (an nginx-only mirror answering ?q=). */
export type Layout = 'ranges' | 'files';
export const LAYOUTS: readonly Layout[] = ['ranges', 'files'];

/**
 * Documents per range the layout aims at.
 * @remarks Enough company for k-anonymity, small enough to fetch often.
 */
export const RANGE_TARGET = { min: 50, max: 200 } as const;

/**
 * The prefix length of a kind with `documents` documents.
 * @remarks The one whose mean range size is closest (on a log scale) to the
 * middle of RANGE_TARGET; at least 1 so a range is never the whole kind.
 */
export function prefixLengthFor(documents: number): number {
  const middle = Math.sqrt(RANGE_TARGET.min * RANGE_TARGET.max);
  let best = 1;
  for (let length = 2; 16 ** length <= Math.max(16, documents) * 16; length++) {
    if (Math.abs(Math.log(documents / 16 ** length / middle)) < Math.abs(Math.log(documents / 16 ** best / middle))) best = length;
  }
  return best;
}

/** What a static host accepts (docs/static-hosting.md): files, the largest file, all bytes; null = no limit. */
export interface HostBudget {
  maxFiles: number | null;
  maxFileBytes: number | null;
  maxTotalBytes: number | null;
}

const MIB = 1024 * 1024;

/** The default: Cloudflare Pages' 20,000 files of at most 25 MiB each, and GitHub Pages' 1 GB. */
export const DEFAULT_HOST_BUDGET: HostBudget = { maxFiles: 20_000, maxFileBytes: 25 * MIB, maxTotalBytes: 1_000_000_000 };
export const NO_HOST_BUDGET: HostBudget = { maxFiles: null, maxFileBytes: null, maxTotalBytes: null };

/** Files a release has besides its ranges (endpoint documents, dumps, the explorer, indexes), kept free in the budget. */
export const OTHER_FILES_RESERVE = 1_000;

/**
 * Prefix lengths per kind: each as close to RANGE_TARGET as hex digits allow
 * (prefixLengthFor); when the ranges would not fit the budget's file count,
 * the kind with the most files gives up a digit until they fit (fewer,
 * larger ranges: more company per lookup, larger downloads).
 */
export function chooseRangeLayout(counts: Record<RangeKind, number>, budget: HostBudget, previous: Record<RangeKind, number> | null = null): Record<RangeKind, number> {
  const lengths = Object.fromEntries(RANGE_KINDS.map((kind) => [kind, keepsLength(counts[kind], previous?.[kind]) ? previous![kind] : prefixLengthFor(counts[kind])])) as Record<RangeKind, number>;
  const room = budget.maxFiles === null ? Infinity : budget.maxFiles - OTHER_FILES_RESERVE;
  const files = (): number => RANGE_KINDS.reduce((sum, kind) => sum + 16 ** lengths[kind], 0);
  while (files() > room) {
    const largest = RANGE_KINDS.filter((kind) => lengths[kind] > 1).sort((a, b) => lengths[b] - lengths[a] || counts[b] - counts[a])[0];
    if (!largest) break;
    lengths[largest] -= 1;
  }
  return lengths;
}

/**
 * A kind keeps the previous release's prefix length while its mean range
 * stays within twice the target band either way: a new length rewrites
 * every range of the kind, so a kind growing across a boundary does not
 * flip its layout back and forth.
 */
function keepsLength(documents: number, previous: number | undefined): boolean {
  if (previous === undefined || previous < 1) return false;
  const mean = documents / 16 ** previous;
  return mean >= RANGE_TARGET.min / 2 && mean <= RANGE_TARGET.max * 2;
}

/** What a finished release holds, against the budget. */
export interface ReleaseSize {
  files: number;
  largestFile: { path: string; bytes: number };
  totalBytes: number;
}

/** Every way the release breaks the budget, in words; empty when it fits. */
export function budgetProblems(size: ReleaseSize, budget: HostBudget): string[] {
  const problems: string[] = [];
  if (budget.maxFiles !== null && size.files > budget.maxFiles) problems.push(`${size.files.toLocaleString('en')} files (at most ${budget.maxFiles.toLocaleString('en')})`);
  if (budget.maxFileBytes !== null && size.largestFile.bytes > budget.maxFileBytes) {
    problems.push(`${size.largestFile.path} is ${formatBytes(size.largestFile.bytes)} (at most ${formatBytes(budget.maxFileBytes)} per file)`);
  }
  if (budget.maxTotalBytes !== null && size.totalBytes > budget.maxTotalBytes) problems.push(`${formatBytes(size.totalBytes)} in all (at most ${formatBytes(budget.maxTotalBytes)})`);
  return problems;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= MIB) return `${(bytes / MIB).toFixed(1)} MiB`;
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/**
 * Parses `--host-budget`: `none`, or comma-separated `files=N`, `file=SIZE`,
 * `total=SIZE` (SIZE with KB, MB, GB, KiB, MiB or GiB; `none` for no limit);
 * what is not named keeps the default.
 */
export function parseHostBudget(text: string): HostBudget {
  if (text.trim() === 'none') return NO_HOST_BUDGET;
  const budget = { ...DEFAULT_HOST_BUDGET };
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^(files|file|total)=(.+)$/.exec(part);
    if (!match) throw new RangeError(`"${part}" is not files=N, file=SIZE or total=SIZE`);
    const [, name, value] = match as unknown as [string, 'files' | 'file' | 'total', string];
    const limit = value === 'none' ? null : name === 'files' ? wholeNumber(value) : parseSize(value);
    if (name === 'files') budget.maxFiles = limit;
    else if (name === 'file') budget.maxFileBytes = limit;
    else budget.maxTotalBytes = limit;
  }
  return budget;
}

function wholeNumber(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new RangeError(`"${text}" is not a whole number of files ≥ 1`);
  return Number(text);
}

const UNITS: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, KIB: 1024, MIB, GIB: 1024 * MIB };

function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text);
  const unit = UNITS[(match?.[2] || 'B').toUpperCase()];
  if (!match || unit === undefined) throw new RangeError(`"${text}" is not a size such as 25MiB or 1GB`);
  return Math.floor(Number(match[1]) * unit);
}
