/**
 * `pegscope analyze`: recomputes every derived `a_*` table from the base tables,
 * one .sql file per table, in order. Each step builds its table as a TEMP table
 * of the same name (which shadows the published one for the later steps); then
 * ONE transaction copies them all over the published tables. Readers see the
 * previous analysis or the new one, and a failure or kill at any point leaves
 * the previous one intact (temp tables die with the process).
 * Building outside the transaction matters: DuckDB 1.5 runs ASOF joins over
 * transaction-local tables orders of magnitude slower (measured: 290 s instead
 * of 0.3 s for the link windows of the mainnet preset).
 * A run continues the published analysis when that one used the same model
 * and its chain is still this one's: anonymity sets of the peg-ins below the
 * new blocks and links of peg-outs more than the horizon below them are final
 * (docs/methodology.md "The horizon"), so they are carried over and only the
 * pegs above are counted and linked again; the tables that reach across all
 * time (reuse, clusters, scores, follow chains) compute the rows the new
 * blocks can change and keep the other published ones (CARRIED).
 * Formulas and constants: docs/methodology.md.
 */
import { createHash } from 'node:crypto';
import type { Litoshi } from '../domain/amount.js';
import { bindSql, DEFAULT_ANALYZE_MEMORY_MB, DEFAULT_PARAMS, HIGH_CONFIDENCE, LABEL_CATEGORIES, modelSqlValues, type AnalysisParams } from '../domain/model.js';
import { readSql, type Db } from '../store/db.js';
import { packageVersion } from '../version.js';
import { fillHorizonCounts } from './horizon.js';

/** The tunable constants and their defaults live in the model registry (src/domain/model.ts). */
export { DEFAULT_PARAMS, type AnalysisParams } from '../domain/model.js';

export interface AnalyzeOptions {
  log?: (line: string) => void;
  /** Unix seconds recorded as updated_at (default: now). */
  now?: number;
  tolerance?: Litoshi;
  /** Blocks of the horizon (docs/methodology.md); default HORIZON_BLOCKS. */
  horizon?: number;
  params?: Partial<AnalysisParams>;
  /** Recompute every peg instead of continuing the published analysis. */
  full?: boolean;
  /** DuckDB memory limit while analysing (it spills to disk beyond it); default DEFAULT_ANALYZE_MEMORY_MB. */
  memoryLimitMb?: number;
  /** Called after each step and after each published table (tests use it to kill a run mid-way). */
  onStep?: (step: string) => Promise<void> | void;
}

export interface AnalyzeResult {
  asOfHeight: number;
  updatedAt: number;
  links: number;
  highConfidenceLinks: number;
  /** Peg-in/peg-out pairs the link step expanded this run (bounded by max_join per peg-out). */
  candidatePairs: number;
  /** The lowest height of new blocks when this run continued the published analysis; null when it recomputed every peg. */
  continuedFrom: number | null;
  clusterIterations: number;
  steps: { step: string; ms: number }[];
}

/** The derived tables in dependency order; clusters is a loop (see runClusters). */
export const STEPS = [
  '01_params', '01_w_horizon', '02_a_meta', '03_a_amounts', '04_a_links', '05_a_reuse', '06_a_clusters',
  '07_a_labels', '08_a_attribution', '09_a_entity_flows', '10_w_rescored', '10_a_pegin_scores',
  '11_a_pegout_scores', '12_a_follow', '13_a_stats', '14_a_recommendations',
] as const;

/** Every table a run publishes (docs/architecture.md "Derived tables"). */
export const DERIVED_TABLES = [
  'a_meta', 'a_amounts', 'a_links', 'a_reuse', 'a_clusters', 'a_labels', 'a_attribution', 'a_entity_flows',
  'a_pegin_scores', 'a_pegout_scores', 'a_follow', 'a_stats', 'a_recommendations',
] as const;

type DerivedTable = typeof DERIVED_TABLES[number];

/**
 * The tables a continuing run computes in part, each with the condition on a
 * published row that this run computed it again: the other published rows
 * are kept (docs/methodology.md "Continuing an analysis").
 */
const CARRIED: Partial<Record<DerivedTable, string>> = {
  a_links: 'pegout_height >= {{relink_from}}',
  // A row names a peg-in below its peg-out: only new peg-outs get one.
  a_reuse: 'false',
  a_clusters: 'cluster_id IN (SELECT node FROM w_cluster_moves)',
  a_pegin_scores: '(txid, vout) IN (SELECT txid, vout FROM w_pegin_rescored)',
  a_pegout_scores: '(txid, vout) IN (SELECT txid, vout FROM w_pegout_rescored)',
  a_follow: 'start_address IN (SELECT address FROM w_follow_restarted)',
};

