/**
 * What the next export needs to know about a release to export only what
 * changed (issue 15): the analysis it was made from, the model and format
 * that rendered it, its range layout, and block hashes that tell whether
 * the chain it describes is still the chain (a reorg below them means more
 * documents may have changed). Written as data/state.json in every release.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { API_VERSION } from '../api/params.js';
import { LABEL_CATEGORIES, modelSqlValues } from '../domain/model.js';
import type { RangeKind } from '@pegscope/client';
import type { Layout } from './ranges.js';

export const STATE_PATH = 'data/state.json';
/** What each address showed (attribution, cluster) in the release, for the next export to compare with. */
export const ATTRIBUTION_INDEX = 'data/attribution.parquet';
/** The digests of the pegs this export compared (peg-digests.sql), for the next export to compare with. */
export const PEGS_INDEX = 'data/pegs.parquet';

/**
 * Bumped whenever the exporter renders any document, or records its indexes
 * (data/*.parquet) or dump files, differently: a release of another format is never built
 * on, the next export renders everything.
 */
export const EXPORT_FORMAT = 4;

/** A release's state: what it was made from, its format, range layout and chain checkpoints. */
export interface ExportState extends ExportBasis {
  format: number;
  /** Prefix length per kind (ranges layout). */
  prefix_lengths: Record<RangeKind, number> | null;
  /** [height, block hash] at the analysed height and at heights 1, 2, 4, 8, … below it. */
  checkpoints: [number, string][];
}

/** The model's facts, categories and the API version as one digest: any change re-renders every document. */
export function modelFingerprint(): string {
  const facts = JSON.stringify({ values: modelSqlValues(), categories: LABEL_CATEGORIES, api: API_VERSION });
  return createHash('sha256').update(facts).digest('hex').slice(0, 16);
}

/** Heights of the checkpoints below `asOf`: asOf, asOf − 1, asOf − 2, asOf − 4, … down to 0. */
export function checkpointHeights(asOf: number): number[] {
  const heights = [asOf];
  for (let back = 1; asOf - back >= 0; back *= 2) heights.push(asOf - back);
  return heights;
}

/** A release's state, or null when it has none (an older pegscope) or it cannot be read. */
export async function readState(releaseDir: string): Promise<ExportState | null> {
  try {
    const state = JSON.parse(await readFile(join(releaseDir, STATE_PATH), 'utf8')) as ExportState;
    return state.format === EXPORT_FORMAT ? state : null;
  } catch {
    return null;
  }
}

/** What the export about to run is made from, to compare with the previous release's state. */
export interface ExportBasis {
  /** Fingerprint of the model's facts and the API version the documents were computed and rendered with. */
  model: string;
  layout: Layout;
  as_of_height: number;
  horizon_blocks: number | null;
  tolerance: number | null;
}

/**
 * The dirty floor: every peg above this height may have changed since the
 * previous release, and no peg at or below it, except through what documents
 * show of addresses (attribution, clusters, reuse). -1 when everything must
 * be rendered: no previous state, another model, format, layout, horizon or
 * tolerance, or none of its checkpoints still on the chain (chainUpTo, from
 * chainUnchangedUpTo, is then -1).
 *
 * Why two horizons: blocks above X (the previous height, or the highest
 * checkpoint still on the chain after a reorg) change the links of peg-outs
 * above X − H; their candidates' shares, and so which three of a peg-out's
 * candidates are reported, reach peg-ins down to X − 2H (docs/methodology.md
 * "The horizon").
 */
export function dirtyFloor(previous: ExportState | null, chainUpTo: number): number {
  return chainUpTo < 0 || previous?.horizon_blocks == null ? -1 : Math.max(-1, chainUpTo - 2 * previous.horizon_blocks);
}

/**
 * The highest height up to which the chain both releases read is the same
 * (the previous and this analysed height, and the highest of the previous
 * release's checkpoints still on the chain); -1 when the releases are not
 * comparable. Chain data at or below it is unchanged. `hashAt` gives today's
 * block hash at a height (undefined when there is none).
 */
export function chainUnchangedUpTo(previous: ExportState | null, basis: ExportBasis, hashAt: (height: number) => string | undefined): number {
  if (!previous || previous.model !== basis.model || previous.layout !== basis.layout) return -1;
  if (previous.horizon_blocks === null || previous.horizon_blocks !== basis.horizon_blocks || previous.tolerance !== basis.tolerance) return -1;
  const onChain = previous.checkpoints.filter(([height, hash]) => hashAt(height) === hash).map(([height]) => height);
  if (onChain.length === 0) return -1;
  return Math.min(previous.as_of_height, basis.as_of_height, Math.max(...onChain));
}

/** The highest height whose documents are final in a release of this analysis (two horizons below it); -1: none. */
export function finalHeightOf(state: Pick<ExportState, 'as_of_height' | 'horizon_blocks'> | null): number {
  return state?.horizon_blocks == null ? -1 : state.as_of_height - 2 * state.horizon_blocks;
}

/**
 * Whether this chain extends the previous release's: its tip is still on the
 * chain and this analysis is at or above it. Only then are the previous
 * release's peg digests comparable: no peg it showed has gone or moved.
 */
export function extendsPrevious(previous: ExportState, basis: ExportBasis, hashAt: (height: number) => string | undefined): boolean {
  const tip = previous.checkpoints.find(([height]) => height === previous.as_of_height);
  return tip !== undefined && hashAt(tip[0]) === tip[1] && basis.as_of_height >= previous.as_of_height;
}
