/**
 * The export's working data in DuckDB: the temp tables (sql.ts WORK_TABLES)
 * one step fills and a later one reads, behind one method per step. Each
 * method's comment says which tables it reads and which it fills; its
 * parameters and result are all the rest a step needs. The release's files
 * (x_files) belong to the ReleaseWriter, the dumps to their own connection.
 */
import type { RangeKind } from '@pegscope/client';
import type { AnalysisStamp } from '../api/envelope.js';
import type { NetworkName } from '../domain/network.js';
import { sqlString, type Db, type DbConnection } from '../store/db.js';
import type { ExportPlan } from './plan.js';
import { ANALYSED, digestOf, DROP_WORK_TABLES, exportSql } from './sql.js';
import { wrapJsonSql } from './wrap-json-sql.js';
import { scopeParams, type KeyScope, type ReleaseWriter } from './writer.js';
import { DUMP_DIGESTS, type PartitionDigest, type RecordedDigest } from './dumps.js';

/**
 * A kind of per-query document: its query (src/export/sql/<query>.sql, rows
 * q, has_file, body, …), recorded in x_docs under `kind`, its body wrapped
 * in the envelope under `key`.
 */
export interface DocKind {
  kind: string;
  query: string;
  key: string;
}

/** How many documents this export renders of how many it publishes, and how many keys each kind has. */
export interface DirtyCounts {
  dirty: number;
  keys: number;
  keysByKind: Map<string, number>;
  /** The analysis is the one the documents index describes: no peg or address was compared (peg-digests-unchanged.sql). */
  analysisIndexed: boolean;
}

/** The ranges of a batch to build, and the block hash aliases of each (block ranges). */
export interface RangesToBuild {
  prefixes: string[];
  aliases: Map<string, Record<string, number>>;
}

/** One document line of a range file as the stream delivers it; text null when it was not rendered (unchanged since the previous release). */
export interface RangeLine {
  key: string;
  part: number;
  text: string | null;
  stamp: { height: number; time: number };
}

/** The macros every document query uses (coin amounts, JSON assembly). */
const MACROS = exportSql('macros');
const META = exportSql('meta');
const CHECKPOINTS = exportSql('checkpoints');
/** What documents show of each address (x_attribution, and its digest: attribution_now()). */
const ATTRIBUTION = exportSql('attribution');
const ATTRIBUTION_NOW = exportSql('attribution-now');
/** The keys of every per-query document (x_keys and the address tables). */
const KEYS = exportSql('keys');
/** The digest of the analysis tables the peg and attribution digests come from. */
const ANALYSIS_DIGEST = exportSql('analysis-digest');
/** Whether a digest ($1) is the one the documents index keeps with its digests. */
const ANALYSIS_INDEXED = 'SELECT coalesce($1::UHUGEINT = (SELECT digest FROM docs_index.analysis), false) AS indexed';
/** Whether a block above height $1 holds a peg: the analysis then has new scores, whatever else it kept. */
const PEGS_ABOVE = 'SELECT count(*) > 0 AS pegs FROM analysed_blocks WHERE height > $1 AND pegin_count + pegout_count > 0';
const STAGE_ANALYSIS_DIGEST = 'INSERT INTO docs_index.pending_analysis VALUES ($1::UHUGEINT)';
/** The digests of the pegs in question and what documents show of each address, for this export and the next (macros dirty_floor(), next_floor()). */
const PEG_DIGESTS = exportSql('peg-digests');
/** peg-digests.sql and x_attr_changed when the analysis is the one the index describes: nothing in question, nothing changed. */
const PEG_DIGESTS_UNCHANGED = exportSql('peg-digests-unchanged');
/** Which documents to render (x_dirty_keys) and the pegs they show: those that changed since the previous release, or every one. */
const DIRTY = exportSql('dirty');
const DIRTY_ALL = exportSql('dirty-all');
const DIRTY_COUNTS = exportSql('dirty-counts');
const FOLLOW_HOPS = exportSql('follow-hops');
/** Temp tables of the peg-in/peg-out nodes the documents to render show. */
const NODES = exportSql('nodes');
const DIRTY_PARTITIONS = exportSql('dirty-partitions');

