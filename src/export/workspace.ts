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
import { sqlString, type Db } from '../store/db.js';
import type { ExportPlan } from './plan.js';
import { ANALYSED, digestColumns, digestOf, DROP_WORK_TABLES, exportSql } from './sql.js';
import { wrapJsonSql } from './wrap-json-sql.js';
import { scopeParams, type FileEntry, type KeyScope, type ReleaseWriter } from './writer.js';

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

/** How many documents this export renders of how many it publishes. */
export interface DirtyCounts {
  dirty: number;
  keys: number;
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
/** What documents show of each address (x_attribution). */
const ATTRIBUTION = exportSql('attribution');
/** The keys of every per-query document (x_keys and the address tables). */
const KEYS = exportSql('keys');
/** The digests of the pegs in question and what documents show of each address, for this export and the next (macros dirty_floor(), next_floor()). */
const PEG_DIGESTS = exportSql('peg-digests');
/** Which documents to render (x_dirty_keys) and the pegs they show: those that changed since the previous release, or every one. */
const DIRTY = exportSql('dirty');
const DIRTY_ALL = exportSql('dirty-all');
const DIRTY_COUNTS = exportSql('dirty-counts');
const FOLLOW_HOPS = exportSql('follow-hops');
/** Temp tables of the peg-in/peg-out nodes the documents to render show. */
const NODES = exportSql('nodes');
const HEALTH_COUNTS = exportSql('health-counts');
const STATS = exportSql('stats');
const RECOMMENDATIONS = exportSql('recommendations');
const TOP_LINKS = exportSql('links');
const TOP_AMOUNTS = exportSql('amounts');
const PREVIOUS_DUMPS = exportSql('previous-dumps');
const DIRTY_PARTITIONS = exportSql('dirty-partitions');
const ATTRIBUTION_INDEX_ROWS = exportSql('attribution-index');
/** The state's pegs index: the digests of the pegs the next export will ask about (peg-digests.sql x_next_pegs). */
const PEGS_INDEX_ROWS = `SELECT side, txid, vout, ${digestColumns('digest')} FROM x_peg_digests SEMI JOIN x_next_pegs USING (side, txid, vout) ORDER BY side, txid, vout`;

const START_DOCS = exportSql('docs-start');
/** x_docs in key order, so a full and an incremental export write the same bytes. */
const DOCS_INDEX_ROWS = `SELECT kind, q, ${digestColumns('h')}, stamp_height, stamp_time FROM x_docs ORDER BY kind, q`;
const RECORD_DOCS = exportSql('docs-record');
const CLEAN_DOCS = exportSql('docs-clean');
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
const RANGE_KEYS = exportSql('range-keys');
const RANGE_KEY_COUNT = exportSql('range-key-count');
const RANGE_ALIASES = exportSql('range-aliases');
const RANGE_BATCH = exportSql('range-batch');
const RANGE_DIGESTS = exportSql('range-digests');
const RANGE_TODO = exportSql('range-todo');
const RANGE_TODO_LIST = exportSql('range-todo-list');
const RANGE_TODO_ALIASES = exportSql('range-todo-aliases');
const RANGE_TODO_DOCS = exportSql('range-todo-docs');

/** x_docs += one kind's documents from `source` (docs-record.sql): a kind's rendered bodies, or a batch's range digests. */
const recordDocs = (source: 'x_rendered_docs' | 'x_range_digests'): string => `INSERT INTO x_docs WITH documents AS (FROM ${source}) ${RECORD_DOCS}`;
/** x_rendered_docs: one kind's documents (bodies in plain decimals: json_plain) with the md5 of each body, as a number (fixed width: cheaper to join, sort and store than hex). */
const renderedDocs = (query: string): string =>
  `CREATE OR REPLACE TEMP TABLE x_rendered_docs AS SELECT *, md5_number(body) AS h FROM (SELECT * REPLACE (json_plain(body) AS body) FROM (${query}))`;
/** The envelope around a body as fetch-plan.sql and range-docs.sql render it (wrapJsonSql), for one network and envelope key. */
const wrapDocumentMacro = (network: NetworkName, key: string): string =>
  `CREATE OR REPLACE TEMP MACRO wrap_document(stamp_height, stamp_time, body) AS ${wrapJsonSql(network, key, { height: 'stamp_height', time: 'stamp_time', body: 'body' })}`;
/** The floors peg-digests.sql and dirty.sql read; macros, not parameters: the scripts' statements all read them. */
const floorMacros = (floor: number, next: number): string =>
  `CREATE OR REPLACE TEMP MACRO dirty_floor() AS ${Math.trunc(floor)}; CREATE OR REPLACE TEMP MACRO next_floor() AS ${Math.trunc(next)}`;
/** x_prev_pegs: the previous release's peg digests; empty when they are not comparable (every peg above the floor is then rendered). */
const loadPreviousPegs = (parquet: string | null): string => parquet
  ? `CREATE OR REPLACE TEMP TABLE x_prev_pegs AS SELECT side, txid, vout, ${digestOf('digest')} FROM read_parquet(${sqlString(parquet)})`
  : 'CREATE OR REPLACE TEMP TABLE x_prev_pegs (side VARCHAR, txid VARCHAR, vout INTEGER, digest UHUGEINT)';
/** x_prev_attr: what the previous release showed of each address; empty when everything is rendered anyway. */
const loadPreviousAttribution = (parquet: string | null): string => parquet
  ? `CREATE OR REPLACE TEMP TABLE x_prev_attr AS SELECT * FROM read_parquet(${sqlString(parquet)})`
  : 'CREATE OR REPLACE TEMP TABLE x_prev_attr (address VARCHAR, attribution VARCHAR, cluster_id VARCHAR, cluster_size BIGINT)';
/** x_prev_docs: the previous release's documents index; empty when its stamps do not carry over. */
const loadPreviousDocs = (parquet: string | null): string => parquet
  ? `CREATE OR REPLACE TEMP TABLE x_prev_docs AS SELECT kind, q, ${digestOf('h')}, stamp_height, stamp_time FROM read_parquet(${sqlString(parquet)})`
  : 'CREATE OR REPLACE TEMP TABLE x_prev_docs AS SELECT * FROM x_docs WHERE false';
const copyParquet = (rows: string, path: string): string => `COPY (${rows}) TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd)`;

export class ExportWorkspace {
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
   * show of addresses (x_attribution, x_attr_now), the peg digests
   * (x_peg_digests, x_next_pegs), compared with the previous release's
   * (plan.previousPegs, plan.previousAttribution) above plan.floor, and so the
   * documents to render (x_dirty_keys) and the pegs they show.
   */
  async planDirty(plan: ExportPlan): Promise<DirtyCounts> {
    await this.db.exec(ATTRIBUTION);
    await this.db.exec(KEYS);
    await this.db.exec(loadPreviousAttribution(plan.previousAttribution));
    await this.db.exec(loadPreviousPegs(plan.previousPegs));
    await this.db.exec(floorMacros(plan.floor, plan.finalUpTo));
    await this.db.exec(PEG_DIGESTS);
    await this.db.exec(plan.floor < 0 ? DIRTY_ALL : DIRTY);
    const counts = (await this.db.one<{ dirty: bigint; keys: bigint }>(DIRTY_COUNTS))!;
    return { dirty: Number(counts.dirty), keys: Number(counts.keys) };
  }