/** A continuing run's scripts run after a step's own (`<step>_continue.sql`). */
const CONTINUED_STEPS = ['10_w_rescored'] as const;

const MAX_CLUSTER_ITERATIONS = 64;

async function asOfHeight(db: Db): Promise<number> {
  const cursor = await db.getMeta('cursor_height');
  if (cursor !== undefined && /^\d+$/.test(cursor)) return Number(cursor);
  const row = await db.one<{ h: number | null }>('SELECT max(height) AS h FROM blocks');
  return row?.h ?? 0;
}

export async function analyze(db: Db, opts: AnalyzeOptions = {}): Promise<AnalyzeResult> {
  const log = opts.log ?? (() => undefined);
  const params: AnalysisParams = {
    ...DEFAULT_PARAMS, ...(opts.tolerance ? { tol: opts.tolerance } : {}), ...(opts.horizon ? { horizon_blocks: opts.horizon } : {}), ...opts.params,
  };
  const height = await asOfHeight(db);
  const updatedAt = opts.now ?? Math.floor(Date.now() / 1000);
  const model = modelSqlValues(params);
  const stepSql = new Map(STEPS.map((step) => [step, readSql(import.meta.url, `${step}.sql`)]));
  const continueSql = new Map<string, string>(CONTINUED_STEPS.map((step) => [step, readSql(import.meta.url, `${step}_continue.sql`)]));
  const clusterSql = clusterScripts();
  const modelDigest = digestOf(model, [...stepSql.values(), ...continueSql.values(), ...Object.values(clusterSql), ...Object.values(CARRIED)]);
  const catalog = await publishedCatalog(db);
  const continuedFrom = opts.full ? null : await continuableFrom(db, modelDigest, height);
  const recompute = recomputedFrom(continuedFrom ?? 0, params.horizon_blocks);
  const values: Record<string, number> = {
    ...model, as_of_height: height, now: updatedAt, model_digest: modelDigest, relink_from: recompute.links, recount_from: recompute.sets,
    rewindow_from: recompute.windows, new_from: continuedFrom ?? 0,
  };
  const continuing = continuedFrom !== null;
  const carried = continuing ? bindCarried(values) : {};
  const steps: { step: string; ms: number }[] = [];
  let clusterIterations = 0;
  log(continuedFrom === null ? 'analyze: every peg' : continuationLine(continuedFrom, recompute, await firstHeight(db)));

  const result = await db.withMemoryLimit(opts.memoryLimitMb ?? DEFAULT_ANALYZE_MEMORY_MB, async () => {
    try {
      await loadLabelCategories(db);
      if (continuing) {
        await db.exec(PUBLISHED_VIEWS(catalog));
        await checkPublishedSets(db, recompute.sets);
      }
      for (const step of STEPS) {
        const started = performance.now();
        await db.exec(bindSql(step === '06_a_clusters' && continuing ? clusterSql.continue : stepSql.get(step)!, values));
        if (step === '01_w_horizon') await fillHorizonCounts(db, params.tol, params.horizon_blocks, { sets: recompute.sets, windows: recompute.windows });
        if (step === '06_a_clusters') clusterIterations = await runClusters(db, values, clusterSql, continuing);
        if (continuing) await continueStep(db, step, continueSql.get(step), carried, values);
        const ms = Math.round(performance.now() - started);
        steps.push({ step, ms });
        log(`analyze: ${step} ${ms} ms`);
        await opts.onStep?.(step);
      }
      const counts = await db.one<{ links: bigint; high: bigint; pairs: bigint }>(
        'SELECT count(*) AS links, count(*) FILTER (WHERE confidence >= $1) AS high, (SELECT count(*) FROM w_pairs) AS pairs FROM temp.main.a_links',
        [HIGH_CONFIDENCE]);
      const started = performance.now();
      await publish(db, catalog, carried, opts.onStep);
      steps.push({ step: 'publish', ms: Math.round(performance.now() - started) });
      return {
        links: Number(counts?.links ?? 0),
        highConfidenceLinks: Number(counts?.high ?? 0),
        candidatePairs: Number(counts?.pairs ?? 0),
      };
    } finally {
      await dropWorkTables(db);
    }
  });
  log(`analyze: as of height ${height}: ${result.links} links (${result.highConfidenceLinks} at confidence >= ${HIGH_CONFIDENCE})`);
  return { asOfHeight: height, updatedAt, ...result, continuedFrom, clusterIterations, steps };
}

/** The lowest block scanned (the MWEB activation block on a node's chain); 0 without blocks. */
async function firstHeight(db: Db): Promise<number> {
  return (await db.one<{ h: number | null }>('SELECT min(height) AS h FROM blocks'))?.h ?? 0;
}

