/**
 * The router serves only what the release vouches for (docs/api.md "What the
 * router serves"): symbolic links, FIFOs and devices in a release, files the
 * manifest does not describe, a range copied over another and a release
 * deleted while requests arrive are 503s (and a log line), never their
 * content or an answer computed from their absence; the right answer comes
 * back once the release is repaired.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chownSync, copyFileSync, cpSync, linkSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rangePath, rangePrefix, type RangesIndexBody } from '@pegscope/client';
import { exportRelease } from '../src/export/export.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import type { CacheLimits } from '../src/serve/limits.js';
import { exportTinyRelease, type TinyRelease } from './helpers/tiny-release.js';
import { analysedDb } from './helpers/export-pipeline.js';
import { get, type Res } from './helpers/http.js';

const HEIGHT = 1_200;
let release: TinyRelease;
let outside: string;
let server: RunningServer | null = null;
let log: string[] = [];

beforeAll(async () => {
  release = await exportTinyRelease(1, HEIGHT);
  outside = mkdtempSync(join(release.root, 'outside-'));
}, 300_000);

afterAll(() => { if (release) rmSync(release.root, { recursive: true, force: true }); });

afterEach(async () => {
  await server?.close();
  server = null;
});

/** A fresh router (empty caches) on the tiny release, its log kept in `log`. */
async function serve(outDir = release.outDir, cacheLimits?: Partial<CacheLimits>): Promise<string> {
  log = [];
  server = await startServer({ sites: [{ network: 'sim', outDir }], host: '127.0.0.1', port: 0, rateLimit: 0, log: (line) => log.push(line), cacheLimits });
  return server.url;
}

const at = (rel: string): string => join(release.dir, rel);
const ranges = (): RangesIndexBody => JSON.parse(readFileSync(at('api/ranges.json'), 'utf8')) as RangesIndexBody;
const listed = (): string[] => Object.keys((JSON.parse(readFileSync(at('manifest.json'), 'utf8')) as { files: Record<string, unknown> }).files);
const anAddress = (): string => (JSON.parse(readFileSync(at('api/links.json'), 'utf8')) as { links: { pegout_address: string }[] }).links[0]!.pegout_address;

/** Replaces a release file with `make(path)` (a link, a FIFO), runs `check`, then puts the file back. */
async function withReplaced(rel: string, make: (path: string, original: string) => void, check: () => Promise<void>): Promise<void> {
  const original = join(outside, rel.replaceAll('/', '_'));
  renameSync(at(rel), original);
  try {
    make(at(rel), original);
    await check();
  } finally {
    rmSync(at(rel), { force: true, recursive: true });
    renameSync(original, at(rel));
  }
}