  /** The peg-in and peg-out nodes and follow hops the documents to render (x_dirty_keys) show. */
  async prepareNodes(): Promise<void> {
    await this.db.exec(FOLLOW_HOPS);
    await this.db.exec(NODES);
  }

  healthCounts(): Promise<{ cursor: string | null; pegins: bigint; pegouts: bigint } | undefined> {
    return this.db.one(HEALTH_COUNTS);
  }

  stats(): Promise<{ key: string; value: string }[]> {
    return this.db.all(STATS);
  }

  /** The finished recommendations object as JSON text; undefined when the analysis made none. */
  async recommendations(): Promise<string | undefined> {
    return (await this.db.one<{ doc: string }>(RECOMMENDATIONS))?.doc;
  }

  /** The `limit` best links in the published order, as a JSON array. */
  async topLinks(limit: number): Promise<string | null> {
    return (await this.db.one<{ links: string | null }>(TOP_LINKS, [limit]))?.links ?? null;
  }

  /** The `limit` most common amounts of one side, as a JSON array. */
  async topAmounts(side: 'pegin' | 'pegout', limit: number): Promise<string | null> {
    return (await this.db.one<{ rows: string | null }>(TOP_AMOUNTS, [side, limit]))?.rows ?? null;
  }

  /** The previous release's dump files (the writer's x_prev_files), path → entry. */
  async previousDumpFiles(): Promise<Map<string, FileEntry>> {
    const rows = await this.db.all<FileEntry>(PREVIOUS_DUMPS);
    return new Map(rows.map((f) => [f.path, { path: f.path, size: Number(f.size), sha256: f.sha256 }]));
  }

