/**
 * `pegscope labels import FILE…`: curated labels from CSV (header
 * `address,entity,category,confidence,source` required, RFC 4180 quoting) or
 * JSON (`{"labels":[{address, entity, category, confidence, source}, …]}`),
 * upserted into the `labels` table by (address, source). Every row is checked
 * strictly; an invalid row is rejected with its line and its own reason while
 * the valid rows are still imported. Placeholder rows (address starting with
 * EXAMPLE) are ignored.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { CsvError, parse as parseCsv } from 'csv-parse/sync';
import { isValidAddress } from '../domain/address.js';
import { LABEL_CATEGORY_NAMES, type LabelCategory } from '../domain/model.js';
import type { NetworkParams } from '../domain/network.js';
import type { Db } from '../store/db.js';
import { ensureLabelsTable } from './analyze.js';

export const LABEL_FIELDS = ['address', 'entity', 'category', 'confidence', 'source'] as const;
type LabelField = (typeof LABEL_FIELDS)[number];
/** Longer than any real entity name, short enough that labels never bloat the documents that embed them. */
export const MAX_ENTITY_CHARS = 100;
/** Room for a feed name or a URL. */
export const MAX_SOURCE_CHARS = 200;
const PLACEHOLDER = /^EXAMPLE/;
const INSERT_CHUNK = 500;
/** A confidence in CSV (or a JSON string): digits with an optional decimal part, nothing else. */
const PLAIN_DECIMAL = /^\d+(?:\.\d+)?$/;
/** Characters that would reach a terminal or a document as control codes or reorder the text around them. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const CONTROL_NAMES: Record<number, string> = { 0x00: 'NUL', 0x09: 'tab', 0x0a: 'line feed', 0x0d: 'carriage return', 0x1b: 'ESC' };
const ALLOWED_CONFIDENCE = 'write a plain decimal number from 0 to 1, such as 0.8';
/** Characters of user text a message quotes back: any address fits. */
const SHOWN_CHARS = 100;

export interface Label { address: string; entity: string; category: LabelCategory; confidence: number; source: string }
export interface Rejection { file: string; line: number; reason: string }
/**
 * `imported` counts distinct (address, source) labels written; `duplicates`
 * the rows that named an (address, source) an earlier row of the same import
 * already named: the last row wins.
 */
export interface ImportResult { imported: number; ignored: number; duplicates: number; rejected: Rejection[] }
export type LabelCheck = { kind: 'label'; label: Label } | { kind: 'placeholder' } | { kind: 'rejected'; reason: string };

/** A row read from a file, with the line it starts on: its fields, or why it could not be read. */
export type RawRow = { line: number; fields: Record<string, unknown> } | { line: number; error: string };

/** Thrown for a file that cannot be read as a whole (unreadable, bad header, not CSV or JSON): nothing of it is imported. */
class LabelFileError extends Error {
  constructor(readonly line: number, message: string) {
    super(message);
  }
}

/** One line for the operator: what was imported, and what was not (the job and `labels import` print the same). */
export function importSummary(result: ImportResult): string {
  const duplicates = result.duplicates > 0
    ? `, ${result.duplicates} duplicate rows (an address and source given again; the last row of each wins)` : '';
  return `labels: ${result.imported} imported${duplicates}, ${result.ignored} placeholders ignored, ${result.rejected.length} rejected`;
}

