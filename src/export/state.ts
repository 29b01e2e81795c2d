/**
 * What the next export needs to know about a release to export only what
 * changed: the analysis it was made from, the model and format that
 * rendered it, its range layout, and block hashes that tell whether the
 * chain it describes is still the chain (a reorg below them means more
 * documents may have changed), with the indexes of its documents and files.
 * Kept beside the releases, in out/<network>/state/<release id>/, never
 * inside one: a host that publishes the release uploads only what it serves
 * (docs/static-hosting.md "The export's state").
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { API_VERSION } from '../api/params.js';
import { LABEL_CATEGORIES, modelSqlValues } from '../domain/model.js';
import type { RangeKind } from '@pegscope/client';
import type { HostBudget, Layout } from './ranges.js';

/** out/<network>/state/: one directory per release, named by its id. */
export const STATE_DIR = 'state';
/** The state of the release, naming it: written last, so a state directory without it is incomplete. */
export const STATE_FILE = 'state.json';
/** The release's files (manifest rows with each file's document, kind and q): the next export carries unchanged documents' files over with one join. */
export const FILES_INDEX = 'files.parquet';
/**
 * The site's documents index (out/<network>/state/docs.duckdb, beside the
 * releases' state directories): every per-query document of the release it
 * names, with the md5 of its body and the stamp of the analysis that last
 * changed it. One DuckDB file updated in place from what an export rendered,
 * instead of a copy per release: rewriting every row took most of an
 * incremental export (docs/static-hosting.md "The export's state").
 */
export const DOCS_DB = 'docs.duckdb';
/** Where an earlier pegscope kept the documents index: a Parquet file per release, imported once into DOCS_DB. */
export const LEGACY_DOCS_INDEX = 'docs.parquet';
/**
 * Where an earlier pegscope kept what each address showed (attribution,
 * cluster) and the digests of the pegs the next export asks about: a Parquet
 * file each per release, imported once into DOCS_DB.
 */
export const LEGACY_ATTRIBUTION_INDEX = 'attribution.parquet';
export const LEGACY_PEGS_INDEX = 'pegs.parquet';
/** What to do when a release's indexes disagree with it. */
export const RENDER_ALL_HINT = `deleting the previous release's state directory (out/<network>/${STATE_DIR}/<release id>/) makes the next export render every document`;
/** Where releases of an earlier pegscope kept the same files: inside the release, as data/<name>. */
const LEGACY_STATE_DIR = 'data';

/**
 * Bumped whenever the exporter renders any document, or records its indexes
 * (the state's *.parquet) or dump files, differently: a release of another format is never built
 * on, the next export renders everything.
 */
export const EXPORT_FORMAT = 5;

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

/** state.json as written: the state and the release it belongs to (earlier pegscopes wrote no release: their state was inside it). */
export type StateFile = ExportState & { release?: string };

/** Where the next export finds what it needs about a release: the directory of its indexes, and its state when it is of this format. */
export interface ReleaseState {
  dir: string;
  state: ExportState | null;
}

/** Whether a state directory has the index an export needs to carry files over. */
const hasIndexes = (dir: string): boolean => existsSync(join(dir, FILES_INDEX));

async function readStateFile(dir: string): Promise<StateFile | null> {
  try {
    return JSON.parse(await readFile(join(dir, STATE_FILE), 'utf8')) as StateFile;
  } catch {
    return null;
  }
}

/** out/<network>/state/<id> when it is complete: its state.json names release `id`. */
export async function completeStateDir(outDir: string, id: string): Promise<string | null> {
  const dir = join(outDir, STATE_DIR, id);
  return (await readStateFile(dir))?.release === id && hasIndexes(dir) ? dir : null;
}

/**
 * The state of a release, or null when there is none to build on (the next
 * export is then a full one): its state directory when complete, else,
 * for a release of an earlier pegscope, the indexes inside it (which it
 * published only once complete). A state directory that is missing,
 * incomplete (killed before its state.json) or names another release is
 * never used.
 */
export async function releaseState(outDir: string, releaseDir: string): Promise<ReleaseState | null> {
  const dir = await completeStateDir(outDir, basename(releaseDir)) ?? legacyStateDir(releaseDir);
  if (!dir) return null;
  const state = await readStateFile(dir);
  return { dir, state: state?.format === EXPORT_FORMAT ? state : null };
}

const legacyStateDir = (releaseDir: string): string | null => {
  const dir = join(releaseDir, LEGACY_STATE_DIR);
  return hasIndexes(dir) && existsSync(join(dir, LEGACY_DOCS_INDEX)) ? dir : null;
};

