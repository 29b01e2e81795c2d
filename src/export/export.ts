import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isValidAddress } from '../domain/address.js';
import { networkParams, type NetworkName } from '../domain/network.js';
import { DEFAULT_EXPORT_MEMORY_MB, DEFAULT_KEEP_RELEASES } from '../domain/model.js';
import { sqlString, type Db } from '../store/db.js';
import { silentProgress, type Progress } from '../progress.js';
import { envelopeOf, type AnalysisStamp } from '../api/envelope.js';
import { RANGE_HASH, RANGE_KINDS, RANGES_INDEX_PATH, type RangeKind, type RangeLayout } from '@pegscope/client';
import { healthDocument } from '../api/health.js';
import { statsDocument } from '../api/stats.js';
import { recommendationsDocument } from '../api/recommendations.js';
import * as links from '../api/links.js';
import * as amounts from '../api/top-amounts.js';
import * as trace from '../api/trace.js';
import { indexDocument } from '../api/index.js';
import { OPENAPI_PATH } from '../api/openapi.js';
import { openApiText } from '../api/schemas.js';
import { toJson as json } from '../api/json.js';
import { redirectsFile, headersFile, nginxSnippet } from './configs.js';
import { AMOUNT_TABLE_PATH, amountTableFile } from './amounts.js';
import { DIRTY_PARTITIONS, PARTITION_BLOCKS, writeDumps, type DumpOptions } from './dumps.js';
import { EXPLORER_MISSING, writeExplorer } from './explorer.js';
import { writeSeries } from './series.js';
import { writeFeeds } from './feeds.js';
import { wrapJsonSql } from './wrap-json-sql.js';
import { ANALYSED, digestColumns, digestOf, DROP_WORK_TABLES, exportSql } from './sql.js';
import { writeManifest } from './manifest.js';
import { CHANGES_FILE, GZ_MIN, MANIFEST_FILE } from '../api/release-files.js';
import { writeChanges } from './changes.js';
import { currentRelease, publishRelease, pruneReleases, releaseId, startRelease } from './publish.js';
import { budgetProblems, chooseRangeLayout, DEFAULT_HOST_BUDGET, formatBytes, type HostBudget, type Layout, type ReleaseSize } from './ranges.js';
import { PreviousRanges, rangeBatches, writeRangeFiles } from './range-writer.js';
import {
  ATTRIBUTION_INDEX, chainUnchangedUpTo, checkpointHeights, completeStateDir, dirtyFloor, DOCS_INDEX, EXPORT_FORMAT, extendsPrevious, FILES_INDEX, finalHeightOf,
  PEGS_INDEX, modelFingerprint, releaseState, RENDER_ALL_HINT, STATE_DIR, STATE_FILE, type ExportBasis, type ExportState, type StateFile,
} from './state.js';
import { EVERY_KEY, ReleaseWriter, scopeParams, type DocKey, type FileEntry, type WriterCounts } from './writer.js';

export interface ExportOptions {
  outDir: string;
  /** Default 'ranges' (docs/static-hosting.md). */
  layout?: Layout;
  /** The export fails when the release breaks it (default DEFAULT_HOST_BUDGET: Cloudflare and GitHub Pages). */
  hostBudget?: HostBudget;
  /** Complete releases to keep (default 3); once there are this many, the oldest is recycled into the next one. */
  keep?: number;
  /** Hard-link files unchanged since the current release (default true); false rewrites every byte. */
  incremental?: boolean;
  /** Blocks per dump partition (default PARTITION_BLOCKS); tests use small ones to get several partitions from a short chain. */
  dumpPartitionBlocks?: number;
  /**
   * DuckDB memory limit while exporting (it spills to disk beyond it); default
   * DEFAULT_EXPORT_MEMORY_MB. Document batches (RENDER_BATCH_DOCS) are what let
   * x10 export within it; DuckDB's own default, 80% of RAM, took 11 GB.
   */
  memoryLimitMb?: number;
  /** Dirty documents of a kind rendered at once in the range layout (default RENDER_BATCH_DOCS); tests use small batches to get several from a short chain. */
  renderBatchDocs?: number;
  progress?: Progress;
  log?: (line: string) => void;
  /**
   * Awaited after each step of the export, so a test can stop it at a known
   * point: `started` (the release directory exists, a recycled release is in
   * it), `endpoints`, `documents:<kind>:<page>` (a page of that kind handed
   * to the file worker), `documents:<kind>`, `dumps`, `tree` (every file and
   * the files index written), `manifest` (complete, not yet published),
   * `state` (its state complete too), `published` (current swapped, old
   * releases not yet pruned).
   */
  onStep?: (step: string) => Promise<void> | void;
}

/** The onStep hook, always callable. */
type Step = (step: string) => Promise<void>;

/** What writing the tree needs besides the database and the writer. */
interface TreeOptions {
  log: (line: string) => void;
  layout: Layout;
  budget: HostBudget;
  progress: Progress;
  step: Step;
  /** The release this one follows (current): its directory, its state directory, and its state when of this format. */
  previous: { dir: string; stateDir: string; state: ExportState | null } | null;
  /** Where this release's state is written (a temporary directory until published). */
  stateDir: string;
  /** Pegs above this height may have changed; -1 renders everything (state.ts dirtyFloor). */
  floor: number;
  /** Chain data at or below this height is the previous release's; -1: none (state.ts chainUnchangedUpTo). */
  chainUnchangedUpTo: number;
  /** The previous release's peg digests, when this chain extends its chain (state.ts extendsPrevious); else every peg above the floor is rendered. */
  previousPegs: string | null;
  dumpPartitionBlocks: number | undefined;
  renderBatchDocs: number;
  /** This release's state but its prefix lengths (decided while writing). */
  state: Omit<ExportState, 'prefix_lengths'>;
}

