/**
 * Names and rules of the files every release has, and the wire facts of
 * serving them (content types, the error body), for the exporter, the router,
 * the host configs and the page alike: each is declared here once.
 */
import { API_VERSION } from './params.js';
import { EXPLORER_TYPES } from './explorer.js';
export const MANIFEST_FILE = 'manifest.json';
/** manifest.json's minisign signature (docs/verifying.md): beside it, never listed in it. */
export const MANIFEST_SIGNATURE_FILE = 'manifest.json.minisig';
/** The wallet's signed index (docs/verifying.md), its signature and its shards. */
export const SIGNED_INDEX_PATH = 'api/signed.json';
export const SIGNED_INDEX_SIGNATURE_PATH = 'api/signed.json.minisig';
export const signedShardPath = (kind: string, shard: string): string => `api/signed/${kind}/${shard}.json`;
/** Hex digits of a range prefix that name its shard. */
export const shardLength = (prefixLength: number): number => Math.max(1, prefixLength - 2);
/** The amount table wallets fetch and the router scores privacy with (docs/amounts.md). */
export const AMOUNT_TABLE_PATH = 'api/amounts.json';

/** Content-Type of a release file by its extension, wherever it is served (router, nginx.conf, _headers). */
export const CONTENT_TYPES = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
  gz: 'application/gzip',
  // A .br sibling asked for by its name is the compressed bytes, as a static host sends them.
  br: 'application/octet-stream',
  parquet: 'application/vnd.apache.parquet',
  sql: 'application/sql; charset=utf-8',
  // minisign's signature files (docs/verifying.md): four lines of text.
  minisig: 'text/plain; charset=utf-8',
  ...EXPLORER_TYPES,
} as const;

/** JSON Feed's own type (jsonfeed.org), for feeds/*.json: a reader that sniffs the type knows the file for a feed. */
export const FEED_JSON_TYPE = 'application/feed+json; charset=utf-8';
const FEED_JSON_PATH = /^feeds\/[^/]+\.json$/;
/** Whether a release file is a JSON Feed (served as FEED_JSON_TYPE). */
export const isJsonFeed = (rel: string): boolean => FEED_JSON_PATH.test(rel);

/** The error body of every refusal (docs/api.md "Errors"): `{error, version}`, and for health's 503 `health: {ok: false}`. */
export function errorBody(message: string, extra: object = {}): string {
  return JSON.stringify({ error: message, version: API_VERSION, ...extra });
}
/** What changed since the previous release (added, changed, removed with sha256): what a mirror uploads. */
export const CHANGES_FILE = 'changes.json';
/** Files at least this large get a .gz sibling (and the router compresses documents from this size); at least BR_MIN a .br one when it beats gzip clearly. */
export const GZ_MIN = 4096;
export const BR_MIN = 65536;

/**
 * What every release has, whatever its layout: the router refuses a release
 * whose manifest lacks one, or where one is missing or damaged (a 503 for
 * every request, health included), instead of answering from its absence.
 */
export const REQUIRED_FILES: readonly string[] = [
  'api/index.json', 'api/health.json', AMOUNT_TABLE_PATH, 'api/stats.json', 'api/recommendations.json',
  'api/links.json', 'api/links.csv', 'api/pegin_amounts.json', 'api/pegin_amounts.csv',
  'api/pegout_amounts.json', 'api/pegout_amounts.csv',
];

/** One row of a release's layout: which paths, what they hold, and whether the site serves them by name. */
export interface ReleaseFileRule {
  /** The paths as docs/static-hosting.md prints them. */
  paths: string;
  /** Release-relative paths of this row (a .gz/.br sibling follows the file it compresses). */
  pattern: RegExp;
  what: string;
  /** Served by its file name, the same bytes, by the router and every mirror's config (a mirror copies what the manifest lists: docs/mirror.md); else kept private where the host allows. */
  served: boolean;
  /** The row of compressed siblings: served where the file they compress is. */
  sibling?: true;
}

/**
 * Everything a release holds, in the order docs/static-hosting.md lists it
 * (`npm run docs:release` writes that table from this list): the router
 * serves a file by its name exactly when a served row matches it and the
 * manifest lists it, as nginx.conf does.
 */
