import { ENDPOINTS, type EndpointName } from '../api/params.js';
import { CONTENT_TYPES, errorBody } from '../api/release-files.js';
import { analysisCacheControl, COMPUTED_CACHE_CONTROL, DEFAULT_CACHE_SECONDS, ERROR_CACHE_CONTROL } from '../api/caching.js';
import { RANGE_KINDS, RANGES_INDEX_PATH } from '@pegscope/client';
import { explorerHeaders, explorerNginx } from './explorer.js';

/**
 * The configs a release carries for static hosts, each using only the rules
 * its host documents (what each host then answers directly and what goes
 * through @pegscope/client: docs/static-hosting.md):
 *
 * - `_redirects` and `_headers`: Netlify and Cloudflare Pages. Cloudflare
 *   ignores a line that is not `source destination [code]`, so query
 *   conditions are Netlify's alone, and a rule both read must be right
 *   whatever the query (no `/api` → index: Cloudflare would answer
 *   `/api?endpoint=stats` with the index);
 * - `nginx.conf`: everything a file can answer, by every path form the
 *   router takes, and a JSON error naming the way round for the rest.
 *
 * A file answers default parameters only; the router (`pegscope serve`)
 * computes the others. Lookups by key (trace, address, follow, block) have a
 * file per key only in the files layout: a range release (the default)
 * answers them through the client, which fetches a range, never the key.
 */
const NAMES = Object.keys(ENDPOINTS) as EndpointName[];
/** Endpoints with a default document (everything without a required parameter). */
const DEFAULTS: EndpointName[] = NAMES.filter((name) => !ENDPOINTS[name].params.some((p) => p.required));
const WITH_CSV = (name: EndpointName): boolean => ENDPOINTS[name].csvColumns !== undefined;
const API_PATHS = ['/api', '/api.php'];
/** Parameters only the router can honour: they slice or compute, where a file holds one answer. */
const computed = (name: EndpointName): string[] =>
  ENDPOINTS[name].params.filter((p) => p.kind !== 'query' && p.name !== 'format').map((p) => p.name);

const DOCUMENT_CACHE = analysisCacheControl(DEFAULT_CACHE_SECONDS);
/** What browser code may read on a mirror: the validators and byte ranges nginx sends (the router adds its rate-limit headers). */
const EXPOSED = 'ETag, Content-Range, Accept-Ranges';

/** Netlify / Cloudflare Pages `_redirects`: first match wins, so the query rules come before the path rules. */
export function redirectsFile(): string {
  const lines = [
    '# pegscope: rewrites (status 200) from API paths to release files, for Netlify and Cloudflare Pages.',
    '# Lookups by key go through @pegscope/client (api/ranges.json, api/range/<kind>/<prefix>.json): docs/static-hosting.md.',
    '# Netlify only: query conditions. Cloudflare Pages ignores these lines (not "source destination [code]").',
  ];
  for (const name of DEFAULTS) {
    for (const base of API_PATHS) {
      if (WITH_CSV(name)) lines.push(`${base} endpoint=${name} format=csv /api/${name}.csv 200`);
      lines.push(`${base} endpoint=${name} /api/${name}.json 200`);
    }
    if (WITH_CSV(name)) lines.push(`/api/${name} format=csv /api/${name}.csv 200`);
  }
  lines.push('# Netlify and Cloudflare Pages: path forms.');
  for (const name of DEFAULTS) lines.push(`/api/${name} /api/${name}.json 200`);
  lines.push('/api/amounts /api/amounts.json 200', `/api/ranges /${RANGES_INDEX_PATH} 200`);
  return `${lines.join('\n')}\n`;
}

/**
 * `_headers`: CORS, content types and the router's caching. A header two
 * matching rules both set is joined with a comma (Cloudflare), so each is set
 * by one rule per path.
 */
export function headersFile(): string {
  return [
    '/*',
    '  Access-Control-Allow-Origin: *',
    `  Access-Control-Expose-Headers: ${EXPOSED}`,
    '  X-Content-Type-Options: nosniff',
    ...['/api/*', '/dumps/*', '/feeds/*', '/manifest.json', '/changes.json'].flatMap((path) => [path, `  Cache-Control: ${DOCUMENT_CACHE}`]),
    ...(['json', 'csv', 'atom', 'gz', 'parquet', 'sql'] as const).flatMap((ext) => [`/*.${ext}`, `  Content-Type: ${CONTENT_TYPES[ext]}`]),
    ...explorerHeaders(),
    '',
  ].join('\n');
}

