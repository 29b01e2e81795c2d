import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isValidAddress } from '../domain/address.js';
import { networkParams, type NetworkName } from '../domain/network.js';
import { DEFAULT_EXPORT_MEMORY_MB, DEFAULT_KEEP_RELEASES } from '../domain/model.js';
import type { Db } from '../store/db.js';
import { silentProgress, type Progress } from '../progress.js';
import { envelopeOf, type AnalysisStamp } from '../api/envelope.js';
import { RANGE_KINDS, RANGES_INDEX_PATH, type RangeKind, type RangeLayout } from '@pegscope/client';
import * as trace from '../api/trace.js';
import { toJson as json } from '../api/json.js';
import { redirectsFile, headersFile, nginxSnippet } from './configs.js';
import { dirtyPartitionBlocks, PARTITION_BLOCKS, writeDumps } from './dumps.js';
import { EXPLORER_MISSING, explorerDigest, writeExplorer } from './explorer.js';
import { exportSql } from './sql.js';
import { packageVersion } from '../version.js';
import { writeEndpointDocuments } from './endpoints.js';
import { writeManifest } from './manifest.js';
import { signReleaseFile, type ReleaseSigner } from './sign.js';
import { writeSignedIndex } from './signed-index.js';
import { publicKeyFile, type SecretKey } from '../trust/minisign.js';
import { CHANGES_FILE, GZ_MIN, MANIFEST_FILE, SIGNED_INDEX_PATH } from '../api/release-files.js';
import { writeChanges, type ChangeCounts } from './changes.js';
import { currentRelease, publishRelease, pruneReleases, releaseId, startRelease, type StartedRelease } from './publish.js';
import { budgetProblems, chooseRangeLayout, DEFAULT_HOST_BUDGET, formatBytes, type HostBudget, type Layout, type ReleaseSize } from './ranges.js';
import { PreviousRanges, rangeBatches, rangeLayout, rangesLine, writeRangeFiles } from './range-writer.js';
import {
  checkpointHeights, completeStateDir, DOCS_DB, FILES_INDEX, LEGACY_ATTRIBUTION_INDEX, LEGACY_DOCS_INDEX, LEGACY_PEGS_INDEX, modelFingerprint, releaseState, RENDER_ALL_HINT,
  sourceDigest, STATE_DIR, STATE_FILE, type ExportBasis, type ReleaseState,
} from './state.js';
import { EVERY_KEY, ReleaseWriter, type DocKey, type FileEntry, type WriterCounts } from './writer.js';
import { CarriedFileDamaged } from './file-queue.js';
import { planExport, rendersAllButCarries, stateFile, type ExportPlan, type PreviousRelease } from './plan.js';
import { ExportWorkspace, type DirtyCounts, type DocKind } from './workspace.js';

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
  /**
   * Signs the release with this key (docs/verifying.md): manifest.json.minisig
   * and api/signed.json.minisig. The key is held in memory only.
   */
  signKey?: SecretKey;
  /**
   * The minisign public keys (`RW…` or key files' text) the explorer page
   * verifies the amount table and range files against; default: signKey's
   * public half, else none.
   */
  explorerPublicKeys?: readonly string[];
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
   * `state` (its state complete too), `staged` (its documents staged in the
   * documents index), `published` (current swapped, the index not yet
   * describing it, old releases not yet pruned).
   */
  onStep?: (step: string) => Promise<void> | void;
  /**
   * Publish nothing when the release would be the current one but for its
   * stamps: same chain, labels, analysis and exporter (state.ts
   * sourceDigest). The job sets it; `export` publishes every time.
   */
  onlyWhenChanged?: boolean;
  /** The site's public URL, ending in '/' (--site-url): the feeds' links are absolute under it (docs/notifications.md "Feeds"); relative without. */
  siteUrl?: string;
}

/** The onStep hook, always callable. */
type Step = (step: string) => Promise<void>;

export interface ExportResult {
  /** False when nothing changed (onlyWhenChanged): the release is the current one, and the counts are 0. */
  published: boolean;
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
  /** What changes.json lists: the files a mirror uploads or deletes. */
  changes: ChangeCounts;
}

