/**
 * `pegscope labels import [--format csv|json|ofac|tagpack|pools] FILE…`
 * (docs/labels.md): reads every file, checks every label strictly, then
 * replaces each source the files name, all in one transaction. A source is
 * identified by its kind and key (a label file's `source` value, the OFAC SDN
 * list, a TagPack's title, a pool list's file name); importing it again
 * replaces all its labels, so a removal takes effect. When any row is
 * rejected nothing is imported, unless `skipInvalid`.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import type { NetworkParams } from '../domain/network.js';
import { readSql, type Db } from '../store/db.js';
import {
  LABEL_FORMATS, LabelFileError, type FileLabels, type LabelFormat, type PoolTag, type RejectCause, type Rejection, type Skipped, type SourceId, type StoredLabel,
} from './label-check.js';
import { fileLabels } from './label-files.js';
import { ofacLabels } from './label-ofac.js';
import { poolLabels } from './label-pools.js';
import { tagpackLabels, type TagpackOptions } from './label-tagpack.js';

export interface ImportOptions {
  /** The files' format; inferred from each file (its extension, else its first bytes) when absent. */
  format?: LabelFormat;
  /** Import the valid labels even when some were rejected (`--skip-invalid`). */
  skipInvalid?: boolean;
  /** The terms of labels whose source states none (`--terms`): a label file's rows without `terms`, a pool list, a TagPack without `license`. */
  terms?: string;
  /** Import the tags of TagPacks that do not set `is_public` (`--public`): packs from a public source such as graphsense-tagpacks. */
  public?: boolean;
  /** Unix seconds recorded as the import time (default: now). */
  now?: number;
}

/**
 * `imported` counts the distinct labels written; `replaced` those of them
 * that replaced a label of the same source and address; `removed` the labels
 * of the imported sources that are gone from them; `duplicates` the rows
 * that named a label an earlier row of the same import already named (the
 * last row wins). `written` is false when nothing was imported because rows
 * were rejected.
 */
export interface ImportResult {
  imported: number;
  replaced: number;
  removed: number;
  poolTags: number;
  duplicates: number;
  ignored: number;
  skipped: Skipped;
  /** The files of TagPacks that hold no Litecoin tag. */
  withoutLitecoin: string[];
  rejected: Rejection[];
  written: boolean;
}

/** Bytes read to tell a file's format by its content. */
const SNIFF_BYTES = 4096;
const EXTENSION_FORMATS: Readonly<Record<string, LabelFormat>> = { '.csv': 'csv', '.xml': 'ofac', '.yaml': 'tagpack', '.yml': 'tagpack' };
const LABEL_COLUMNS = [
  { name: 'address', type: 'varchar' }, { name: 'entity', type: 'varchar' }, { name: 'category', type: 'varchar' }, { name: 'confidence', type: 'double' },
  { name: 'source_kind', type: 'varchar' }, { name: 'source_key', type: 'varchar' }, { name: 'source', type: 'varchar' }, { name: 'terms', type: 'varchar' },
  { name: 'details', type: 'varchar' }, { name: 'imported_at', type: 'bigint' },
] as const;
const SOURCE_COLUMNS = [{ name: 'source_kind', type: 'varchar' }, { name: 'source_key', type: 'varchar' }] as const;
const POOL_TAG_COLUMNS = [
  { name: 'source_key', type: 'varchar' }, { name: 'source', type: 'varchar' }, { name: 'terms', type: 'varchar' }, { name: 'imported_at', type: 'bigint' },
  { name: 'pool', type: 'varchar' }, { name: 'tag', type: 'varchar' },
] as const;

/** A file whose format cannot be told: the operator names it with --format. */
export class LabelFormatError extends Error {}

/** One line for the operator: what was imported, and what was not (the job and `labels import` print the same). */
export function importSummary(result: ImportResult): string {
  const causes = new Map<RejectCause, number>();
  for (const r of result.rejected) causes.set(r.cause, (causes.get(r.cause) ?? 0) + 1);
  const byCause = causes.size > 0 ? ` (${[...causes].map(([cause, n]) => `${n} ${cause}`).join(', ')})` : '';
  const extras = [
    result.skipped.notPublic > 0 ? `${result.skipped.notPublic} skipped as not public` : '',
    result.poolTags > 0 ? `${result.poolTags} pool tags` : '',
    result.duplicates > 0 ? `${result.duplicates} duplicate rows (a label given again; the last row of each wins)` : '',
    result.ignored > 0 ? `${result.ignored} placeholders ignored` : '',
  ].filter(Boolean).map((part) => `, ${part}`).join('');
  const line = `labels: ${result.imported} imported, ${result.replaced} replaced, ${result.removed} removed, ${result.rejected.length} rejected${byCause}, `
    + `${result.skipped.otherCurrency} skipped for another currency${extras}`;
  return result.written ? line : `${line}; nothing was imported`;
}

/** The flag that imports TagPacks without is_public (`--public`, the job's `--labels-public`), and whether it was given. */
export interface PublicFlag { name: string; given: boolean }

/**
 * Lines for the operator besides the summary: each TagPack without Litecoin
 * tags, and why Litecoin tags were skipped as not public (with the flag that
 * imports them), or why nothing was imported when every tag was skipped.
 */
export function importNotes(result: ImportResult, flag: PublicFlag): string[] {
  const notes = result.withoutLitecoin.map((file) => `labels: pack ${file}: no Litecoin tags`);
  if (!result.written) return notes;
  const nothing = result.imported === 0 ? 'no label imported: ' : '';
  const { notPublic, otherCurrency } = result.skipped;
  if (notPublic > 0) {
    notes.push(flag.given
      ? `labels: ${nothing}${notPublic} Litecoin tags skipped: their TagPacks set is_public: false`
      : `labels: ${nothing}${notPublic} Litecoin tags skipped: their TagPacks do not set is_public: true, and a pack is private unless told otherwise; `
        + `pass ${flag.name} to import packs from a public source such as graphsense-tagpacks (docs/labels.md)`);
  } else if (nothing && otherCurrency > 0 && result.rejected.length === 0 && result.ignored === 0) {
    notes.push(`labels: no label imported: all ${otherCurrency} tags are for currencies other than Litecoin (currency LTC); no flag changes that`);
  }
  return notes;
}

