/**
 * Range files of one kind (docs/static-hosting.md, format in packages/client/src/range.ts) from the
 * documents the exporter put in the workspace (x_range_docs). DuckDB decides which ranges
 * changed (an md5 over what each file is made of, joined with the previous
 * release's); those are carried over by the writer untouched, and only the
 * others are built here, streaming their documents in file order, so no
 * range is ever held whole in DuckDB and no unchanged one is rebuilt.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RANGE_HASH, RANGE_KINDS, rangePath, rangePrefix, type RangeHeader, type RangeKind, type RangeLayout } from '@pegscope/client';
import { envelopeOf, type AnalysisStamp } from '../api/envelope.js';
import { indexRange, rangeFileBytes, type IndexedRange } from '../api/range-file.js';
import type { Progress } from '../progress.js';
import { RENDER_ALL_HINT } from './state.js';
import type { KeyScope, ReleaseWriter } from './writer.js';
import type { ExportWorkspace, RangeLine } from './workspace.js';

/** Range files handed to the file worker between waits for it (and between onStep calls). */
const FILES_PER_STEP = 16;

/** Previous range files read ahead of the range being built: one read at a time waited 9.9 s on them after 1 block at x10, 16 at once 1.9 s. */
const READ_AHEAD = 16;

/**
 * The range files of the previous release, for the documents this export did
 * not render, as the bytes they are there. Ranges are built in prefix order,
 * so the files read are the ones asked next (also when the prefix length
 * changed); `readAhead` starts reading the file of a range built soon.
 */
export class PreviousRanges {
  private readonly recent = new Map<string, Promise<IndexedRange>>();

  /** `read` reads a file of the previous release (a test counts and awaits the reads through it). */
  constructor(private readonly dir: string, private readonly lengths: Record<RangeKind, number>, private readonly read: (path: string) => Promise<Buffer> = readFile) {}

  /** A document of `kind` that this release puts in range `prefix`. */
  async document(kind: RangeKind, prefix: string, key: string, part: number): Promise<Buffer> {
    const path = this.pathOf(kind, prefix) ?? rangePath(kind, rangePrefix(key, this.lengths[kind]));
    const range = await this.load(path);
    const doc = (part === 0 ? range.documents : range.chains).get(key);
    if (doc === undefined) throw new Error(`export: the previous release's ${path} lacks ${key}, which this export did not render. Please report this; ${RENDER_ALL_HINT}`);
    return doc;
  }

  /** Starts reading the previous file of range `prefix`, when that file follows from the prefix (its ranges were not finer). */
  readAhead(kind: RangeKind, prefix: string): void {
    const path = this.pathOf(kind, prefix);
    if (path !== null) void this.load(path).catch(() => undefined);
  }

  /** The previous file holding every key of range `prefix`: this prefix cut short; null when that release's ranges were finer (each key then names its file). */
  private pathOf(kind: RangeKind, prefix: string): string | null {
    const length = this.lengths[kind];
    return length <= prefix.length ? rangePath(kind, prefix.slice(0, length)) : null;
  }

  /** The file at `path`, indexed; the last few stay (a failed read is reported to whoever awaits it). */
  private load(path: string): Promise<IndexedRange> {
    let range = this.recent.get(path);
    if (!range) {
      range = this.read(join(this.dir, path)).then(indexRange);
      if (this.recent.size >= 4 * READ_AHEAD) this.recent.delete(this.recent.keys().next().value!);
      this.recent.set(path, range);
    }
    return range;
  }
}

/** Which range files to write: the kind, its prefix length, and where unrendered documents' texts come from. */
export interface RangeKindPlan {
  kind: RangeKind;
  prefixLength: number;
  previous: PreviousRanges | null;
}

/**
 * Ranges built together: prefixes `first` to `end` − 1 as numbers, and as the
 * keys they cover. The exporter renders a batch's documents, writes its
 * range files and drops their texts before the next batch, so the texts
 * of a whole kind are never held at once (x10: several GB, spilled to disk).
 */
export interface RangeBatch {
  first: number;
  end: number;
  scope: KeyScope;
}

const prefixOf = (n: number, length: number): string => n.toString(16).padStart(length, '0');

/** `count` batches (at most one per prefix) of consecutive prefixes of `length` hex digits, covering them all. */
export function rangeBatches(length: number, count: number): RangeBatch[] {
  const ranges = 16 ** length;
  const n = Math.max(1, Math.min(count, ranges));
  return Array.from({ length: n }, (_, b) => {
    const first = Math.floor((b * ranges) / n);
    const end = Math.floor(((b + 1) * ranges) / n);
    return { first, end, scope: { from: b === 0 ? '' : prefixOf(first, length), to: b === n - 1 ? null : prefixOf(end, length) } };
  });
}

