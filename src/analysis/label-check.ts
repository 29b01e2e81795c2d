/**
 * What every label source shares (docs/labels.md): the label as stored with
 * its provenance, what a file gives, and the strict checks of one label's
 * fields. A label is checked the same whichever format it came from.
 */
import { canonicalKey } from '@pegscope/client';
import { isValidAddress } from '../domain/address.js';
import { LABEL_CATEGORY_NAMES, type LabelCategory } from '../domain/model.js';
import type { NetworkParams } from '../domain/network.js';

/** The fields a CSV/JSON label file must give. */
export const LABEL_FIELDS = ['address', 'entity', 'category', 'confidence', 'source'] as const;
/** The fields a CSV/JSON label file may give besides: the source's terms or licence. */
export const OPTIONAL_LABEL_FIELDS = ['terms'] as const;
export const ALLOWED_LABEL_FIELDS: readonly string[] = [...LABEL_FIELDS, ...OPTIONAL_LABEL_FIELDS];
type LabelField = (typeof LABEL_FIELDS)[number] | (typeof OPTIONAL_LABEL_FIELDS)[number];
/** Longer than any real entity name, short enough that labels never bloat the documents that embed them. */
export const MAX_ENTITY_CHARS = 100;
/** Room for a feed name or a URL. */
export const MAX_SOURCE_CHARS = 200;
/** Room for a licence name with a link, or a sentence of terms. */
export const MAX_TERMS_CHARS = 300;
const PLACEHOLDER = /^EXAMPLE/;
/** A confidence in CSV (or a JSON string): digits with an optional decimal part, nothing else. */
const PLAIN_DECIMAL = /^\d+(?:\.\d+)?$/;
/** Characters that would reach a terminal or a document as control codes or reorder the text around them. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
/** Characters outside XML 1.0's Char production that are not control codes: the Atom feed could not carry them (a lone surrogate, U+FFFE, U+FFFF). */
export const NOT_XML_CHAR = /[\p{Cs}\uFFFE\uFFFF]/u;
const CONTROL_NAMES: Record<number, string> = { 0x00: 'NUL', 0x09: 'tab', 0x0a: 'line feed', 0x0d: 'carriage return', 0x1b: 'ESC' };
const ALLOWED_CONFIDENCE = 'write a plain decimal number from 0 to 1, such as 0.8';
/** Characters of user text a message quotes back: any address fits. */
const SHOWN_CHARS = 100;

/** The formats `labels import` reads (docs/labels.md). */
export const LABEL_FORMATS = ['csv', 'json', 'ofac', 'tagpack', 'pools'] as const;
export type LabelFormat = (typeof LABEL_FORMATS)[number];
/** What kind of source a label comes from: a CSV/JSON label file, the OFAC SDN list, a GraphSense TagPack, a pool list. */
export type SourceKind = 'file' | 'ofac' | 'tagpack' | 'pools';
/** A source as the labels table identifies it: importing it again replaces every label it gave. */
export interface SourceId { kind: SourceKind; key: string }

/** One label as the CSV/JSON format gives it, checked. */
export interface Label { address: string; entity: string; category: LabelCategory; confidence: number; source: string; terms: string | null }
/** A row of the labels table: the label, its source and the source's terms (docs/labels.md "Provenance"). */
export interface StoredLabel {
  address: string;
  entity: string;
  category: LabelCategory;
  confidence: number;
  /** The source's identity (kind, key) and its name as documents show it (`attribution.source`). */
  kind: SourceKind;
  key: string;
  source: string;
  terms: string | null;
  /** What the source said besides the label: OFAC programs, GraphSense names, a pool's tag. */
  details: string | null;
}
/** A coinbase tag of an imported pool list: analyze labels the payout addresses of the blocks that carry it. */
export interface PoolTag { key: string; source: string; terms: string | null; pool: string; tag: string }

/** What a rejection was about: the summary counts rejections by it. */
export type RejectCause = 'file' | 'row' | 'field' | 'address' | 'entity' | 'category' | 'confidence' | 'source' | 'terms' | 'tag';
export interface Rejection { file: string; line: number; reason: string; cause: RejectCause }
/** Rows a source gives that are not for pegscope: another currency's addresses, a TagPack's non-public tags. */
export interface Skipped { otherCurrency: number; notPublic: number }

/** What one file gives: its labels, the sources it replaces whole, and what it rejected, ignored or skipped. */
export interface FileLabels {
  sources: SourceId[];
  labels: StoredLabel[];
  poolTags: PoolTag[];
  rejected: Rejection[];
  /** Placeholder rows (an address starting with EXAMPLE), as the documentation's examples have. */
  ignored: number;
  skipped: Skipped;
  /** The files of TagPacks that hold no Litecoin tag (each is named once to the operator). */
  withoutLitecoin: string[];
}

export const emptyFileLabels = (): FileLabels => ({
  sources: [], labels: [], poolTags: [], rejected: [], ignored: 0, skipped: { otherCurrency: 0, notPublic: 0 }, withoutLitecoin: [],
});