/**
 * Writes a complete release of the static tree (docs/static-hosting.md) from the analysed
 * database and publishes it atomically: a kill at any point leaves `current`
 * on the previous complete release.
 */
export function exportRelease(db: Db, opts: ExportOptions): Promise<ExportResult> {
  return db.withMemoryLimit(opts.memoryLimitMb ?? DEFAULT_EXPORT_MEMORY_MB, async () => {
    try {
      return await writeRelease(db, opts);
    } catch (err) {
      // A file to carry over is not what an export wrote there: nothing is carried, every file is written anew (docs/static-hosting.md "Damage and planted links").
      if (!(err instanceof CarriedFileDamaged) || opts.incremental === false) throw err;
      opts.log?.(`${err.message}: this export writes every file anew instead of carrying any over`);
      return writeRelease(db, { ...opts, incremental: false });
    }
  });
}

/** One export under way: its plan, the workspace its steps share, the writer of its files, and where it reports. */
interface ExportRun {
  plan: ExportPlan;
  workspace: ExportWorkspace;
  writer: ReleaseWriter;
  log: (line: string) => void;
  progress: Progress;
  step: Step;
  siteUrl: string | null;
}

async function writeRelease(db: Db, opts: ExportOptions): Promise<ExportResult> {
  const log = opts.log ?? (() => undefined);
  const workspace = new ExportWorkspace(db);
  const meta = await workspace.meta();
  const stamp = analysisStamp(meta);
  const current = await currentRelease(opts.outDir);
  const id = releaseId(stamp.as_of_height);
  const keep = opts.keep ?? DEFAULT_KEEP_RELEASES;
  const incremental = opts.incremental ?? true;
  // Unchanged documents keep their stamp either way; only with `incremental` are their files carried over.
  const currentState = current ? await releaseState(opts.outDir, current) : null;
  const source = await sourceOf(db, opts);
  if (opts.onlyWhenChanged && current && source !== null && currentState?.state?.source_digest === source) {
    log(`up to date: release ${basename(current)} (height ${currentState.state.as_of_height})`);
    return upToDate(opts.outDir, current);
  }
  const started = await startRelease(opts.outDir, id, incremental ? keep : undefined);
  const { recycled } = started;
  log(`export ${stamp.network} at height ${stamp.as_of_height} into release ${id}${recycled ? ` (recycling release ${recycled}, which pruning would remove)` : ''}${currentState && incremental ? ' (reusing unchanged files of the current release)' : ''}`);
  if (current && !currentState) log(`the current release has no complete state in ${join(opts.outDir, STATE_DIR)}: every document is rendered`);
  await workspace.open();
  try {
    const indexed = await indexDescribesCurrent(workspace, join(opts.outDir, STATE_DIR, DOCS_DB), current, currentState, log);
    const previous: PreviousRelease | null = current && currentState ? { dir: current, stateDir: currentState.dir, state: currentState.state } : null;
    const basis = exportBasis(meta, stamp, opts.layout ?? 'ranges', source);
    // Today's hashes at this release's checkpoints and at the previous release's, to tell whether that chain is still this one.
    const heights = [...checkpointHeights(stamp.as_of_height), ...(previous?.state?.checkpoints.map(([height]) => height) ?? [])];
    const plan = planExport({
      stamp, basis, hashes: await workspace.checkpointHashes(heights), previous, stateDir: started.stateDir, incremental, ...indexed,
      budget: opts.hostBudget ?? DEFAULT_HOST_BUDGET, partitionBlocks: opts.dumpPartitionBlocks ?? PARTITION_BLOCKS,
      renderBatchDocs: opts.renderBatchDocs ?? RENDER_BATCH_DOCS,
    });
    const step: Step = async (name) => { await opts.onStep?.(name); };
    const signer: ReleaseSigner | null = opts.signKey ? { key: opts.signKey, releaseId: id, now: Date.now } : null;
    const explorerKeys = explorerKeysOf(opts);
    const built = await buildRelease(db, { plan, workspace, log, progress: opts.progress ?? silentProgress, step, siteUrl: opts.siteUrl ?? null }, { ...started, outDir: opts.outDir, id, current, signer, explorerKeys, keep });

    const dir = await publishRelease(opts.outDir, started, id);
    await step('published');
    await workspace.applyDocsIndex();
    const pruned = await pruneReleases(opts.outDir, keep);
    // The manifest counts as one more written file.
    const { files, written, reused, kept, bytes } = built.counts;
    const result = { published: true, releaseId: id, dir, stateDir: join(opts.outDir, STATE_DIR, id), files: files + 1, written: written + 1, reused, kept, bytes, changes: built.changes };
    log(`published ${id}: ${result.files} files, ${result.written} written, ${reused} linked to the previous release, ${kept} kept in place, ${(result.bytes / 1e6).toFixed(1)} MB written${pruned.length ? `; pruned ${pruned.join(', ')}` : ''}`);
    return result;
  } finally {
    await workspace.closeDocsIndex();
  }
}