export interface ExportResult {
  releaseId: string;
  dir: string;
  /** The release's state directory (out/<network>/state/<id>): not part of the release. */
  stateDir: string;
  files: number;
  written: number;
  /** Files hard-linked to the previous release. */
  reused: number;
  /** Files of a recycled old release left in place because their bytes were already right. */
  kept: number;
  /** Bytes actually written (reused and kept files cost none). */
  bytes: number;
}

/** The macros every document query uses (coin amounts, JSON assembly). */
const MACROS = exportSql('macros');
/** What documents show of each address (x_attribution). */
const ATTRIBUTION = exportSql('attribution');
/** The keys of every per-query document (x_keys and the address tables). */
const KEYS = exportSql('keys');
/** The digests of the pegs in question and what documents show of each address, for this export and the next (macros dirty_floor(), next_floor()). */
const PEG_DIGESTS = exportSql('peg-digests');
/** Which documents to render (x_dirty_keys) and the pegs they show: those that changed since the previous release, or every one. */
const DIRTY = exportSql('dirty');
const DIRTY_ALL = exportSql('dirty-all');
const DIRTY_COUNTS = 'SELECT (SELECT count(*) FROM x_dirty_keys) AS dirty, (SELECT count(*) FROM x_keys) AS keys';
/** Temp tables of the peg-in/peg-out nodes the documents to render show. */
const NODES = exportSql('nodes');
const HEALTH_COUNTS = exportSql('health-counts');
/** a_stats rows (key, value as JSON text), in key order. */
const STATS = 'SELECT key, value FROM a_stats ORDER BY key';
/** a_recommendations holds the finished `recommendations` object as JSON. */
const RECOMMENDATIONS = 'SELECT doc::VARCHAR AS doc FROM a_recommendations LIMIT 1';
const TOP_LINKS = exportSql('links');
const TOP_AMOUNTS = exportSql('amounts');

/**
 * Writes a complete release of the static tree (docs/static-hosting.md) from the analysed
 * database and publishes it atomically: a kill at any point leaves `current`
 * on the previous complete release.
 */
export function exportRelease(db: Db, opts: ExportOptions): Promise<ExportResult> {
  return db.withMemoryLimit(opts.memoryLimitMb ?? DEFAULT_EXPORT_MEMORY_MB, () => writeRelease(db, opts));
}

