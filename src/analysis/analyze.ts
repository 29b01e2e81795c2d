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
 * Formulas and constants: docs/methodology.md.
 */
import type { Litoshi } from '../domain/amount.js';
import { bindSql, DEFAULT_ANALYZE_MEMORY_MB, DEFAULT_PARAMS, HIGH_CONFIDENCE, LABEL_CATEGORIES, modelSqlValues, type AnalysisParams } from '../domain/model.js';
import { readSql, type Db } from '../store/db.js';
import { fillHorizonCounts } from './horizon.js';

/** The tunable constants and their defaults live in the model registry (src/domain/model.ts). */
export { DEFAULT_PARAMS, type AnalysisParams } from '../domain/model.js';

export interface AnalyzeOptions {
  log?: (line: string) => void;
  /** Unix seconds recorded as updated_at (default: now). */
  now?: number;
  tolerance?: Litoshi;
  /** Blocks of the horizon (SPEC §2); default HORIZON_BLOCKS. */
  horizon?: number;
  params?: Partial<AnalysisParams>;
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
  /** Peg-in/peg-out pairs the link step expanded (bounded by max_join per peg-out). */
  candidatePairs: number;
  clusterIterations: number;
  steps: { step: string; ms: number }[];
}

/** The derived tables in dependency order; clusters is a loop (see runClusters). */
export const STEPS = [
  '01_params', '01_w_horizon', '02_a_meta', '03_a_amounts', '04_a_links', '05_a_reuse', '06_a_clusters',
  '07_a_labels', '08_a_attribution', '09_a_entity_flows', '10_a_pegin_scores',
  '11_a_pegout_scores', '12_a_follow', '13_a_stats', '14_a_recommendations',
] as const;

/** Every table a run publishes (docs/architecture.md "Derived tables"). */
export const DERIVED_TABLES = [
  'a_meta', 'a_amounts', 'a_links', 'a_reuse', 'a_clusters', 'a_labels', 'a_attribution', 'a_entity_flows',
  'a_pegin_scores', 'a_pegout_scores', 'a_follow', 'a_stats', 'a_recommendations',
] as const;

const MAX_CLUSTER_ITERATIONS = 64;

async function asOfHeight(db: Db): Promise<number> {
  const cursor = await db.getMeta('cursor_height');
  if (cursor !== undefined && /^\d+$/.test(cursor)) return Number(cursor);
  const row = await db.one<{ h: number | null }>('SELECT max(height) AS h FROM blocks');
  return row?.h ?? 0;
}

export async function ensureLabelsTable(db: Db): Promise<void> {
  await db.exec(readSql(import.meta.url, 'labels.sql'));
}

export async function analyze(db: Db, opts: AnalyzeOptions = {}): Promise<AnalyzeResult> {
  const log = opts.log ?? (() => undefined);
  const params: AnalysisParams = {
    ...DEFAULT_PARAMS, ...(opts.tolerance ? { tol: opts.tolerance } : {}), ...(opts.horizon ? { horizon_blocks: opts.horizon } : {}), ...opts.params,
  };
  await ensureLabelsTable(db);
  const height = await asOfHeight(db);
  const updatedAt = opts.now ?? Math.floor(Date.now() / 1000);
  const values: Record<string, number> = { ...modelSqlValues(params), as_of_height: height, now: updatedAt };
  const steps: { step: string; ms: number }[] = [];
  let clusterIterations = 0;

  const result = await db.withMemoryLimit(opts.memoryLimitMb ?? DEFAULT_ANALYZE_MEMORY_MB, async () => {
    try {
      await loadLabelCategories(db);
      for (const step of STEPS) {
        const started = performance.now();
        await db.exec(bindSql(readSql(import.meta.url, `${step}.sql`), values));
        if (step === '01_w_horizon') await fillHorizonCounts(db, params.tol, params.horizon_blocks);
        if (step === '06_a_clusters') clusterIterations = await runClusters(db, values);
        const ms = Math.round(performance.now() - started);
        steps.push({ step, ms });
        log(`analyze: ${step} ${ms} ms`);
        await opts.onStep?.(step);
      }
      const counts = await db.one<{ links: bigint; high: bigint; pairs: bigint }>(
        'SELECT count(*) AS links, count(*) FILTER (WHERE confidence >= $1) AS high, (SELECT count(*) FROM w_pairs) AS pairs FROM temp.main.a_links',
        [HIGH_CONFIDENCE]);
      const started = performance.now();
      await publish(db, opts.onStep);
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
  return { asOfHeight: height, updatedAt, ...result, clusterIterations, steps };
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

/** One transaction: every freshly built temp a_* table replaces its published twin. */
async function publish(db: Db, onStep: AnalyzeOptions['onStep']): Promise<void> {
  const row = await db.one<{ name: string }>('SELECT current_database() AS name');
  const catalog = `"${(row?.name ?? 'main').replace(/"/g, '""')}"`;
  await db.transaction(async () => {
    for (const table of DERIVED_TABLES) {
      await db.exec(`CREATE OR REPLACE TABLE ${catalog}.main.${table} AS SELECT * FROM temp.main.${table}`);
      await onStep?.(`publish:${table}`);
    }
  });
}

/** Label propagation until no address changes its cluster label; returns the iterations used. */
async function runClusters(db: Db, values: Record<string, number>): Promise<number> {
  const step = bindSql(readSql(import.meta.url, '06_a_clusters_step.sql'), values);
  for (let iteration = 1; iteration <= MAX_CLUSTER_ITERATIONS; iteration++) {
    await db.exec(step);
    const changed = await db.one<{ n: bigint }>(
      'SELECT count(*) AS n FROM w_cluster_next n JOIN w_cluster_labels l USING (aid) WHERE n.label <> l.label');
    await db.exec('CREATE OR REPLACE TEMP TABLE w_cluster_labels AS SELECT * FROM w_cluster_next');
    if (Number(changed?.n ?? 0) === 0) {
      await db.exec(bindSql(readSql(import.meta.url, '06_a_clusters_final.sql'), values));
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
    "SELECT view_name AS name FROM duckdb_views() WHERE temporary AND view_name LIKE 'w\\_%' ESCAPE '\\'");
  for (const { name } of views) await db.exec(`DROP VIEW IF EXISTS temp.main."${name}"`);
}
