import { sqlString } from '../store/db.js';

/** Where a release keeps its DuckDB views over the dumps (docs/dumps.md "Views"). */
export const DUMP_VIEWS_PATH = 'dumps/views.sql';
/** The same views over the site's URLs, written with --site-url (docs/dumps.md "Querying a mirror over HTTP"). */
export const DUMP_VIEWS_HTTP_PATH = 'dumps/views-http.sql';

/** A column of unix seconds (`block_time`, `pegin_block_time`, `imported_at`): the views add a TIMESTAMP WITH TIME ZONE twin. */
const UNIX_SECONDS = /_(?:time|at)$/;
/** The twin's name: `block_time` → `block_timestamp`, `imported_at` → `imported_timestamp`. */
export const timestampColumn = (column: string): string => column.replace(UNIX_SECONDS, '_timestamp');

/**
 * dumps/views.sql: one DuckDB view per dump, named as the dump, over the glob
 * of its Parquet files relative to the release root (so it reads a release,
 * a mirror's copy, or a consumer's copy kept up to date from changes.json),
 * with a `*_timestamp` column beside each column of unix seconds.
 */
/** One dump as its view reads it: its name, the glob of its Parquet files, its columns. */
export interface DumpView {
  name: string;
  glob: string;
  columns: readonly string[];
  /** Every Parquet file of the dump in this release, by its path in the release. */
  files: readonly string[];
}

const viewSql = (name: string, columns: readonly string[], source: string): string => {
  const twins = columns.filter((c) => UNIX_SECONDS.test(c)).map((c) => `, to_timestamp(${c}) AS ${timestampColumn(c)}`).join('');
  return `CREATE OR REPLACE VIEW ${name} AS SELECT *${twins} FROM read_parquet(${source});`;
};

export function dumpViewsSql(dumps: readonly DumpView[]): string {
  const views = dumps.map(({ name, glob, columns }) => viewSql(name, columns, sqlString(glob)));
  return [
    '-- pegscope: DuckDB views over this release\'s Parquet dumps (docs/dumps.md).',
    '-- Run from the release root (the directory holding manifest.json and dumps/), e.g.',
    '--   duckdb -init dumps/views.sql     or, inside duckdb:  .read dumps/views.sql',
    '-- Times are unix seconds in *_time columns; each has a TIMESTAMPTZ *_timestamp twin here.',
    ...views,
    '',
  ].join('\n');
}

/**
 * dumps/views-http.sql: the same views over the release's files at
 * `siteUrl` (ending in '/'), each dump's Parquet files listed one by one:
 * HTTP has no glob, so DuckDB (httpfs) reads a mirror in place, without a
 * download step, from any directory.
 */
export function dumpViewsHttpSql(dumps: readonly DumpView[], siteUrl: string): string {
  const views = dumps.map(({ name, columns, files }) => viewSql(name, columns, `[${files.map((file) => sqlString(`${siteUrl}${file}`)).join(', ')}]`));
  return [
    `-- pegscope: DuckDB views over the Parquet dumps of the release at ${siteUrl}, read over HTTP (docs/dumps.md).`,
    '-- Run from anywhere, e.g.  duckdb -init views-http.sql  or, inside duckdb:  .read views-http.sql',
    '-- Each release lists its own files: fetch this file again for a newer release.',
    'INSTALL httpfs;',
    'LOAD httpfs;',
    ...views,
    '',
  ].join('\n');
}