/**
 * What a continued run says it recomputes. A start at or below the first block
 * (a chain younger than a horizon) is every peg of that side, never a height
 * the chain does not have.
 */
export function continuationLine(continuedFrom: number, recompute: { links: number; sets: number }, first: number): string {
  const which = (from: number, side: string): string => (from <= first ? `of every ${side}` : `of ${side}s from height ${from}`);
  return `analyze: continuing the analysis at height ${continuedFrom - 1}: links ${which(recompute.links, 'peg-out')}, anonymity sets ${which(recompute.sets, 'peg-in')}`;
}

/**
 * What a run recomputes once blocks from height `changedFrom` on are new
 * (0: every peg). A peg-in's set counts blocks up to its own, so only new
 * peg-ins have one to count; a peg-out's link depends on its candidates'
 * other exits, up to H − 1 blocks above it; the links need the windows of
 * peg-outs H blocks lower (those other exits').
 */
export function recomputedFrom(changedFrom: number, horizon: number): { sets: number; links: number; windows: number } {
  const links = changedFrom - horizon + 1;
  return { sets: changedFrom, links, windows: links - horizon + 1 };
}

/** The model as a number a_meta records (48 bits of a sha256): its values, its SQL and the pegscope version. */
function digestOf(model: Record<string, number>, sql: string[]): number {
  const hex = createHash('sha256').update(JSON.stringify({ model, sql, version: packageVersion() })).digest('hex');
  return Number.parseInt(hex.slice(0, 12), 16);
}

/**
 * The lowest new height when the published analysis can be continued: it
 * used this model, and the block at its height is still this chain's (the
 * scanner keeps one chain, so nothing below it changed either); else null.
 */
async function continuableFrom(db: Db, modelDigest: number, height: number): Promise<number | null> {
  const rows = await db.all<{ key: string; value: string | null }>(
    "SELECT key, value FROM a_meta WHERE key IN ('as_of_height', 'tip_hash', 'model_digest')").catch(() => []);
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  const previous = Number(meta.get('as_of_height'));
  if (meta.get('model_digest') !== String(modelDigest) || !Number.isSafeInteger(previous) || previous > height) return null;
  const tip = await db.one<{ hash: string }>('SELECT hash FROM blocks WHERE height = $1', [previous]);
  return tip !== undefined && tip.hash === meta.get('tip_hash') ? previous + 1 : null;
}

/** The published database's name, to reach a published table that a temp one of this run shadows. */
async function publishedCatalog(db: Db): Promise<string> {
  const row = await db.one<{ name: string }>('SELECT current_database() AS name');
  return `"${(row?.name ?? 'main').replace(/"/g, '""')}"`;
}

/** The published derived tables as w_published_<name> (a_links: w_published_links), which a continuing run's SQL reads. */
const PUBLISHED_VIEWS = (catalog: string): string => DERIVED_TABLES
  .map((table) => `CREATE OR REPLACE TEMP VIEW w_published_${table.slice(2)} AS SELECT * FROM ${catalog}.main.${table}`).join(';\n');

/**
 * A continuing run's table after its step: the rows computed this run
 * (w_new_<name>) and the published ones not computed again, as a view, so the
 * kept rows are neither copied here nor written again when publishing.
 */
const CARRY = (table: DerivedTable, computedAgain: string): string => `ALTER TABLE temp.main.${table} RENAME TO w_new_${table.slice(2)};
  CREATE TEMP VIEW ${table} AS SELECT * FROM w_published_${table.slice(2)} WHERE NOT (${computedAgain})
  UNION ALL SELECT * FROM w_new_${table.slice(2)}`;

/** Publishes a continuing run's table: the published rows it computed again replaced by its own. */
const PUBLISH_CARRIED = (catalog: string, table: DerivedTable, computedAgain: string): string => `DELETE FROM ${catalog}.main.${table} WHERE ${computedAgain};
  INSERT INTO ${catalog}.main.${table} SELECT * FROM w_new_${table.slice(2)}`;

type Carried = Partial<Record<DerivedTable, string>>;

/** CARRIED with this run's values bound. */
function bindCarried(values: Record<string, number>): Carried {
  return Object.fromEntries(Object.entries(CARRIED).map(([table, computedAgain]) => [table, bindSql(computedAgain, values)]));
}

/** What a continuing run adds after a step: its continue script, and the view of a table it computed in part. */
async function continueStep(db: Db, step: typeof STEPS[number], script: string | undefined, carried: Carried, values: Record<string, number>): Promise<void> {
  if (script !== undefined) await db.exec(bindSql(script, values));
  const table = step.replace(/^\d+_/, '') as DerivedTable;
  const computedAgain = carried[table];
  if (computedAgain !== undefined) await db.exec(CARRY(table, computedAgain));
}

