/**
 * What every response carries: requests Node's
 * parser rejects get the JSON error body with CORS, and browsers may read
 * the validator, rate-limit and release headers of any response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { buildHandTree, type HandTree } from './helpers/release-tree.js';
import { get, rawExchange, type RawRes } from './helpers/http.js';

const EXPOSED = ['ETag', 'Retry-After', 'RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Pegscope-Release'];

let tree: HandTree;
let server: RunningServer;
let base: string;

beforeAll(async () => {
  tree = buildHandTree();
  server = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0, headersTimeoutMs: 500 });
  base = server.url;
});

afterAll(async () => {
  await server?.close();
  if (tree) rmSync(tree.root, { recursive: true, force: true });
});

function expectJsonError(res: RawRes, status: number, message: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
  expect(res.json).toEqual({ error: expect.stringMatching(message), version: '1' });
  expect(res.closed).toBe(true);
}

describe('requests Node\'s parser rejects (3.8)', () => {
  it('a malformed request line is 400 with the JSON error body and CORS', async () => {
    expectJsonError(await rawExchange(base, 'GARBAGE\r\n\r\n'), 400, /not valid HTTP\/1\.1/);
    expectJsonError(await rawExchange(base, 'GET /api/stats HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'), 400, /not valid HTTP\/1\.1/);
  });

  it('headers over the limit are 431 with the JSON error body and CORS', async () => {
    const res = await rawExchange(base, `GET /api/stats HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(10_000)}\r\n\r\n`);
    expectJsonError(res, 431, /larger than 8192 bytes/);
  });

  it('a request head that does not arrive in time is 408 with the JSON error body and CORS', async () => {
    const res = await rawExchange(base, 'GET /api/stats HTTP/1.1\r\nHost: x\r\n');
    expectJsonError(res, 408, /not received in time/);
  });

  it('CONNECT is 405 with the JSON error body and Allow, not a dropped connection', async () => {
    const res = await rawExchange(base, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectJsonError(res, 405, /method CONNECT is not allowed/);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('a method Node does not know (FOO) is 405 with Allow, not 400', async () => {
    const res = await rawExchange(base, 'FOO /api/stats HTTP/1.1\r\nHost: x\r\n\r\n');
    expectJsonError(res, 405, /method is not one this API answers; it is read-only: GET, HEAD, OPTIONS/);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('a request without Host is 400 with the JSON error body and CORS (was a bare 400)', async () => {
    const res = await rawExchange(base, 'GET /api/stats HTTP/1.1\r\nConnection: close\r\n\r\n');
    expectJsonError(res, 400, /no Host header/);
  });

  it('an Expect other than 100-continue is 417 with the JSON error body and CORS (was a bare 417)', async () => {
    const res = await rawExchange(base, 'GET /api/stats HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n');
    expectJsonError(res, 417, /Expect: "foo" is not supported/);
  });

  it('a request without a body keeps its connection: two requests on one connection get two answers', async () => {
    const res = await rawExchange(base, 'GET /api/stats HTTP/1.1\r\nHost: x\r\n\r\nGET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(200);
    expect(res.headers.connection).toBe('keep-alive');
    expect(res.text.match(/HTTP\/1\.1 200/g)).toHaveLength(1);
  });

  it('a GET whose body arrives slowly gets one answer and the connection closed, never a later unsolicited 408', async () => {
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.write('GET /api/stats HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab');
    // The server's request timeout is 500 + 5,000 ms here; wait past it, trickling the body.
    const closed = await new Promise<boolean>((resolve) => {
      const trickle = setInterval(() => { if (socket.writable) socket.write('x'); }, 400);
      const done = (value: boolean): void => { clearInterval(trickle); clearTimeout(timer); resolve(value); };
      socket.once('close', () => done(true));
      socket.once('error', () => done(true));
      const timer = setTimeout(() => done(false), 7_000);
    });
    socket.destroy();
    const text = Buffer.concat(chunks).toString('latin1');
    expect(text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200']);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    expect(closed).toBe(true);
  }, 15_000);
});

describe('CORS for browsers', () => {
  const exposed = (header: string | string[] | undefined): string[] => String(header ?? '').split(',').map((h) => h.trim());

  it('every response exposes ETag, Retry-After, RateLimit-* and X-Pegscope-Release', async () => {
    const limited = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 1 });
    const empty = mkdtempSync(join(tmpdir(), 'pegscope-empty-'));
    const unpublished = await startServer({ sites: [{ network: 'sim', outDir: empty }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    try {
      const stats = await get(base, '/api/stats');
      const responses = [
        stats,
        await get(base, '/api/stats', { headers: { 'If-None-Match': stats.headers.etag as string } }),
        await get(base, '/api/links?limit=2'),
        await get(base, '/dumps/pegins/pegins-00000000-00019999.csv.gz'),
        await get(base, '/api/nope'),
        await get(base, '/api/stats', { method: 'POST' }),
        await get(limited.url, '/api/stats'),
        await get(limited.url, '/api/stats'),
        await get(unpublished.url, '/api/stats'),
      ];
      expect(responses.map((r) => r.status)).toEqual([200, 304, 200, 200, 404, 405, 200, 429, 503]);
      for (const res of responses) {
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(exposed(res.headers['access-control-expose-headers'])).toEqual(expect.arrayContaining(EXPOSED));
      }
      const raw = await rawExchange(base, 'GARBAGE\r\n\r\n');
      expect(exposed(raw.headers['access-control-expose-headers'])).toEqual(expect.arrayContaining(EXPOSED));
    } finally {
      await limited.close();
      await unpublished.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('preflight allows If-None-Match, X-API-Key, Range and If-Range', async () => {
    const res = await get(base, '/dumps/links/links-00000000-00001999.parquet', { method: 'OPTIONS', headers: { Origin: 'https://wallet.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'range, if-range' } });
    expect(res.status).toBe(204);
    const allowed = String(res.headers['access-control-allow-headers']).split(',').map((h) => h.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(['if-none-match', 'x-api-key', 'range', 'if-range']));
  });
});