function expectRefused(res: Res, path: string): void {
  expect(res.status, path).toBe(503);
  // No file name, content or size reaches the client: only the operator's log has them.
  expect(res.json?.error, path).toMatch(/^the published release \S+ cannot be read \(a file failed its checks; the operator's log names it\)/);
  // Health's 503 adds `health: {ok: false}`; nothing else is ever in the body.
  expect(res.json, path).toEqual({
    error: expect.stringMatching(/release .* cannot be read .*re-run `pegscope export`/), version: '1',
    ...(path.startsWith('/api/health') ? { health: { ok: false } } : {}),
  });
  expect(res.headers['cache-control'], path).toBe('no-store');
  expect(res.headers['access-control-allow-origin'], path).toBe('*');
}

describe('links, FIFOs and devices inside a release', () => {
  /** Every path form the router reads a file for, with the file it reads. */
  const forms = (): { path: string; rel: string; headers?: Record<string, string> }[] => {
    const address = anAddress();
    const layout = ranges();
    const traceRange = rangePath('trace', rangePrefix(address, layout.kinds.trace.prefix_length));
    const files = listed();
    const asset = files.find((f) => f.startsWith('assets/'));
    const dump = files.find((f) => f.startsWith('dumps/') && f.endsWith('.parquet'))!;
    return [
      { path: '/api/recommendations', rel: 'api/recommendations.json' },
      { path: '/api', rel: 'api/index.json' },
      { path: '/api/openapi.json', rel: 'api/openapi.json' },
      { path: `/api/trace?q=${address}`, rel: traceRange },
      { path: `/${traceRange.replace(/\.json$/, '')}`, rel: traceRange },
      { path: '/api/links', rel: 'api/links.json.gz', headers: { 'Accept-Encoding': 'gzip' } },
      { path: '/api/ranges.json', rel: 'api/ranges.json' },
      { path: `/${dump}`, rel: dump },
      ...(files.includes('index.html') ? [{ path: '/', rel: 'index.html' }] : []),
      ...(asset ? [{ path: `/${asset}`, rel: asset }] : []),
    ];
  };

  it('a link to a copy of the same bytes outside the release is refused in every path form, and answered again once it is a file', async () => {
    for (const { path, rel, headers } of forms()) {
      const base = await serve();
      await withReplaced(rel, (link, original) => symlinkSync(original, link), async () => {
        expectRefused(await get(base, path, { headers }), path);
        expect(log.join('\n'), path).toMatch(new RegExp(`refused: ${rel.replaceAll('.', '\\.')} is a symbolic link`));
      });
      const repaired = await get(base, path, { headers });
      expect(repaired.status, path).toBe(200);
      await server!.close();
      server = null;
    }
  });

  it('a link to a secret file is never its content', async () => {
    writeFileSync(join(outside, 'SECRET.txt'), 'root:x:0:0:TOP-SECRET');
    const base = await serve();
    await withReplaced('api/recommendations.json', (link) => symlinkSync(join(outside, 'SECRET.txt'), link), async () => {
      const res = await get(base, '/api/recommendations');
      expectRefused(res, '/api/recommendations');
      expect(res.text).not.toContain('TOP-SECRET');
    });
  });

  it('a symbolic link to a directory (api/series) is refused for every file under it', async () => {
    const base = await serve();
    const moved = join(outside, 'series');
    renameSync(at('api/series'), moved);
    symlinkSync(moved, at('api/series'));
    try {
      for (const name of readdirSync(moved)) expectRefused(await get(base, `/api/series/${name}`), name);
    } finally {
      rmSync(at('api/series'));
      renameSync(moved, at('api/series'));
    }
    expect((await get(base, '/api/series/daily.json')).status).toBe(200);
  });

  it('a FIFO is refused at once and the router stays responsive', async () => {
    const base = await serve();
    await withReplaced('api/series/pegin_amounts.json', (path) => execFileSync('mkfifo', [path]), async () => {
      const started = Date.now();
      const [fifo, stats] = await Promise.all([get(base, '/api/series/pegin_amounts.json'), get(base, '/api/stats')]);
      expectRefused(fifo, 'fifo');
      expect(stats.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(log.join('\n')).toMatch(/api\/series\/pegin_amounts\.json is not a regular file/);
    });
  });

  it('a link to the zero device is refused, not read without bound', async () => {
    const base = await serve();
    await withReplaced('api/stats.json', (path) => symlinkSync('/dev/zero', path), async () => {
      expectRefused(await get(base, '/api/stats'), '/api/stats');
      const health = await get(base, '/api/health');
      expect(health.status).toBe(503);
      expect(health.json.health).toEqual({ ok: false });
    });
    expect((await get(base, '/api/stats')).status).toBe(200);
  });
});

describe('files the manifest does not describe', () => {
  it('a range release missing api/ranges.json is a 503 for lookups and health, not a files-layout release answering not_found', async () => {
    const base = await serve();
    const address = anAddress();
    const moved = join(outside, 'ranges.json');
    renameSync(at('api/ranges.json'), moved);
    try {
      for (const path of [`/api/trace?q=${address}`, `/api/address?q=${address}`, '/api/health', '/api/stats']) expectRefused(await get(base, path), path);
      expect((await get(base, '/api/health')).json.health.ok).toBe(false);
    } finally {
      renameSync(moved, at('api/ranges.json'));
    }
    const trace = await get(base, `/api/trace?q=${address}`);
    expect(trace.status).toBe(200);
    expect(trace.json.trace.type).toBe('address');
    expect((await get(base, '/api/health')).json.health.ok).toBe(true);
  });

  it('a range copied over another, or with a corrupted line, is a 503 (never cached), and the right answer after repair', async () => {
    const address = anAddress();
    const layout = ranges();
    const length = layout.kinds.address.prefix_length;
    const rel = rangePath('address', rangePrefix(address, length));
    const other = readdirSync(at('api/range/address')).map((n) => `api/range/address/${n}`).find((r) => r !== rel)!;
    const path = `/api/address?q=${address}`;
    const right = await get(await serve(), path);
    expect(right.json.address.pegouts_received.count).toBeGreaterThan(0);
    await server!.close();

    const base = await serve();
    const saved = join(outside, 'range-saved');
    copyFileSync(at(rel), saved);
    try {
      copyFileSync(at(other), at(rel));
      expectRefused(await get(base, path), 'copied range');
      const text = readFileSync(saved, 'utf8');
      writeFileSync(at(rel), text.replace(/"count":\d+/, '"count":0'));
      expectRefused(await get(base, path), 'corrupted line');
      expect(log.join('\n')).toMatch(/does not have the sha256 manifest.json lists|bytes, manifest.json lists/);
    } finally {
      copyFileSync(saved, at(rel));
    }
    expect((await get(base, path)).text).toBe(right.text);
  });

  it('a files-layout release deleted while requests arrive never answers a known key with not_found', async () => {
    const root = mkdtempSync(join(release.root, 'files-'));
    const outDir = join(root, 'out', 'sim');
    const { db, source } = await analysedDb(':memory:', 1, HEIGHT, 1_800_000_000);
    try {
      await exportRelease(db, { outDir, layout: 'files' });
    } finally {
      await source.close();
      db.close();
    }
    const current = join(outDir, 'current');
    const addresses = readdirSync(join(current, 'api', 'trace')).filter((n) => n.endsWith('.json') && !/^[0-9a-f]{64}\.json$/.test(n)).map((n) => n.slice(0, -5));
    expect(addresses.length).toBeGreaterThan(100);
    const base = await serve(outDir);
    const dir = join(outDir, 'releases', readdirSync(join(outDir, 'releases'))[0]!);
    const keep = join(root, 'kept');
    cpSync(dir, keep, { recursive: true });
    // The release goes while the (DELETE_AT + 1)th request is in flight: after a count of answers, not a sleep a fast machine outruns.
    const DELETE_AT = 10;
    const answers: Res[] = [];
    for (const [i, address] of addresses.entries()) {
      const answer = get(base, `/api/trace?q=${address}`);
      if (i === DELETE_AT) rmSync(dir, { recursive: true, force: true });
      answers.push(await answer);
    }
    expect(answers.slice(0, DELETE_AT).every((res) => res.status === 200)).toBe(true);
    const wrong = answers.filter((res) => res.status === 200 && res.json.trace.type === 'not_found');
    expect(wrong).toHaveLength(0);
    expect(answers.some((res) => res.status === 503)).toBe(true);
    expect(answers.every((res) => res.status === 200 || res.status === 503)).toBe(true);
    renameSync(keep, dir);
    expect((await get(base, `/api/trace?q=${addresses.at(-1)!}`)).json.trace.type).toBe('address');
  }, 120_000);
});

describe('what a 503 tells a client, and what the router checks before it trusts the manifest', () => {
  it('a manifest.json hard-linked to an outside file: a 503 quoting none of it, the detail in the log only', async () => {
    const secret = join(outside, 'passwd');
    writeFileSync(secret, 'root:x:0:0:TOP-SECRET-LINE:/root:/bin/bash\n'.repeat(3));
    await withReplaced('manifest.json', (path) => linkSync(secret, path), async () => {
      const base = await serve();
      for (const path of ['/api/stats', '/api/health', '/manifest.json']) {
        const res = await get(base, path);
        expectRefused(res, path);
        expect(res.text, path).not.toContain('TOP-SECRET');
      }
      expect(log.join('\n')).toMatch(/refused: manifest.json it has 2 links/);
    });
  });

  it('a manifest.json with a second name (the same bytes) is refused: every export writes its own', async () => {
    const base = await serve();
    const second = join(outside, 'manifest-second-name.json');
    linkSync(at('manifest.json'), second);
    try {
      expectRefused(await get(base, '/manifest.json'), '/manifest.json');
      expect(log.join('\n')).toMatch(/refused: manifest.json (it )?has 2 links/);
    } finally {
      rmSync(second);
    }
    expect((await get(base, '/manifest.json')).status).toBe(200);
  });

  it('a listed file hard-linked to an outside file of another size: the 503 names no size', async () => {
    const big = join(outside, 'big.txt');
    writeFileSync(big, 'x'.repeat(1243));
    await withReplaced('api/recommendations.json', (path) => linkSync(big, path), async () => {
      const base = await serve();
      const res = await get(base, '/api/recommendations');
      expectRefused(res, '/api/recommendations');
      expect(res.text).not.toMatch(/1243|bytes/);
      expect(log.join('\n')).toMatch(/refused: api\/recommendations.json has 1243 bytes, manifest.json lists \d+/);
    });
  });

  it.skipIf(process.getuid?.() !== 0)('a manifest or a listed file owned by another user than the release directory is refused', async () => {
    for (const rel of ['manifest.json', 'api/recommendations.json']) {
      const base = await serve();
      const { uid, gid } = statSync(at(rel));
      chownSync(at(rel), 65534, gid);
      try {
        expectRefused(await get(base, '/api/recommendations'), rel);
        expect(log.join('\n'), rel).toMatch(/owned by uid 65534, not by the release directory's owner/);
      } finally {
        chownSync(at(rel), uid, gid);
      }
      await server!.close();
      server = null;
    }
  });

  it('a file edited in place with its size and mtime kept is re-checked (ctime), streamed or read each time', async () => {
    const dump = listed().find((f) => f.startsWith('dumps/') && f.endsWith('.parquet'))!;
    for (const [rel, path] of [[dump, `/${dump}`], ['api/series/daily.json', '/api/series/daily.json']] as const) {
      // Nothing kept in memory: a file is read from disk for every request (as one too large for the cache is).
      const base = await serve(release.outDir, { maxFileBytes: 0, answers: { maxEntries: 1, maxBytes: 1 } });
      // Served once: its sha256 is checked and remembered under the file's identity.
      expect((await get(base, path)).status, path).toBe(200);
      const original = readFileSync(at(rel));
      // A copy holding the file's times to the nanosecond, for touch -r.
      const times = join(outside, 'times');
      writeFileSync(times, '');
      execFileSync('touch', ['-r', at(rel), times]);
      const { mtimeNs, size } = statSync(at(rel), { bigint: true });
      const edited = Buffer.from(original);
      edited[edited.length >> 1]! ^= 0x20;
      try {
        writeFileSync(at(rel), edited);
        execFileSync('touch', ['-r', times, at(rel)]);
        expect(statSync(at(rel), { bigint: true })).toMatchObject({ mtimeNs, size });
        expectRefused(await get(base, path), path);
        expect(log.join('\n'), path).toMatch(new RegExp(`refused: ${rel.replaceAll('.', '\\.')} does not have the sha256 manifest.json lists`));
      } finally {
        writeFileSync(at(rel), original);
        execFileSync('touch', ['-r', times, at(rel)]);
      }
      await server!.close();
      server = null;
    }
  });
});
