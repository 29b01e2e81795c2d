/**
 * GraphSense TagPacks (docs/labels.md "GraphSense TagPacks"): YAML files, or a
 * directory of them, each a header and a list of `tags`. A tag inherits every
 * header field it does not set. Tags of currency LTC marked public become
 * labels: `label` is the entity, GraphSense's category and confidence names
 * are mapped to pegscope's by the two tables below, the TagPack's `title`
 * names the source and its `license` gives the terms.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
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
/** Enough for GraphSense's names and a source URL; longer notes are cut. */
const MAX_DETAILS_CHARS = 500;

/** The labels of a TagPack file, or of every TagPack under a directory. */
export function tagpackLabels(path: string, network: NetworkParams, terms: string | null): FileLabels {
  const result = emptyFileLabels();
  for (const file of tagpackFiles(path)) {
    const one = oneTagpack(file, readText(file), network, terms);
    result.sources.push(...one.sources);
    result.labels.push(...one.labels);
    result.rejected.push(...one.rejected);
    result.ignored += one.ignored;
    result.skipped.otherCurrency += one.skipped.otherCurrency;
    result.skipped.notPublic += one.skipped.notPublic;
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

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new LabelFileError(0, `cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** One TagPack: its header, then each tag with the header's fields it does not set. */
export function oneTagpack(file: string, content: string, network: NetworkParams, defaultTerms: string | null): FileLabels {
  const result = emptyFileLabels();
  const lines = new LineCounter();
  const doc = parseDocument(content, { lineCounter: lines, uniqueKeys: true });
  const fail = (line: number, reason: string) => { result.rejected.push({ file, line, reason, cause: 'file' }); return result; };
  if (doc.errors.length > 0) return fail(doc.errors[0]!.linePos?.[0].line ?? 0, `not valid YAML (${doc.errors[0]!.message.split('\n')[0]}); nothing from this file was imported`);
  if (!isMap(doc.contents)) return fail(1, 'a TagPack is a YAML mapping with a header and a `tags` list');
  const tags = doc.get('tags', true);
  if (!isSeq(tags)) return fail(1, 'the TagPack has no `tags` list');
  const header = Object.fromEntries(Object.entries(doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>).filter(([key]) => key !== 'tags'));
  const title = typeof header.title === 'string' ? header.title.trim() : '';
  const titleProblem = title ? printableProblem('title', title, MAX_SOURCE_CHARS) : 'the TagPack has no title; its title names the source of its labels';
  if (titleProblem) return fail(1, titleProblem);
  result.sources.push({ kind: 'tagpack', key: title });

  for (const item of tags.items) {
    const line = isMap(item) && item.range ? lines.linePos(item.range[0]).line : 0;
    if (!isMap(item)) {
      result.rejected.push({ file, line, reason: 'each tag must be a mapping', cause: 'row' });
      continue;
    }
    const tag = { ...header, ...(item.toJS(doc, { maxAliasCount: 100 }) as Record<string, unknown>) };
    const currency = typeof tag.currency === 'string' ? tag.currency.trim().toUpperCase() : '';
    if (!currency) {
      result.rejected.push({ file, line, reason: 'currency is missing (set it on the tag or in the header)', cause: 'field' });
      continue;
    }
    if (currency !== LTC) {
      result.skipped.otherCurrency++;
      continue;
    }
    if (tag.is_public !== true) {
      result.skipped.notPublic++;
      continue;
    }
    const confidence = confidenceOf(tag.confidence);
    if (typeof confidence === 'string') {
      result.rejected.push({ file, line, reason: confidence, cause: 'confidence' });
      continue;
    }
    const license = typeof tag.license === 'string' && tag.license.trim() ? tag.license.trim() : defaultTerms;
    const checked = checkLabel({ address: tag.address, entity: tag.label, category: categoryOf(tag.category), confidence, source: title, terms: license }, network, title);
    if (checked.kind === 'rejected') result.rejected.push({ file, line, reason: checked.reason, cause: checked.cause });
    else if (checked.kind === 'placeholder') result.ignored++;
    else result.labels.push({ ...checked.label, kind: 'tagpack', key: title, details: detailsOf(tag) });
  }
  return result;
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
  const line = `GraphSense ${parts.join('; ')}`.replace(/[\p{Cc}\u2028\u2029\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]+/gu, ' ');
  const chars = [...line];
  return chars.length > MAX_DETAILS_CHARS ? `${chars.slice(0, MAX_DETAILS_CHARS - 1).join('')}…` : line;
}