const START_DOCS = exportSql('docs-start');
const GONE_DOCS = exportSql('docs-gone');
const RECORD_DOCS = exportSql('docs-record');
/** The site's documents index, attached as docs_index (state.ts DOCS_DB). */
const OPEN_DOCS_INDEX = exportSql('docs-index-open');
const DOCS_INDEX_RELEASES = `SELECT (SELECT id FROM docs_index.release) AS indexed, (SELECT id FROM docs_index.pending_release) AS pending`;
const STAGE_DOCS_INDEX = exportSql('docs-index-stage');
/** x_attr_changed: the addresses whose digest differs from the documents index's (peg-digests.sql). */
const ATTRIBUTION_CHANGED = 'CREATE OR REPLACE TEMP TABLE x_attr_changed AS FROM attribution_changed()';
const STAGE_DOCS_INDEX_RELEASE = 'INSERT INTO docs_index.pending_release VALUES ($1, $2)';
const CLEAR_PENDING = ['pending', 'pending_attribution', 'pending_pegs', 'pending_analysis', 'pending_release'].map((table) => `DELETE FROM docs_index.${table};`).join(' ');
const APPLY_DOCS_INDEX = exportSql('docs-index-apply');
const attachDocsIndex = (path: string): string => `ATTACH ${sqlString(path)} AS docs_index`;
/**
 * An earlier pegscope's documents index (a release's docs.parquet) as the
 * index's rows; whether a range file was empty is unknown there ('?'), so
 * the next export digests those ranges again (range-touched.sql).
 */
const importLegacyDocs = (parquet: string): string => `INSERT INTO docs_index.docs
  SELECT kind, q, CASE WHEN NOT contains(kind, ':') THEN key_prefix(q) WHEN kind LIKE 'range:%' THEN '?' END, ${digestOf('h')}, stamp_height, stamp_time
  FROM read_parquet(${sqlString(parquet)})`;
/** x_prev_docs: the previous release's documents, the index as it is until the export commits; empty when its stamps do not carry over. */
const previousDocsView = (previous: boolean): string => `CREATE OR REPLACE TEMP VIEW x_prev_docs AS FROM docs_index.docs${previous ? '' : ' WHERE false'}`;
const DOC_COUNTS = exportSql('doc-counts');
const KEY_COUNTS = exportSql('key-counts');
const RENDER_EVERY_KEY = exportSql('render-every-key');
const RENDER_BATCH_KEYS = exportSql('render-batch-keys');
const PLAN_FETCH = exportSql('fetch-plan');
const FETCH_COUNT = exportSql('fetch-count');
const FETCH_PAGE = exportSql('fetch-page');
const RENDERED_FILES = exportSql('rendered-files');
const RENDERED_BLOCK_ALIASES = exportSql('rendered-block-aliases');

const START_RANGE_BATCH = exportSql('range-batch-start');
const START_RANGE_KIND = exportSql('range-kind-start');
const RANGE_DOCS = exportSql('range-docs');
const RANGE_DOCS_KEPT = exportSql('range-docs-kept');
const RANGE_DOCS_KEPT_IN = exportSql('range-docs-kept-in');
/**
 * Up to this many touched ranges, the documents kept in them are read range
 * by range (range-docs-kept-in.sql), each a few row groups of the documents
 * index, instead of every document of the kind once.
 */
const FEW_TOUCHED_RANGES = 16;
/** The touched ranges (x_range_touched) when there are at most FEW_TOUCHED_RANGES of them, in order. */
const FEW_TOUCHED = `SELECT prefix FROM x_range_touched ORDER BY prefix LIMIT ${FEW_TOUCHED_RANGES + 1}`;
/** The dump partitions' digests the previous release recorded ($1 = their pseudo-kind). */
const PREVIOUS_DUMP_DIGESTS = 'SELECT q, h::VARCHAR AS h, stamp_height, stamp_time FROM x_prev_docs WHERE kind = $1';
/**
 * x_gone_docs += the previous release's rows of a pseudo-kind ($1) that
 * `recorded` does not hold: dump digests of partitions this export did not
 * compare, block hashes of blocks no longer on the chain.
 */