/** A started release (its temporary directories), its site, id, and the release current names (null: none). */
interface ReleaseToBuild extends StartedRelease {
  outDir: string;
  id: string;
  current: string | null;
  /** Signs the release; null: unsigned. */
  signer: ReleaseSigner | null;
  /** The keys the explorer page verifies against. */
  explorerKeys: readonly string[];
  /** Complete releases kept. */
  keep: number;
}

/** The most names a file carried from release to release has: one in each release kept, the current, the new one and one being pruned, twice for a block's name by hash. */
const maxLinksOf = (keep: number): number => 2 * (keep + 3);

/**
 * Writes the release into its temporary directory and its state beside it,
 * and stages its documents in the documents index; on failure removes both
 * (the stage is discarded by the next export, as it names no current release).
 */
async function buildRelease(db: Db, ctx: Omit<ExportRun, 'writer'>, release: ReleaseToBuild): Promise<{ counts: WriterCounts; changes: ChangeCounts }> {
  const { plan, workspace, log, step } = ctx;
  const { dir: tmpDir, recycled, stateDir, id, current, signer, explorerKeys } = release;
  let writer: ReleaseWriter | null = null;
  try {
    await step('started');
    // The recycled release's state was checked complete before recycling; its files index says what the directory holds.
    const recycledFiles = recycled ? join((await completeStateDir(release.outDir, recycled))!, FILES_INDEX) : null;
    writer = await ReleaseWriter.open(db, tmpDir, {
      previous: plan.previousFiles ? { dir: plan.previous!.dir, files: plan.previousFiles } : null, recycledFiles, maxLinks: maxLinksOf(release.keep),
    });
    const documents = await writeTree({ ...ctx, writer });
    if (!await writeExplorer(writer, undefined, explorerKeys)) log(EXPLORER_MISSING);
    if (documents.skipped > 0) log(`skipped ${documents.skipped} queries that are not a valid ${plan.stamp.network} address or txid (never used as file names)`);
    if (documents.ranges) log(rangesLine(documents.ranges));
    await writeSignedIndex(writer, plan.stamp, documents.ranges, signer);
    log(documentFilesLine(await writer.documentFiles()));
    // The files index the writer loaded is the current release's own (not an earlier pegscope's, inside the release).
    const previousListed = plan.previousFiles !== null && current !== null && plan.previous!.stateDir === join(release.outDir, STATE_DIR, basename(current));
    // While the file worker applies the last operations (thousands of links after a block); written where no name is.
    await writer.pathFor(CHANGES_FILE);
    writer.flushRecords();
    const changes = await writeChanges(db, tmpDir, current, plan.stamp, previousListed);
    await writer.recordFinished(CHANGES_FILE);
    await writer.finish();
    // With the inode and mtime of every file, which the worker reports as it applies the operations.
    await writer.writeIndex(join(stateDir, FILES_INDEX));
    await step('tree');
    const counts = await writer.counts();
    const manifestBytes = await writeManifest(db, join(tmpDir, MANIFEST_FILE), plan.stamp);
    counts.bytes += manifestBytes;
    const size = await writer.size(manifestBytes);
    if (signer) {
      const signatureBytes = await signReleaseFile(join(tmpDir, MANIFEST_FILE), MANIFEST_FILE, plan.stamp, signer);
      log(`signed manifest.json and ${SIGNED_INDEX_PATH} with key ${signer.key.keyIdHex}`);
      counts.files += 1;
      counts.written += 1;
      counts.bytes += signatureBytes;
      size.files += 1;
      size.totalBytes += signatureBytes;
    }
    checkHostBudget(size, plan);
    await step('manifest');
    // Last, naming the release: a state directory without it is incomplete and never built on.
    await writeFile(join(stateDir, STATE_FILE), json(stateFile(plan, documents.ranges, id)));
    await step('state');
    await workspace.stageDocsIndex(id, plan.floor < 0);
    await step('staged');
    return { counts, changes };
  } catch (err) {
    await writer?.abandon().catch(() => undefined);
    await rm(tmpDir, { recursive: true, force: true });
    await rm(stateDir, { recursive: true, force: true });
    throw err;
  } finally {
    await workspace.drop();
  }
}

