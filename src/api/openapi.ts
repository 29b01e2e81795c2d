/**
 * The OpenAPI 3.1 document of the router: served at /api/openapi.json and
 * written into every release as api/openapi.json. One self-contained file:
 * the JSON Schema files of schemas/ are bundled under components/schemas
 * with their references rewritten to local ones, so a linter or a code
 * generator needs nothing beside it. Built from the same declarations as
 * the router (parameters, CSV columns, range kinds, explorer documents).
 */
import { RANGE_KINDS, RANGES_INDEX_PATH } from '@pegscope/client';
import { objectOf, SCHEMA_BASE, SCHEMA_DIALECT, type JsonSchema } from './common-schema.js';
import { EXPLORER_DOCUMENTS } from './explorer.js';
import { DISCLAIMER, FILE_ENDPOINTS } from './index.js';
import { API_VERSION, ENDPOINTS, type EndpointSpec, type ParamSpec } from './params.js';

/** Where the router serves the document and the release holds it. */
export const OPENAPI_PATH = 'api/openapi.json';

const COMMON_FILE = 'common.json';
const componentPath = (name: string): string => `#/components/schemas/${name}`;
const schemaRef = (name: string): JsonSchema => ({ $ref: componentPath(name) });

/**
 * components/schemas from the schema files: each file under its name
 * without `.json`, each definition of common.json under its own name;
 * `$id` and `$schema` dropped (the document's jsonSchemaDialect applies).
 */
export function bundleSchemas(files: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = {};
  const add = (name: string, schema: JsonSchema, file: string): void => {
    if (components[name]) throw new Error(`two schemas would be components/schemas/${name}; rename one`);
    components[name] = localRefs(schema, file) as JsonSchema;
  };
  for (const [file, schema] of Object.entries(files)) {
    const { $id: _id, $schema: _dialect, $defs, ...rest } = schema;
    if (file === COMMON_FILE) {
      for (const [name, def] of Object.entries($defs as Record<string, JsonSchema>)) add(name, def, file);
    } else {
      if ($defs) throw new Error(`${file} has $defs; only ${COMMON_FILE} holds shared definitions`);
      add(file.replace(/\.json$/, ''), rest, file);
    }
  }
  return components;
}

/** A schema with every $ref (relative to its file's $id) pointing into components/schemas. */
function localRefs(value: unknown, file: string): unknown {
  if (Array.isArray(value)) return value.map((item) => localRefs(item, file));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) =>
    [key, key === '$ref' && typeof item === 'string' ? componentRef(item, file) : localRefs(item, file)]));
}

function componentRef(ref: string, file: string): string {
  const url = new URL(ref, `${SCHEMA_BASE}${file}`);
  const resource = `${url.origin}${url.pathname}`;
  const target = resource.startsWith(SCHEMA_BASE) ? resource.slice(SCHEMA_BASE.length) : '';
  const def = /^#\/\$defs\/(\w+)$/.exec(url.hash)?.[1];
  if (target === COMMON_FILE && def) return componentPath(def);
  if (target !== COMMON_FILE && /^[\w-]+\.json$/.test(target) && url.hash === '') return componentPath(target.slice(0, -'.json'.length));
  throw new Error(`${file}: cannot bundle $ref ${JSON.stringify(ref)}; refer to a schema file or to ${COMMON_FILE}#/$defs/<name>`);
}

/** A response header; `required` where every response that lists it carries it. */
const header = (type: 'string' | 'integer', required: boolean, description: string): JsonSchema => ({
  required, schema: type === 'integer' ? { type, minimum: 0 } : { type }, description,
});

