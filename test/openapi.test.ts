/**
 * The OpenAPI document: one self-contained file that a maintained
 * OpenAPI 3.1 linter accepts, served at /api/openapi.json and in every
 * release, byte for byte the generated one, and true to the router: every
 * path it describes answers 200 with a body of the described schema and the
 * described headers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig, lintFromString, type Config } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalKey, rangePrefix, RANGE_KINDS, type RangesIndexBody } from '@pegscope/client';
import { bundleSchemas, OPENAPI_PATH } from '../src/api/openapi.js';
import { openApiText, schemaFiles } from '../src/api/schemas.js';
import { ENDPOINTS } from '../src/api/params.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { buildPipelineTree, type PipelineTree } from './helpers/pipeline-release.js';
import { get, type Res } from './helpers/http.js';

interface Operation {
  operationId: string;
  parameters?: { name: string; in: 'path' | 'query'; required: boolean }[];
  responses: Record<string, { content?: Record<string, { schema?: object }>; headers?: Record<string, unknown> }>;
}
interface Document {
  paths: Record<string, { get: Operation }>;
  components: {
    schemas: Record<string, object>;
    headers: Record<string, { required: boolean }>;
    responses: Record<string, { headers: Record<string, unknown> }>;
  };
}

const generated = readFileSync(join(import.meta.dirname, '..', 'schemas', 'openapi.json'), 'utf8');
const doc = JSON.parse(generated) as Document;

let tree: PipelineTree;
let server: RunningServer;
let base: string;
let lintDir: string;
let config: Config;

beforeAll(async () => {
  tree = await buildPipelineTree();
  // A rate limit makes the router send the RateLimit-* headers the document describes.
  server = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 100_000 });
  base = server.url;
  lintDir = mkdtempSync(join(tmpdir(), 'pegscope-openapi-'));
  config = await createConfig({ extends: ['recommended'] });
}, 300_000);

afterAll(async () => {
  await server?.close();
  for (const dir of [tree?.root, lintDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Redocly's `recommended` rules on the text, as a file alone in an empty directory (nothing to resolve beside it). */
async function lint(text: string): Promise<string[]> {
  const problems = await lintFromString({ source: text, absoluteRef: join(lintDir, 'openapi.json'), config });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
}