async function writeRelease(db: Db, opts: ExportOptions): Promise<ExportResult> {
  const log = opts.log ?? (() => undefined);
  const progress = opts.progress ?? silentProgress;
  const stamp = await analysisStamp(db);
  const current = await currentRelease(opts.outDir);
  const id = releaseId(stamp.as_of_height);
  const keep = opts.keep ?? DEFAULT_KEEP_RELEASES;
  const incremental = opts.incremental ?? true;
  // Unchanged documents keep their stamp either way; only with `incremental` are their files carried over.
  const currentState = current ? await releaseState(opts.outDir, current) : null;
  const started = await startRelease(opts.outDir, id, incremental ? keep : undefined);
  const { dir: tmpDir, recycled } = started;
  // The recycled release's state was checked complete before recycling; its files index says what the directory holds.
  const recycledFiles = recycled ? join((await completeStateDir(opts.outDir, recycled))!, FILES_INDEX) : null;
  log(`export ${stamp.network} at height ${stamp.as_of_height} into release ${id}${recycled ? ` (recycling release ${recycled}, which pruning would remove)` : ''}${currentState && incremental ? ' (reusing unchanged files of the current release)' : ''}`);
  if (current && !currentState) log(`the current release has no complete state in ${join(opts.outDir, STATE_DIR)}: every document is rendered`);

  const step: Step = async (name) => { await opts.onStep?.(name); };
  const layout = opts.layout ?? 'ranges';
  await db.exec(MACROS);
  await db.exec(ANALYSED);
  const basis = await exportBasis(db, stamp, layout);
  const previous = current && currentState ? { dir: current, stateDir: currentState.dir, state: currentState.state } : null;
  // Today's hashes at this release's checkpoints and at the previous release's, to tell whether that chain is still this one.
  const heights = [...checkpointHeights(stamp.as_of_height), ...(previous?.state?.checkpoints.map(([height]) => height) ?? [])];
  const hashes = new Map((await db.all<{ height: number; hash: string }>(CHECKPOINTS, [JSON.stringify(heights)])).map((c) => [c.height, c.hash]));
  const checkpoints = checkpointHeights(stamp.as_of_height).filter((height) => hashes.has(height)).map((height) => [height, hashes.get(height)!] as [number, string]);
  // Stamps come from the previous release either way; only an incremental export renders just what may have changed.
  const hashAt = (height: number): string | undefined => hashes.get(height);
  const chainUpTo = incremental ? chainUnchangedUpTo(previous?.state ?? null, basis, hashAt) : -1;
  const floor = dirtyFloor(previous?.state ?? null, chainUpTo);
  // A release of an earlier pegscope may lack the digests: then every peg above the floor is rendered.
  const pegsIndex = previous && join(previous.stateDir, PEGS_INDEX);
  const previousPegs = floor >= 0 && extendsPrevious(previous!.state!, basis, hashAt) && existsSync(pegsIndex!) ? pegsIndex : null;
  const tree: TreeOptions = {
    log, layout, budget: opts.hostBudget ?? DEFAULT_HOST_BUDGET, progress, step, floor, chainUnchangedUpTo: chainUpTo, previousPegs, dumpPartitionBlocks: opts.dumpPartitionBlocks,
    renderBatchDocs: opts.renderBatchDocs ?? RENDER_BATCH_DOCS, previous, stateDir: started.stateDir,
    state: { format: EXPORT_FORMAT, ...basis, checkpoints },
  };
  let writer: ReleaseWriter | null = null;
  let counts: WriterCounts;
  try {
    await step('started');
    writer = await ReleaseWriter.open(db, tmpDir, {
      previous: incremental && previous ? { dir: previous.dir, files: join(previous.stateDir, FILES_INDEX) } : null, recycledFiles,
    });
    const documents = await writeTree(db, writer, stamp, tree);
    if (!await writeExplorer(writer)) log(EXPLORER_MISSING);
    if (documents.skipped > 0) log(`skipped ${documents.skipped} queries that are not a valid ${stamp.network} address or txid (never used as file names)`);
    if (documents.ranges) log(`ranges: ${RANGE_KINDS.map((k) => `${k} ${documents.ranges![k].documents} documents in ${16 ** documents.ranges![k].prefix_length} ranges`).join(', ')}`);
    await writer.finish(join(started.stateDir, FILES_INDEX));
    await writeChanges(db, tmpDir, current, stamp);
    await writer.recordFinished(CHANGES_FILE);
    await step('tree');
    counts = await writer.counts();
    const manifestBytes = await writeManifest(db, join(tmpDir, MANIFEST_FILE), stamp);
    counts.bytes += manifestBytes;
    await checkHostBudget(await writer.size(manifestBytes), tree);
    await step('manifest');
    // Last, naming the release: a state directory without it is incomplete and never built on.
    const state: StateFile = { ...tree.state, prefix_lengths: documents.ranges && rangeLengths(documents.ranges), release: id };
    await writeFile(join(started.stateDir, STATE_FILE), json(state));
    await step('state');
  } catch (err) {
    await writer?.abandon().catch(() => undefined);
    await rm(tmpDir, { recursive: true, force: true });
    await rm(started.stateDir, { recursive: true, force: true });
    throw err;
  } finally {
    await db.exec(DROP_WORK_TABLES);
  }

  const dir = await publishRelease(opts.outDir, started, id);
  await step('published');
  const pruned = await pruneReleases(opts.outDir, keep);
  // The manifest counts as one more written file.
  const { files, written, reused, kept, bytes } = counts;
  const result = { releaseId: id, dir, stateDir: join(opts.outDir, STATE_DIR, id), files: files + 1, written: written + 1, reused, kept, bytes };
  log(`published ${id}: ${result.files} files, ${result.written} written, ${reused} linked to the previous release, ${kept} kept in place, ${(result.bytes / 1e6).toFixed(1)} MB written${pruned.length ? `; pruned ${pruned.join(', ')}` : ''}`);
  return result;
}

/** Every file of the release but changes.json and the manifest, and the state's indexes but the files index. */
async function writeTree(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, opts: TreeOptions): Promise<QueryDocumentsResult> {
  const { step } = opts;
  await db.exec(ATTRIBUTION);
  await db.exec(KEYS);
  await db.exec(loadPreviousAttribution(opts.floor >= 0 ? join(opts.previous!.stateDir, ATTRIBUTION_INDEX) : null));
  await db.exec(loadPreviousPegs(opts.previousPegs));
  // Blocks at or below it are final: unless the chain reorganises, the next export's floor.
  const finalUpTo = finalHeightOf(opts.state);
  // Macros, not parameters: the script's statements all read them.
  await db.exec(`CREATE OR REPLACE TEMP MACRO dirty_floor() AS ${Math.trunc(opts.floor)}; CREATE OR REPLACE TEMP MACRO next_floor() AS ${Math.trunc(finalUpTo)}`);
  await db.exec(PEG_DIGESTS);
  await db.exec(opts.floor < 0 ? DIRTY_ALL : DIRTY);
  const { dirty, keys } = (await db.one<{ dirty: bigint; keys: bigint }>(DIRTY_COUNTS))!;
  const which = opts.floor < 0 ? 'every document'
    : `the documents of ${opts.previousPegs ? 'changed pegs' : 'every peg'} above height ${opts.floor} and of addresses whose attribution changed`;
  opts.log(`rendering ${dirty} of ${keys} documents: ${which}`);
  await db.exec(FOLLOW_HOPS);
  await db.exec(NODES);
  await writeEndpointDocuments(db, writer, stamp);
  await writeSeries(db, writer, stamp);
  await writeFeeds(db, stamp, (path, text) => writer.put(path, text));
  await step('endpoints');
  const dumpOptions: DumpOptions = {
    finalUpTo,
    carryUpTo: opts.previousPegs ? opts.previous!.state!.as_of_height : opts.floor,
    chainCarryUpTo: opts.chainUnchangedUpTo,
    previousFinalUpTo: finalHeightOf(opts.previous?.state ?? null),
    partitionBlocks: opts.dumpPartitionBlocks,
    previous: new Map((await db.all<FileEntry>(PREVIOUS_DUMPS)).map((f) => [f.path, { path: f.path, size: Number(f.size), sha256: f.sha256 }])),
    previousDir: opts.previous?.state ? opts.previous.dir : null,
    dirty: new Set((await db.all<{ part: string }>(DIRTY_PARTITIONS, [opts.dumpPartitionBlocks ?? PARTITION_BLOCKS])).map((r) => r.part)),
  };
  // Both run to the end even when one fails, so nothing writes into the release after it is removed.
  const [documents, dumps] = await Promise.allSettled([
    writeQueryDocuments(db, writer, stamp, opts),
    writeDumps(db, writer, dumpOptions).then(() => step('dumps')),
  ]);
  if (documents.status === 'rejected') throw documents.reason;
  if (dumps.status === 'rejected') throw dumps.reason;
  await writer.put('_redirects', redirectsFile());
  await writer.put('_headers', headersFile());
  writer.putPlain('nginx.conf', nginxSnippet());
  await db.exec(`COPY (SELECT * FROM x_attr_now ORDER BY address) TO ${sqlString(join(opts.stateDir, ATTRIBUTION_INDEX))} (FORMAT parquet, COMPRESSION zstd)`);
  await db.exec(`COPY (${PEGS_INDEX_ROWS}) TO ${sqlString(join(opts.stateDir, PEGS_INDEX))} (FORMAT parquet, COMPRESSION zstd)`);
  return documents.value;
}