/** Whether the documents index describes the previous release, and holds its peg digests. */
interface IndexedRelease { previousDocs: boolean; previousPegDigests: boolean }

/**
 * Whether the site's documents index describes the current release, so that
 * documents not rendered are taken from it. When the release is one of an
 * earlier pegscope, whose state held its own documents index or its
 * attribution and peg digests, those are imported first.
 */
async function indexDescribesCurrent(workspace: ExportWorkspace, path: string, current: string | null, state: ReleaseState | null, log: (line: string) => void): Promise<IndexedRelease> {
  const id = current && basename(current);
  const indexed = await workspace.openDocsIndex(path, id);
  if (!id || !state?.state) return { previousDocs: false, previousPegDigests: false };
  const legacy = join(state.dir, LEGACY_DOCS_INDEX);
  if (indexed !== id && !existsSync(legacy)) {
    log(`the documents index ${path} describes ${indexed === null ? 'no release' : `release ${indexed}`}, not the current release ${id}: every document is rendered`);
    return { previousDocs: false, previousPegDigests: false };
  }
  if (indexed !== id) await workspace.importLegacyDocs(legacy, id);
  const legacyAttribution = join(state.dir, LEGACY_ATTRIBUTION_INDEX);
  if (!existsSync(legacyAttribution)) return { previousDocs: true, previousPegDigests: true };
  const legacyPegs = join(state.dir, LEGACY_PEGS_INDEX);
  const previousPegDigests = existsSync(legacyPegs);
  await workspace.importLegacyDigests(legacyAttribution, previousPegDigests ? legacyPegs : null);
  return { previousDocs: true, previousPegDigests };
}

/**
 * The line saying what the export renders. When it renders every document
 * but carries the files of unchanged ones over (another model or horizon, a
 * chain that changed below every checkpoint), it says so: the files of most
 * documents are then linked, not written.
 */
export function renderingLine(plan: ExportPlan, counts: { dirty: number; keys: number; analysisIndexed: boolean }): string {
  if (rendersAllButCarries(plan)) {
    return `rendering ${counts.dirty} of ${counts.keys} documents to compare with the previous release (${plan.renderAllReason}): `
      + 'the files of those whose bytes are unchanged are linked, not written';
  }
  const which = plan.floor < 0 ? `every document (${plan.renderAllReason})`
    : counts.analysisIndexed ? 'the analysis is the one the previous release shows, so no peg or address changed'
      : `the documents of ${plan.previousPegs ? 'changed pegs' : 'every peg'} above height ${plan.floor} and of addresses whose attribution changed`;
  return `rendering ${counts.dirty} of ${counts.keys} documents: ${which}`;
}

/** The line saying how many document files were written and how many carried over from the previous release. */
export const documentFilesLine = (files: { written: number; carried: number }): string =>
  `document files: ${files.written} written, ${files.carried} carried over unchanged from the previous release`;