  /** `<side>:<partition start>` of the dump partitions holding a dirty peg (planDirty). */
  async dirtyPartitions(partitionBlocks: number): Promise<Set<string>> {
    return new Set((await this.db.all<{ part: string }>(DIRTY_PARTITIONS, [partitionBlocks])).map((r) => r.part));
  }

  /** Writes what the next export compares with (planDirty's x_attr_now and peg digests) to these state files. */
  async writeChangeIndexes(attributionIndex: string, pegsIndex: string): Promise<void> {
    await this.db.exec(copyParquet(ATTRIBUTION_INDEX_ROWS, attributionIndex));
    await this.db.exec(copyParquet(PEGS_INDEX_ROWS, pegsIndex));
  }

  /** Starts recording this release's documents (x_docs), and loads the previous release's (x_prev_docs) from `previousDocs`. */
  async startDocuments(previousDocs: string | null): Promise<void> {
    await this.db.exec(START_DOCS);
    await this.db.exec(loadPreviousDocs(previousDocs));
  }

  /** Keys per kind (x_keys). */
  async keyCounts(): Promise<Map<string, number>> {
    return new Map((await this.db.all<{ kind: string; n: bigint }>(KEY_COUNTS)).map((r) => [r.kind, Number(r.n)]));
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

  /** Records in x_docs the documents of a kind this export does not render, with their previous stamps. */
  recordNotRendered(kind: string): Promise<void> {
    return this.db.exec(CLEAN_DOCS, [kind]);
  }

  /** Documents of a kind recorded in x_docs, and its keys: equal once every one is recorded. */
  async documentCounts(kind: string): Promise<{ docs: number; keys: number }> {
    const counts = (await this.db.one<{ docs: bigint; keys: bigint }>(DOC_COUNTS, [kind]))!;
    return { docs: Number(counts.docs), keys: Number(counts.keys) };
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

  /** Writes x_docs, every per-query document of this release, to the state's documents index. */
  writeDocsIndex(path: string): Promise<void> {
    return this.db.exec(copyParquet(DOCS_INDEX_ROWS, path));
  }

  /** Starts one kind's range documents: none kept (x_range_kept), none rendered, no aliases. */
  async startRangeKind(): Promise<void> {
    await this.db.exec(START_RANGE_BATCH);
    await this.db.exec(START_RANGE_KIND);
  }

  /** x_range_kept += the documents of `kind` (part `part`) this export does not render, in ranges of `prefixLength` digits. */
  keepRangeDocuments(kind: string, part: number, prefixLength: number): Promise<void> {
    return this.db.exec(RANGE_DOCS_KEPT, [kind, part, prefixLength]);
  }

  /** x_range_aliases += every block hash with a peg, in the range its sha256 names. */
  addRangeAliases(prefixLength: number): Promise<void> {
    return this.db.exec(RANGE_ALIASES, [prefixLength]);
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
  drop(): Promise<void> {
    return this.db.exec(DROP_WORK_TABLES);
  }
}