/** The digests of the pegs the next export will ask about (the state's pegs.parquet, peg-digests.sql). */
const PEGS_INDEX_ROWS = `SELECT side, txid, vout, ${digestColumns('digest')} FROM x_peg_digests SEMI JOIN x_next_pegs USING (side, txid, vout) ORDER BY side, txid, vout`;

/** The previous release's dump files, which unchanged partitions are carried over from. */
const PREVIOUS_DUMPS = "SELECT path, size, sha256 FROM x_prev_files WHERE starts_with(path, 'dumps/')";

const rangeLengths = (ranges: Record<RangeKind, RangeLayout>): Record<RangeKind, number> =>
  Object.fromEntries(RANGE_KINDS.map((kind) => [kind, ranges[kind].prefix_length])) as Record<RangeKind, number>;

/** x_prev_pegs: the previous release's peg digests; empty when they are not comparable (every peg above the floor is then rendered). */
const loadPreviousPegs = (parquet: string | null): string => parquet
  ? `CREATE OR REPLACE TEMP TABLE x_prev_pegs AS SELECT side, txid, vout, ${digestOf('digest')} FROM read_parquet(${sqlString(parquet)})`
  : 'CREATE OR REPLACE TEMP TABLE x_prev_pegs (side VARCHAR, txid VARCHAR, vout INTEGER, digest UHUGEINT)';

/** x_prev_attr: what the previous release showed of each address; empty when everything is rendered anyway. */
const loadPreviousAttribution = (parquet: string | null): string => parquet
  ? `CREATE OR REPLACE TEMP TABLE x_prev_attr AS SELECT * FROM read_parquet(${sqlString(parquet)})`
  : 'CREATE OR REPLACE TEMP TABLE x_prev_attr (address VARCHAR, attribution VARCHAR, cluster_id VARCHAR, cluster_size BIGINT)';

/** Fails the export (before anything is published) when the release breaks the host budget. */
async function checkHostBudget(size: ReleaseSize, opts: TreeOptions): Promise<void> {
  const problems = budgetProblems(size, opts.budget);
  if (problems.length === 0) return;
  const hint = opts.layout === 'files'
    ? 'the files layout is meant for a mirror without such limits (nginx): pass --host-budget none'
    : 'publish it where these limits do not apply and pass --host-budget none, or raise only the limit you can (e.g. --host-budget files=100000)';
  throw new Error(`the release breaks the host budget: ${problems.join('; ')} (${size.files} files, ${formatBytes(size.totalBytes)}); ${hint}`);
}

/** Block hashes at the checkpoint heights ($1, a JSON list), to recognise this chain later. */
const CHECKPOINTS = "SELECT height, hash FROM analysed_blocks WHERE list_contains(from_json($1, '[\"INTEGER\"]'), height) ORDER BY height DESC";

/** What this export is made from: the model, the layout, the analysis and its horizon and tolerance (a_meta). */
async function exportBasis(db: Db, stamp: AnalysisStamp, layout: Layout): Promise<ExportBasis> {
  const meta = new Map((await db.all<{ key: string; value: string }>('SELECT key, value FROM a_meta')).map((r) => [r.key, r.value]));
  const number = (key: string): number | null => (meta.has(key) && /^\d+$/.test(meta.get(key)!) ? Number(meta.get(key)) : null);
  return { model: modelFingerprint(), layout, as_of_height: stamp.as_of_height, horizon_blocks: number('horizon_blocks'), tolerance: number('tolerance') };
}