const HEADERS: Record<string, JsonSchema> = {
  ETag: header('string', true, 'strong validator of the body (a digest of its bytes, so unchanged bytes keep it across releases); send it back in If-None-Match for a 304'),
  'Cache-Control': header('string', true, 'documents: public for the serve --cache seconds (default 300) and as long again stale-while-revalidate; health: no-cache; errors: no-store'),
  'X-Pegscope-Release': header('string', true, 'id of the published release that answered (the directory under out/<network>/releases/)'),
  'Access-Control-Allow-Origin': header('string', true, 'always *: any web page may read every answer, errors included'),
  'Access-Control-Expose-Headers': header('string', true, 'the headers browser code may read: ETag, Retry-After, RateLimit-*, X-Pegscope-Release, Content-Range, Accept-Ranges'),
  'RateLimit-Policy': header('string', false, 'when a rate limit applies: "<requests>;w=60"'),
  'RateLimit-Limit': header('integer', false, 'when a rate limit applies: requests allowed per minute'),
  'RateLimit-Remaining': header('integer', false, 'when a rate limit applies: requests left in the current minute'),
  'RateLimit-Reset': header('integer', false, 'when a rate limit applies: seconds until the window resets'),
  'Retry-After': header('integer', true, 'seconds until the next request is allowed'),
  Allow: header('string', true, 'GET, HEAD, OPTIONS'),
  'Content-Disposition': header('string', false, 'CSV answers: attachment with a file name'),
  'Last-Modified': header('string', true, 'when the file was written'),
  'Accept-Ranges': header('string', true, 'bytes: files answer one byte range (Range, If-Range)'),
  'Content-Range': header('string', true, 'the range sent, bytes <first>-<last>/<size>; on 416, bytes */<size>'),
};

const headerRefs = (...names: string[]): JsonSchema =>
  Object.fromEntries(names.map((name) => {
    if (!HEADERS[name]) throw new Error(`no header ${name} in components/headers`);
    return [name, { $ref: `#/components/headers/${name}` }];
  }));
