/**
 * /dumps/* and /manifest.json: streamed by the router with
 * the API's JSON errors, strong ETags, single byte ranges, If-Range and
 * If-None-Match, so a dump download can be resumed safely across releases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { ifRangeHolds, noneMatch, rangeOf } from '../src/serve/http.js';
import { buildHandTree, publish, resign, SECRET, writeRelease, type HandTree } from './helpers/release-tree.js';
import { get } from './helpers/http.js';

let tree: HandTree;
let server: RunningServer;
let base: string;
const DUMP = '/dumps/links.parquet';
let bytes1: Buffer;

const releaseDir = (id: string): string => join(tree.outDir, 'releases', id);
/** Writes release `id` with `dump` as its links.parquet and publishes it. */
function publishWithDump(id: string, dump: Buffer): void {
  writeRelease(tree, id, 600, Math.floor(Date.now() / 1000));
  writeFileSync(join(releaseDir(id), 'dumps', 'links.parquet'), dump);
  resign(tree, id);
  publish(tree, id);
}

beforeAll(async () => {
  tree = buildHandTree();
  bytes1 = randomBytes(300_000);
  writeFileSync(join(releaseDir('r1'), 'dumps', 'links.parquet'), bytes1);
  resign(tree, 'r1');
  server = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  base = server.url;
});

afterAll(async () => {
  await server?.close();
  if (tree) rmSync(tree.root, { recursive: true, force: true });
});

describe('dump and manifest files', () => {
  it('serve the release bytes with a strong content ETag, Last-Modified, Accept-Ranges and the analysis cache time', async () => {
    const res = await get(base, DUMP);
    expect(res.status).toBe(200);
    expect(res.body.equals(bytes1)).toBe(true);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['last-modified']).toBeTruthy();
    expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const manifest = await get(base, '/manifest.json');
    expect(manifest.text).toBe(readFileSync(join(releaseDir('r1'), 'manifest.json'), 'utf8'));
    expect(manifest.headers['content-type']).toBe('application/json; charset=utf-8');
    const gz = await get(base, '/dumps/pegins/pegins-00000000-00019999.csv.gz');
    expect(gz.headers['content-type']).toBe('application/gzip');
    expect(gz.headers['content-encoding']).toBeUndefined();
  });

  it('serve changes.json and height partitions of dumps, and only well-formed partition names', async () => {
    writeFileSync(join(releaseDir('r1'), 'changes.json'), '{"added":{}}');
    const partition = join(releaseDir('r1'), 'dumps', 'pegins', 'pegins-00000000-00019999.parquet');
    mkdirSync(dirname(partition), { recursive: true });
    writeFileSync(partition, bytes1);
    resign(tree, 'r1');
    try {
      expect((await get(base, '/changes.json')).text).toBe('{"added":{}}');
      expect((await get(base, '/dumps/pegins/pegins-00000000-00019999.parquet')).body.equals(bytes1)).toBe(true);
      for (const path of ['/dumps/pegins/links-00000000-00019999.parquet', '/dumps/pegins/pegins-0-19999.parquet', '/dumps/pegins/pegins-00000000-00019999.json', '/dumps/pegins/../manifest.json']) {
        expect((await get(base, path)).status, path).toBe(404);
      }
    } finally {
      rmSync(join(releaseDir('r1'), 'changes.json'));
      rmSync(dirname(partition), { recursive: true });
      resign(tree, 'r1');
    }
  });

  it('a missing file is the JSON 404 of the API, not cached (was an HTML page with max-age=300)', async () => {
    const res = await get(base, '/dumps/pegouts.parquet');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.json).toEqual({ error: expect.stringMatching(/has no dumps\/pegouts\.parquet/), version: '1' });
  });

  it('a symbolic link in the release is never followed', async () => {
    symlinkSync(join(tree.root, 'SECRET.txt'), join(releaseDir('r1'), 'dumps', 'pegouts.csv.gz'));
    try {
      const res = await get(base, '/dumps/pegouts.csv.gz');
      expect(res.status).toBe(404);
      expect(res.text).not.toContain(SECRET);
    } finally {
      rmSync(join(releaseDir('r1'), 'dumps', 'pegouts.csv.gz'));
    }
  });

  it('HEAD has the length and validators and no body; Range is not applied to HEAD', async () => {
    const head = await get(base, DUMP, { method: 'HEAD', headers: { Range: 'bytes=0-9' } });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(bytes1.length));
    expect(head.body.length).toBe(0);
    expect(head.headers.etag).toBe((await get(base, DUMP)).headers.etag);
  });

  it('streams dumps: they never enter the in-memory file cache', async () => {
    await get(base, DUMP);
    expect(server.cacheSizes().files.bytes).toBeLessThan(bytes1.length);
  });
});

