/**
 * Per-query documents of a release in the range layout (SPEC §4): a lookup
 * reads the one range file its key hashes to, indexes its lines once, and
 * answers with the document's bytes as they are in the file (byte for byte
 * what the files layout holds). Range files are not kept whole in memory:
 * only their index, whose slices share one buffer per file.
 */
import { parseRangeHeader, RangeFormatError, rangePath, rangePrefix, type RangeHeader, type RangeKind, type RangesIndexBody } from '@pegscope/client';

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

/** Cuts a range file into its lines (packages/client/src/range.ts describes the format); throws RangeFormatError when it is not one. */
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
  if (file.toString('utf8', start) !== ']}\n') throw new RangeFormatError(`range ${header.range.kind}/${header.range.prefix}: expected ${count} document lines`);
  return {
    header,
    documents: new Map(keys.map((key, i) => [key, lines[i]!] as const)),
    chains: new Map(chainKeys.map((key, i) => [key, lines[keys.length + i]!] as const)),
    bytes: file.length,
  };
}

/** The release-relative path of the range that holds `key`, under the release's layout. */
export function rangeFileOf(layout: RangesIndexBody, kind: RangeKind, key: string): string {
  return rangePath(kind, rangePrefix(key, layout.kinds[kind].prefix_length));
}
