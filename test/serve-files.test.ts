/**
 * The router answers every file name a static mirror serves, with the same
 * bytes, and nothing a release does not list (docs/static-hosting.md "What
 * is in a release", generated from the same list the router uses).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isServedFile } from '../src/api/release-files.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { exportTinyRelease, type TinyRelease } from './helpers/tiny-release.js';
import { get } from './helpers/http.js';
import { withReleaseFiles } from '../scripts/lib/release-doc.js';

let release: TinyRelease;
let server: RunningServer;

beforeAll(async () => {
  release = await exportTinyRelease(1, 1_200);
  server = await startServer({ sites: [{ network: 'sim', outDir: release.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
}, 300_000);

afterAll(async () => {
  await server?.close();
  if (release) rmSync(release.root, { recursive: true, force: true });
});

describe('the release by file name', () => {
  it('every file the manifest lists is served by its path with its bytes: a mirror copies the whole release, data/ and host configs too', async () => {
    const listed = Object.keys((JSON.parse(readFileSync(join(release.dir, 'manifest.json'), 'utf8')) as { files: object }).files);
    expect(listed).toEqual(expect.arrayContaining(['api/health.json', 'api/index.json', 'api/links.csv', 'changes.json', 'data/links.json', '_headers', '_redirects', 'nginx.conf']));
    expect(listed.filter((rel) => !isServedFile(rel))).toEqual([]);
    for (const rel of [...listed, 'manifest.json']) {
      const res = await get(server.url, `/${rel}`);
      expect(res.status, rel).toBe(200);
      expect(res.body.equals(readFileSync(join(release.dir, rel))), rel).toBe(true);
    }
  }, 120_000);

  it('an unsigned release has no manifest.json.minisig: a 404, and the release is still served', async () => {
    const res = await get(server.url, '/manifest.json.minisig');
    expect(res.status).toBe(404);
    expect(res.json.error).toMatch(/has no manifest\.json\.minisig/);
    expect((await get(server.url, '/api/health')).status).toBe(200);
  });

  it('a name the layout serves but the manifest does not list is a 404, and a file name takes no parameters', async () => {
    expect((await get(server.url, '/api/nothing.json')).status).toBe(404);
    expect((await get(server.url, '/dumps/pegins/pegins-99999999-99999999.parquet')).status).toBe(404);
    expect((await get(server.url, '/dumps/pegins/links-00000000-00019999.parquet')).status).toBe(404);
    expect((await get(server.url, '/api/health.json?x=1')).status).toBe(400);
    expect((await get(server.url, '/api/.hidden.json')).status).toBe(404);
  });

  it("docs/static-hosting.md's release table is the one the layout generates (npm run docs:release)", () => {
    const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'static-hosting.md'), 'utf8');
    expect(withReleaseFiles(doc)).toBe(doc);
  });
});