describe('the OpenAPI document', () => {
  it('is what the declarations generate, and the release and the router give the same bytes', async () => {
    expect(openApiText()).toBe(generated);
    expect(readFileSync(join(tree.dir, OPENAPI_PATH), 'utf8')).toBe(generated);
    const served = await get(base, `/${OPENAPI_PATH}`);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(served.text).toBe(generated);
  });

  it('passes the recommended rules of an OpenAPI 3.1 linter with no problem at all, alone in its directory', async () => {
    expect(await lint(generated)).toEqual([]);
  });

  it('fails that linter with a root $id or a reference to a sibling file, as the unbundled document did', async () => {
    const withId = await lint(JSON.stringify({ ...doc, $id: 'https://pegscope.invalid/schemas/openapi.json' }));
    expect(withId.some((p) => p.startsWith('error struct:') && p.includes('$id'))).toBe(true);
    const sibling = structuredClone(doc);
    sibling.paths['/api/health']!.get.responses['200']!.content!['application/json']!.schema = { $ref: 'health.json' };
    expect((await lint(JSON.stringify(sibling))).some((p) => p.startsWith('error no-unresolved-refs:'))).toBe(true);
  });

  it('holds every schema file under components/schemas and refers only inside itself', () => {
    const refs = [...generated.matchAll(/"\$ref": "([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of refs) expect(ref).toMatch(/^#\/components\/(schemas|responses|headers)\/[\w-]+$/);
    expect(generated).not.toContain('"$id"');
    const names = Object.keys(schemaFiles()).filter((f) => f !== 'openapi.json' && f !== 'common.json').map((f) => f.slice(0, -5));
    for (const name of names) expect(doc.components.schemas[name], name).toBeDefined();
  });

  it('refuses to bundle a reference it cannot make local, or two schemas under one name', () => {
    expect(() => bundleSchemas({ 'x.json': { $ref: 'https://example.org/y.json' } })).toThrow(/cannot bundle \$ref/);
    expect(() => bundleSchemas({ 'x.json': { $ref: 'common.json#/properties/a' } })).toThrow(/cannot bundle \$ref/);
    expect(() => bundleSchemas({ 'common.json': { $defs: { x: {} } }, 'x.json': {} })).toThrow(/two schemas would be components\/schemas\/x/);
  });

  it('describes every endpoint, its path forms and the files the router serves', () => {
    const paths = Object.keys(doc.paths);
    for (const name of Object.keys(ENDPOINTS)) expect(paths, name).toContain(`/api/${name}`);
    for (const kind of RANGE_KINDS) expect(paths).toEqual(expect.arrayContaining([`/api/${kind}/{q}`, `/api/${kind}/{q}.json`]));
    expect(paths).toEqual(expect.arrayContaining([
      '/api', '/api.php', '/api/trace/{q}.csv', '/api/amounts', '/api/amounts.json', '/api/ranges.json', '/api/range/{kind}/{prefix}',
      '/api/openapi.json', '/api/series/daily.json', '/api/stats.json', '/manifest.json', '/changes.json', '/dumps/{name}.parquet', '/dumps/{name}.csv.gz',
      '/dumps/{name}/{partition}.parquet', '/dumps/{name}/{partition}.csv.gz',
    ]));
    for (const [path, { get: op }] of Object.entries(doc.paths)) {
      for (const status of ['400', '404', '405', '414', '429', '503']) expect(op.responses[status], `${path} ${status}`).toEqual({ $ref: `#/components/responses/${status}` });
    }
  });
});

/** A concrete request for a documented path: path parameters and required query parameters filled from the release. */
async function sampleTarget(template: string, op: Operation): Promise<string> {
  const endpoint = /^\/api\/(\w+)/.exec(template)?.[1] ?? '';
  const q: Record<string, string> = {
    trace: tree.traceQ.pegin_tx, address: tree.traceQ.address, follow: tree.traceQ.address, block: String(tree.block.height),
  };
  const ranges = (await get(base, '/api/ranges.json')).json as RangesIndexBody;
  const values: Record<string, string> = {
    // A partition of a dump with heights (the tiny chain's one), or a dump without.
    q: q[endpoint] ?? '', kind: 'block', name: template.includes('{partition}') ? 'links' : 'attribution', partition: 'links-00000000-00001999', amount: '1.5',
    prefix: rangePrefix(canonicalKey(tree.block.height), ranges.kinds.block.prefix_length),
  };
  let target = template.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!);
  const query = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${values[p.name]}`);
  if (query.length) target += `?${query.join('&')}`;
  return target;
}

describe('the router answers as the document says', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  ajv.addSchema(doc, 'openapi');

  it('every path: 200 with the documented content type, a body of the documented schema and the documented headers', async () => {
    for (const [template, { get: op }] of Object.entries(doc.paths)) {
      const target = await sampleTarget(template, op);
      const res = await get(base, target);
      expect(res.status, `${target}: ${res.text.slice(0, 200)}`).toBe(200);
      const ok = op.responses['200']!;
      const type = String(res.headers['content-type']).split(';')[0]!;
      expect(Object.keys(ok.content!), target).toContain(type);
      if (type === 'application/json') {
        const pointer = `#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/get/responses/200/content/application~1json/schema`;
        const validate = ajv.getSchema(`openapi${pointer}`)!;
        if (!validate(res.json)) throw new Error(`${target} does not match its documented schema: ${ajv.errorsText(validate.errors)}`);
      }
      const headers = Object.keys(ok.headers ?? {});
      expect(headers, target).toEqual(expect.arrayContaining(['ETag', 'X-Pegscope-Release', 'Access-Control-Expose-Headers']));
      // The document says which paths the rate limit counts (the endpoints, not files fetched by path), and the router agrees.
      expect(res.headers['ratelimit-remaining'] !== undefined, `${target} rate limited`).toBe(headers.includes('RateLimit-Remaining'));
      for (const header of headers) {
        if (doc.components.headers[header]!.required || header.startsWith('RateLimit-')) expect(res.headers[header.toLowerCase()], `${target} ${header}`).toBeDefined();
      }
    }
  });

  it('errors of the documented statuses are the documented error body with the documented headers', async () => {
    const validate = ajv.getSchema('openapi#/components/schemas/error')!;
    const { responses } = doc.components;
    const cases: [number, Promise<Res>][] = [
      [400, get(base, '/api/links?limit=0')],
      [404, get(base, '/api/nope')],
      [405, get(base, '/api/stats', { method: 'DELETE' })],
      [414, get(base, `/api/trace?q=${'a'.repeat(2100)}`)],
      [401, get(base, '/api/stats', { headers: { 'X-API-Key': 'not-a-key' } })],
    ];
    for (const [status, pending] of cases) {
      const res = await pending;
      expect(res.status).toBe(status);
      expect(validate(res.json), `${status}: ${res.text}`).toBe(true);
      const required = Object.keys(responses[status]!.headers).filter((name) => doc.components.headers[name]!.required);
      expect(required).toContain('Access-Control-Allow-Origin');
      for (const name of required) expect(res.headers[name.toLowerCase()], `${status} ${name}`).toBeDefined();
    }
  });
});