export async function importLabels(db: Db, files: string[], network: NetworkParams): Promise<ImportResult> {
  const result: ImportResult = { imported: 0, ignored: 0, duplicates: 0, rejected: [] };
  const labels = new Map<string, Label>();
  for (const file of files) {
    let rows: RawRow[];
    try {
      rows = readLabelFile(file);
    } catch (err) {
      if (!(err instanceof LabelFileError)) throw err;
      result.rejected.push({ file, line: err.line, reason: err.message });
      continue;
    }
    for (const row of rows) {
      const checked: LabelCheck = 'error' in row ? { kind: 'rejected', reason: row.error } : checkLabel(row.fields, network, basename(file));
      if (checked.kind === 'placeholder') result.ignored++;
      else if (checked.kind === 'rejected') result.rejected.push({ file, line: row.line, reason: checked.reason });
      else {
        const key = `${checked.label.address}\u0000${checked.label.source}`;
        if (labels.has(key)) result.duplicates++;
        labels.set(key, checked.label);
      }
    }
  }
  await ensureLabelsTable(db);
  const now = Math.floor(Date.now() / 1000);
  const all = [...labels.values()];
  await db.transaction(async () => {
    for (let i = 0; i < all.length; i += INSERT_CHUNK) {
      const chunk = all.slice(i, i + INSERT_CHUNK);
      const placeholders = chunk.map((_, j) => `($${j * 6 + 1}, $${j * 6 + 2}, $${j * 6 + 3}, $${j * 6 + 4}, $${j * 6 + 5}, $${j * 6 + 6})`).join(', ');
      const values = chunk.flatMap((l) => [l.address, l.entity, l.category, l.confidence, l.source, now]);
      await db.exec(`INSERT OR REPLACE INTO labels VALUES ${placeholders}`, values);
    }
  });
  result.imported = all.length;
  return result;
}

