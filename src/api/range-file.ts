/**
 * Range files as bytes (format in packages/client/src/range.ts): cut into
 * their document lines by the router, which answers with those bytes, and by
 * the exporter, which copies unchanged documents from the previous release
 * into the ranges it rebuilds; built from document lines by the exporter.
 * Working on bytes spares decoding and encoding whole files as text. The
 * encoders live here, not in the wallet package: no wallet writes a range.
 */
import { parseRangeHeader, RANGE_DOCUMENTS_OPEN, RANGE_END, RangeFormatError, type RangeHeader } from '@pegscope/client';

/** One range file, cut into its documents. */
export interface IndexedRange {
  header: RangeHeader;
  /** Each key's default document. */
  documents: Map<string, Buffer>;
  /** follow: the full-depth chains of the keys in header.range.chains. */
  chains: Map<string, Buffer>;
  /** The file's size: what keeping this index costs. */
  bytes: number;
}

const NEWLINE = 0x0a;
const COMMA = 0x2c;

/** Cuts a range file into its lines, slices of `file`; throws RangeFormatError when it is not one. */
export function indexRange(file: Buffer): IndexedRange {
  const headerEnd = file.indexOf(NEWLINE);
  if (headerEnd < 0) throw new RangeFormatError('not a range file: no line break');
  const header = parseRangeHeader(file.toString('utf8', 0, headerEnd));
  const keys = header.range.keys;
  const chainKeys = header.range.chains ?? [];
  const count = keys.length + chainKeys.length;
  const lines: Buffer[] = [];
  let start = headerEnd + 1;
  for (let i = 0; i < count; i++) {
    const end = file.indexOf(NEWLINE, start);
    if (end < 0) throw new RangeFormatError(`range ${header.range.kind}/${header.range.prefix}: expected ${count} document lines`);
    // Every line but the last ends in the comma that separates array elements.
    lines.push(file.subarray(start, i < count - 1 && file[end - 1] === COMMA ? end - 1 : end));
    start = end + 1;
  }
  if (file.toString('utf8', start) !== RANGE_END) throw new RangeFormatError(`range ${header.range.kind}/${header.range.prefix}: expected ${count} document lines`);
  return {
    header,
    documents: new Map(keys.map((key, i) => [key, lines[i]!] as const)),
    chains: new Map(chainKeys.map((key, i) => [key, lines[keys.length + i]!] as const)),
    bytes: file.length,
  };
}

/** Line 1 of a range file with its line break: the header, the documents array opened. */
export function rangeHeadLine(header: RangeHeader): string {
  return `${JSON.stringify(header).slice(0, -1)}${RANGE_DOCUMENTS_OPEN}\n`;
}

/** The text of a range file from its header and its documents (in header order: keys, then chains). */
export function encodeRange(header: RangeHeader, documents: readonly string[]): string {
  const lines = documents.map((d, i) => (i < documents.length - 1 ? `${d},\n` : `${d}\n`)).join('');
  return `${rangeHeadLine(header)}${lines}${RANGE_END}`;
}

const SEPARATOR = Buffer.from(',\n');
const LAST_LINE_END = Buffer.from('\n');
const END = Buffer.from(RANGE_END);

/** A range file's bytes from its header and its documents (in header order): encodeRange's bytes, in one buffer of its own. */
export function rangeFileBytes(header: RangeHeader, documents: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from(rangeHeadLine(header))];
  documents.forEach((doc, i) => parts.push(doc, i < documents.length - 1 ? SEPARATOR : LAST_LINE_END));
  parts.push(END);
  return Buffer.concat(parts);
}