const RATE_HEADERS = ['RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
const CORS_HEADERS = ['Access-Control-Allow-Origin', 'Access-Control-Expose-Headers'];
const EVERY_ANSWER = [...CORS_HEADERS, ...RATE_HEADERS];
const DOCUMENT_HEADERS = headerRefs('ETag', 'Cache-Control', 'X-Pegscope-Release', ...EVERY_ANSWER);
// A release file fetched by its path is never rate limited (docs/api.md "Rate limits"): no RateLimit-* headers.
const FILE_DOCUMENT_HEADERS = headerRefs('ETag', 'Cache-Control', 'X-Pegscope-Release', ...CORS_HEADERS);
const FILE_HEADERS = headerRefs('ETag', 'Last-Modified', 'Accept-Ranges', 'Cache-Control', 'X-Pegscope-Release', ...CORS_HEADERS);

const errorResponse = (description: string, ...extra: string[]): JsonSchema => ({
  description, headers: headerRefs(...EVERY_ANSWER, ...extra), content: { 'application/json': { schema: schemaRef('error') } },
});

/** Error statuses every operation can answer (docs/api.md), under components/responses. */
const ERRORS: Record<string, JsonSchema> = {
  400: errorResponse('a parameter is missing, malformed, out of range or given twice; a parameter where none is taken; format=csv where CSV is not offered; a query string that cannot be parsed; a request without Host or not HTTP/1.1'),
  401: errorResponse('X-API-Key names no known key; omit it to use the per-IP limit'),
  404: errorResponse('unknown endpoint, path or range kind; a range prefix of the wrong length; a block without peg activity'),
  405: errorResponse('a method other than GET, HEAD or OPTIONS, CONNECT and unregistered methods included', 'Allow'),
  414: errorResponse('the request target is longer than 2048 bytes'),
  417: errorResponse('an Expect header other than 100-continue'),
  429: errorResponse('rate limit exceeded (default about 60 requests a minute per client IP, IPv6 per /64)', 'Retry-After'),
  503: errorResponse('no release published yet, or the published release cannot be read (a file missing, damaged or refused: docs/api.md "What the router serves"); try again after the next export'),
};
const NOT_MODIFIED: JsonSchema = { description: 'If-None-Match matched the ETag: the cached copy is current', headers: headerRefs('ETag', 'Cache-Control', ...EVERY_ANSWER) };

const json = (schema: JsonSchema): JsonSchema => ({ 'application/json': { schema } });
const csv = (columns: readonly string[]): JsonSchema => ({
  'text/csv': { schema: { type: 'string', description: `header row ${columns.join(',')}; cells starting with = + - @ TAB or CR get a ' prefix` } },
});

interface Operation {
  id: string;
  summary: string;
  tag: Tag;
  content: JsonSchema;
  parameters?: JsonSchema[];
  headers?: JsonSchema;
  /** Extra responses (byte ranges of files). */
  responses?: Record<string, JsonSchema>;
}

function operation(op: Operation): JsonSchema {
  const errors = Object.fromEntries(Object.keys(ERRORS).map((status) => [status, { $ref: `#/components/responses/${status}` }]));
  return {
    get: {
      operationId: op.id, summary: op.summary, tags: [op.tag],
      ...(op.parameters?.length ? { parameters: op.parameters } : {}),
      responses: {
        200: { description: op.summary, headers: op.headers ?? DOCUMENT_HEADERS, content: op.content },
        ...op.responses,
        304: { $ref: '#/components/responses/304' },
        ...errors,
      },
    },
  };
}

function paramSchema(param: ParamSpec): JsonSchema {
  const byDefault = 'default' in param && param.default !== undefined ? { default: param.default } : {};
  switch (param.kind) {
    case 'int': return { type: 'integer', minimum: param.min, maximum: param.max, ...byDefault };
    case 'number': return { type: 'number', minimum: param.min, maximum: param.max, ...byDefault };
    case 'amount': return { type: 'string', pattern: '^\\d{1,10}(\\.\\d{1,8})?$' };
    case 'enum': return { type: 'string', enum: [...param.values], ...byDefault };
    case 'query': return { type: 'string', pattern: QUERY_PATTERN };
  }
}
/** The characters any q can have (addresses, txids, block hashes, heights), as the router's path form admits them. */
const QUERY_PATTERN = '^[A-Za-z0-9]{1,100}$';

const queryParam = (param: ParamSpec): JsonSchema => ({
  name: param.name, in: 'query', required: param.required === true, description: param.doc, schema: paramSchema(param),
});
const pathParam = (name: string, description: string, schema: JsonSchema): JsonSchema => ({ name, in: 'path', required: true, description, schema });

type Tag = 'endpoints' | 'lookups by path' | 'range layout' | 'files';
const TAGS: Record<Tag, string> = {
  endpoints: 'the endpoints of docs/api.md; the same answers at /api/<endpoint>, /api?endpoint=<endpoint> and /api.php?endpoint=<endpoint>',
  'lookups by path': '/api/<kind>/<q>: the same answer as /api/<kind>?q=<q>, the form a static mirror serves from its files',
  'range layout': 'range files: a lookup fetches the range its key hashes to and picks the document locally, so the host learns only a prefix shared with dozens of other keys',
  files: 'release files served as they are: the amount table, the documents the explorer page reads, this document, the manifest and the bulk dumps (docs/dumps.md)',
};

function endpointContent(spec: EndpointSpec): JsonSchema {
  return { ...json(schemaRef(spec.name)), ...(spec.csvColumns ? csv(spec.csvColumns) : {}) };
}

function endpointPaths(): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {};
  for (const spec of Object.values(ENDPOINTS)) {
    paths[`/api/${spec.name}`] = operation({
      id: spec.name, summary: spec.purpose, tag: 'endpoints', content: endpointContent(spec),
      parameters: spec.params.map(queryParam), ...(spec.csvColumns ? { headers: { ...DOCUMENT_HEADERS, ...headerRefs('Content-Disposition') } } : {}),
    });
  }
  const names = Object.keys(ENDPOINTS);
  const anyEndpoint = Object.values(ENDPOINTS);
  for (const [path, id] of [['/api', 'index'], ['/api.php', 'index_php']] as const) {
    paths[path] = operation({
      id, tag: 'endpoints',
      summary: 'without parameters: the index of endpoints, disclaimer, licences and attribution; with endpoint=<name>: that endpoint, with its parameters',
      parameters: [{ name: 'endpoint', in: 'query', required: false, description: 'an endpoint to answer as /api/<endpoint> does; add its parameters', schema: { type: 'string', enum: names } }],
      content: {
        ...json({ anyOf: [schemaRef('index'), ...anyEndpoint.map((spec) => schemaRef(spec.name))] }),
        'text/csv': { schema: { type: 'string', description: 'format=csv: the CSV of the named endpoint' } },
      },
    });
  }
  return paths;
}