/** Every file of the release but changes.json and the manifest, and the state's indexes but the files index. */
async function writeTree(run: ExportRun): Promise<QueryDocumentsResult> {
  const { plan, workspace, writer, step } = run;
  const stamp = plan.stamp;
  // Both run to the end even when one fails, so nothing writes into the release after it is removed.
  const [planned, endpoints] = await Promise.allSettled([planDocuments(run), writeEndpointDocuments(workspace.db, writer, stamp, run.siteUrl)]);
  if (planned.status === 'rejected') throw planned.reason;
  if (endpoints.status === 'rejected') throw endpoints.reason;
  const dirty = planned.value;
  await step('endpoints');
  const dumpOptions = {
    siteUrl: run.siteUrl,
    finalUpTo: plan.finalUpTo,
    carryUpTo: plan.dumps.carryUpTo,
    everyChangeDirty: plan.previousPegs,
    chainCarryUpTo: plan.chainUnchangedUpTo,
    previousFinalUpTo: plan.dumps.previousFinalUpTo,
    partitionBlocks: plan.dumps.partitionBlocks,
    previousDigests: await workspace.previousDumpDigests(),
    dirty: await workspace.dirtyPartitions(dirtyPartitionBlocks(plan.dumps.partitionBlocks)),
  };
  // Both run to the end even when one fails, so nothing writes into the release after it is removed.
  const [documents, dumps] = await Promise.allSettled([
    writeQueryDocuments(run, dirty.keysByKind),
    writeDumps(workspace.db, writer, dumpOptions).then(async (digests) => { await step('dumps'); return digests; }),
  ]);
  if (documents.status === 'rejected') throw documents.reason;
  if (dumps.status === 'rejected') throw dumps.reason;
  await workspace.recordDumpDigests(stamp, dumps.value);
  await writer.put('_redirects', redirectsFile());
  await writer.put('_headers', headersFile());
  writer.putPlain('nginx.conf', nginxSnippet());
  return documents.value;
}

/** Decides which per-query documents to render, and prepares the nodes they show. */
async function planDocuments(run: ExportRun): Promise<DirtyCounts> {
  const { plan, workspace } = run;
  const dirty = await workspace.planDirty(plan);
  run.log(renderingLine(plan, dirty));
  // Before the dumps, which compare with the previous release's digests.
  await workspace.startDocuments(plan.previousDocs, plan.keysOnlyGrow);
  await workspace.prepareNodes();
  return dirty;
}

/** Fails the export (before anything is published) when the release breaks the host budget. */
function checkHostBudget(size: ReleaseSize, plan: ExportPlan): void {
  const problems = budgetProblems(size, plan.budget);
  if (problems.length === 0) return;
  const hint = plan.layout === 'files'
    ? 'the files layout is meant for a mirror without such limits (nginx): pass --host-budget none'
    : 'publish it where these limits do not apply and pass --host-budget none, or raise only the limit you can (e.g. --host-budget files=100000)';
  throw new Error(`the release breaks the host budget: ${problems.join('; ')} (${size.files} files, ${formatBytes(size.totalBytes)}); ${hint}`);
}

/** What this export is made from: the model, the layout, the analysis and its horizon and tolerance (a_meta), and the digest of all of it with the labels. */
function exportBasis(meta: Map<string, string>, stamp: AnalysisStamp, layout: Layout, source: string | null): ExportBasis {
  const number = (key: string): number | null => (meta.has(key) && /^\d+$/.test(meta.get(key)!) ? Number(meta.get(key)) : null);
  return {
    model: modelFingerprint(), layout, as_of_height: stamp.as_of_height, horizon_blocks: number('horizon_blocks'), tolerance: number('tolerance'), source_digest: source ?? '',
  };
}

const SOURCE_DIGEST = exportSql('source-digest');

/** The keys the explorer page verifies against: --explorer-public-key, else the public half of --sign-key. */
const explorerKeysOf = (opts: ExportOptions): readonly string[] => opts.explorerPublicKeys ?? (opts.signKey ? [publicKeyFile(opts.signKey)] : []);

