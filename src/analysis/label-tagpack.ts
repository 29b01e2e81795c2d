/**
 * GraphSense TagPacks (docs/labels.md "GraphSense TagPacks"): YAML files, or a
 * directory of them, each a header and a list of `tags`. A tag inherits every
 * header field it does not set. Tags of currency LTC marked public become
 * labels: `label` is the entity, GraphSense's category and confidence names
 * are mapped to pegscope's by the two tables below, the TagPack's `title`
 * names the source and its `license` gives the terms.
 */
import { closeSync, constants as fsConstants, fstatSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { LabelCategory } from '../domain/model.js';
import type { NetworkParams } from '../domain/network.js';
import { checkLabel, emptyFileLabels, LabelFileError, MAX_SOURCE_CHARS, printableProblem, shown, type FileLabels } from './label-check.js';

/**
 * GraphSense entity concepts (their taxonomy repository, graphsense-taxonomy,
 * after the INTERPOL Darknet and Cryptocurrencies Working Group's) → pegscope
 * categories. Anything not here, no category included, is `other`, which never
 * spreads across a cluster. docs/labels.md shows this table.
 */
export const GRAPHSENSE_CATEGORIES: Readonly<Record<string, LabelCategory>> = {
  exchange: 'exchange',
  wallet_service: 'service',
  payment_processor: 'service',
  atm: 'service',
  faucet: 'service',
  hosting: 'service',
  vpn: 'service',
  mining_service: 'pool',
  miner: 'pool',
  mixing_service: 'mixer',
  coinjoin: 'mixer',
  gambling: 'gambling',
  shop: 'merchant',
  market: 'other',
  perpetrator: 'other',
  ransomware: 'other',
  scam: 'other',
  donation: 'other',
};

/**
 * GraphSense confidence names (graphsense-tagpack-tool's confidence.csv) →
 * pegscope confidence: their score (0..100) divided by 100.
 */
export const GRAPHSENSE_CONFIDENCE: Readonly<Record<string, number>> = {
  override: 1,
  ownership: 1,
  manual_transaction: 0.9,
  service_api: 0.8,
  authority_data: 0.6,
  trusted_provider: 0.5,
  service_data: 0.5,
  forensic: 0.5,
  untrusted_transaction: 0.4,
  web_crawl: 0.2,
};
/** A tag without a confidence counts as the weakest basis GraphSense names, web_crawl. */
export const GRAPHSENSE_DEFAULT_CONFIDENCE = GRAPHSENSE_CONFIDENCE.web_crawl!;
const LTC = 'LTC';
const YAML_FILE = /\.ya?ml$/i;
/** Aliases a tag or the header may expand to: far more than a hand-written pack uses, far fewer than an alias bomb needs. */
const MAX_ALIAS_COUNT = 100;
/** Enough for GraphSense's names and a source URL; longer notes are cut. */
const MAX_DETAILS_CHARS = 500;

/** How TagPacks are read: the terms of packs without `license`, and whether a pack that does not set `is_public` is public (`--public`). */
export interface TagpackOptions { terms: string | null; public: boolean }

/**
 * The largest TagPack read (docs/labels.md "GraphSense TagPacks"): the YAML
 * parser holds a whole pack, at about 60 bytes of memory per byte of YAML,
 * so a larger pack is refused before it is read. The largest pack of
 * graphsense-tagpacks is a few MB: packs there are split well below this.
 */
export const MAX_TAGPACK_BYTES = 8 * 1024 * 1024;

/** The labels of a TagPack file, or of every TagPack under a directory; a pack that cannot be read is one rejected file, the others are read. */
export function tagpackLabels(path: string, network: NetworkParams, opts: TagpackOptions): FileLabels {
  const result = emptyFileLabels();
  for (const file of tagpackFiles(path)) {
    let one: FileLabels;
    try {
      one = oneTagpack(file, readPack(file), network, opts);
    } catch (err) {
      if (!(err instanceof LabelFileError)) throw err;
      result.rejected.push({ file, line: err.line, reason: err.message, cause: 'file' });
      continue;
    }
    result.sources.push(...one.sources);
    result.labels.push(...one.labels);
    result.rejected.push(...one.rejected);
    result.ignored += one.ignored;
    result.skipped.otherCurrency += one.skipped.otherCurrency;
    result.skipped.notPublic += one.skipped.notPublic;
    result.withoutLitecoin.push(...one.withoutLitecoin);
  }
  return result;
}

/** A file, or the YAML files under a directory (sorted, subdirectories included). */
function tagpackFiles(path: string): string[] {
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) return [path];
  const files = readdirSync(path, { recursive: true, encoding: 'utf8' }).filter((name) => YAML_FILE.test(name)).sort().map((name) => join(path, name));
  if (files.length === 0) throw new LabelFileError(0, `the directory ${path} holds no TagPack (.yaml or .yml file)`);
  return files;
}

