/**
 * Range files (docs/static-hosting.md): per-query documents packed by a hex prefix of the
 * sha256 of their canonical key, so a lookup asks a host for a prefix shared
 * by dozens of keys, never for the key itself (the k-anonymity scheme of
 * Have I Been Pwned's Pwned Passwords range API).
 *
 * One range file is a JSON object whose document lines can be cut out
 * without parsing the rest:
 *
 *   {<envelope>,"range":{"kind":…,"prefix":…,"hash":"sha256","keys":[…]…},"documents":[
 *   <document of keys[0]>,
 *   <document of keys[1]>
 *   ]}
 *
 * Line 1 is the header (ending in `"documents":[`); then one document per
 * line, in the order of `keys` (sorted), each followed by a comma except the
 * last; then `]}`. Documents never contain a raw newline (JSON escapes it),
 * so line i + 1 is document i, byte for byte what the router answers. A
 * follow range also lists `chains`: the keys whose chain is longer than the
 * default depth, whose full-depth documents follow the default ones, in
 * that order. A block range lists `aliases`: block hashes hashing to this
 * prefix with their height (a block's canonical key is its height).
 *
 * Pure and dependency-free: the router and the wallet client read with it;
 * the exporter writes with its constants and types (src/api/range-file.ts
 * in pegscope, out of the wallet's install).
 */
import { sha256 } from './sha256.js';
import { NETWORK_BASICS } from './network.js';
import type { Envelope } from './documents.js';

export const RANGE_KINDS = ['trace', 'address', 'follow', 'block'] as const;
export type RangeKind = (typeof RANGE_KINDS)[number];

export const RANGE_HASH = 'sha256';
/** The index of a release's range layout: prefix length and document count per kind. */
export const RANGES_INDEX_PATH = 'api/ranges.json';

export const rangePath = (kind: RangeKind, prefix: string): string => `api/range/${kind}/${prefix}.json`;

export function isRangeKind(kind: string): kind is RangeKind {
  return (RANGE_KINDS as readonly string[]).includes(kind);
}

/** What `api/ranges.json` says about one kind. */
export interface RangeLayout {
  prefix_length: number;
  hash: typeof RANGE_HASH;
  /** Documents of this kind (follow chains and block aliases not counted). */
  documents: number;
}

export interface RangesIndexBody {
  layout: 'ranges';
  kinds: Record<RangeKind, RangeLayout>;
}

/** The header of one range file (line 1 without `"documents":[`). */
export interface RangeHeader extends Envelope {
  range: {
    kind: RangeKind;
    prefix: string;
    hash: typeof RANGE_HASH;
    keys: string[];
    /** follow only: keys whose full-depth chain follows the default documents. */
    chains?: string[];
    /** block only: block hashes of this prefix → their height. */
    aliases?: Record<string, number>;
  };
}

const HEX64 = /^[0-9a-fA-F]{64}$/;
const HEIGHT = /^(?:0|[1-9]\d{0,9})$/;
const BECH32_PREFIXES = Object.values(NETWORK_BASICS).map((n) => `${n.bech32Hrp}1`);

/**
 * The canonical key of a query: txids and block hashes in lower-case hex,
 * heights in decimal, bech32 addresses in lower case, base58 addresses as
 * given. It only normalises: validation is the caller's.
 * @remarks bech32 is case-insensitive; the router checks checksums.
 */
export function canonicalKey(q: string | number): string {
  if (typeof q === 'number') return String(q);
  if (HEX64.test(q)) return q.toLowerCase();
  if (HEIGHT.test(q)) return q;
  const lower = q.toLowerCase();
  return BECH32_PREFIXES.some((p) => lower.startsWith(p)) ? lower : q;
}

const HEX_DIGITS = '0123456789abcdef';

/** Lower-case hex of bytes. @internal */
export function hex(bytes: Iterable<number>): string {
  let text = '';
  for (const byte of bytes) text += HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!;
  return text;
}

/** Hex sha256 of a canonical key (UTF-8). */
export function keyHash(key: string): string {
  return hex(sha256(new TextEncoder().encode(key)));
}

export function rangePrefix(key: string, prefixLength: number): string {
  return keyHash(key).slice(0, prefixLength);
}

/** How line 1 of a range file ends (before its line break). */
export const RANGE_DOCUMENTS_OPEN = ',"documents":[';
/** What follows the last document line of a range file. */
export const RANGE_END = ']}\n';

/** Text that is not a range file. */
export class RangeFormatError extends Error {
  // Set in index.ts, on the prototype (an Error subclass inherits the name 'Error').
  declare readonly name: 'RangeFormatError';
}

/** Parses line 1 of a range file. */
export function parseRangeHeader(firstLine: string): RangeHeader {
  if (!firstLine.endsWith(RANGE_DOCUMENTS_OPEN)) throw new RangeFormatError('not a range file: line 1 does not end with "documents":[');
  const header = JSON.parse(`${firstLine.slice(0, -RANGE_DOCUMENTS_OPEN.length)}}`) as RangeHeader;
  if (!header.range || !Array.isArray(header.range.keys)) throw new RangeFormatError('not a range file: the header has no range.keys');
  return header;
}

/** A range file's text cut into its header and document lines. */
export interface ParsedRange {
  header: RangeHeader;
  /** The default document of each key. */
  documents: Map<string, string>;
  /** follow: the full-depth document of each key in `chains`. */
  chains: Map<string, string>;
}

export function parseRange(text: string): ParsedRange {
  const lines = text.split('\n');
  const header = parseRangeHeader(lines[0] ?? '');
  const keys = header.range.keys;
  const chainKeys = header.range.chains ?? [];
  const count = keys.length + chainKeys.length;
  if (lines.length !== count + 3 || `${lines[count + 1]}\n${lines[count + 2]}` !== RANGE_END) {
    throw new RangeFormatError(`range ${header.range.kind}/${header.range.prefix}: expected ${count} document lines`);
  }
  const line = (i: number): string => {
    const raw = lines[i + 1]!;
    return i < count - 1 ? raw.slice(0, -1) : raw;
  };
  const documents = new Map(keys.map((key, i) => [key, line(i)] as const));
  const chains = new Map(chainKeys.map((key, i) => [key, line(keys.length + i)] as const));
  return { header, documents, chains };
}