/** The digest of what this export is made from (state.ts sourceDigest); null when the analysis cannot say (one of an earlier pegscope). */
async function sourceOf(db: Db, opts: ExportOptions): Promise<string | null> {
  const row = await db.one<{ source: string | null }>(SOURCE_DIGEST).catch(() => undefined);
  if (!row?.source) return null;
  return sourceDigest(row.source, {
    layout: opts.layout ?? 'ranges', version: packageVersion(), explorer: explorerDigest(), partitionBlocks: opts.dumpPartitionBlocks ?? PARTITION_BLOCKS,
    budget: opts.hostBudget ?? DEFAULT_HOST_BUDGET, siteUrl: opts.siteUrl ?? null,
    signedBy: opts.signKey?.keyIdHex ?? null, explorerKeys: explorerKeysOf(opts),
  });
}

/** The result of an export that published nothing: `current` stays as it was. */
function upToDate(outDir: string, current: string): ExportResult {
  const id = basename(current);
  return {
    published: false, releaseId: id, dir: current, stateDir: join(outDir, STATE_DIR, id), files: 0, written: 0, reused: 0, kept: 0, bytes: 0,
    changes: { added: 0, changed: 0, removed: 0 },
  };
}

function analysisStamp(meta: Map<string, string>): AnalysisStamp {
  const asOf = Number(meta.get('as_of_height'));
  const updatedAt = Number(meta.get('updated_at'));
  if (!Number.isSafeInteger(asOf) || !Number.isSafeInteger(updatedAt)) {
    throw new Error('the database has no analysis to export (a_meta lacks as_of_height/updated_at); run `pegscope analyze` first');
  }
  const network = networkParams(meta.get('network') ?? '').name as NetworkName;
  return { network, as_of_height: asOf, updated_at: updatedAt };
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
  /** Whether every rendered document is also linked by its hash (blocks). */
  byHash?: boolean;
  each?: EachDocument;
}

const docPath = (dir: string, q: string): string => `${dir}/${q}.json`;
const TXID = /^[0-9a-f]{64}$/;

/** Documents fetched into JavaScript at once: enough to keep the file worker busy, few enough to bound memory. */
const PAGE_ROWS = 4096;

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
async function writeQueryDocuments(run: ExportRun, keysByKind: Map<string, number>): Promise<QueryDocumentsResult> {
  const { plan, workspace } = run;
  const result = plan.layout === 'files'
    ? { skipped: await writeFilesLayout(run), ranges: null }
    : { skipped: 0, ranges: await writeRangesLayout(run, keysByKind) };
  await checkEveryDocument(workspace, keysByKind);
  return result;
}

/**
 * Dirty documents of a kind rendered at once in the range layout. The
 * aggregations that build bodies hold a batch's pegs in memory and cannot
 * spill; at x10 one batch of every trace document took more than 3 GB.
 */
const RENDER_BATCH_DOCS = 100_000;

/** Fails the export when the documents index would lack a document of a kind, or hold one too many, once this export's are merged. */
async function checkEveryDocument(workspace: ExportWorkspace, keysByKind: Map<string, number>): Promise<void> {
  for (const counts of await workspace.documentCounts(keysByKind)) {
    if (counts.docs !== counts.keys) {
      throw new Error(`export: ${counts.docs} ${counts.kind} documents for ${counts.keys} keys; the documents index (state/${DOCS_DB}) disagrees with the previous release. Please report this; ${RENDER_ALL_HINT}`);
    }
  }
}

/**
 * The one-file-per-query layout (`--layout files`): api/<kind>/<q>.json
 * (trace also .csv, block also by hash) and data/follow/<q>.json for the
 * longer follow chains. Returns how many keys were refused as file names.
 */
