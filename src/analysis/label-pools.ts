/**
 * Mining-pool lists in the common shape of mempool's pools-v2.json (docs/labels.md
 * "Mining pools"): a JSON array of pools, each with a `name`, the `tags` its
 * coinbases carry and its payout `addresses`. The listed addresses become
 * `pool` labels here; the tags are stored, and analyze labels the payout
 * address of every block whose coinbase carries one (07_a_labels.sql), so
 * blocks scanned later are matched too. The list's file name names the source.
 */
import { basename } from 'node:path';
import type { NetworkParams } from '../domain/network.js';
import { checkLabel, emptyFileLabels, kindOf, LabelFileError, lineAt, MAX_ENTITY_CHARS, printableProblem, shown, type FileLabels } from './label-check.js';

/** A listed payout address is the pool's by the list's word, as a named coinbase tag is (pool_tagged_confidence). */
export const POOL_LISTED_CONFIDENCE = 0.9;
/** Long enough for any pool's tag, short enough to stay a tag. */
const MAX_TAG_CHARS = 100;
/** Shorter tags would match random coinbase text. */
const MIN_TAG_CHARS = 3;

/** The labels and coinbase tags of a pool list. */
export function poolLabels(file: string, content: string, network: NetworkParams, terms: string | null): FileLabels {
  const result = emptyFileLabels();
  const key = basename(file);
  let pools: unknown;
  try {
    pools = JSON.parse(content);
  } catch (err) {
    throw new LabelFileError(0, `not valid JSON (${err instanceof Error ? err.message : String(err)}); expected a pool list [{"name", "tags", "addresses"}, …]`);
  }
  if (!Array.isArray(pools)) throw new LabelFileError(1, `expected a JSON array of pools [{"name", "tags", "addresses"}, …], got ${kindOf(pools)}`);
  result.sources.push({ kind: 'pools', key });
  /** Where a value first appears in the file, for the line of a rejection (JSON.parse keeps no positions). */
  const lineOf = (value: string): number => {
    const at = content.indexOf(JSON.stringify(value));
    return at < 0 ? 0 : lineAt(content, at);
  };
  for (const [i, pool] of pools.entries()) {
    const { name, tags, addresses } = (pool ?? {}) as { name?: unknown; tags?: unknown; addresses?: unknown };
    const problem = typeof name === 'string' ? printableProblem('name', name.trim(), MAX_ENTITY_CHARS) ?? (name.trim() ? undefined : 'name is empty')
      : `pool ${i + 1} has no name (a JSON string)`;
    if (problem) {
      result.rejected.push({ file, line: typeof name === 'string' ? lineOf(name) : 0, reason: problem, cause: 'entity' });
      continue;
    }
    const entity = (name as string).trim();
    for (const tag of listOf(tags)) {
      const tagProblem = typeof tag !== 'string' ? `a tag of ${shown(entity)} is ${kindOf(tag)}, not a string`
        : [...tag].length < MIN_TAG_CHARS ? `the tag ${shown(tag)} of ${shown(entity)} is shorter than ${MIN_TAG_CHARS} characters: it would match random coinbase text`
          : printableProblem('tag', tag, MAX_TAG_CHARS);
      if (tagProblem) result.rejected.push({ file, line: typeof tag === 'string' ? lineOf(tag) : lineOf(entity), reason: tagProblem, cause: 'tag' });
      else result.poolTags.push({ key, source: key, terms, pool: entity, tag: tag as string });
    }
    for (const address of listOf(addresses)) {
      const checked = checkLabel({ address, entity, category: 'pool', confidence: POOL_LISTED_CONFIDENCE, source: key, terms: terms ?? undefined }, network, key);
      if (checked.kind === 'rejected') result.rejected.push({ file, line: typeof address === 'string' ? lineOf(address) : lineOf(entity), reason: checked.reason, cause: checked.cause });
      else if (checked.kind === 'placeholder') result.ignored++;
      else result.labels.push({ ...checked.label, kind: 'pools', key, details: 'listed payout address' });
    }
  }
  return result;
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