/** A pack's text; a pack over MAX_TAGPACK_BYTES, or anything but a regular file (a device, a FIFO), is refused before it is read. */
function readPack(file: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new LabelFileError(0, 'not a regular file; nothing from this file was imported');
    if (stat.size > MAX_TAGPACK_BYTES) {
      throw new LabelFileError(0, `the TagPack is ${mb(stat.size)}; TagPacks of at most ${mb(MAX_TAGPACK_BYTES)} are read (docs/labels.md): split it into several packs; nothing from this file was imported`);
    }
    return readFileSync(fd, 'utf8');
  } catch (err) {
    if (err instanceof LabelFileError) throw err;
    throw new LabelFileError(0, `cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/**
 * One TagPack: its header, then each tag with the header's fields it does not
 * set. Only Litecoin tags are built into objects: a pack is mostly other
 * currencies' tags.
 */
export function oneTagpack(file: string, content: string, network: NetworkParams, opts: TagpackOptions): FileLabels {
  const result = emptyFileLabels();
  const lines = new LineCounter();
  const doc = parseDocument(content, { lineCounter: lines, uniqueKeys: true });
  const fail = (line: number, reason: string) => { result.rejected.push({ file, line, reason, cause: 'file' }); return result; };
  if (doc.errors.length > 0) return fail(doc.errors[0]!.linePos?.[0].line ?? 0, `not valid YAML (${doc.errors[0]!.message.split('\n')[0]}); nothing from this file was imported`);
  if (!isMap(doc.contents)) return fail(1, 'a TagPack is a YAML mapping with a header and a `tags` list');
  const tags = doc.get('tags', true);
  if (!isSeq(tags)) return fail(1, 'the TagPack has no `tags` list');
  /** A node as JS; YAML aliases that expand too far (a resource-exhaustion attack) refuse the whole file at the first alias. */
  const toJs = (node: { toJS(doc: Document, opts: { maxAliasCount: number }): unknown }): unknown => {
    try {
      return node.toJS(doc, { maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      throw new LabelFileError(firstAliasLine(doc, lines), `its YAML aliases expand too far (${err instanceof Error ? err.message : String(err)}); nothing from this file was imported`);
    }
  };
  const header = Object.fromEntries(doc.contents.items
    .filter((pair) => !(isScalar(pair.key) && pair.key.value === 'tags'))
    .map((pair) => [String(isScalar(pair.key) ? pair.key.value : pair.key), isNode(pair.value) ? toJs(pair.value) : pair.value]));
  const title = typeof header.title === 'string' ? header.title.trim() : '';
  const titleProblem = title ? printableProblem('title', title, MAX_SOURCE_CHARS) : 'the TagPack has no title; its title names the source of its labels';
  if (titleProblem) return fail(1, titleProblem);
  result.sources.push({ kind: 'tagpack', key: title });

  let litecoin = 0;
  for (const item of tags.items) {
    const line = isMap(item) && item.range ? lines.linePos(item.range[0]).line : 0;
    if (!isMap(item)) {
      result.rejected.push({ file, line, reason: 'each tag must be a mapping', cause: 'row' });
      continue;
    }
    const own = item.get('currency');
    const currency = typeof (own ?? header.currency) === 'string' ? String(own ?? header.currency).trim().toUpperCase() : '';
    if (!currency) {
      result.rejected.push({ file, line, reason: 'currency is missing (set it on the tag or in the header)', cause: 'field' });
      continue;
    }
    if (currency !== LTC) {
      result.skipped.otherCurrency++;
      continue;
    }
    litecoin++;
    const tag = { ...header, ...(toJs(item) as Record<string, unknown>) };
    // GraphSense's tagpack tool treats a pack as private unless it says otherwise or the operator declares its source public.
    if (tag.is_public !== true && !(opts.public && tag.is_public !== false)) {
      result.skipped.notPublic++;
      continue;
    }
    const confidence = confidenceOf(tag.confidence);
    if (typeof confidence === 'string') {
      result.rejected.push({ file, line, reason: confidence, cause: 'confidence' });
      continue;
    }
    const license = typeof tag.license === 'string' && tag.license.trim() ? tag.license.trim() : opts.terms;
    const checked = checkLabel({ address: tag.address, entity: tag.label, category: categoryOf(tag.category), confidence, source: title, terms: license }, network, title);
    if (checked.kind === 'rejected') result.rejected.push({ file, line, reason: checked.reason, cause: checked.cause });
    else if (checked.kind === 'placeholder') result.ignored++;
    else result.labels.push({ ...checked.label, kind: 'tagpack', key: title, details: detailsOf(tag) });
  }
  if (litecoin === 0) result.withoutLitecoin.push(file);
  return result;
}

/** The line of the first YAML alias (*name) in the document (0 when there is none). */
function firstAliasLine(doc: Document, lines: LineCounter): number {
  let line = 0;
  visit(doc, { Alias(_, node) { line = node.range ? lines.linePos(node.range[0]).line : 0; return visit.BREAK; } });
  return line;
}

/** GraphSense's category as pegscope's: the table, else `other`. */
export const categoryOf = (category: unknown): LabelCategory =>
  (typeof category === 'string' ? GRAPHSENSE_CATEGORIES[category.trim().toLowerCase()] : undefined) ?? 'other';

function confidenceOf(confidence: unknown): number | string {
  if (confidence === undefined || confidence === null) return GRAPHSENSE_DEFAULT_CONFIDENCE;
  const value = typeof confidence === 'string' ? GRAPHSENSE_CONFIDENCE[confidence.trim().toLowerCase()] : undefined;
  return value ?? `unknown GraphSense confidence ${typeof confidence === 'string' ? shown(confidence) : String(confidence)}; known: ${Object.keys(GRAPHSENSE_CONFIDENCE).join(', ')}`;
}

/** GraphSense's own names and the tag's source, kept as the label's details: one line, control characters as spaces, cut at MAX_DETAILS_CHARS. */
function detailsOf(tag: Record<string, unknown>): string | null {
  const parts = (['category', 'abuse', 'confidence', 'source'] as const)
    .filter((key) => typeof tag[key] === 'string' && (tag[key] as string).trim())
    .map((key) => `${key}: ${(tag[key] as string).trim()}`);
  if (parts.length === 0) return null;
  const line = `GraphSense ${parts.join('; ')}`.replace(/[\p{Cc}\p{Cs}\u2028\u2029\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\uFFFE\uFFFF]+/gu, ' ');
  const chars = [...line];
  return chars.length > MAX_DETAILS_CHARS ? `${chars.slice(0, MAX_DETAILS_CHARS - 1).join('')}…` : line;
}
