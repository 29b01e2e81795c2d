/**
 * The export's SQL lives in src/export/sql/, one file per statement or
 * script (the build copies them next to the compiled modules); a file used
 * as a subquery has no trailing semicolon. The router never imports this
 * side: the api modules hold only pure shaping.
 */
import { readSql } from '../store/db.js';
import { bindSql, modelSqlValues } from '../domain/model.js';

const loaded = new Map<string, string>();
/**
 * The text of src/export/sql/<name>.sql, with the model's facts bound where
 * it names them ({{name}}, src/domain/model.ts); read once (document queries
 * are asked for in every batch).
 */
export function exportSql(name: string): string {
  let sql = loaded.get(name);
  if (sql === undefined) loaded.set(name, sql = bindSql(readSql(import.meta.url, `sql/${name}.sql`), modelSqlValues()));
  return sql;
}

/**
 * The temp tables the export's statements share by name, across nodes.sql,
 * workspace.ts, writer.ts and manifest.ts. Listed once here, so one statement
 * drops them all when an export ends (a long-running job would otherwise
 * keep them in memory).
 */
export const WORK_TABLES = [
  // attribution.sql, keys.sql: what documents show of addresses, and the tables of every document's key (the view x_keys);
  // dirty.sql (dirty-all.sql): the peg-ins each address to render funds.
  'x_attribution', 'x_addresses', 'x_address_pegins', 'x_follow_chains',
  // peg-digests.sql, dirty.sql (or dirty-all.sql): what changed since the previous release (the view x_prev_pegs is its digests;
  // x_attr_changed the addresses whose digest the documents index has not), what to render and the pegs that shows.
  'x_pegs_in_question', 'x_peg_digests', 'x_changed_pegs', 'x_attr_changed', 'x_touched',
  'x_dirty_pegins', 'x_dirty_pegouts', 'x_dirty_addresses',
  'x_dirty_keys', 'x_need_pegins', 'x_need_pegouts',
  // render-every-key.sql, render-batch-keys.sql: the batch of dirty keys the document queries render.
  'x_render_keys',
  // nodes.sql: peg-in/peg-out nodes, shared by the document queries.
  'x_pegin_inputs', 'x_pegin_links', 'x_pegout_links', 'x_pegin_nodes', 'x_pegout_nodes',
  // workspace.ts: one kind's rendered documents, the documents this export recorded, the previous release's whose key is gone,
  // those unchanged since, those to fetch.
  'x_rendered_docs', 'x_docs', 'x_gone_docs', 'x_unchanged', 'x_fetch',
  // follow-hops.sql: the hops of the follow chains to render; range-docs(-kept).sql and export.ts: one kind's documents (the view x_range_docs is both) and
  // block aliases on their way into range files (range-aliases*.sql: x_alias_docs, the hashes recorded in the documents index), its dirty keys by prefix.
  'x_follow_hops', 'x_range_kept', 'x_range_rendered', 'x_range_aliases', 'x_alias_docs', 'x_range_keys',
  // range-touched.sql, range-digests.sql, range-todo.sql: the ranges to build or compare, those of a batch, their digests, and those whose bytes changed.
  'x_range_touched', 'x_range_batch', 'x_range_digests', 'x_range_todo',
  // writer.ts: the files of this release (and the inode and mtime the file worker reported), of the previous one, of the recycled one, those carried over.
  'x_files', 'x_file_stats', 'x_prev_files', 'x_recycled_files', 'x_carry',
  // manifest.ts: the analyses the release's documents are stamped with; changes.ts: the previous manifest and the difference.
  'x_stamps', 'x_prev_manifest', 'x_changes',
  // dumps.ts (on its own connection): one partitioned dump's rows; workspace.ts: the digests of its partitions.
  'x_dump', 'x_dump_digests',
] as const;

/** analysed.sql: the base tables up to the analysed height, the only way the export reads them (on each connection it uses). */
export const ANALYSED = exportSql('analysed');
export const ANALYSED_VIEWS = ['analysed_blocks', 'analysed_pegins', 'analysed_pegin_inputs', 'analysed_pegouts'] as const;

/** keys.sql: every document's key, the txids with a peg and the blocks with a peg; workspace.ts: the previous release's documents and peg digests (the documents index); peg-digests.sql: the pegs in question for this export and the next; range-kind-start.sql: one kind's documents on their way into range files, kept and rendered. */
export const WORK_VIEWS = ['x_keys', 'x_pegin_txids', 'x_pegout_txids', 'x_block_keys', 'x_prev_docs', 'x_prev_pegs', 'x_maybe_pegs', 'x_next_pegs', 'x_range_docs'] as const;

/** Drops every work table and view. */
export const DROP_WORK_TABLES = [
  ...[...ANALYSED_VIEWS, ...WORK_VIEWS].map((view) => `DROP VIEW IF EXISTS ${view};`),
  ...WORK_TABLES.map((table) => `DROP TABLE IF EXISTS ${table};`),
].join('\n');

/**
 * A 128-bit digest (UHUGEINT: md5_number, range digests) as the release's
 * Parquet indexes hold it, two UBIGINT columns: Parquet has no 128-bit
 * integer, and DuckDB would write a DOUBLE, which loses the low bits.
 */
export const digestColumns = (column: string): string =>
  `(${column} >> 64)::UBIGINT AS ${column}_high, (${column} & 18446744073709551615::UHUGEINT)::UBIGINT AS ${column}_low`;
/** The digest digestColumns wrote, read back. */
export const digestOf = (column: string): string => `(${column}_high::UHUGEINT << 64) | ${column}_low::UHUGEINT AS ${column}`;
