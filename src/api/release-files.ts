/**
 * Names and rules of the files every release has, for the exporter and for
 * code that reads releases without it (verify, the router).
 */
export const MANIFEST_FILE = 'manifest.json';
/** What changed since the previous release (added, changed, removed with sha256): what a mirror uploads. */
export const CHANGES_FILE = 'changes.json';
/** The manifest's rows as Parquet (plus document keys): what the next export joins against instead of parsing JSON. */
export const FILES_INDEX = 'data/files.parquet';
/** Per-query documents: kind, q, md5 of the body and the stamp of the analysis that last changed it. */
export const DOCS_INDEX = 'data/docs.parquet';
/** Files at least this large get a .gz sibling (and the router compresses documents from this size); at least BR_MIN a .br one when it beats gzip clearly. */
export const GZ_MIN = 4096;
export const BR_MIN = 65536;

/**
 * What every release has, whatever its layout: the router refuses a release
 * whose manifest lacks one, or where one is missing or damaged (a 503 for
 * every request, health included), instead of answering from its absence.
 */
export const REQUIRED_FILES: readonly string[] = [
  'api/index.json', 'api/health.json', 'api/amounts.json', 'api/stats.json', 'api/recommendations.json',
  'api/links.json', 'api/links.csv', 'api/pegin_amounts.json', 'api/pegin_amounts.csv',
  'api/pegout_amounts.json', 'api/pegout_amounts.csv',
];