const pseudoDocsGone = (recorded: 'x_dump_digests' | 'x_alias_docs'): string =>
  `INSERT INTO x_gone_docs SELECT kind, q, prefix FROM x_prev_docs WHERE kind = $1 AND q NOT IN (SELECT q FROM ${recorded})`;
/** x_dump_digests: the partitions' digests writeDumps returned ($1, JSON [{q, h}]), as docs-record.sql reads documents. */
const DUMP_DIGEST_ROWS = `CREATE OR REPLACE TEMP TABLE x_dump_digests AS
  SELECT d.q, NULL::VARCHAR AS prefix, d.h::UHUGEINT AS h FROM (SELECT unnest(from_json($1, '[{"q": "VARCHAR", "h": "VARCHAR"}]'), recursive := true)) d`;
const RANGE_GONE = exportSql('range-gone');
const RANGE_TOUCHED = exportSql('range-touched');
const RANGE_KEYS = exportSql('range-keys');
const RANGE_KEY_COUNT = exportSql('range-key-count');
const RANGE_ALIASES = exportSql('range-aliases');
const RANGE_ALIASES_DIRTY = exportSql('range-aliases-dirty');
const RANGE_ALIASES_INDEXED = exportSql('range-aliases-indexed');
/** The documents index's pseudo-kind of block hashes (range-aliases.sql). */
const BLOCK_ALIASES = 'alias:block';
/** Whether the index holds the hash of every block with a peg up to height $2 (x_prev_docs of pseudo-kind $1), and no other. */
const ALIASES_INDEXED = `SELECT (SELECT count(*) FROM x_prev_docs WHERE kind = $1) = (SELECT count(*) FROM x_block_keys WHERE q::INTEGER <= $2) AS indexed`;
/** x_range_aliases += the block hashes of x_alias_docs, in the range of $1 hex digits, each mapping to its height. */
const RANGE_ALIASES_OF_DOCS = 'INSERT INTO x_range_aliases SELECT left(prefix, $1), q, h::VARCHAR FROM x_alias_docs';
const RANGE_BATCH = exportSql('range-batch');
const RANGE_DIGESTS = exportSql('range-digests');
const RANGE_TODO = exportSql('range-todo');
const RANGE_TODO_LIST = exportSql('range-todo-list');
const RANGE_TODO_ALIASES = exportSql('range-todo-aliases');
const RANGE_TODO_DOCS = exportSql('range-todo-docs');

/** x_docs += one kind's documents from `source` (docs-record.sql): a kind's rendered bodies, a batch's range digests, or the dumps' partition digests. */
const recordDocs = (source: 'x_rendered_docs' | 'x_range_digests' | 'x_dump_digests' | 'x_alias_docs'): string => `INSERT INTO x_docs WITH documents AS (FROM ${source}) ${RECORD_DOCS}`;
/** x_rendered_docs: one kind's documents (bodies in plain decimals: json_plain) with the md5 of each body, as a number (fixed width: cheaper to join, sort and store than hex), and the key's prefix. */
const renderedDocs = (query: string): string =>
  `CREATE OR REPLACE TEMP TABLE x_rendered_docs AS SELECT *, md5_number(body) AS h, key_prefix(q) AS prefix FROM (SELECT * REPLACE (json_plain(body) AS body) FROM (${query}))`;
/** The envelope around a body as fetch-plan.sql and range-docs.sql render it (wrapJsonSql), for one network and envelope key. */
const wrapDocumentMacro = (network: NetworkName, key: string): string =>
  `CREATE OR REPLACE TEMP MACRO wrap_document(stamp_height, stamp_time, body) AS ${wrapJsonSql(network, key, { height: 'stamp_height', time: 'stamp_time', body: 'body' })}`;