async function analysisStamp(db: Db): Promise<AnalysisStamp> {
  const rows = await db.all<{ key: string; value: string }>("SELECT key, value FROM a_meta").catch(() => []);
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  const asOf = Number(meta.get('as_of_height'));
  const updatedAt = Number(meta.get('updated_at'));
  if (!Number.isSafeInteger(asOf) || !Number.isSafeInteger(updatedAt)) {
    throw new Error('the database has no analysis to export (a_meta lacks as_of_height/updated_at); run `pegscope analyze` first');
  }
  const network = networkParams(meta.get('network') ?? '').name as NetworkName;
  return { network, as_of_height: asOf, updated_at: updatedAt };
}

/** The default-parameter documents, the index, the amount table and the top lists. */
async function writeEndpointDocuments(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp): Promise<void> {
  const counts = await db.one<{ cursor: string | null; pegins: bigint; pegouts: bigint }>(HEALTH_COUNTS);
  await writer.put('api/health.json', json(healthDocument(stamp, {
    last_scanned_block: Number(counts?.cursor ?? stamp.as_of_height),
    pegins: Number(counts?.pegins ?? 0), pegouts: Number(counts?.pegouts ?? 0),
  })));
  await writer.put('api/stats.json', json(statsDocument(stamp, await db.all(STATS))));
  const rec = await db.one<{ doc: string }>(RECOMMENDATIONS);
  if (!rec) throw new Error('a_recommendations is empty; run `pegscope analyze` before exporting');
  await writer.put('api/recommendations.json', json(recommendationsDocument(stamp, rec.doc)));
  await writer.put('api/index.json', json(indexDocument(stamp)));
  await writer.put(OPENAPI_PATH, openApiText());

  const topLinks = await db.one<{ links: string | null }>(TOP_LINKS, [links.TOP_LINKS]);
  const linksTop: links.LinksTop = { links: JSON.parse(topLinks?.links ?? '[]') };
  writer.putPlain('data/links.json', json(linksTop));
  const linksDefault = links.sliceLinks(stamp, linksTop, links.DEFAULT_MIN_CONFIDENCE, links.DEFAULT_LIMIT);
  await writer.put('api/links.json', json(linksDefault));
  await writer.put('api/links.csv', links.linksCsv(linksDefault));

  for (const side of ['pegin', 'pegout'] as const) {
    const top = await db.one<{ rows: string | null }>(TOP_AMOUNTS, [side, amounts.TOP_AMOUNTS]);
    const name = amounts.amountsKey(side);
    const topRows: amounts.AmountsTop = { [name]: JSON.parse(top?.rows ?? '[]') };
    writer.putPlain(`data/${name}.json`, json(topRows));
    const byDefault = amounts.sliceAmounts(stamp, topRows, side, amounts.DEFAULT_AMOUNTS_LIMIT);
    await writer.put(`api/${name}.json`, json(byDefault));
    await writer.put(`api/${name}.csv`, amounts.amountsCsv(byDefault, side));
  }

  await writer.put(AMOUNT_TABLE_PATH, json(await amountTableFile(db, stamp)));
}

interface DocRow {
  q: string;
  /** The document's body; null when DuckDB rendered the file and the kind needs no body. */
  body: string | null;
  /** The file DuckDB rendered (envelope and body), when small enough to need no compressed siblings. */
  file: string | null;
  /** Whether the row has a main file (the query's has_file column). */
  has_file: boolean;
  stamp: AnalysisStamp;
  [column: string]: unknown;
}
/** What a kind writes besides its main file; `main` is that file's entries when JavaScript wrote it, null when DuckDB rendered it. */
type EachDocument = (row: DocRow, doc: DocKey, main: FileEntry[] | null) => void | Promise<unknown>;

/**
 * A kind of per-query document: its query (src/export/sql/<query>.sql, rows
 * q, has_file, body, …), recorded in x_docs under `kind`, its body wrapped
 * in the envelope under `key`.
 */
interface DocKind {
  kind: string;
  query: string;
  key: string;
}

/**
 * How a kind's documents become files: `<dir>/<q>.json` for the rows with
 * has_file. DuckDB renders and hashes the file when it is too small for
 * compressed siblings, and the writer does the rest in JavaScript.
 */
interface FileKind extends DocKind {
  dir: string;
  /** Which keys may become file names. */
  accepts: (q: string) => boolean;
  /** Whether `each` needs the body even when DuckDB rendered the file. */
  needsBody: boolean;
  /** Further files of the rendered rows, recorded with them: a query over x_fetch giving x_files rows; $1 = kind, $2 = dir. */
  renderedAliases?: string;
  each?: EachDocument;
}

const docPath = (dir: string, q: string): string => `${dir}/${q}.json`;
const TXID = /^[0-9a-f]{64}$/;

/** Documents fetched into JavaScript at once: enough to keep the file worker busy, few enough to bound memory. */
const PAGE_ROWS = 4096;

/** One kind's documents (bodies in plain decimals: json_plain) with the md5 of each body, as a number (fixed width: cheaper to join, sort and store than hex). */
const docTable = (query: string): string =>
  `CREATE OR REPLACE TEMP TABLE x_doc AS SELECT *, md5_number(body) AS h FROM (SELECT * REPLACE (json_plain(body) AS body) FROM (${query}))`;