describe('byte ranges', () => {
  it('one range is 206 with Content-Range and exactly those bytes (first-last, first-, suffix, last past the end)', async () => {
    const size = bytes1.length;
    for (const [header, start, end] of [['bytes=100-199', 100, 199], ['bytes=299990-', 299_990, size - 1], ['bytes=-50', size - 50, size - 1], ['bytes=0-999999999', 0, size - 1], ['bytes=-999999999', 0, size - 1]] as const) {
      const res = await get(base, DUMP, { headers: { Range: header } });
      expect(res.status, header).toBe(206);
      expect(res.headers['content-range'], header).toBe(`bytes ${start}-${end}/${size}`);
      expect(res.headers['content-length']).toBe(String(end - start + 1));
      expect(res.body.equals(bytes1.subarray(start, end + 1)), header).toBe(true);
    }
  });

  it('a range past the end is 416 with Content-Range bytes */size and a JSON error body, not the file', async () => {
    for (const header of ['bytes=999999999-', `bytes=${bytes1.length}-`, 'bytes=-0']) {
      const res = await get(base, DUMP, { headers: { Range: header } });
      expect(res.status, header).toBe(416);
      expect(res.headers['content-range']).toBe(`bytes */${bytes1.length}`);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.json.error).toMatch(/outside the file \(300000 bytes\)/);
      expect(res.body.length).toBeLessThan(500);
    }
  });

  it('several ranges, another unit or a malformed range get the whole file with 200', async () => {
    for (const header of ['bytes=0-1,5-6', 'items=0-5', 'bytes=9-2', 'bytes=-', 'bytes=a-b', 'bytes 0-5']) {
      const res = await get(base, DUMP, { headers: { Range: header } });
      expect(res.status, header).toBe(200);
      expect(res.body.equals(bytes1), header).toBe(true);
    }
  });
});