/** The floors peg-digests.sql and dirty.sql read; macros, not parameters: the scripts' statements all read them. */
const floorMacros = (floor: number, next: number): string =>
  `CREATE OR REPLACE TEMP MACRO dirty_floor() AS ${Math.trunc(floor)}; CREATE OR REPLACE TEMP MACRO next_floor() AS ${Math.trunc(next)}`;
/** x_prev_pegs: the previous release's peg digests (the documents index's); empty when they are not comparable (every peg above the floor is then rendered). */
const previousPegsView = (comparable: boolean): string =>
  `CREATE OR REPLACE TEMP VIEW x_prev_pegs AS SELECT side, txid, vout, digest FROM docs_index.pegs${comparable ? '' : ' WHERE false'}`;
/** x_attribution's attribution struct (attribution.sql), which an earlier pegscope kept as text. */
const ATTRIBUTION_STRUCT = 'STRUCT(entity VARCHAR, category VARCHAR, via VARCHAR, confidence DOUBLE, cluster_id VARCHAR, "source" VARCHAR)';
/**
 * An earlier pegscope's attribution and peg digests (a release's
 * attribution.parquet and pegs.parquet, or none) as the documents index's.
 */
const importLegacyDigests = (attribution: string, pegs: string | null): string => `DELETE FROM docs_index.attribution; DELETE FROM docs_index.pegs; DELETE FROM docs_index.analysis;
  INSERT INTO docs_index.attribution
  SELECT address, attribution_digest(attribution::${ATTRIBUTION_STRUCT}, cluster_id, cluster_size) FROM read_parquet(${sqlString(attribution)});
  ${pegs ? `INSERT INTO docs_index.pegs SELECT side, txid, vout, ${digestOf('digest')} FROM read_parquet(${sqlString(pegs)});` : ''}`;

/**
 * Runs `work` on a connection of its own to `db`, closed after, with what the
 * documents' queries read defined on it: the macros, the analysed views and
 * x_attribution (the endpoints' documents, the analysis digest).
 */
export async function withDocumentConnection<T>(db: Db, work: (conn: DbConnection) => Promise<T>): Promise<T> {
  const conn = await db.connect();
  try {
    for (const sql of [MACROS, ANALYSED, ATTRIBUTION]) await conn.exec(sql);
    return await work(conn);
  } finally {
    conn.close();
  }
}

export class ExportWorkspace {
  /** This export's analysis digest (analysis-digest.sql), queried on a connection of its own from planDirty on; staged with the documents index. */
  private analysisDigest: Promise<string> | null = null;

  constructor(readonly db: Db) {}