export const RELEASE_FILE_RULES: readonly ReleaseFileRule[] = [
  { paths: '`api/<endpoint>.json` (`.csv`)', pattern: /^api\/[a-z_]+\.(?:json|csv)$/, served: true, what: 'the exact response for the default parameters: health, stats, recommendations, links, pegin_amounts, pegout_amounts' },
  { paths: '`api/index.json`', pattern: /^api\/index\.json$/, served: true, what: 'the `/api` index: endpoints, disclaimer, licences, attribution' },
  { paths: '`api/amounts.json`', pattern: /^api\/amounts\.json$/, served: true, what: 'the amount table wallets score amounts with (docs/amounts.md)' },
  { paths: '`api/openapi.json`', pattern: /^api\/openapi\.json$/, served: true, what: 'the OpenAPI document of the router (docs/api.md)' },
  { paths: '`api/series/<name>.json`', pattern: /^api\/series\/[a-z_]+\.json$/, served: true, what: "the explorer's chart series: `daily`, `pegin_amounts`, `link_confidence` (docs/api.md)" },
  { paths: '`feeds/links.{atom,json}`, `feeds/risk.{atom,json}`', pattern: /^feeds\/(?:links|risk)\.(?:atom|json)$/, served: true, what: 'Atom and JSON Feed 1.1: the newest 100 links at confidence ≥ 0.9 and peg-outs with risk ≥ 70 (docs/notifications.md)' },
  { paths: '`index.html`, `assets/<name>-<hash>.{js,css,html}`', pattern: /^(?:index\.html|assets\/[A-Za-z0-9_-]+\.(?:js|css|html))$/, served: true, what: 'the explorer page (docs/api.md "Explorer page")' },
  { paths: '`api/ranges.json`, `api/range/<kind>/<prefix>.json`', pattern: /^api\/(?:ranges\.json|range\/[a-z]+\/[0-9a-f]+\.json)$/, served: true, what: 'the default layout: every trace, address, follow and block document, packed by a sha256 prefix of its key (docs/api.md "Private lookups for wallets"); follow ranges also hold the full-depth chains, block ranges map block hashes to heights' },
  { paths: '`api/trace/<q>.json`, `.csv`', pattern: /^api\/trace\/[A-Za-z0-9]+\.(?:json|csv)$/, served: true, what: '`--layout files` only: q = every address, peg-in txid and peg-out (HogEx) txid' },
  { paths: '`api/address/<q>.json`, `api/follow/<q>.json`', pattern: /^api\/(?:address|follow)\/[A-Za-z0-9]+\.json$/, served: true, what: '`--layout files` only: every address; follow at the default depth 3' },
  { paths: '`api/block/<height>.json`, `api/block/<hash>.json`', pattern: /^api\/block\/[0-9a-f]+\.json$/, served: true, what: '`--layout files` only: every block with pegs (the two names are one hard-linked file)' },
  { paths: '`data/links.json`, `data/pegin_amounts.json`, `data/pegout_amounts.json`', pattern: /^data\/[a-z_]+\.json$/, served: true, what: 'top 500 in API order, without an envelope (the router adds its release\'s, so they change only when the top rows do): the router slices these for other `limit`/`min_confidence` (no compressed siblings: only routers read them, a mirror\'s among them, which is why they are served; docs/mirror.md)' },
  { paths: '`data/follow/<q>.json`', pattern: /^data\/follow\/[A-Za-z0-9]+\.json$/, served: true, what: '`--layout files` only: full-depth (10) chains of addresses with at least one hop (served for mirrors, as `data/links.json`)' },
  { paths: '`dumps/<name>/<name>-<from>-<to>.{parquet,csv.gz}`, `dumps/<name>.{parquet,csv.gz}`', pattern: /^dumps\/(?:[a-z_]+|([a-z_]+)\/\1-\d{8}-\d{8})\.(?:parquet|csv\.gz)$/, served: true, what: 'bulk data, partitioned by height where a table has heights (docs/dumps.md)' },
  { paths: '`dumps/views.sql`', pattern: /^dumps\/views\.sql$/, served: true, what: 'DuckDB views over the Parquet dumps, with TIMESTAMP columns, run from the release root (docs/dumps.md)' },
  { paths: '`api/signed.json`, `api/signed.json.minisig`, `api/signed/<kind>/<shard>.json`', pattern: /^api\/(?:signed\.json(?:\.minisig)?|signed\/[a-z]+\/[0-9a-f]+\.json)$/, served: true, what: 'the wallet\'s signed index: the sha256 of the amount table, of api/ranges.json and of each shard, which lists the sha256 of its range files; its signature when the release is signed (docs/verifying.md)' },
  { paths: '`dumps/views-http.sql`', pattern: /^dumps\/views-http\.sql$/, served: true, what: 'with --site-url: the same views over the site\'s URLs, each Parquet file listed, for DuckDB over HTTP (docs/dumps.md)' },
  { paths: '`changes.json`', pattern: /^changes\.json$/, served: true, what: 'the files added, changed and removed since the previous release, with size and sha256 (below)' },
  { paths: '`manifest.json`', pattern: /^manifest\.json$/, served: true, what: 'every file with size and sha256, one per line in path order (schemas/manifest.json)' },
  { paths: '`manifest.json.minisig`', pattern: /^manifest\.json\.minisig$/, served: true, what: 'the signature of manifest.json when the release is signed, in minisign\'s format (docs/verifying.md); not listed in the manifest it signs' },
  { paths: '`_redirects`, `_headers`, `nginx.conf`', pattern: /^(?:_redirects|_headers|nginx\.conf)$/, served: true, what: 'configs for static hosts (below), served so a mirror copies them (Netlify and Cloudflare Pages read them and never serve them: docs/mirror.md "Origins")' },
  { paths: '`*.gz`, `*.br`', pattern: /\.(?:gz|br)$/, served: true, sibling: true, what: 'precompressed copies of files ≥ 4 KiB (`.br` from 64 KiB, when it beats gzip by 10%), served where the file they compress is' },
];

/** Whether the site serves a release file by its name: a served row matches it, or, for a .gz/.br sibling, the file it compresses. */
export function isServedFile(rel: string): boolean {
  const rule = RELEASE_FILE_RULES.find((r) => !r.sibling && r.pattern.test(rel));
  if (rule) return rule.served;
  const compressed = /^(.+)\.(?:gz|br)$/.exec(rel);
  return compressed ? isServedFile(compressed[1]!) : false;
}
