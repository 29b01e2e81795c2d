/**
 * The CSV/JSON label format (docs/labels.md "CSV and JSON"): CSV with the
 * header `address,entity,category,confidence,source` (and optionally
 * `terms`), RFC 4180 quoting; or JSON `{"labels":[{address, entity,
 * category, confidence, source, terms?}, …]}`. Every distinct `source` value
 * is a source of its own: importing a file replaces the labels of each source
 * it names. Placeholder rows (address starting with EXAMPLE) are ignored.
 */
import { basename } from 'node:path';
import { CsvError, parse as parseCsv } from 'csv-parse/sync';
import type { NetworkParams } from '../domain/network.js';
import {
  ALLOWED_LABEL_FIELDS, checkLabel, emptyFileLabels, kindOf, LABEL_FIELDS, LabelFileError, shown, type FileLabels,
} from './label-check.js';

/** A row read from a file, with the line it starts on: its fields, or why it could not be read. */
export type RawRow = { line: number; fields: Record<string, unknown> } | { line: number; error: string };

/** The labels of a CSV or JSON label file; `terms` stands for the rows that state none (`--terms`). */
export function fileLabels(file: string, content: string, format: 'csv' | 'json', network: NetworkParams, terms: string | null): FileLabels {
  const result = emptyFileLabels();
  const rows = format === 'json' ? parseJsonLabels(content) : parseCsvLabels(content);
  const sources = new Set<string>();
  for (const row of rows) {
    if ('error' in row) {
      result.rejected.push({ file, line: row.line, reason: row.error, cause: 'row'  });
      continue;
    }
    const checked = checkLabel(row.fields, network, basename(file));
    if (checked.kind === 'placeholder') result.ignored++;
    else if (checked.kind === 'rejected') result.rejected.push({ file, line: row.line, reason: checked.reason, cause: checked.cause });
    else {
      const { label } = checked;
      sources.add(label.source);
      result.labels.push({ ...label, kind: 'file', key: label.source, terms: label.terms ?? terms, details: null });
    }
  }
  result.sources = [...sources].map((key) => ({ kind: 'file', key }));
  return result;
}

/**
 * CSV with a required header naming the five columns and optionally terms
 * (any order), parsed by
 * csv-parse: quoted fields may hold commas, doubled quotes and newlines.
 * Blank lines and lines starting with # are skipped. A syntax error rejects
 * the whole file at its line: after a broken quote, no row boundary is certain.
 */
function parseCsvLabels(content: string): RawRow[] {
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
  const unknown = header.filter((h) => !ALLOWED_LABEL_FIELDS.includes(h));
  if (unknown.length > 0) throw new LabelFileError(1, `unknown column ${shown(unknown[0]!)} in the header; allowed: ${ALLOWED_LABEL_FIELDS.join(', ')}`);
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
function parseJsonLabels(content: string): RawRow[] {
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
      : { line, error: `each entry of "labels" must be an object {address, entity, category, confidence, source}, got ${kindOf(entry)}` };
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
