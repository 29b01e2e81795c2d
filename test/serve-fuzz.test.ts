import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { request } from 'node:http';
import { rmSync } from 'node:fs';
import { ENDPOINTS } from '../src/api/params.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { SECRET } from './helpers/release-tree.js';
import { buildPipelineTree, type PipelineTree } from './helpers/pipeline-release.js';

let tree: PipelineTree;
let server: RunningServer;

beforeAll(async () => {
  tree = await buildPipelineTree();
  server = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
});

afterAll(async () => {
  await server?.close();
  rmSync(tree.root, { recursive: true, force: true });
});

function get(path: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers: { 'Accept-Encoding': 'identity' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('latin1') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Percent-encodes what an HTTP request line cannot carry, leaving everything else (including `%`, `..`) raw. */
const requestLine = (s: string): string => s.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));

const endpoints = Object.keys(ENDPOINTS);
const paramNames = [...new Set(Object.values(ENDPOINTS).flatMap((e) => e.params.map((p) => p.name))), 'endpoint', 'x', ''];
const segment = fc.oneof(
  fc.constantFrom('api', 'api.php', 'dumps', 'manifest.json', '..', '.', '%2e%2e', '%2E%2e%2f', '.secret', '.env', 'SECRET.txt', 'current', 'releases', 'r1', 'data', 'trace', '', '%00', 'amounts.json', 'pegins.csv.gz', '..%2f..%2fSECRET.txt', '\\..\\SECRET.txt'),
  fc.constantFrom(...endpoints),
  fc.string({ maxLength: 12 }),
);
const value = fc.oneof(
  fc.constantFrom('0', '1', '500', '501', '-1', '0.5', '1e3', 'NaN', 'csv', 'json', 'pegin', 'pegout', '../../SECRET.txt', '..%2F.secret', '%00', 'ab'.repeat(32)),
  fc.constantFrom(...endpoints),
  fc.constant(null).map(() => tree.traceQ.address),
  fc.constant(null).map(() => tree.traceQ.pegout_tx),
  fc.constant(null).map(() => String(tree.block.height)),
  fc.string({ maxLength: 20 }),
);
const query = fc.array(fc.tuple(fc.constantFrom(...paramNames), value), { maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
const anyPath = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.option(query, { nil: undefined }))
  .map(([segs, q]) => `/${segs.join('/')}${q === undefined ? '' : `?${q}`}`);
// Endpoint-shaped targets, so real answers are reached on every run, not only by luck.
const apiPath = fc.tuple(fc.constantFrom('/api/', '/api?endpoint=', '/api.php?endpoint='), fc.constantFrom(...endpoints), fc.option(query, { nil: undefined }))
  .map(([prefix, endpoint, q]) => `${prefix}${endpoint}${q ? `${prefix.endsWith('=') ? '&' : '?'}${q}` : ''}`);
const target = fc.oneof(anyPath, apiPath).map(requestLine);

describe('fuzzing paths and query strings', () => {
  it('never answers 5xx and never returns a byte from outside the tree', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(target, fc.constantFrom('GET', 'HEAD', 'GET'), async (path, method) => {
        const res = await get(path, method);
        seen.add(res.status);
        expect(res.status, path).toBeLessThan(500);
        expect(res.body.includes(SECRET), path).toBe(false);
      }),
      { numRuns: 1500 },
    );
    // The generator reaches real answers as well as every kind of refusal.
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 400, 404]));
  });

  it('random bytes as the whole request target never give 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }), async (raw) => {
        const res = await get(requestLine(`/${raw}`));
        expect(res.status).toBeLessThan(500);
        expect(res.body.includes(SECRET)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
