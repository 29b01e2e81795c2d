/**
 * Range files of one kind (docs/static-hosting.md, format in packages/client/src/range.ts) from the
 * documents the exporter put in x_range_docs. DuckDB decides which ranges
 * changed (an md5 over what each file is made of, joined with the previous
 * release's); those are carried over by the writer untouched, and only the
 * others are built here, streaming their documents in file order, so no
 * range is ever held whole in DuckDB and no unchanged one is rebuilt.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RANGE_HASH, rangePath, rangePrefix, type RangeHeader, type RangeKind } from '@pegscope/client';
import { envelopeOf, type AnalysisStamp } from '../api/envelope.js';
import { indexRange, rangeFileBytes, type IndexedRange } from '../api/range-file.js';
import type { Db } from '../store/db.js';
import type { Progress } from '../progress.js';
import { exportSql } from './sql.js';
import { RENDER_ALL_HINT } from './state.js';
import type { KeyScope, ReleaseWriter } from './writer.js';

const RANGE_DIGESTS = exportSql('range-digests');
const RECORD_DOCS = exportSql('docs-record');
/** The ranges to build: every range whose digest differs from the previous release's. */
const PLAN_TODO = 'CREATE OR REPLACE TEMP TABLE x_range_todo AS SELECT q AS prefix FROM x_doc ANTI JOIN x_unchanged USING (q)';
const TODO = 'SELECT prefix FROM x_range_todo ORDER BY prefix';
const TODO_ALIASES = 'SELECT prefix, alias, q FROM x_range_aliases SEMI JOIN x_range_todo USING (prefix) ORDER BY prefix, alias';
const TODO_DOCS = `SELECT prefix, q, part, text, stamp_height, stamp_time FROM x_range_docs
  SEMI JOIN x_range_todo USING (prefix) ORDER BY prefix, part, q`;

/** Range files handed to the file worker between waits for it (and between onStep calls). */
const FILES_PER_STEP = 16;

/** One document line of a range file as the stream delivers it; text null when it was not rendered (unchanged since the previous release). */
interface RangeLine {
  key: string;
  part: number;
  text: string | null;
  stamp: { height: number; time: number };
}

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

/** x_range_batch: the prefixes of one batch ($1 hex digits, numbers $2 to $3 − 1). */
const BATCH_PREFIXES = "CREATE OR REPLACE TEMP TABLE x_range_batch AS SELECT lpad(lower(hex(i)), $1, '0') AS prefix FROM range($2, $3) t(i)";

/**
 * Writes the range files of one batch of a kind (the pseudo-kind
 * `range:<kind>` in x_docs); returns how many were built. `built` is how many
 * earlier batches built, for the step names.
 */
export async function writeRangeFiles(
  db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, { kind, prefixLength, previous }: RangeKindPlan, batch: RangeBatch, built: number,
  progress: Progress, step: (name: string) => Promise<void>,
): Promise<number> {
  const pseudo = `range:${kind}`;
  await db.exec(BATCH_PREFIXES, [prefixLength, batch.first, batch.end]);
  await db.exec(RANGE_DIGESTS, [stamp.as_of_height, BigInt(stamp.updated_at)]);
  await db.exec(RECORD_DOCS, [pseudo, stamp.as_of_height, BigInt(stamp.updated_at)]);
  await writer.carryUnchanged(pseudo, batch.scope);
  await db.exec(PLAN_TODO);
  const todo = (await db.all<{ prefix: string }>(TODO)).map((r) => r.prefix);
  const aliases = new Map<string, Record<string, number>>();
  for (const row of await db.all<{ prefix: string; alias: string; q: string }>(TODO_ALIASES)) {
    let map = aliases.get(row.prefix);
    if (!map) aliases.set(row.prefix, (map = {}));
    map[row.alias] = Number(row.q);
  }
  progress.start(`export ${pseudo}`, todo.length, 'files');
  for (const prefix of todo.slice(0, READ_AHEAD)) previous?.readAhead(kind, prefix);
  const lines = rangeLines(db);
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
  progress.stop();
  return todo.length;
}

/** The documents of the ranges to build, in file order, a DuckDB chunk at a time. */
async function* rangeLines(db: Db): AsyncGenerator<{ prefix: string; line: RangeLine }> {
  for await (const rows of db.stream(TODO_DOCS)) {
    for (const [prefix, key, part, text, height, time] of rows) {
      yield { prefix: String(prefix), line: { key: String(key), part: Number(part), text: text === null ? null : String(text), stamp: { height: Number(height), time: Number(time) } } };
    }
  }
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