/** /api/<kind>/<q>, /api/<kind>/<q>.json and, for endpoints with CSV, /api/<kind>/<q>.csv. */
function lookupPaths(): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {};
  for (const spec of Object.values(ENDPOINTS)) {
    const query = spec.params.find((p) => p.kind === 'query');
    if (!query) continue;
    const q = pathParam('q', query.doc, { type: 'string', pattern: QUERY_PATTERN });
    const others = spec.params.filter((p) => p !== query);
    const jsonOnly = others.filter((p) => p.name !== 'format').map(queryParam);
    paths[`/api/${spec.name}/{q}`] = operation({
      id: `${spec.name}_path`, summary: `${spec.purpose} (q in the path)`, tag: 'lookups by path', content: endpointContent(spec),
      parameters: [q, ...others.map(queryParam)],
    });
    paths[`/api/${spec.name}/{q}.json`] = operation({
      id: `${spec.name}_path_json`, summary: `${spec.purpose} (q in the path, JSON)`, tag: 'lookups by path', content: json(schemaRef(spec.name)),
      parameters: [q, ...jsonOnly],
    });
    if (spec.csvColumns) {
      paths[`/api/${spec.name}/{q}.csv`] = operation({
        id: `${spec.name}_path_csv`, summary: `${spec.purpose} (q in the path, CSV)`, tag: 'lookups by path', content: csv(spec.csvColumns),
        parameters: [q, ...jsonOnly], headers: { ...DOCUMENT_HEADERS, ...headerRefs('Content-Disposition') },
      });
    }
  }
  return paths;
}

function rangePaths(): Record<string, JsonSchema> {
  const kind = pathParam('kind', 'the document kind', { type: 'string', enum: [...RANGE_KINDS] });
  const prefix = pathParam('prefix', `the first hex digits of sha256(key); /${RANGES_INDEX_PATH} gives each kind's length`, { type: 'string', pattern: '^[0-9a-f]{1,8}$' });
  const paths: Record<string, JsonSchema> = {};
  for (const [path, id] of [[`/${RANGES_INDEX_PATH}`, 'ranges_json'], ['/api/ranges', 'ranges']] as const) {
    paths[path] = operation({ id, summary: 'the range layout: per kind the prefix length, the hash and the document count (404 for a release with one file per query)', tag: 'range layout', content: json(schemaRef('ranges')),
      headers: path.endsWith('.json') ? FILE_DOCUMENT_HEADERS : DOCUMENT_HEADERS,
    });
  }
  for (const [path, id] of [['/api/range/{kind}/{prefix}', 'range'], ['/api/range/{kind}/{prefix}.json', 'range_json']] as const) {
    paths[path] = operation({ id, summary: FILE_ENDPOINTS.range.replace(/^GET \S+ — /, ''), tag: 'range layout', content: json(schemaRef('range')), parameters: [kind, prefix],
      headers: path.endsWith('.json') ? FILE_DOCUMENT_HEADERS : DOCUMENT_HEADERS,
    });
  }
  return paths;
}