/** An error body nginx can return in single quotes (no quote, no variable). */
const errorJson = (message: string): string => errorBody(message).replace(/['$]/g, '');

/** Why nginx refuses what it cannot answer, and where the answer is. */
export const NGINX_MESSAGES = {
  badQ: 'q must be an address, a 64-hex txid or block hash, or a block height',
  notFound: 'no such path; the API index is at /api',
  noDocument: 'this release has no document for that q',
  clientOnly: `this mirror holds lookups as range files, so the key never reaches it: fetch /${RANGES_INDEX_PATH}, then /api/range/<kind>/<prefix>.json with the first prefix_length hex digits of the sha256 of the key, as @pegscope/client RangeClient does (docs/api.md), or ask a pegscope router`,
  privacy: 'privacy is computed per amount: score it with @pegscope/client privacyOf on /api/amounts.json (docs/amounts.md), or ask a pegscope router',
  computed: (names: string[]): string => `a mirror holds the default document only: leave out ${names.join(' and ')}, or ask a pegscope router (pegscope serve), which computes them`,
  format: (name: EndpointName): string => `format must be ${WITH_CSV(name) ? 'json or csv' : 'json'} for ${name}`,
};

/** The router's headers; each location with an add_header of its own repeats them (nginx drops inherited ones there). */
function nginxCommonHeaders(indent = ''): string {
  return [
    'add_header Access-Control-Allow-Origin * always;',
    `add_header Access-Control-Expose-Headers "${EXPOSED}" always;`,
    'add_header X-Content-Type-Options nosniff always;',
    'add_header Cache-Control $pegscope_cache always;',
  ].map((line) => `${indent}${line}`).join('\n');
}

/** An error body's type is the location's default type (the path has no extension there). */
const JSON_ERRORS = '    default_type application/json;';
/** Named locations keep the request's path, so its extension (.csv, .js) must not pick the type. */
const NAMED_JSON_ERRORS = `    types { }\n${JSON_ERRORS}`;

/** `if (…) { set no-store; return status body; }`: an error that no cache keeps. */
const refuse = (condition: string, status: number, message: string): string =>
  `    if (${condition}) { set $pegscope_cache "${ERROR_CACHE_CONTROL}"; return ${status} '${errorJson(message)}'; }`;

/** `(?:^|&)(?:a|b)=`: any of these parameters in the query string. */
const anyParam = (names: string[]): string => `"(?:^|&)(?:${names.join('|')})="`;

/** One location per default endpoint: the default document or its CSV twin, or a refusal of what a file cannot answer. */
function defaultLocation(name: EndpointName): string {
  const lines = [`location = /api/${name} {`, JSON_ERRORS];
  if (name === 'health') lines.push(`    set $pegscope_cache "${COMPUTED_CACHE_CONTROL}";`);
  const params = computed(name);
  if (params.length) lines.push(refuse(`$args ~ ${anyParam(params)}`, 501, NGINX_MESSAGES.computed(params)));
  lines.push(refuse(`$arg_format !~ "^(?:json${WITH_CSV(name) ? '|csv' : ''})?$"`, 400, NGINX_MESSAGES.format(name)));
  if (WITH_CSV(name)) lines.push(`    if ($arg_format = "csv") { rewrite ^ /api/${name}.csv last; }`);
  lines.push(`    rewrite ^ /api/${name}.json last;`, '}');
  return lines.join('\n');
}

/**
 * An nginx snippet to include inside a `server {}` whose `root` is
 * out/<network>/current. Only `set`, `rewrite … last` and `return` inside
 * `if` (its safe uses); q must look like an address, txid, height or hash
 * before it becomes part of a path. It is the same for both layouts: a range
 * release is told apart by its api/ranges.json.
 */
export function nginxSnippet(): string {
  const kinds = RANGE_KINDS.join('|');
  const queryParams = [...new Set(RANGE_KINDS.flatMap((kind) => computed(kind)))];
  const endpoints = NAMES.join('|');
  return `# pegscope static tree — include inside server { root /path/to/out/<network>/current; … }
# What it answers, and what goes through @pegscope/client or the router: docs/static-hosting.md.
types {
    application/json json;
    text/csv csv;
    application/atom+xml atom;
    application/gzip gz;
    application/vnd.apache.parquet parquet;
    application/sql sql;
    text/html html;
    text/css css;
    text/javascript js;
    text/plain minisig;
}
default_type application/octet-stream;
charset utf-8;
charset_types application/json application/feed+json text/csv application/atom+xml application/sql text/css text/javascript text/plain;
# A request for X gets X.gz when the client takes gzip; Vary tells caches so.
gzip_static on;
gzip_vary on;
# Cache-Control as the router sends it: documents for ${DEFAULT_CACHE_SECONDS} s, health revalidated, errors never kept.
set $pegscope_cache "${DOCUMENT_CACHE}";
${nginxCommonHeaders()}

# Dot files anywhere are not the release's.
location ~ "/\\." {
    return 404;
}

location ~ ^/api(?:\\.php)?/?$ {
${JSON_ERRORS}
    if ($arg_endpoint = "") { rewrite ^ /api/index.json last; }
${refuse(`$arg_endpoint !~ "^(?:${endpoints})$"`, 404, NGINX_MESSAGES.notFound)}
    rewrite ^ /api/$arg_endpoint last;
}

${DEFAULTS.map(defaultLocation).join('\n\n')}

location = /api/privacy {
${JSON_ERRORS}
    set $pegscope_cache "${ERROR_CACHE_CONTROL}";
    return 501 '${errorJson(NGINX_MESSAGES.privacy)}';
}

location = /api/amounts { rewrite ^ /api/amounts.json last; }
location = /api/ranges { rewrite ^ /${RANGES_INDEX_PATH} last; }
location ~ "^/api/range/(?:${kinds})/[0-9a-f]{1,8}$" { rewrite ^ $uri.json last; }

# Lookups by key: ?q= and /api/<kind>/<q> name the file of the files layout.
location ~ ^/api/(${kinds})$ {
${JSON_ERRORS}
    set $pegscope_kind $1;
${refuse(`$args ~ ${anyParam(queryParams)}`, 501, NGINX_MESSAGES.computed(queryParams))}
${refuse('$arg_q !~ "^[A-Za-z0-9]{1,100}$"', 400, NGINX_MESSAGES.badQ)}
    if ($arg_format = "csv") { rewrite ^ /api/$pegscope_kind/$arg_q.csv last; }
    rewrite ^ /api/$pegscope_kind/$arg_q.json last;
}

location ~ "^/api/(?:${kinds})/[A-Za-z0-9]{1,100}$" {
${JSON_ERRORS}
${refuse(`$args ~ ${anyParam(queryParams)}`, 501, NGINX_MESSAGES.computed(queryParams))}
    if ($arg_format = "csv") { rewrite ^ $uri.csv last; }
    rewrite ^ $uri.json last;
}

location ~ "^/api/(?:${kinds})/[A-Za-z0-9]{1,100}\\.(?:json|csv)$" {
    try_files $uri @pegscope_lookup;
}

# No file for the key: a range release has none (the client looks it up), a files release has no such document.
location @pegscope_lookup {
${NAMED_JSON_ERRORS}
${refuse(`-f $document_root/${RANGES_INDEX_PATH}`, 501, NGINX_MESSAGES.clientOnly)}
    set $pegscope_cache "${ERROR_CACHE_CONTROL}";
    return 404 '${errorJson(NGINX_MESSAGES.noDocument)}';
}

${explorerNginx(nginxCommonHeaders('    '))}
# The release's files by name, the router's data/ and the host configs too, so a mirror copies the whole release (docs/mirror.md).
location /api/ {
    try_files $uri =404;
}

location /data/ {
    try_files $uri =404;
}

location ~ "^/(?:_redirects|_headers|nginx\\.conf|manifest\\.json\\.minisig)$" {
    try_files $uri =404;
}

location /dumps/ {
    try_files $uri =404;
}

location ~ "^/feeds/(?:links|risk)\\.(?:atom|json)(?:\\.(?:gz|br))?$" {
    # JSON Feed's own type for the .json feeds (the router's too).
    types {
        application/atom+xml atom;
        application/feed+json json;
    }
    try_files $uri =404;
}

location = /manifest.json {
    try_files $uri =404;
}

location = /changes.json {
    try_files $uri =404;
}

location / {
    return 404;
}

error_page 404 = @pegscope_not_found;
location @pegscope_not_found {
${NAMED_JSON_ERRORS}
    set $pegscope_cache "${ERROR_CACHE_CONTROL}";
    return 404 '${errorJson(NGINX_MESSAGES.notFound)}';
}
`;
}