const FOLLOW_HOPS = exportSql('follow-hops');
const RECORD_DOCS = exportSql('docs-record');
const CLEAN_DOCS = exportSql('docs-clean');
const DOC_COUNTS = "SELECT (SELECT count(*) FROM x_docs WHERE kind = $1) AS docs, (SELECT count(*) FROM x_keys WHERE kind = $1) AS keys";
const PLAN_FETCH = exportSql('fetch-plan');
const FETCH_PAGE = 'SELECT * EXCLUDE (rn, file_size, file_sha256) FROM x_fetch WHERE rn > $1 AND rn <= $2 ORDER BY rn';
const RENDERED_FILES = exportSql('rendered-files');
const RANGE_DOCS = exportSql('range-docs');
const RANGE_DOCS_KEPT = exportSql('range-docs-kept');
/** One kind's documents on their way into range files: those not rendered (kept), those of the batch (rendered, with texts), and both. */
const CREATE_RANGE_RENDERED = 'CREATE OR REPLACE TEMP TABLE x_range_rendered (prefix VARCHAR, q VARCHAR, part INTEGER, h UHUGEINT, text VARCHAR, stamp_height INTEGER, stamp_time BIGINT)';
const CREATE_RANGE_DOCS = `${CREATE_RANGE_RENDERED};
  CREATE OR REPLACE TEMP TABLE x_range_kept AS FROM x_range_rendered;
  CREATE OR REPLACE TEMP VIEW x_range_docs AS FROM x_range_kept UNION ALL FROM x_range_rendered;
  CREATE OR REPLACE TEMP TABLE x_range_aliases (prefix VARCHAR, alias VARCHAR, q VARCHAR)`;
/** x_range_keys: the dirty keys of the kinds ($1, a JSON list) in one kind's range files, with their prefix ($2 hex digits). */
const RANGE_KEYS = `CREATE OR REPLACE TEMP TABLE x_range_keys AS SELECT kind, q, left(sha256(q), $2) AS prefix FROM x_dirty_keys
  WHERE list_contains(from_json($1, '["VARCHAR"]'), kind)`;
const RANGE_KEY_COUNT = 'SELECT count(*) AS n FROM x_range_keys';
/** x_render_keys: the dirty keys of one kind ($1) in a batch's prefixes (KeyScope $2, $3). */
const RENDER_BATCH_KEYS = 'CREATE OR REPLACE TEMP TABLE x_render_keys AS SELECT kind, q FROM x_range_keys WHERE kind = $1 AND prefix >= $2 AND ($3 IS NULL OR prefix < $3)';
/** Every block hash into the range its sha256 names, with its height; $1 = the prefix length. */
const RANGE_ALIASES = `INSERT INTO x_range_aliases SELECT left(sha256(hash), $1), hash, height::VARCHAR
  FROM analysed_blocks WHERE pegin_count + pegout_count > 0`;
const KEY_COUNTS = 'SELECT kind, count(*) AS n FROM x_keys GROUP BY kind';
/** The envelope around a body as the macro fetch-plan.sql renders small files with (wrapJsonSql), for one network and envelope key. */
const wrapDocumentMacro = (network: NetworkName, key: string): string =>
  `CREATE OR REPLACE TEMP MACRO wrap_document(stamp_height, stamp_time, body) AS ${wrapJsonSql(network, key, { height: 'stamp_height', time: 'stamp_time', body: 'body' })}`;

/** The per-query documents of this export, written to the state's DOCS_INDEX for the next one. */
const CREATE_DOCS = 'CREATE OR REPLACE TEMP TABLE x_docs (kind VARCHAR, q VARCHAR, h UHUGEINT, stamp_height INTEGER, stamp_time BIGINT)';
/** x_docs in key order, so a full and an incremental export write the same bytes. */
const DOCS_INDEX_ROWS = `SELECT kind, q, ${digestColumns('h')}, stamp_height, stamp_time FROM x_docs ORDER BY kind, q`;
const loadPreviousDocs = (parquet: string | null): string => parquet
  ? `CREATE OR REPLACE TEMP TABLE x_prev_docs AS SELECT kind, q, ${digestOf('h')}, stamp_height, stamp_time FROM read_parquet(${sqlString(parquet)})`
  : 'CREATE OR REPLACE TEMP TABLE x_prev_docs AS SELECT * FROM x_docs WHERE false';

const TRACE: DocKind = { kind: 'trace', query: 'trace', key: 'trace' };
const ADDRESS: DocKind = { kind: 'address', query: 'address', key: 'address' };
const FOLLOW: DocKind = { kind: 'follow', query: 'follow', key: 'follow' };
/** Follow chains longer than the default depth: beside the follow documents, cut by the router and the client. */
const FOLLOW_CHAIN: DocKind = { kind: 'follow_chain', query: 'follow-chain', key: 'follow' };
const BLOCK: DocKind = { kind: 'block', query: 'block', key: 'block' };

/** What goes into each kind's range files: the documents (part 0), and follow's longer chains (part 1). */
const RANGE_SOURCES: Record<RangeKind, { doc: DocKind; part: 0 | 1 }[]> = {
  trace: [{ doc: TRACE, part: 0 }],
  address: [{ doc: ADDRESS, part: 0 }],
  follow: [{ doc: FOLLOW, part: 0 }, { doc: FOLLOW_CHAIN, part: 1 }],
  block: [{ doc: BLOCK, part: 0 }],
};

interface QueryDocumentsResult {
  /** Keys refused as file names (files layout). */
  skipped: number;
  /** Prefix length and documents per kind (ranges layout). */
  ranges: Record<RangeKind, RangeLayout> | null;
}