/** The component a release document's schema is under: api/series/<name>.json → series-<name>, api/<name>.json → <name>. */
const documentSchema = (rel: string): string => rel.replace(/^api\//, '').replace(/^series\//, 'series-').replace(/\.json$/, '');

function filePaths(): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {};
  for (const [path, id] of [['/api/amounts.json', 'amounts_json'], ['/api/amounts', 'amounts']] as const) {
    paths[path] = operation({
      id, summary: 'the amount table a wallet caches to score amounts offline (docs/amounts.md)', tag: 'files', content: json(schemaRef('amounts')),
      headers: path.endsWith('.json') ? FILE_DOCUMENT_HEADERS : DOCUMENT_HEADERS,
    });
  }
  for (const rel of EXPLORER_DOCUMENTS) {
    const schema = documentSchema(rel);
    paths[`/${rel}`] = operation({ id: `file_${schema.replace(/-/g, '_')}`, summary: `${rel} as exported (the default document)`, tag: 'files', content: json(schemaRef(schema)), headers: FILE_DOCUMENT_HEADERS });
  }
  paths[`/${OPENAPI_PATH}`] = operation({
    id: 'openapi', summary: 'this document', tag: 'files',
    content: json(objectOf({ openapi: { const: '3.1.0' }, info: { type: 'object' }, jsonSchemaDialect: { const: SCHEMA_DIALECT }, servers: { type: 'array' }, security: { type: 'array' }, tags: { type: 'array' }, paths: { type: 'object' }, components: { type: 'object' } })),
    headers: FILE_DOCUMENT_HEADERS,
  });
  const ranges = {
    206: { description: 'the byte range asked for (Range, and If-Range when it still matches)', headers: { ...FILE_HEADERS, ...headerRefs('Content-Range') } },
    416: errorResponse('the range starts past the end of the file', 'Content-Range'),
  };
  paths['/manifest.json'] = operation({
    id: 'manifest', summary: 'every file of the release with its size and sha256', tag: 'files', content: json(schemaRef('manifest')), headers: FILE_HEADERS, responses: ranges,
  });
  paths['/changes.json'] = operation({
    id: 'changes', summary: 'the files added, changed and removed since the previous release, with size and sha256 (what a mirror uploads)', tag: 'files',
    content: json({ type: 'object' }), headers: FILE_HEADERS, responses: ranges,
  });
  paths['/dumps/views.sql'] = operation({
    id: 'dump_views', summary: 'DuckDB views over the Parquet dumps, with TIMESTAMP columns, to run from the release root (docs/dumps.md)', tag: 'files',
    content: { 'application/sql': {} }, headers: FILE_HEADERS, responses: ranges,
  });
  const dump = pathParam('name', 'a dump of docs/dumps.md without a height column (clusters, attribution, labels, entity_flows)', { type: 'string', pattern: '^[a-z_]+$' });
  const partitioned = pathParam('name', 'a dump of docs/dumps.md with a height column (pegins, pegouts, links, …)', { type: 'string', pattern: '^[a-z_]+$' });
  const partition = pathParam('partition', '<name>-<from>-<to>: the partition of the blocks from..to (8 digits each); manifest.json lists them', { type: 'string', pattern: '^[a-z_]+-[0-9]{8}-[0-9]{8}$' });
  for (const [ext, type, id] of [['parquet', 'application/vnd.apache.parquet', 'dump_parquet'], ['csv.gz', 'application/gzip', 'dump_csv_gz']] as const) {
    const format = ext === 'parquet' ? 'Parquet' : 'gzipped CSV';
    paths[`/dumps/{name}.${ext}`] = operation({
      id, summary: `a bulk dump as ${format}`, tag: 'files', content: { [type]: {} }, parameters: [dump], headers: FILE_HEADERS, responses: ranges,
    });
    paths[`/dumps/{name}/{partition}.${ext}`] = operation({
      id: `${id}_partition`, summary: `one height partition of a bulk dump as ${format}`, tag: 'files', content: { [type]: {} }, parameters: [partitioned, partition], headers: FILE_HEADERS, responses: ranges,
    });
  }
  return paths;
}

const DESCRIPTION = `Litecoin MWEB peg-in/peg-out analysis as a free, read-only JSON API. ${DISCLAIMER}

Every path answers GET and HEAD, and OPTIONS as a CORS preflight; any other method is 405. Every JSON document carries version "1", network, unit, as_of_height and updated_at (unix seconds of the analysis). Amounts are decimal coins with at most 8 decimals. Every answer, errors included, carries Access-Control-Allow-Origin: * and is compressed (br, gzip) when asked for. Errors are {error, version} with a message naming what was wrong and what is allowed.

Data is CC BY 4.0: a public product showing it must credit the service with a link ("Data from pegscope"). Code is AGPL-3.0.`;

/** The OpenAPI 3.1 document, its schemas bundled from the schema files (without openapi.json). */
export function openApiDocument(schemaFiles: Record<string, JsonSchema>): JsonSchema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'pegscope API', version: API_VERSION, description: DESCRIPTION,
      license: { name: 'AGPL-3.0 (code); the data is CC BY 4.0', identifier: 'AGPL-3.0-only' },
    },
    jsonSchemaDialect: SCHEMA_DIALECT,
    servers: [{ url: '/', description: 'the site serving this document' }],
    security: [{}, { api_key: [] }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths: { ...endpointPaths(), ...lookupPaths(), ...rangePaths(), ...filePaths() },
    components: {
      schemas: bundleSchemas(schemaFiles),
      responses: { ...ERRORS, 304: NOT_MODIFIED },
      headers: HEADERS,
      securitySchemes: {
        api_key: {
          type: 'apiKey', in: 'header', name: 'X-API-Key',
          description: 'optional: a key the operator issued gets its own limit instead of the per-IP one; an unknown key is 401',
        },
      },
    },
  };
}
