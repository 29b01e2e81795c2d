/**
 * For the mirror tests: a growing origin (the tiny sim chain exported and
 * signed release after release), the comparison of what `serve` answers from
 * two trees, and hand-made HTTP origins that answer wrongly or slowly.
 */
import { createReadStream, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, normalize } from 'node:path';
import { expect } from 'vitest';
import type { Db } from '../../src/store/db.js';
import type { SimSource } from '../../src/chain/sim/index.js';
import { exportRelease } from '../../src/export/export.js';
import { isServedFile } from '../../src/api/release-files.js';
import type { SecretKey } from '../../src/trust/minisign.js';
import { analysedDb, scanAndAnalyze } from './export-pipeline.js';
import { get } from './http.js';

export const NOW = 1_800_000_000;

export interface GrowingOrigin {
  outDir: string;
  db: Db;
  source: SimSource;
  height: number;
  /** The published release directory, symlinks resolved. */
  dir(): string;
  /** Scans to `to`, analyses, exports a release signed with the key (export --sign-key); returns its directory. */
  grow(to: number): Promise<string>;
  close(): Promise<void>;
}

export async function growingOrigin(outDir: string, key: SecretKey, from: number): Promise<GrowingOrigin> {
  const { db, source } = await analysedDb(':memory:', 1, from, NOW);
  const origin: GrowingOrigin = {
    outDir, db, source, height: from,
    dir: () => realpathSync(join(outDir, 'current')),
    async grow(to) {
      if (to !== origin.height) await scanAndAnalyze(db, source, to, NOW + to - from);
      origin.height = to;
      return (await exportRelease(db, { outDir, signKey: key })).dir;
    },
    async close() {
      await source.close();
      db.close();
    },
  };
  await origin.grow(from);
  return origin;
}

/** Sizes listed as added and changed in a release's changes.json: what a mirror of the previous release downloads. */
export function changedBytes(dir: string): number {
  const changes = JSON.parse(readFileSync(join(dir, 'changes.json'), 'utf8')) as Record<'added' | 'changed', Record<string, { size: number }>>;
  return [...Object.values(changes.added), ...Object.values(changes.changed)].reduce((n, f) => n + f.size, 0);
}

/** Requests beyond the files: computed answers the router slices or looks up. */
function computedPaths(dir: string): string[] {
  const links = (JSON.parse(readFileSync(join(dir, 'data', 'links.json'), 'utf8')) as { links: Record<string, string | number>[] }).links;
  const paths = ['/api', '/api/health', '/api/stats', '/api/links?limit=7', '/api/links?min_confidence=0.9&format=csv', '/api/pegin_amounts?limit=3', '/api/privacy?amount=1.5'];
  for (const link of links.slice(0, 3)) paths.push(`/api/trace?q=${link.pegin_txid}`, `/api/address/${link.pegout_address}`, `/api/follow?q=${link.pegout_address}&depth=5`, `/api/block/${link.pegout_height}`);
  return paths;
}

/** `serve` answers every served file and a set of computed requests from `copy` exactly as from `origin` (status, type, body). */
export async function expectSameAnswers(originUrl: string, copyUrl: string, dir: string): Promise<number> {
  const manifest = readFileSync(join(dir, 'manifest.json'), 'utf8');
  const files = [...manifest.matchAll(/^"([^"]+)":/gm)].map((m) => m[1]!).filter(isServedFile).map((rel) => `/${rel}`);
  const paths = ['/manifest.json', '/manifest.json.minisig', ...files, ...computedPaths(dir)];
  for (const path of paths) {
    const [a, b] = await Promise.all([get(originUrl, path), get(copyUrl, path)]);
    expect(b.status, path).toBe(a.status);
    expect(b.headers['content-type'], path).toBe(a.headers['content-type']);
    expect(b.body.equals(a.body), path).toBe(true);
  }
  return paths.length;
}

export interface TestOrigin { url: string; server: Server; close(): Promise<void> }

/** A hand-made origin: `answer` writes each response. */
export async function handOrigin(answer: Parameters<typeof createServer>[1]): Promise<TestOrigin> {
  const server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`, server,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * A static origin over `root` (symlinks followed at each request, so it serves
 * the current release). `bytesPerSecond` slows every response, enough to kill
 * a pull during its downloads; `moved` answers `/<moved>/<path>` with a
 * redirect to `/<path>` on the same host.
 */
export function staticOrigin(root: string, opts: { bytesPerSecond?: number; moved?: string } = {}): Promise<TestOrigin> {
  return handOrigin((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url!, 'http://x').pathname);
    if (opts.moved && pathname.startsWith(`/${opts.moved}/`)) {
      res.writeHead(301, { location: pathname.slice(opts.moved.length + 1) }).end();
      return;
    }
    const rel = normalize(pathname).replace(/^\/+/, '');
    const path = join(root, rel);
    if (rel.startsWith('..') || !existsSync(path) || !statSync(path).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': statSync(path).size });
    const rate = opts.bytesPerSecond;
    const stream = createReadStream(path, rate ? { highWaterMark: Math.max(1, Math.floor(rate / 10)) } : {});
    if (rate) {
      stream.on('data', () => {
        stream.pause();
        setTimeout(() => stream.resume(), 100);
      });
    }
    stream.pipe(res);
    res.on('close', () => stream.destroy());
  });
}
