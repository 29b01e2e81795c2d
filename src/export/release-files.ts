/**
 * Names of the files every release has, for code that reads releases
 * without the exporter (verify, the router): no DuckDB behind this module.
 */
export const MANIFEST_FILE = 'manifest.json';
/** The manifest's rows as Parquet (plus document keys): what the next export joins against instead of parsing JSON. */
export const FILES_INDEX = 'data/files.parquet';
/** Per-query documents: kind, q, md5 of the body and the stamp of the analysis that last changed it. */
export const DOCS_INDEX = 'data/docs.parquet';