/** Thrown for a file that cannot be read as a whole (unreadable, bad header, not the format): nothing of it is imported. */
export class LabelFileError extends Error {
  constructor(readonly line: number, message: string) {
    super(message);
  }
}

export type LabelCheck = { kind: 'label'; label: Label } | { kind: 'placeholder' } | { kind: 'rejected'; reason: string; cause: RejectCause };

/**
 * Validates one label's fields (CSV cells are strings; JSON and YAML values
 * may be anything). `defaultSource` names the source when the fields do not.
 */
export function checkLabel(fields: Record<string, unknown>, network: NetworkParams, defaultSource: string): LabelCheck {
  const rejected = (cause: RejectCause, reason: string): LabelCheck => ({ kind: 'rejected', reason, cause });
  const unknown = Object.keys(fields).find((key) => !ALLOWED_LABEL_FIELDS.includes(key));
  if (unknown !== undefined) return rejected('field', `unknown field ${shown(unknown)}; allowed: ${ALLOWED_LABEL_FIELDS.join(', ')}`);

  const address = text(fields, 'address');
  if (typeof address === 'object') return rejected('address', address.problem);
  if (PLACEHOLDER.test(address)) return { kind: 'placeholder' };
  if (!address) return rejected('address', 'address is missing');
  if (!isValidAddress(address, network)) return rejected('address', `address ${shown(address)} is not a valid ${network.name} address`);
  // Upper-case bech32 is valid (BIP-173), but the chain's addresses are lower-case: store the form lookups use.
  const canonical = canonicalKey(address);

  const entity = text(fields, 'entity');
  if (typeof entity === 'object') return rejected('entity', entity.problem);
  if (!entity) return rejected('entity', 'entity is missing');
  const entityProblem = printableProblem('entity', entity, MAX_ENTITY_CHARS);
  if (entityProblem) return rejected('entity', entityProblem);

  const category = text(fields, 'category');
  if (typeof category === 'object') return rejected('category', category.problem);
  if (!category) return rejected('category', `category is missing; allowed: ${LABEL_CATEGORY_NAMES.join(', ')}`);
  const name = category.toLowerCase();
  if (!(LABEL_CATEGORY_NAMES as readonly string[]).includes(name)) {
    return rejected('category', `unknown category ${shown(category)}; allowed: ${LABEL_CATEGORY_NAMES.join(', ')}`);
  }

  const confidence = confidenceOf(fields.confidence);
  if (typeof confidence === 'string') return rejected('confidence', confidence);

  const given = text(fields, 'source');
  if (typeof given === 'object') return rejected('source', given.problem);
  const source = given || defaultSource;
  const sourceProblem = printableProblem(given ? 'source' : `source (the file name ${shown(source)}, as the row names none)`, source, MAX_SOURCE_CHARS);
  if (sourceProblem) return rejected('source', sourceProblem);

  const terms = text(fields, 'terms');
  if (typeof terms === 'object') return rejected('terms', terms.problem);
  const termsProblem = printableProblem('terms', terms, MAX_TERMS_CHARS);
  if (termsProblem) return rejected('terms', termsProblem);

  return { kind: 'label', label: { address: canonical, entity, category: name as LabelCategory, confidence, source, terms: terms || null } };
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
export function printableProblem(field: string, value: string, max: number): string | undefined {
  const chars = [...value];
  if (chars.length > max) return `${field} is ${chars.length} characters long; at most ${max} are allowed`;
  const at = chars.findIndex((ch) => CONTROL.test(ch) || BIDI.test(ch) || NOT_XML_CHAR.test(ch));
  if (at < 0) return undefined;
  const ch = chars[at]!;
  const code = codePoint(ch);
  if (NOT_XML_CHAR.test(ch)) return `${field} contains ${code} at character ${at + 1}, which is not a character (XML documents such as the Atom feeds cannot hold it) and is not allowed`;
  if (BIDI.test(ch)) return `${field} contains the bidirectional control character ${code} at character ${at + 1}; it can make text display in a misleading order and is not allowed`;
  const name = CONTROL_NAMES[ch.codePointAt(0)!];
  return `${field} contains the control character ${code}${name ? ` (${name})` : ''} at character ${at + 1}; only printable text on one line is allowed`;
}

const codePoint = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** User text quoted for a message: at most SHOWN_CHARS characters, control and bidirectional characters escaped so they never reach a terminal raw. */
export function shown(value: string): string {
  const chars = [...value];
  const cut = chars.slice(0, SHOWN_CHARS).join('');
  const escaped = cut.replace(/["\\]/g, (c) => `\\${c}`)
    .replace(new RegExp(`${CONTROL.source}|${BIDI.source}|${NOT_XML_CHAR.source}`, 'gu'), (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
  return `"${escaped}"${chars.length > SHOWN_CHARS ? `… (${chars.length} characters)` : ''}`;
}

export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'boolean') return `${value}`;
  return `a ${typeof value}`;
}

/** The line (1-based) of `offset` in `content`. */
export function lineAt(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf('\n'); i >= 0 && i < offset; i = content.indexOf('\n', i + 1)) line++;
  return line;
}