describe('conditional requests', () => {
  it('If-None-Match matches by weak comparison: the strong tag, W/ of it and * give 304 with ETag and Cache-Control', async () => {
    const etag = (await get(base, DUMP)).headers.etag as string;
    for (const header of [etag, `W/${etag}`, '*', `"other", ${etag}`]) {
      const res = await get(base, DUMP, { headers: { 'If-None-Match': header } });
      expect(res.status, header).toBe(304);
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+/);
      expect(res.body.length).toBe(0);
    }
    expect((await get(base, DUMP, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
    const manifest = await get(base, '/manifest.json');
    expect((await get(base, '/manifest.json', { headers: { 'If-None-Match': `W/${manifest.headers.etag}` } })).status).toBe(304);
  });

  it('If-Modified-Since is used only without If-None-Match', async () => {
    const first = await get(base, DUMP);
    const since = first.headers['last-modified'] as string;
    expect((await get(base, DUMP, { headers: { 'If-Modified-Since': since } })).status).toBe(304);
    expect((await get(base, DUMP, { headers: { 'If-Modified-Since': since, 'If-None-Match': '"other"' } })).status).toBe(200);
    expect((await get(base, DUMP, { headers: { 'If-Modified-Since': new Date(0).toUTCString() } })).status).toBe(200);
  });

  it('a download resumed across releases never joins bytes of two releases (If-Range)', async () => {
    const first = await get(base, DUMP, { headers: { Range: 'bytes=0-99999' } });
    expect(first.status).toBe(206);
    const etag1 = first.headers.etag as string;
    const bytes2 = randomBytes(300_000);
    publishWithDump('r2', bytes2);
    try {
      // The client still holds r1's bytes: it gets the whole of r2, never r2's tail.
      const resumed = await get(base, DUMP, { headers: { Range: 'bytes=100000-', 'If-Range': etag1 } });
      expect(resumed.status).toBe(200);
      expect(resumed.body.equals(bytes2)).toBe(true);
      const etag2 = resumed.headers.etag as string;
      expect(etag2).not.toBe(etag1);
      const same = await get(base, DUMP, { headers: { Range: 'bytes=100000-', 'If-Range': etag2 } });
      expect(same.status).toBe(206);
      expect(Buffer.concat([bytes2.subarray(0, 100_000), same.body]).equals(bytes2)).toBe(true);
      // A weak tag never satisfies If-Range.
      expect((await get(base, DUMP, { headers: { Range: 'bytes=100000-', 'If-Range': `W/${etag2}` } })).status).toBe(200);
      // A date works only when it is exactly the file's Last-Modified and that date is strong (a second old).
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(join(releaseDir('r2'), 'dumps', 'links.parquet'), old, old);
      const lastModified = (await get(base, DUMP, { method: 'HEAD' })).headers['last-modified'] as string;
      expect((await get(base, DUMP, { headers: { Range: 'bytes=5-9', 'If-Range': lastModified } })).status).toBe(206);
      expect((await get(base, DUMP, { headers: { Range: 'bytes=5-9', 'If-Range': new Date(old.getTime() - 5_000).toUTCString() } })).status).toBe(200);
    } finally {
      publish(tree, 'r1');
    }
  });

  it('identical bytes keep their ETag in another release', async () => {
    const etag1 = (await get(base, DUMP)).headers.etag;
    writeRelease(tree, 'r3', 700, Math.floor(Date.now() / 1000));
    copyFileSync(join(releaseDir('r1'), 'dumps', 'links.parquet'), join(releaseDir('r3'), 'dumps', 'links.parquet'));
    resign(tree, 'r3');
    publish(tree, 'r3');
    try {
      const again = await get(base, DUMP);
      expect(again.headers['x-pegscope-release']).toBe('r3');
      expect(again.headers.etag).toBe(etag1);
    } finally {
      publish(tree, 'r1');
    }
  });
});

describe('precondition and range parsing', () => {
  it('rangeOf follows RFC 9110 §14.1.2 for one range and ignores what it does not serve', () => {
    expect(rangeOf(undefined, 10)).toEqual({ kind: 'full' });
    expect(rangeOf('bytes=2-4', 10)).toEqual({ kind: 'partial', start: 2, end: 4 });
    expect(rangeOf('BYTES=2-', 10)).toEqual({ kind: 'partial', start: 2, end: 9 });
    expect(rangeOf('bytes=-3', 10)).toEqual({ kind: 'partial', start: 7, end: 9 });
    expect(rangeOf('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(rangeOf('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(rangeOf(`bytes=${'9'.repeat(400)}-`, 10)).toEqual({ kind: 'unsatisfiable' });
    expect(rangeOf('bytes=1-2, 4-5', 10)).toEqual({ kind: 'full' });
  });

  it('noneMatch compares weakly; ifRangeHolds strongly', () => {
    expect(noneMatch('W/"a"', '"a"')).toBe(true);
    expect(noneMatch('"a,b", "c"', '"c"')).toBe(true);
    expect(noneMatch('"ab"', '"a"')).toBe(false);
    expect(noneMatch(undefined, '"a"')).toBe(false);
    const file = { etag: '"a"', mtimeMs: Date.UTC(2030, 0, 1, 0, 0, 0, 500) };
    const later = file.mtimeMs + 60_000;
    expect(ifRangeHolds('"a"', file, later)).toBe(true);
    expect(ifRangeHolds('W/"a"', file, later)).toBe(false);
    expect(ifRangeHolds('Tue, 01 Jan 2030 00:00:00 GMT', file, later)).toBe(true);
    // The same date within the same second is weak: it cannot tell two writes apart.
    expect(ifRangeHolds('Tue, 01 Jan 2030 00:00:00 GMT', file, file.mtimeMs + 200)).toBe(false);
    expect(ifRangeHolds('not a date', file, later)).toBe(false);
  });
});