/** A continuing run keeps the published anonymity sets of the peg-ins below the new blocks: they must all be there. */
async function checkPublishedSets(db: Db, below: number): Promise<void> {
  const counts = (await db.one<{ sets: bigint; pegins: bigint }>(
    'SELECT (SELECT count(*) FROM w_published_pegin_scores) AS sets, (SELECT count(*) FROM pegins WHERE height < $1) AS pegins', [below]))!;
  if (counts.sets !== counts.pegins) {
    throw new Error(`analyze: the published analysis has ${counts.sets} anonymity sets for ${counts.pegins} peg-ins below height ${below}; run \`pegscope analyze --full\``);
  }
}

/** The label categories of the model registry as the work table w_label_categories (category, risk, propagates). */
async function loadLabelCategories(db: Db): Promise<void> {
  await db.exec(readSql(import.meta.url, 'label-categories.sql'));
  const appender = await db.appender('w_label_categories',
    [{ name: 'category', type: 'varchar' }, { name: 'risk', type: 'integer' }, { name: 'propagates', type: 'boolean' }], 'temp');
  try {
    for (const c of LABEL_CATEGORIES) appender.append([c.name, c.risk, c.propagates]);
  } finally {
    appender.close();
  }
}

/**
 * One transaction: every freshly built temp a_* table replaces its published
 * twin; of a table a continuing run computed in part (`carried`), only the
 * rows it computed again are replaced.
 */
async function publish(db: Db, catalog: string, carried: Carried, onStep: AnalyzeOptions['onStep']): Promise<void> {
  await db.transaction(async () => {
    for (const table of DERIVED_TABLES) {
      const computedAgain = carried[table];
      await db.exec(computedAgain !== undefined ? PUBLISH_CARRIED(catalog, table, computedAgain)
        : `CREATE OR REPLACE TABLE ${catalog}.main.${table} AS SELECT * FROM temp.main.${table}`);
      await onStep?.(`publish:${table}`);
    }
  });
}

/**
 * The clustering scripts besides the step's own (06_a_clusters.sql): the
 * propagation round, the full run's final table, and a continuing run's
 * first step and merge into the published clusters.
 */
const clusterScripts = (): Record<'step' | 'final' | 'continue' | 'merge', string> => ({
  step: readSql(import.meta.url, '06_a_clusters_step.sql'),
  final: readSql(import.meta.url, '06_a_clusters_final.sql'),
  continue: readSql(import.meta.url, '06_a_clusters_continue.sql'),
  merge: readSql(import.meta.url, '06_a_clusters_merge.sql'),
});

/**
 * Label propagation until no node changes its cluster label, then a_clusters
 * (a continuing run merges into the published clusters); returns the
 * iterations used.
 */
async function runClusters(db: Db, values: Record<string, number>, sql: ReturnType<typeof clusterScripts>, continuing: boolean): Promise<number> {
  const step = bindSql(sql.step, values);
  for (let iteration = 1; iteration <= MAX_CLUSTER_ITERATIONS; iteration++) {
    await db.exec(step);
    const changed = await db.one<{ n: bigint }>(
      'SELECT count(*) AS n FROM w_cluster_next n JOIN w_cluster_labels l USING (aid) WHERE n.label <> l.label');
    await db.exec('CREATE OR REPLACE TEMP TABLE w_cluster_labels AS SELECT * FROM w_cluster_next');
    if (Number(changed?.n ?? 0) === 0) {
      await db.exec(bindSql(continuing ? sql.merge : sql.final, values));
      return iteration;
    }
  }
  throw new Error(`wallet clustering did not converge in ${MAX_CLUSTER_ITERATIONS} iterations; the co-spend graph is unusually deep — report this with the database`);
}

/** Drops this run's temp tables (work tables and unpublished a_* copies) so the published ones are visible again. */
async function dropWorkTables(db: Db): Promise<void> {
  const rows = await db.all<{ name: string }>(
    "SELECT table_name AS name FROM duckdb_tables() WHERE temporary AND (table_name LIKE 'w\\_%' ESCAPE '\\' OR table_name LIKE 'a\\_%' ESCAPE '\\')");
  for (const { name } of rows) await db.exec(`DROP TABLE IF EXISTS temp.main."${name}"`);
  const views = await db.all<{ name: string }>(
    "SELECT view_name AS name FROM duckdb_views() WHERE temporary AND (view_name LIKE 'w\\_%' ESCAPE '\\' OR view_name LIKE 'a\\_%' ESCAPE '\\')");
  for (const { name } of views) await db.exec(`DROP VIEW IF EXISTS temp.main."${name}"`);
}
