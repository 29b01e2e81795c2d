/**
 * `pegscope labels import FILE…`: curated labels from CSV (header
 * `address,entity,category,confidence,source` required) or JSON
 * (`{"labels":[{address, entity, category, confidence, source}, …]}`),
 * upserted into the `labels` table by (address, source). Invalid rows are
 * rejected with their line number while the valid rows are kept; placeholder
 * rows (address starting with EXAMPLE) are ignored.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isValidAddress } from '../domain/address.js';
import { LABEL_CATEGORY_NAMES, type LabelCategory } from '../domain/model.js';
import type { NetworkParams } from '../domain/network.js';
import type { Db } from '../store/db.js';
import { ensureLabelsTable } from './analyze.js';

export const CSV_HEADER = ['address', 'entity', 'category', 'confidence', 'source'] as const;
const PLACEHOLDER = /^EXAMPLE/;
const INSERT_CHUNK = 500;

export interface Label { address: string; entity: string; category: LabelCategory; confidence: number; source: string }
export interface Rejection { file: string; line: number; reason: string }
export interface ImportResult { imported: number; ignored: number; rejected: Rejection[] }

/** A raw row from a file with the line it starts on. */
interface RawRow { line: number; fields: Record<string, unknown> }

export async function importLabels(db: Db, files: string[], network: NetworkParams): Promise<ImportResult> {
  const result: ImportResult = { imported: 0, ignored: 0, rejected: [] };
  const labels = new Map<string, Label>();
  for (const file of files) {
    let rows: RawRow[];
    try {
      rows = readLabelFile(file);
    } catch (err) {
      result.rejected.push({ file, line: 0, reason: err instanceof Error ? err.message : String(err) });
      continue;
    }
    for (const row of rows) {
      const checked = checkLabel(row.fields, network, basename(file));
      if (checked === 'placeholder') result.ignored++;
      else if (typeof checked === 'string') result.rejected.push({ file, line: row.line, reason: checked });
      else labels.set(`${checked.address}\u0000${checked.source}`, checked);
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

/** Validates one row; returns the label, 'placeholder', or the reason it is rejected. */
export function checkLabel(fields: Record<string, unknown>, network: NetworkParams, defaultSource: string): Label | 'placeholder' | string {
  const text = (key: string) => (typeof fields[key] === 'string' ? (fields[key] as string).trim() : fields[key] === undefined || fields[key] === null ? '' : String(fields[key]).trim());
  const address = text('address');
  if (PLACEHOLDER.test(address)) return 'placeholder';
  if (!address) return 'address is missing';
  if (!isValidAddress(address, network)) return `address "${address}" is not a valid ${network.name} address`;
  const entity = text('entity');
  if (!entity) return 'entity is missing';
  const category = text('category').toLowerCase();
  if (!(LABEL_CATEGORY_NAMES as readonly string[]).includes(category)) {
    return `unknown category "${text('category')}"; allowed: ${LABEL_CATEGORY_NAMES.join(', ')}`;
  }
  const rawConfidence = text('confidence');
  const confidence = rawConfidence === '' ? NaN : Number(rawConfidence);
  if (!Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
    return `confidence "${rawConfidence}" is not a number between 0 and 1`;
  }
  return { address, entity, category: category as LabelCategory, confidence, source: text('source') || defaultSource };
}

function readLabelFile(file: string): RawRow[] {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return content.trimStart().startsWith('{') ? parseJsonLabels(content) : parseCsvLabels(content);
}

/** CSV with a required header; fields may be quoted ("a, b" and "" escapes). */
export function parseCsvLabels(content: string): RawRow[] {
  const lines = content.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = splitCsvLine(lines[0] ?? '').map((h) => h.trim().toLowerCase());
  const missing = CSV_HEADER.filter((h) => !header.includes(h));
  if (missing.length > 0) {
    throw new Error(`line 1: the header must name the columns ${CSV_HEADER.join(',')} (missing: ${missing.join(', ')}); add that header line`);
  }
  const rows: RawRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '' || line.startsWith('#')) continue;
    const cells = splitCsvLine(line);
    rows.push({ line: i + 1, fields: Object.fromEntries(header.map((h, j) => [h, cells[j] ?? ''])) });
  }
  return rows;
}

function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = '', quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') { cell += '"'; i++; }
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { cells.push(cell); cell = ''; }
    else cell += ch;
  }
  cells.push(cell);
  return cells;
}

/** `{"labels":[…]}`; each entry's line is where its object starts in the file. */
export function parseJsonLabels(content: string): RawRow[] {
  let doc: unknown;
  try {
    doc = JSON.parse(content);
  } catch (err) {
    throw new Error(`not valid JSON (${err instanceof Error ? err.message : String(err)}); expected {"labels":[{address, entity, category, confidence, source}, …]}`);
  }
  const entries = (doc as { labels?: unknown } | null)?.labels;
  if (!Array.isArray(entries)) throw new Error('expected a JSON object with a "labels" array: {"labels":[{address, entity, category, confidence, source}, …]}');
  const lines = labelEntryLines(content);
  return entries.map((entry, i) => ({
    line: lines[i] ?? 0,
    fields: entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>) : {},
  }));
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