/** One kind's entry in api/ranges.json. */
export const rangeLayout = (prefixLength: number, documents: number): RangeLayout => ({ prefix_length: prefixLength, hash: RANGE_HASH, documents });

/** The log line saying how each kind's documents were packed. */
export const rangesLine = (ranges: Record<RangeKind, RangeLayout>): string =>
  `ranges: ${RANGE_KINDS.map((k) => `${k} ${ranges[k].documents} documents in ${16 ** ranges[k].prefix_length} ranges`).join(', ')}`;

/** What writing one kind's range files needs besides a batch: where its documents are, where its files go, and where progress is told. */
export interface RangeJob {
  workspace: ExportWorkspace;
  writer: ReleaseWriter;
  stamp: AnalysisStamp;
  plan: RangeKindPlan;
  progress: Progress;
  step: (name: string) => Promise<void>;
}

/**
 * Writes the range files of one batch of a kind (the pseudo-kind
 * `range:<kind>` in x_docs); returns how many were built. `built` is how many
 * earlier batches built, for the step names. The progress bar counts the
 * files built, not the ranges of the batch: unchanged ones are carried over.
 */
export async function writeRangeFiles(job: RangeJob, batch: RangeBatch, built: number): Promise<number> {
  const { workspace, writer, stamp, progress, step } = job;
  const { kind, prefixLength, previous } = job.plan;
  const pseudo = `range:${kind}`;
  await workspace.recordRangeDigests(stamp, kind, prefixLength, batch);
  await writer.carryUnchanged(pseudo, batch.scope);
  const { prefixes: todo, aliases } = await workspace.rangesToBuild();
  progress.start(`export ${pseudo}`, todo.length, 'files');
  for (const prefix of todo.slice(0, READ_AHEAD)) previous?.readAhead(kind, prefix);
  const lines = workspace.rangeLines();
  let pending = await lines.next();
  for (let i = 0; i < todo.length; i++) {
    const prefix = todo[i]!;
    if (i + READ_AHEAD < todo.length) previous?.readAhead(kind, todo[i + READ_AHEAD]!);
    const docs: RangeLine[] = [];
    while (!pending.done && pending.value.prefix === prefix) {
      docs.push(pending.value.line);
      pending = await lines.next();
    }
    const texts: Buffer[] = [];
    for (const d of docs) {
      if (d.text !== null) texts.push(Buffer.from(d.text));
      else if (previous) texts.push(await previous.document(kind, prefix, d.key, d.part));
      else throw new Error(`export: ${kind} document ${d.key} was not rendered and there is no previous release to take it from`);
    }
    const header = rangeHeader(stamp, kind, prefix, docs, aliases.get(prefix));
    writer.putRange(rangePath(kind, prefix), rangeFileBytes(header, texts), { kind: pseudo, q: prefix },
      { network: stamp.network, as_of_height: header.as_of_height, updated_at: header.updated_at });
    if ((built + i) % FILES_PER_STEP === FILES_PER_STEP - 1) {
      await writer.ready();
      progress.update(i + 1);
      await step(`documents:${pseudo}:${(built + i + 1) / FILES_PER_STEP}`);
    }
  }
  if (!pending.done) throw new Error(`export: a ${kind} document of range ${pending.value.prefix} has no range to go to`);
  progress.update(todo.length);
  progress.stop();
  return todo.length;
}

/**
 * A range's header: the envelope of its newest document (the release's
 * stamp when it is empty, so an unchanged range keeps its bytes), its keys,
 * follow's longer chains and block's hash aliases.
 */
function rangeHeader(stamp: AnalysisStamp, kind: RangeKind, prefix: string, docs: RangeLine[], aliases?: Record<string, number>): RangeHeader {
  let newest = { height: stamp.as_of_height, time: stamp.updated_at };
  if (docs.length > 0) {
    newest = docs[0]!.stamp;
    for (const d of docs) if (d.stamp.time > newest.time || (d.stamp.time === newest.time && d.stamp.height > newest.height)) newest = d.stamp;
  }
  const chains = docs.filter((d) => d.part === 1).map((d) => d.key);
  return {
    ...envelopeOf({ network: stamp.network, as_of_height: newest.height, updated_at: newest.time }),
    range: {
      kind, prefix, hash: RANGE_HASH,
      keys: docs.filter((d) => d.part === 0).map((d) => d.key),
      ...(chains.length > 0 ? { chains } : {}),
      ...(aliases ? { aliases } : {}),
    },
  };
}