  /** The analysis's facts (a_meta), empty when the database has no analysis. */
  async meta(): Promise<Map<string, string>> {
    const rows = await this.db.all<{ key: string; value: string }>(META).catch(() => []);
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  /** Defines the macros and the analysed_* views every later step reads. */
  async open(): Promise<void> {
    await this.db.exec(MACROS);
    await this.db.exec(ANALYSED);
  }

  /** Today's block hashes at `heights` (those on the analysed chain). */
  async checkpointHashes(heights: number[]): Promise<Map<number, string>> {
    return new Map((await this.db.all<{ height: number; hash: string }>(CHECKPOINTS, [JSON.stringify(heights)])).map((c) => [c.height, c.hash]));
  }

  /**
   * Decides what to render: every document's key (x_keys), what documents
   * show of addresses (x_attribution, attribution_now()), the peg digests
   * (x_peg_digests, x_next_pegs), compared with the previous release's in
   * the documents index (x_prev_pegs when plan.previousPegs, x_attr_changed)
   * above plan.floor, and so the documents to render (x_dirty_keys) and the
   * pegs they show.
   */
  async planDirty(plan: ExportPlan): Promise<DirtyCounts> {
    await this.db.exec(ATTRIBUTION);
    await this.db.exec(ATTRIBUTION_NOW);
    await this.db.exec(KEYS);
    await this.db.exec(previousPegsView(plan.previousPegs));
    await this.db.exec(floorMacros(plan.floor, plan.finalUpTo));
    this.analysisDigest = this.digestAnalysis();
    // A new block with a peg changes the analysis for certain: its digest is then only staged, and this connection does not wait for it.
    const mayBeIndexed = plan.previousPegs && !(await this.db.one<{ pegs: boolean }>(PEGS_ABOVE, [plan.previous!.state!.as_of_height]))!.pegs;
    const analysisIndexed = mayBeIndexed && (await this.db.one<{ indexed: boolean }>(ANALYSIS_INDEXED, [await this.analysisDigest]))!.indexed;
    if (analysisIndexed) {
      await this.db.exec(PEG_DIGESTS_UNCHANGED);
    } else {
      await this.db.exec(PEG_DIGESTS);
      if (plan.floor >= 0) await this.db.exec(ATTRIBUTION_CHANGED);
    }
    await this.db.exec(plan.floor < 0 ? DIRTY_ALL : DIRTY);
    // x_keys is a view: counted once here, for the log and the range layout.
    const keysByKind = new Map((await this.db.all<{ kind: string; n: bigint }>(KEY_COUNTS)).map((r) => [r.kind, Number(r.n)]));
    const dirty = (await this.db.one<{ dirty: bigint }>(DIRTY_COUNTS))!.dirty;
    return { dirty: Number(dirty), keys: [...keysByKind.values()].reduce((sum, n) => sum + n, 0), keysByKind, analysisIndexed };
  }

  /** The analysis digest (analysis-digest.sql) on a connection of its own, as decimal text. */
  private digestAnalysis(): Promise<string> {
    const digest = withDocumentConnection(this.db, async (conn) => (await conn.one<{ digest: string }>(ANALYSIS_DIGEST))!.digest);
    // Awaited by planDirty or stageDocsIndex; a failure is reported there.
    digest.catch(() => undefined);
    return digest;
  }

  /** The peg-in and peg-out nodes and follow hops the documents to render (x_dirty_keys) show. */
  async prepareNodes(): Promise<void> {
    await this.db.exec(FOLLOW_HOPS);
    await this.db.exec(NODES);
  }

  /** The digests of the previous release's dump partitions (x_prev_docs), by Parquet path. */
  async previousDumpDigests(): Promise<Map<string, RecordedDigest>> {
    const rows = await this.db.all<{ q: string; h: string; stamp_height: number; stamp_time: bigint }>(PREVIOUS_DUMP_DIGESTS, [DUMP_DIGESTS]);
    return new Map(rows.map((r) => [r.q, { h: r.h, stamp: { height: Number(r.stamp_height), time: Number(r.stamp_time) } }]));
  }

  /**
   * Records in x_docs the digests of the dump partitions this export
   * compared (one unchanged since the previous release keeps its stamp); the
   * previous release's other digests are gone, so the index holds those of
   * the partitions compared last, whatever was carried over before.
   */
  async recordDumpDigests(stamp: AnalysisStamp, digests: PartitionDigest[]): Promise<void> {
    await this.db.exec(DUMP_DIGEST_ROWS, [JSON.stringify(digests)]);
    await this.db.exec(recordDocs('x_dump_digests'), [DUMP_DIGESTS, stamp.as_of_height, BigInt(stamp.updated_at)]);
    await this.db.exec(pseudoDocsGone('x_dump_digests'), [DUMP_DIGESTS]);
  }

  /** `<side>:<partition start>` of the dump partitions holding a dirty peg (planDirty). */
  async dirtyPartitions(partitionBlocks: number): Promise<Set<string>> {
    return new Set((await this.db.all<{ part: string }>(DIRTY_PARTITIONS, [partitionBlocks])).map((r) => r.part));
  }

  /**
   * Attaches the site's documents index at `path` (created empty when
   * missing) and returns the release it describes, null when none. A stage
   * left by an export killed once it had published `current` is applied
   * first; one it left before publishing is discarded.
   */
  async openDocsIndex(path: string, current: string | null): Promise<string | null> {
    await this.db.exec(attachDocsIndex(path));
    await this.db.exec(OPEN_DOCS_INDEX);
    const { pending } = (await this.db.one<{ pending: string | null }>(DOCS_INDEX_RELEASES))!;
    if (pending !== null) await this.db.transaction(() => this.db.exec(pending === current ? APPLY_DOCS_INDEX : CLEAR_PENDING));
    return (await this.db.one<{ indexed: string | null }>(DOCS_INDEX_RELEASES))!.indexed;
  }

  /**
   * Replaces the index's attribution and peg digests by those an earlier
   * pegscope kept in a release's state (`pegs` null: it kept none).
   */
  importLegacyDigests(attribution: string, pegs: string | null): Promise<void> {
    return this.db.transaction(() => this.db.exec(importLegacyDigests(attribution, pegs)));
  }

  /** Replaces the documents index by an earlier pegscope's (a release's docs.parquet), describing `release`. */
  importLegacyDocs(parquet: string, release: string): Promise<void> {
    return this.db.transaction(async () => {
      await this.db.exec('DELETE FROM docs_index.docs; DELETE FROM docs_index.release');
      await this.db.exec(importLegacyDocs(parquet));
      await this.db.exec('INSERT INTO docs_index.release VALUES ($1)', [release]);
    });
  }

  /**
   * Starts recording this release's documents (x_docs): the previous
   * release's (x_prev_docs) are the index's when `previous`, and those of
   * them whose key is gone are found (x_gone_docs; `keysOnlyGrow`: only
   * follow chains can be).
   */
  async startDocuments(previous: boolean, keysOnlyGrow: boolean): Promise<void> {
    await this.db.exec(START_DOCS);
    await this.db.exec(previousDocsView(previous));
    await this.db.exec(GONE_DOCS, [keysOnlyGrow]);
  }

  /**
   * Stages what this export recorded in the documents index for `release`,
   * in one transaction, before it is published: `replaces` when it recorded
   * every document. applyDocsIndex takes it in once published.
   */
  async stageDocsIndex(release: string, replaces: boolean): Promise<void> {
    if (!this.analysisDigest) throw new Error('export: the documents index is staged before planDirty digested the analysis');
    const digest = await this.analysisDigest;
    await this.db.transaction(async () => {
      await this.db.exec(CLEAR_PENDING);
      // An export that rendered everything did not need them until now (planDirty).
      if (replaces) await this.db.exec(ATTRIBUTION_CHANGED);
      await this.db.exec(STAGE_DOCS_INDEX);
      await this.db.exec(STAGE_ANALYSIS_DIGEST, [digest]);
      await this.db.exec(STAGE_DOCS_INDEX_RELEASE, [release, replaces]);
    });
  }

  /** Takes the staged release into the documents index, which then describes it (one transaction). */
  applyDocsIndex(): Promise<void> {
    return this.db.transaction(() => this.db.exec(APPLY_DOCS_INDEX));
  }

  /** Detaches the documents index. */
  closeDocsIndex(): Promise<void> {
    return this.db.exec('DETACH DATABASE IF EXISTS docs_index');
  }

  /** x_render_keys: every dirty key of one kind. */
  renderEveryKey(kind: string): Promise<void> {
    return this.db.exec(RENDER_EVERY_KEY, [kind]);
  }

  /** x_render_keys: the dirty keys of one kind in a batch's ranges (selectRangeKeys). */
  renderBatchKeys(kind: string, scope: KeyScope): Promise<void> {
    return this.db.exec(RENDER_BATCH_KEYS, [kind, ...scopeParams(scope)]);
  }

  /**
   * Renders the documents of x_render_keys of one kind into x_rendered_docs
   * and records them in x_docs (a body unchanged since the previous release
   * keeps its stamp); defines wrap_document for the kind's envelope first.
   */
  async renderDocuments(stamp: AnalysisStamp, doc: DocKind): Promise<void> {
    await this.db.exec(wrapDocumentMacro(stamp.network, doc.key));
    await this.db.exec(renderedDocs(exportSql(doc.query)));
    await this.db.exec(recordDocs('x_rendered_docs'), [doc.kind, stamp.as_of_height, BigInt(stamp.updated_at)]);
  }

  /** Per kind of document, its documents in the index once this export's are merged, and its keys (planDirty's): equal once every one is recorded. */
  async documentCounts(keysByKind: Map<string, number>): Promise<{ kind: string; docs: number; keys: number }[]> {
    const keys = JSON.stringify([...keysByKind].map(([kind, n]) => ({ kind, n })));
    const rows = await this.db.all<{ kind: string; docs: bigint; keys: bigint }>(DOC_COUNTS, [keys]);
    return rows.map((r) => ({ kind: r.kind, docs: Number(r.docs), keys: Number(r.keys) }));
  }

  /**
   * x_fetch: the documents of x_rendered_docs (recorded as `kind`) to write,
   * those not carried over (the writer's x_unchanged); returns how many.
   */
  async planFetch(kind: string, gzMin: number, needsBody: boolean): Promise<number> {
    await this.db.exec(PLAN_FETCH, [kind, gzMin, needsBody]);
    return Number((await this.db.one<{ n: bigint }>(FETCH_COUNT))!.n);
  }

  /** Rows `from` + 1 to `to` of x_fetch. */
  fetchPage(from: number, to: number): Promise<Record<string, unknown>[]> {
    return this.db.all(FETCH_PAGE, [from, to]);
  }

  /** Records in the writer the main files DuckDB rendered (x_fetch) of a kind under `dir`, but the keys refused as file names; and by hash too for blocks. */
  async recordRenderedFiles(writer: ReleaseWriter, kind: string, dir: string, refused: string[], byHash: boolean): Promise<void> {
    await writer.recordRendered(RENDERED_FILES, [kind, JSON.stringify(refused), dir]);
    if (byHash) await writer.recordRendered(RENDERED_BLOCK_ALIASES, [kind, dir]);
  }

  /** Starts one kind's range documents: none kept (x_range_kept), none rendered, no aliases. */
  async startRangeKind(): Promise<void> {
    await this.db.exec(START_RANGE_BATCH);
    await this.db.exec(START_RANGE_KIND);
  }

  /** x_gone_docs += the previous release's range files of `kind` at another prefix length. */
  dropOtherRangeLengths(kind: RangeKind, prefixLength: number): Promise<void> {
    return this.db.exec(RANGE_GONE, [`range:${kind}`, prefixLength]);
  }

  /**
   * x_range_touched: the ranges of `kind` (its range files hold the
   * documents of `kinds`) to build or compare; every one when `all`.
   * Returns them when they are few (FEW_TOUCHED_RANGES), else null.
   */
  async touchRanges(kind: RangeKind, kinds: string[], prefixLength: number, all: boolean): Promise<string[] | null> {
    await this.db.exec(RANGE_TOUCHED, [JSON.stringify(kinds), prefixLength, all, `range:${kind}`]);
    const few = (await this.db.all<{ prefix: string }>(FEW_TOUCHED)).map((r) => r.prefix);
    return few.length <= FEW_TOUCHED_RANGES ? few : null;
  }

  /**
   * x_range_kept += the documents of `kind` (part `part`) this export does
   * not render, in the touched ranges of `prefixLength` digits: range by
   * range when touchRanges returned them (`few`).
   */
  async keepRangeDocuments(kind: string, part: number, prefixLength: number, few: string[] | null): Promise<void> {
    if (few === null) return this.db.exec(RANGE_DOCS_KEPT, [kind, part, prefixLength]);
    for (const prefix of few) await this.db.exec(RANGE_DOCS_KEPT_IN, [kind, part, prefix]);
  }

  /**
   * x_range_aliases += block hashes with a peg, in the range their sha256
   * names, and records the hashes in x_docs. When the chain only grew since
   * the release the index describes (`grewFrom`, its height) and the index
   * holds its hashes, only the dirty blocks' are hashed, and the result is
   * true: addIndexedRangeAliases then adds the touched ranges' others.
   * Otherwise every hash, and those the index holds of no block are gone.
   */
  async addRangeAliases(stamp: AnalysisStamp, prefixLength: number, grewFrom: number | null): Promise<boolean> {
    const indexed = grewFrom !== null && (await this.db.one<{ indexed: boolean }>(ALIASES_INDEXED, [BLOCK_ALIASES, grewFrom]))!.indexed;
    await this.db.exec(indexed ? RANGE_ALIASES_DIRTY : RANGE_ALIASES);
    await this.db.exec(RANGE_ALIASES_OF_DOCS, [prefixLength]);
    if (!indexed) await this.db.exec(pseudoDocsGone('x_alias_docs'), [BLOCK_ALIASES]);
    await this.db.exec(recordDocs('x_alias_docs'), [BLOCK_ALIASES, stamp.as_of_height, BigInt(stamp.updated_at)]);
    return indexed;
  }

  /** x_range_aliases += the index's block hashes in the touched ranges (after addRangeAliases returned true, and touchRanges). */
  addIndexedRangeAliases(prefixLength: number): Promise<void> {
    return this.db.exec(RANGE_ALIASES_INDEXED, [prefixLength, BLOCK_ALIASES]);
  }

  /** x_range_keys: the dirty keys of `kinds` (one kind's range files) by prefix; returns how many. */
  async selectRangeKeys(kinds: string[], prefixLength: number): Promise<number> {
    await this.db.exec(RANGE_KEYS, [JSON.stringify(kinds), prefixLength]);
    return Number((await this.db.one<{ n: bigint }>(RANGE_KEY_COUNT))!.n);
  }

  /** Empties x_range_rendered for the next batch. */
  startRangeBatch(): Promise<void> {
    return this.db.exec(START_RANGE_BATCH);
  }

  /** x_range_rendered += the documents just rendered (renderDocuments) of `kind` as part `part`. */
  addRenderedRangeDocuments(kind: string, part: number): Promise<void> {
    return this.db.exec(RANGE_DOCS, [kind, part]);
  }

  /**
   * Digests every range of `batch` (prefixes numbered `first` to `end` − 1: x_range_batch, x_range_digests) from its
   * documents (x_range_docs) and aliases, and records them in x_docs as the
   * pseudo-kind `range:<kind>`: the writer then carries over unchanged ones.
   */
  async recordRangeDigests(stamp: AnalysisStamp, kind: RangeKind, prefixLength: number, batch: { first: number; end: number }): Promise<void> {
    await this.db.exec(RANGE_BATCH, [prefixLength, batch.first, batch.end]);
    await this.db.exec(RANGE_DIGESTS, [stamp.as_of_height, BigInt(stamp.updated_at)]);
    await this.db.exec(recordDocs('x_range_digests'), [`range:${kind}`, stamp.as_of_height, BigInt(stamp.updated_at)]);
  }

  /** The ranges of the batch whose digest the writer found changed (x_range_todo), with their aliases. */
  async rangesToBuild(): Promise<RangesToBuild> {
    await this.db.exec(RANGE_TODO);
    const prefixes = (await this.db.all<{ prefix: string }>(RANGE_TODO_LIST)).map((r) => r.prefix);
    const aliases = new Map<string, Record<string, number>>();
    for (const row of await this.db.all<{ prefix: string; alias: string; q: string }>(RANGE_TODO_ALIASES)) {
      let map = aliases.get(row.prefix);
      if (!map) aliases.set(row.prefix, (map = {}));
      map[row.alias] = Number(row.q);
    }
    return { prefixes, aliases };
  }

  /** The documents of the ranges to build, in file order, a DuckDB chunk at a time. */
  async *rangeLines(): AsyncGenerator<{ prefix: string; line: RangeLine }> {
    for await (const rows of this.db.stream(RANGE_TODO_DOCS)) {
      for (const [prefix, key, part, text, height, time] of rows) {
        yield { prefix: String(prefix), line: { key: String(key), part: Number(part), text: text === null ? null : String(text), stamp: { height: Number(height), time: Number(time) } } };
      }
    }
  }

  /** Drops every work table and view (a long-running job would otherwise keep them in memory). */
  async drop(): Promise<void> {
    // The digest's connection is closed before the database may be.
    await this.analysisDigest?.catch(() => undefined);
    await this.db.exec(DROP_WORK_TABLES);
  }
}