/** Validates one row (CSV cells are strings; JSON values may be anything). */
export function checkLabel(fields: Record<string, unknown>, network: NetworkParams, defaultSource: string): LabelCheck {
  const rejected = (reason: string): LabelCheck => ({ kind: 'rejected', reason });
  const unknown = Object.keys(fields).find((key) => !(LABEL_FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) return rejected(`unknown field ${shown(unknown)}; allowed: ${LABEL_FIELDS.join(', ')}`);

  const address = text(fields, 'address');
  if (typeof address === 'object') return rejected(address.problem);
  if (PLACEHOLDER.test(address)) return { kind: 'placeholder' };
  if (!address) return rejected('address is missing');
  if (!isValidAddress(address, network)) return rejected(`address ${shown(address)} is not a valid ${network.name} address`);

  const entity = text(fields, 'entity');
  if (typeof entity === 'object') return rejected(entity.problem);
  if (!entity) return rejected('entity is missing');
  const entityProblem = printableProblem('entity', entity, MAX_ENTITY_CHARS);
  if (entityProblem) return rejected(entityProblem);

  const category = text(fields, 'category');
  if (typeof category === 'object') return rejected(category.problem);
  if (!category) return rejected(`category is missing; allowed: ${LABEL_CATEGORY_NAMES.join(', ')}`);
  const name = category.toLowerCase();
  if (!(LABEL_CATEGORY_NAMES as readonly string[]).includes(name)) {
    return rejected(`unknown category ${shown(category)}; allowed: ${LABEL_CATEGORY_NAMES.join(', ')}`);
  }

  const confidence = confidenceOf(fields.confidence);
  if (typeof confidence === 'string') return rejected(confidence);

  const given = text(fields, 'source');
  if (typeof given === 'object') return rejected(given.problem);
  const source = given || defaultSource;
  const sourceProblem = printableProblem(given ? 'source' : `source (the file name ${shown(source)}, as the row names none)`, source, MAX_SOURCE_CHARS);
  if (sourceProblem) return rejected(sourceProblem);

  return { kind: 'label', label: { address, entity, category: name as LabelCategory, confidence, source } };
}

/** A text field with surrounding spaces removed ('' when absent), or why it is not text. */
function text(fields: Record<string, unknown>, field: LabelField): string | { problem: string } {
  const value = fields[field];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') return { problem: `${field} must be text (a JSON string), got ${kindOf(value)}` };
  return value.replace(/^ +| +$/g, '');
}

/** The confidence as a number in [0, 1], or the reason it is not one. */
function confidenceOf(value: unknown): number | string {
  if (value === undefined || value === null || value === '') return `confidence is missing; ${ALLOWED_CONFIDENCE}`;
  if (typeof value === 'number') {
    return Number.isFinite(value) && value >= 0 && value <= 1 ? value : `confidence ${value} is outside 0..1; ${ALLOWED_CONFIDENCE}`;
  }
  if (typeof value !== 'string') return `confidence must be a number, got ${kindOf(value)}; ${ALLOWED_CONFIDENCE}`;
  const trimmed = value.replace(/^ +| +$/g, '');
  if (!PLAIN_DECIMAL.test(trimmed)) return `confidence ${shown(value)} is not a plain decimal number (no sign, exponent, hex or percent); ${ALLOWED_CONFIDENCE}`;
  const confidence = Number(trimmed);
  return confidence <= 1 ? confidence : `confidence ${trimmed} is outside 0..1; ${ALLOWED_CONFIDENCE}`;
}

/** Why `value` is not short printable text on one line, if it is not. */
function printableProblem(field: string, value: string, max: number): string | undefined {
  const chars = [...value];
  if (chars.length > max) return `${field} is ${chars.length} characters long; at most ${max} are allowed`;
  const at = chars.findIndex((ch) => CONTROL.test(ch) || BIDI.test(ch));
  if (at < 0) return undefined;
  const ch = chars[at]!;
  const code = codePoint(ch);
  if (BIDI.test(ch)) return `${field} contains the bidirectional control character ${code} at character ${at + 1}; it can make text display in a misleading order and is not allowed`;
  const name = CONTROL_NAMES[ch.codePointAt(0)!];
  return `${field} contains the control character ${code}${name ? ` (${name})` : ''} at character ${at + 1}; only printable text on one line is allowed`;
}

const codePoint = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** User text quoted for a message: at most SHOWN_CHARS characters, control and bidirectional characters escaped so they never reach a terminal raw. */
function shown(value: string): string {
  const chars = [...value];
  const cut = chars.slice(0, SHOWN_CHARS).join('');
  const escaped = cut.replace(/["\\]/g, (c) => `\\${c}`)
    .replace(new RegExp(`${CONTROL.source}|${BIDI.source}`, 'gu'), (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
  return `"${escaped}"${chars.length > SHOWN_CHARS ? `… (${chars.length} characters)` : ''}`;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'boolean') return `${value}`;
  return `a ${typeof value}`;
}

function readLabelFile(file: string): RawRow[] {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    throw new LabelFileError(0, `cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return content.replace(/^\uFEFF/, '').trimStart().startsWith('{') ? parseJsonLabels(content) : parseCsvLabels(content);
}

/**
 * CSV with a required header naming the five columns (any order), parsed by
 * csv-parse: quoted fields may hold commas, doubled quotes and newlines.
 * Blank lines and lines starting with # are skipped. A syntax error rejects
 * the whole file at its line: after a broken quote, no row boundary is certain.
 */
export function parseCsvLabels(content: string): RawRow[] {
  /** Each record with the line it ends on (a record spans lines where a quoted field holds a newline). */
  const records: { cells: string[]; end: number }[] = [];
  try {
    parseCsv(content.replace(/\r\n/g, '\n'), {
      bom: true, comment: '#', comment_no_infix: true, skip_empty_lines: true, relax_column_count: true,
      on_record: (cells: string[], info) => { records.push({ cells, end: info.lines }); return null; },
    });
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    throw csvSyntaxError(err, records.at(-1)?.end ?? 0);
  }
  const [head, ...rows] = records;
  const header = (head?.cells ?? []).map((h) => h.trim().toLowerCase());
  checkHeader(header);
  const result: RawRow[] = [];
  for (const { cells, end } of rows) {
    if (cells.length === 1 && cells[0]!.trim() === '') continue;
    const line = end - cells.reduce((n, cell) => n + cell.split('\n').length - 1, 0);
    result.push(cells.length === header.length
      ? { line, fields: Object.fromEntries(header.map((h, i) => [h, cells[i]!])) }
      : { line, error: `the row has ${cells.length} fields but the header names ${header.length} (${header.join(',')}); quote a field that contains a comma, e.g. "Shop, Inc."` });
  }
  return result;
}

function checkHeader(header: string[]): void {
  const missing = LABEL_FIELDS.filter((h) => !header.includes(h));
  if (missing.length > 0) {
    throw new LabelFileError(1, `the header must name the columns ${LABEL_FIELDS.join(',')} (missing: ${missing.join(', ')}); add that header line`);
  }
  const unknown = header.filter((h) => !(LABEL_FIELDS as readonly string[]).includes(h));
  if (unknown.length > 0) throw new LabelFileError(1, `unknown column ${shown(unknown[0]!)} in the header; allowed: ${LABEL_FIELDS.join(', ')}`);
  const twice = header.find((h, i) => header.indexOf(h) !== i);
  if (twice !== undefined) throw new LabelFileError(1, `the header names the column ${twice} twice`);
}

function csvSyntaxError(err: CsvError, lastLine: number): LabelFileError {
  const nothing = 'nothing from this file was imported';
  if (err.code === 'CSV_QUOTE_NOT_CLOSED') {
    return new LabelFileError(lastLine + 1, `a quoted field that starts after line ${lastLine} is never closed (the file ends inside it); close it with " (write "" for a quote inside a quoted field); ${nothing}`);
  }
  const line = typeof err.lines === 'number' ? err.lines : lastLine + 1;
  if (err.code === 'CSV_INVALID_CLOSING_QUOTE') {
    return new LabelFileError(line, `a quoted field has text after its closing quote; quote the whole field and write "" for a quote inside it; ${nothing}`);
  }
  return new LabelFileError(line, `not valid CSV (${err.message}); ${nothing}`);
}

/** `{"labels":[…]}`; each entry's line is where its object starts in the file. */
export function parseJsonLabels(content: string): RawRow[] {
  let doc: unknown;
  try {
    doc = JSON.parse(content);
  } catch (err) {
    throw new LabelFileError(0, `not valid JSON (${err instanceof Error ? err.message : String(err)}); expected {"labels":[{address, entity, category, confidence, source}, …]}`);
  }
  const entries = (doc as { labels?: unknown } | null)?.labels;
  if (!Array.isArray(entries)) throw new LabelFileError(0, 'expected a JSON object with a "labels" array: {"labels":[{address, entity, category, confidence, source}, …]}');
  const lines = labelEntryLines(content);
  return entries.map((entry: unknown, i) => {
    const line = lines[i] ?? 0;
    return entry !== null && typeof entry === 'object' && !Array.isArray(entry)
      ? { line, fields: entry as Record<string, unknown> }
      : { line, error: `each entry of "labels" must be an object {address, entity, category, confidence, source}, got ${entry === null ? 'null' : kindOf(entry)}` };
  });
}

/** Line numbers where the elements of the top-level "labels" array start. */
function labelEntryLines(content: string): number[] {
  const starts: number[] = [];
  const stack: string[] = [];
  let line = 1, inString = false, lastKey = '', keyAtTop = '', stringStart = 0, expectEntry = false;
  for (let i = 0; i < content.length; i++) {
    const ch = content[i]!;
    if (ch === '\n') line++;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') { inString = false; lastKey = content.slice(stringStart + 1, i); }
      continue;
    }
    const inLabels = stack.length === 2 && stack[1] === '[' && keyAtTop === 'labels';
    if (inLabels && expectEntry && /\S/.test(ch) && ch !== ']') { starts.push(line); expectEntry = false; }
    if (ch === '"') { inString = true; stringStart = i; }
    else if (ch === ':' && stack.length === 1) keyAtTop = lastKey;
    else if (ch === ',' && inLabels) expectEntry = true;
    else if (ch === '{' || ch === '[') {
      stack.push(ch);
      if (stack.length === 2 && ch === '[' && keyAtTop === 'labels') expectEntry = true;
    } else if (ch === '}' || ch === ']') stack.pop();
  }
  return starts;
}