export async function importLabels(db: Db, files: string[], network: NetworkParams, opts: ImportOptions = {}): Promise<ImportResult> {
  const parsed: FileLabels[] = [];
  const rejected: Rejection[] = [];
  for (const file of files) {
    try {
      const one = await readLabels(file, opts.format ?? inferFormat(file), network, { terms: opts.terms ?? null, public: opts.public ?? false });
      parsed.push(one);
      rejected.push(...one.rejected);
    } catch (err) {
      if (!(err instanceof LabelFileError)) throw err;
      rejected.push({ file, line: err.line, reason: err.message, cause: 'file' });
    }
  }
  const merged = mergeLabels(parsed);
  const result: ImportResult = {
    imported: 0, replaced: 0, removed: 0, poolTags: 0, duplicates: merged.duplicates, rejected,
    ignored: parsed.reduce((n, p) => n + p.ignored, 0),
    skipped: {
      otherCurrency: parsed.reduce((n, p) => n + p.skipped.otherCurrency, 0),
      notPublic: parsed.reduce((n, p) => n + p.skipped.notPublic, 0),
    },
    withoutLitecoin: parsed.flatMap((p) => p.withoutLitecoin),
    written: false,
  };
  if (rejected.length > 0 && !opts.skipInvalid) return result;
  const counts = await storeLabels(db, merged, opts.now ?? Math.floor(Date.now() / 1000));
  return { ...result, ...counts, imported: merged.labels.length, poolTags: merged.poolTags.length, written: true };
}

/** The format of a file named without --format: a directory is TagPacks; else the extension, else the first bytes; an error when neither tells. */
export function inferFormat(path: string): LabelFormat {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return 'tagpack';
  const byExtension = EXTENSION_FORMATS[extname(path).toLowerCase()];
  if (byExtension) return byExtension;
  const start = stat ? firstBytes(path).replace(/^\uFEFF/, '').trimStart() : '';
  const format: LabelFormat | undefined = start.startsWith('{') ? 'json' : start.startsWith('[') ? 'pools' : start.startsWith('<') ? 'ofac' : undefined;
  if (format) return format;
  throw new LabelFormatError(`cannot tell the format of ${path}${stat ? '' : ' (no such file)'}: name it with --format ${LABEL_FORMATS.join('|')} `
    + '(a .json file is a label file when it starts with {, a pool list when it starts with [; CSV and YAML are told by their extension)');
}

function firstBytes(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, SNIFF_BYTES, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

async function readLabels(file: string, format: LabelFormat, network: NetworkParams, opts: TagpackOptions): Promise<FileLabels> {
  switch (format) {
    case 'ofac': return ofacLabels(file, network);
    case 'tagpack': return tagpackLabels(file, network, opts);
    case 'pools': return poolLabels(file, readText(file), network, opts.terms);
    case 'csv': case 'json': return fileLabels(file, readText(file), format, network, opts.terms);
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new LabelFileError(0, `cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

interface Merged { sources: SourceId[]; labels: StoredLabel[]; poolTags: PoolTag[]; duplicates: number }

/** The files' labels, one per address and source (the last row wins), their sources and pool tags without repeats. */
function mergeLabels(parsed: readonly FileLabels[]): Merged {
  const labels = new Map<string, StoredLabel>();
  const sources = new Map<string, SourceId>();
  const tags = new Map<string, PoolTag>();
  let duplicates = 0;
  for (const file of parsed) {
    for (const source of file.sources) sources.set(`${source.kind}\u0000${source.key}`, source);
    for (const label of file.labels) {
      const key = `${label.address}\u0000${label.kind}\u0000${label.key}`;
      if (labels.has(key)) duplicates++;
      labels.set(key, label);
    }
    for (const tag of file.poolTags) tags.set(`${tag.key}\u0000${tag.pool}\u0000${tag.tag}`, tag);
  }
  return { sources: [...sources.values()], labels: [...labels.values()], poolTags: [...tags.values()], duplicates };
}

/** Stages the labels, then replaces their sources in one transaction; returns what the replacement did. */
async function storeLabels(db: Db, merged: Merged, now: number): Promise<{ replaced: number; removed: number }> {
  await db.exec(readSql(import.meta.url, 'label-stage.sql'));
  const labels = await db.appender('w_label_import', LABEL_COLUMNS, 'temp');
  for (const l of merged.labels) labels.append([l.address, l.entity, l.category, l.confidence, l.kind, l.key, l.source, l.terms, l.details, now]);
  labels.close();
  const sources = await db.appender('w_label_sources', SOURCE_COLUMNS, 'temp');
  for (const s of merged.sources) sources.append([s.kind, s.key]);
  sources.close();
  const tags = await db.appender('w_pool_tags_import', POOL_TAG_COLUMNS, 'temp');
  for (const t of merged.poolTags) tags.append([t.key, t.source, t.terms, now, t.pool, t.tag]);
  tags.close();
  return db.transaction(async () => {
    const counts = await db.one<{ replaced: bigint; removed: bigint }>(readSql(import.meta.url, 'label-counts.sql'));
    await db.exec(readSql(import.meta.url, 'label-replace.sql'));
    return { replaced: Number(counts?.replaced ?? 0), removed: Number(counts?.removed ?? 0) };
  });
}
