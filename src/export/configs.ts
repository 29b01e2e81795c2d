import { API_VERSION, ENDPOINTS, type EndpointName } from '../api/params.js';
import { toJson } from '../api/json.js';
import { explorerHeaders, explorerNginx } from './explorer.js';

/**
 * Rewrite configs that let a static host answer the API from the tree alone:
 * `/api/<endpoint>` and `/api?endpoint=<name>` give the default document,
 * `?q=` lookups the per-query file, `format=csv` the CSV twin. Parameters a
 * file cannot answer (limit, depth, min_confidence) fall back to the default
 * document; the router (`pegscope serve`) answers those exactly.
 */
const NAMES = Object.keys(ENDPOINTS) as EndpointName[];
/** Endpoints answered per q from api/<endpoint>/<q>.json. */
const BY_QUERY: EndpointName[] = NAMES.filter((name) => ENDPOINTS[name].params.some((p) => p.kind === 'query'));
/** Endpoints with a default document (everything without a required parameter). */
const DEFAULTS: EndpointName[] = NAMES.filter((name) => !ENDPOINTS[name].params.some((p) => p.required));
const WITH_CSV = (name: EndpointName): boolean => ENDPOINTS[name].csvColumns !== undefined;
const API_PATHS = ['/api', '/api.php'];

/** Netlify / Cloudflare Pages `_redirects`: first match wins, so specific query rules come first. */
export function redirectsFile(): string {
  const lines = ['# pegscope static tree: rewrites (status 200) from API URLs to files'];
  for (const name of BY_QUERY) {
    // Path form /api/<name>/<q>: an existing file (…/<q>.json) is served as is, this only adds the extension.
    lines.push(`/api/${name}/:q /api/${name}/:q.json 200`);
    if (WITH_CSV(name)) lines.push(`/api/${name} q=:q format=csv /api/${name}/:q.csv 200`);
    lines.push(`/api/${name} q=:q /api/${name}/:q.json 200`);
    for (const base of API_PATHS) {
      if (WITH_CSV(name)) lines.push(`${base} endpoint=${name} q=:q format=csv /api/${name}/:q.csv 200`);
      lines.push(`${base} endpoint=${name} q=:q /api/${name}/:q.json 200`);
    }
  }
  for (const name of DEFAULTS) {
    if (WITH_CSV(name)) lines.push(`/api/${name} format=csv /api/${name}.csv 200`);
    lines.push(`/api/${name} /api/${name}.json 200`);
    for (const base of API_PATHS) {
      if (WITH_CSV(name)) lines.push(`${base} endpoint=${name} format=csv /api/${name}.csv 200`);
      lines.push(`${base} endpoint=${name} /api/${name}.json 200`);
    }
  }
  for (const base of API_PATHS) lines.push(`${base} /api/index.json 200`);
  lines.push('/api/amounts /api/amounts.json 200');
  return `${lines.join('\n')}\n`;
}

/** `_headers`: CORS everywhere, content types, short caching of API documents. */
export function headersFile(): string {
  return [
    '/*',
    '  Access-Control-Allow-Origin: *',
    '  X-Content-Type-Options: nosniff',
    '/api/*',
    '  Cache-Control: public, max-age=300',
    '/*.json',
    '  Content-Type: application/json; charset=utf-8',
    '/*.csv',
    '  Content-Type: text/csv; charset=utf-8',
    '/dumps/*',
    '  Cache-Control: public, max-age=3600',
    ...explorerHeaders(),
    '',
  ].join('\n');
}

const errorJson = (message: string): string => toJson({ error: message, version: API_VERSION }).replace(/'/g, '');

/**
 * An nginx snippet to include inside a `server {}` whose `root` is
 * out/<network>/current. Only `if … rewrite … last` and `return` inside the
 * locations (the safe uses of `if`); q must look like an address, txid,
 * height or hash before it reaches a path.
 */
export function nginxSnippet(): string {
  const queryNames = BY_QUERY.join('|');
  const defaultNames = DEFAULTS.join('|');
  const badQ = errorJson('q must be an address, a 64-hex txid or block hash, or a block height');
  const notFound = errorJson('no such path; the API index is at /api');
  return `# pegscope static tree — include inside server { root /path/to/out/<network>/current; … }
default_type application/json;
charset utf-8;
charset_types application/json text/csv;
gzip_static on;
add_header Access-Control-Allow-Origin * always;
add_header X-Content-Type-Options nosniff always;

location ~ ^/api(?:\\.php)?/?$ {
    if ($arg_endpoint = "") { rewrite ^ /api/index.json last; }
    if ($arg_endpoint !~ "^(${[...new Set([...BY_QUERY, ...DEFAULTS])].join('|')})$") {
        return 404 '${notFound}';
    }
    rewrite ^ /api/$arg_endpoint last;
}

location ~ ^/api/(${queryNames})$ {
    set $pegscope_endpoint $1;
    if ($arg_q !~ "^[A-Za-z0-9]{1,100}$") { return 400 '${badQ}'; }
    if ($arg_format = "csv") { rewrite ^ /api/$pegscope_endpoint/$arg_q.csv last; }
    rewrite ^ /api/$pegscope_endpoint/$arg_q.json last;
}

location ~ "^/api/(${queryNames})/([A-Za-z0-9]{1,100})$" {
    set $pegscope_endpoint $1;
    set $pegscope_q $2;
    if ($arg_format = "csv") { rewrite ^ /api/$pegscope_endpoint/$pegscope_q.csv last; }
    rewrite ^ /api/$pegscope_endpoint/$pegscope_q.json last;
}

location ~ ^/api/(${defaultNames})$ {
    set $pegscope_endpoint $1;
    if ($arg_format = "csv") { rewrite ^ /api/$pegscope_endpoint.csv last; }
    rewrite ^ /api/$pegscope_endpoint.json last;
}

location = /api/amounts { rewrite ^ /api/amounts.json last; }

location ~ \\.csv$ {
    default_type text/csv;
    add_header Access-Control-Allow-Origin * always;
    try_files $uri =404;
}

${explorerNginx()}
location / {
    try_files $uri =404;
}

error_page 404 = @pegscope_not_found;
location @pegscope_not_found {
    return 404 '${notFound}';
}
`;
}