/**
 * trace, address, follow and block documents for every query, as range
 * files or (files layout) one file per query. DuckDB renders each document
 * body and hashes it; a body unchanged since the previous release keeps its
 * stamp, and files whose bytes are unchanged are carried over (hard-linked,
 * or left in a recycled release) instead of written.
 */
async function writeQueryDocuments(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, opts: TreeOptions): Promise<QueryDocumentsResult> {
  await db.exec(CREATE_DOCS);
  // A release of another format (readState: no state) may hash bodies differently, so none of its stamps carry over.
  await db.exec(loadPreviousDocs(opts.previous?.state ? join(opts.previous.stateDir, DOCS_INDEX) : null));
  const result: QueryDocumentsResult = opts.layout === 'files'
    ? { skipped: await writeFilesLayout(db, writer, stamp, opts), ranges: null }
    : { skipped: 0, ranges: await writeRangesLayout(db, writer, stamp, opts) };
  await db.exec(`COPY (${DOCS_INDEX_ROWS}) TO ${sqlString(join(opts.stateDir, DOCS_INDEX))} (FORMAT parquet, COMPRESSION zstd)`);
  return result;
}

/**
 * Dirty documents of a kind rendered at once in the range layout. The
 * aggregations that build bodies hold a batch's pegs in memory and cannot
 * spill; at x10 one batch of every trace document took more than 3 GB.
 */
const RENDER_BATCH_DOCS = 100_000;
/** x_render_keys, what the document queries render: every dirty key of one kind ($1). */
const RENDER_EVERY_KEY = 'CREATE OR REPLACE TEMP TABLE x_render_keys AS SELECT kind, q FROM x_dirty_keys WHERE kind = $1';

/**
 * Renders the documents of x_render_keys of one kind into x_doc and records
 * them in x_docs (a body unchanged since the previous release keeps its
 * stamp); defines wrap_document for the kind's envelope first.
 */
async function renderDocuments(db: Db, stamp: AnalysisStamp, doc: DocKind): Promise<void> {
  await db.exec(wrapDocumentMacro(stamp.network, doc.key));
  await db.exec(docTable(exportSql(doc.query)));
  await db.exec(RECORD_DOCS, [doc.kind, stamp.as_of_height, BigInt(stamp.updated_at)]);
}

/** Records in x_docs the documents of a kind this export does not render, with their previous stamps. */
const recordNotRendered = (db: Db, doc: DocKind): Promise<void> => db.exec(CLEAN_DOCS, [doc.kind]);

/** Fails the export when x_docs lacks a document of the kind once every one is recorded. */
async function checkEveryDocument(db: Db, doc: DocKind): Promise<void> {
  const counts = (await db.one<{ docs: bigint; keys: bigint }>(DOC_COUNTS, [doc.kind]))!;
  if (counts.docs !== counts.keys) {
    throw new Error(`export: ${counts.docs} ${doc.kind} documents for ${counts.keys} keys; the previous release's ${DOCS_INDEX} misses some. Please report this; ${RENDER_ALL_HINT}`);
  }
}

/**
 * The one-file-per-query layout (`--layout files`): api/<kind>/<q>.json
 * (trace also .csv, block also by hash) and data/follow/<q>.json for the
 * longer follow chains. Returns how many keys were refused as file names.
 */
async function writeFilesLayout(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, opts: TreeOptions): Promise<number> {
  const network = networkParams(stamp.network);
  const isAddress = (q: string): boolean => isValidAddress(q, network);
  const kinds: FileKind[] = [
    {
      ...TRACE, dir: 'api/trace', accepts: (q) => TXID.test(q) || isAddress(q), needsBody: false,
      each: ({ q, body, file }, doc) => {
        const parsed = file !== null ? (JSON.parse(file) as { trace: trace.Trace }).trace : JSON.parse(body!) as trace.Trace;
        return writer.put(`api/trace/${q}.csv`, trace.traceCsv(parsed), doc);
      },
    },
    { ...ADDRESS, dir: 'api/address', accepts: isAddress, needsBody: false },
    { ...FOLLOW, dir: 'api/follow', accepts: isAddress, needsBody: false },
    { ...FOLLOW_CHAIN, dir: 'data/follow', accepts: isAddress, needsBody: false },
    {
      // Every block also by hash: a hard link to the file by height.
      ...BLOCK, dir: 'api/block', accepts: () => true, needsBody: false, renderedAliases: exportSql('rendered-block-aliases'),
      each: ({ q, hash, stamp }, doc, main) => {
        if (!TXID.test(String(hash))) return;
        const path = docPath('api/block', String(hash));
        if (main) writer.alias(path, main, doc, stamp);
        else writer.linkRendered(path, docPath('api/block', q));
      },
    },
  ];
  const refused: number[] = [];
  for (const k of kinds) {
    // One batch: writeFiles plans over the whole kind in x_doc. This layout is for mirrors without file limits, not for x10.
    await db.exec(RENDER_EVERY_KEY, [k.kind]);
    await renderDocuments(db, stamp, k);
    await recordNotRendered(db, k);
    await checkEveryDocument(db, k);
    refused.push(await writeFiles(db, writer, stamp, k, opts));
    await opts.step(`documents:${k.kind}`);
  }
  // Every kind's keys are among trace's, so its count is the number of distinct keys refused.
  return Math.max(...refused);
}