async function writeFilesLayout(run: ExportRun): Promise<number> {
  const { plan: { stamp }, workspace, writer } = run;
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
      ...BLOCK, dir: 'api/block', accepts: () => true, needsBody: false, byHash: true,
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
    // One batch: writeFiles plans over the whole kind rendered. This layout is for mirrors without file limits, not for x10.
    await workspace.renderEveryKey(k.kind);
    await workspace.renderDocuments(stamp, k);
    refused.push(await writeFiles(run, k));
    await run.step(`documents:${k.kind}`);
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
async function writeRangesLayout(run: ExportRun, keysByKind: Map<string, number>): Promise<Record<RangeKind, RangeLayout>> {
  const { plan, workspace, writer } = run;
  const { stamp } = plan;
  const counts = Object.fromEntries(RANGE_KINDS.map((kind) => [kind, keysByKind.get(kind) ?? 0])) as Record<RangeKind, number>;
  const previousLengths = plan.previousRangeLengths;
  const lengths = chooseRangeLayout(counts, plan.budget, previousLengths);
  const previousRanges = plan.previous && previousLengths ? new PreviousRanges(plan.previous.dir, previousLengths, await writer.previousRangeReader()) : null;
  const layout = {} as Record<RangeKind, RangeLayout>;
  for (const kind of RANGE_KINDS) {
    const sources = RANGE_SOURCES[kind];
    const job = { workspace, writer, stamp, plan: { kind, prefixLength: lengths[kind], previous: previousRanges }, progress: run.progress, step: run.step };
    const { prefixLength } = job.plan;
    await workspace.startRangeKind();
    await workspace.dropOtherRangeLengths(kind, prefixLength);
    const kinds = sources.map((s) => s.doc.kind);
    const dirty = await workspace.selectRangeKeys(kinds, prefixLength);
    const grewFrom = plan.keysOnlyGrow ? plan.previous!.state!.as_of_height : null;
    const aliasesIndexed = kind === 'block' && await workspace.addRangeAliases(stamp, prefixLength, grewFrom);
    // Every range when the prefix length changed, and block ranges when the chain did not only grow (a hash alias may be gone).
    const touched = await workspace.touchRanges(kind, kinds, prefixLength, plan.floor < 0 || previousLengths?.[kind] !== prefixLength || (kind === 'block' && !plan.keysOnlyGrow));
    if (aliasesIndexed) await workspace.addIndexedRangeAliases(prefixLength);
    layout[kind] = rangeLayout(job.plan.prefixLength, counts[kind]);
    if (touched?.length === 0) {
      // No dirty document and no range to refresh: every range file is the previous release's.
      await writer.carryEvery(`range:${kind}`);
      await run.step(`documents:${kind}`);
      continue;
    }
    for (const { doc, part } of sources) await workspace.keepRangeDocuments(doc.kind, part, prefixLength, touched);
    let built = 0;
    for (const batch of rangeBatches(job.plan.prefixLength, Math.ceil(dirty / plan.renderBatchDocs))) {
      await workspace.startRangeBatch();
      for (const { doc, part } of sources) {
        await workspace.renderBatchKeys(doc.kind, batch.scope);
        await workspace.renderDocuments(stamp, doc);
        await workspace.addRenderedRangeDocuments(doc.kind, part);
      }
      built += await writeRangeFiles(job, batch, built);
    }
    await run.step(`documents:${kind}`);
  }
  await writer.put(RANGES_INDEX_PATH, json({ ...envelopeOf(stamp), layout: 'ranges', kinds: layout }));
  return layout;
}

/**
 * Writes the files of a kind's rendered documents (recorded as k.kind):
 * carries the unchanged ones over and writes the others a page at a time.
 * The progress bar counts the documents whose files are written. Returns
 * how many keys were refused as file names.
 */
async function writeFiles(run: ExportRun, k: FileKind): Promise<number> {
  const { plan: { stamp }, workspace, writer, progress } = run;
  const { kind } = k;
  await writer.carryUnchanged(kind, EVERY_KEY);
  const total = await workspace.planFetch(kind, GZ_MIN, k.needsBody);
  const refused: string[] = [];
  progress.start(`export ${kind}`, total, 'docs');
  const page = (from: number) => workspace.fetchPage(from, from + PAGE_ROWS);
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
    progress.update(Math.min(total, done + PAGE_ROWS));
    await run.step(`documents:${kind}:${done / PAGE_ROWS + 1}`);
  }
  await workspace.recordRenderedFiles(writer, kind, k.dir, refused, k.byHash === true);
  progress.stop();
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