/** Whether a name in out/<network>/state/ is the documents index (DuckDB's file or its write-ahead log), not a release's state directory. */
export const isDocsIndexFile = (name: string): boolean => name === DOCS_DB || name === `${DOCS_DB}.wal`;

/** What the export about to run is made from, to compare with the previous release's state. */
export interface ExportBasis {
  /** Fingerprint of the model's facts and the API version the documents were computed and rendered with. */
  model: string;
  layout: Layout;
  as_of_height: number;
  horizon_blocks: number | null;
  tolerance: number | null;
  /** What the release is made from (sourceDigest): equal to the current release's, an export would publish the same release but for its stamps. */
  source_digest: string;
}

/** The inputs of a release besides the analysed tables: what the exporter itself adds to them. */
export interface ExporterInputs {
  layout: Layout;
  version: string;
  /** sha256 of the explorer page's index.html (it names every content-hashed asset), or null when the page is not built. */
  explorer: string | null;
  partitionBlocks: number;
  /** The host budget, which decides the range files' prefix lengths. */
  budget: HostBudget;
  /** --site-url, which the feeds' links name. */
  siteUrl: string | null;
  /** The key id of --sign-key (null: unsigned), so a job that starts signing publishes a signed release at once. */
  signedBy: string | null;
  /** The keys the explorer page verifies against, which its index.html names. */
  explorerKeys: readonly string[];
}

/**
 * One digest of everything a release is made from: the database's source
 * line (source-digest.sql: chain tip, analysis parameters, labels), the
 * model, the export format and the exporter's own inputs. Two releases
 * with the same digest differ only in the time of their analysis
 * (docs/static-hosting.md "When nothing changed").
 */
export function sourceDigest(source: string, exporter: ExporterInputs): string {
  const facts = JSON.stringify({ source, model: modelFingerprint(), format: EXPORT_FORMAT, ...exporter });
  return createHash('sha256').update(facts).digest('hex');
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
 * "The horizon"). That reach comes from links, not anonymity sets, so it
 * stays two horizons though a peg-in's set only counts backwards.
 *
 * On a chain shorter than two horizons (the demo's) the floor is 0, not -1:
 * every peg is in question, and its digest is compared with the previous
 * release's, which rendering everything would not do. No peg is at height 0
 * (the genesis block has none), so 0 leaves none out.
 */
export function dirtyFloor(previous: ExportState | null, chainUpTo: number): number {
  return chainUpTo < 0 || previous?.horizon_blocks == null ? -1 : Math.max(0, chainUpTo - 2 * previous.horizon_blocks);
}

/**
 * Why the previous release cannot be compared with (every document is then
 * rendered), in words for the log; null when it can. `hashAt` gives today's
 * block hash at a height (undefined when there is none).
 */
export function incomparableReason(previous: ExportState | null, basis: ExportBasis, hashAt: (height: number) => string | undefined): string | null {
  if (!previous) return 'the previous release has no state of this format';
  if (previous.model !== basis.model) return 'the previous release was made by another model';
  if (previous.layout !== basis.layout) return `the previous release has the ${previous.layout} layout, this one ${basis.layout}`;
  if (previous.horizon_blocks === null) return 'the previous release recorded no horizon';
  if (previous.horizon_blocks !== basis.horizon_blocks) return `the previous release used a horizon of ${previous.horizon_blocks ?? 'unknown'} blocks, this analysis ${basis.horizon_blocks ?? 'none'}`;
  if (previous.tolerance !== basis.tolerance) return `the previous release used a tolerance of ${previous.tolerance ?? 'unknown'} litoshi, this analysis ${basis.tolerance ?? 'none'}`;
  if (!previous.checkpoints.some(([height, hash]) => hashAt(height) === hash)) return 'the chain was reorganised below every checkpoint of the previous release';
  return null;
}

/**
 * The highest height up to which the chain both releases read is the same
 * (the previous and this analysed height, and the highest of the previous
 * release's checkpoints still on the chain); -1 when the releases are not
 * comparable (incomparableReason). Chain data at or below it is unchanged.
 */
export function chainUnchangedUpTo(previous: ExportState | null, basis: ExportBasis, hashAt: (height: number) => string | undefined): number {
  if (!previous || incomparableReason(previous, basis, hashAt) !== null) return -1;
  const onChain = previous.checkpoints.filter(([height, hash]) => hashAt(height) === hash).map(([height]) => height);
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