/**
 * The range layout (docs/static-hosting.md): per kind, every document packed into
 * api/range/<kind>/<prefix>.json by the sha256 of its key, and
 * api/ranges.json saying how. The dirty documents are rendered and their
 * range files written a batch of consecutive prefixes at a time (RangeBatch).
 * Returns the layout.
 */
async function writeRangesLayout(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, opts: TreeOptions): Promise<Record<RangeKind, RangeLayout>> {
  const counted = new Map((await db.all<{ kind: string; n: bigint }>(KEY_COUNTS)).map((r) => [r.kind, Number(r.n)]));
  const counts = Object.fromEntries(RANGE_KINDS.map((kind) => [kind, counted.get(kind) ?? 0])) as Record<RangeKind, number>;
  const previousLengths = opts.previous?.state?.prefix_lengths ?? null;
  const lengths = chooseRangeLayout(counts, opts.budget, previousLengths);
  const previousRanges = opts.previous && previousLengths ? new PreviousRanges(opts.previous.dir, previousLengths) : null;
  const layout = {} as Record<RangeKind, RangeLayout>;
  for (const kind of RANGE_KINDS) {
    const sources = RANGE_SOURCES[kind];
    const plan = { kind, prefixLength: lengths[kind], previous: previousRanges };
    await db.exec(CREATE_RANGE_DOCS);
    for (const { doc, part } of sources) {
      await recordNotRendered(db, doc);
      await db.exec(RANGE_DOCS_KEPT, [doc.kind, part, plan.prefixLength]);
    }
    if (kind === 'block') await db.exec(RANGE_ALIASES, [plan.prefixLength]);
    await db.exec(RANGE_KEYS, [JSON.stringify(sources.map((s) => s.doc.kind)), plan.prefixLength]);
    const dirty = Number((await db.one<{ n: bigint }>(RANGE_KEY_COUNT))!.n);
    let built = 0;
    for (const batch of rangeBatches(plan.prefixLength, Math.ceil(dirty / opts.renderBatchDocs))) {
      await db.exec(CREATE_RANGE_RENDERED);
      for (const { doc, part } of sources) {
        await db.exec(RENDER_BATCH_KEYS, [doc.kind, ...scopeParams(batch.scope)]);
        await renderDocuments(db, stamp, doc);
        await db.exec(RANGE_DOCS, [doc.kind, part]);
      }
      built += await writeRangeFiles(db, writer, stamp, plan, batch, built, opts.progress, opts.step);
    }
    for (const { doc } of sources) await checkEveryDocument(db, doc);
    layout[kind] = { prefix_length: plan.prefixLength, hash: RANGE_HASH, documents: counts[kind] };
    await opts.step(`documents:${kind}`);
  }
  await writer.put(RANGES_INDEX_PATH, json({ ...envelopeOf(stamp), layout: 'ranges', kinds: layout }));
  return layout;
}

/**
 * Writes the files of the documents in x_doc (recorded in x_docs as k.kind):
 * carries the unchanged ones over and writes the others a page at a time.
 * Returns how many keys were refused as file names.
 */
async function writeFiles(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, k: FileKind, opts: TreeOptions): Promise<number> {
  const { kind } = k;
  await writer.carryUnchanged(kind, EVERY_KEY);
  await db.exec(PLAN_FETCH, [kind, GZ_MIN, k.needsBody]);
  const total = Number((await db.one<{ n: bigint }>('SELECT count(*) AS n FROM x_fetch'))!.n);
  const refused: string[] = [];
  opts.progress.start(`export ${kind}`, total, 'docs');
  const page = (from: number) => db.all<Record<string, unknown>>(FETCH_PAGE, [from, from + PAGE_ROWS]);
  let next = page(0);
  for (let done = 0; done < total; done += PAGE_ROWS) {
    const rows = await next;
    // DuckDB fetches the next page while this one is handed to the file worker.
    if (done + PAGE_ROWS < total) next = page(done + PAGE_ROWS);
    await Promise.all(rows.map((row): Promise<unknown> => {
      const q = String(row.q);
      if (!k.accepts(q)) {
        refused.push(q);
        return Promise.resolve();
      }
      const doc = { kind, q };
      const rowStamp = { network: stamp.network, as_of_height: Number(row.stamp_height), updated_at: Number(row.stamp_time) };
      const docRow = { ...row, q, body: row.body as string | null, file: row.file as string | null, has_file: row.has_file === true, stamp: rowStamp };
      return writeMain(writer, k, docRow, doc).then((main) => k.each?.(docRow, doc, main));
    }));
    await writer.ready();
    opts.progress.update(Math.min(total, done + PAGE_ROWS));
    await opts.step(`documents:${kind}:${done / PAGE_ROWS + 1}`);
  }
  await writer.recordRendered(RENDERED_FILES, [kind, json(refused), k.dir]);
  if (k.renderedAliases) await writer.recordRendered(k.renderedAliases, [kind, k.dir]);
  opts.progress.stop();
  return refused.length;
}

/** A document's main file: DuckDB's rendering when it made one, else wrapped and written here; null when DuckDB rendered it. */
async function writeMain(writer: ReleaseWriter, k: FileKind, row: DocRow, doc: DocKey): Promise<FileEntry[] | null> {
  const path = docPath(k.dir, row.q);
  if (row.file !== null) {
    writer.writeRendered(path, row.file);
    return null;
  }
  return row.has_file ? writer.putDocument(path, k.key, row.body!, doc, row.stamp) : [];
}
