/**
 * `pegscope mirror` against real origins: Python's http.server over a
 * growing, signed origin (first pull, +1 block, +100 blocks), a tampered
 * file, a rollback, a network change, bad and missing signatures, unsafe
 * manifest paths, HTML and wrong answers. After each published pull,
 * `verify` passes on the copy and `serve` answers from it what it answers
 * from the origin.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecretKey, type SecretKey } from '../src/trust/minisign.js';
import { parsePublicKey, type MinisignPublicKey } from '@pegscope/client';
import { publicKeyFile } from '../src/trust/minisign.js';
import { pullEvery, pullRelease, type MirrorOptions, type MirrorSummary } from '../src/mirror/mirror.js';
import { isOk, verifyRelease } from '../src/export/verify.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { startPlainServer, type PlainServer } from './helpers/plain-server.js';
import { changedBytes, expectSameAnswers, growingOrigin, handOrigin, staticOrigin, type GrowingOrigin } from './helpers/mirror-origin.js';
import { signRelease } from './helpers/sign-release.js';
import { get } from './helpers/http.js';
import { nginxAvailable, startNginx } from '../scripts/lib/nginx.js';

const FROM = 2_500;

let work: string;
let key: SecretKey;
let keys: MinisignPublicKey[];
let origin: GrowingOrigin;
let plain: PlainServer;
const servers: RunningServer[] = [];
const copyOut = () => join(work, 'copy');
const copyId = (): string => basename(readlinkSync(join(copyOut(), 'current')));
const quiet: string[] = [];

const pull = (url: string, extra: Partial<MirrorOptions> = {}): Promise<MirrorSummary> =>
  pullRelease({ origin: url, outDir: copyOut(), publicKeys: keys, keep: 3, log: (line) => quiet.push(line), backoffMs: 10, attempts: 2, ...extra });

async function router(outDir: string): Promise<string> {
  const server = await startServer({ sites: [{ network: 'sim', outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  servers.push(server);
  return server.url;
}

/** A published pull leaves a copy that verifies and that `serve` answers from as from the origin. */
async function expectFaithfulCopy(summary: MirrorSummary): Promise<void> {
  expect(summary.problems).toEqual([]);
  expect(summary.status).toBe('published');
  expect(copyId()).toBe(basename(origin.dir()));
  const verified = await verifyRelease(join(copyOut(), 'current'), { publicKeys: keys });
  expect(isOk(verified)).toBe(true);
  expect(verified.head.as_of_height).toBe(origin.height);
  const [fromOrigin, fromCopy] = await Promise.all([router(origin.outDir), router(copyOut())]);
  expect(await expectSameAnswers(fromOrigin, fromCopy, origin.dir())).toBeGreaterThan(50);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-mirror-'));
  key = generateSecretKey();
  keys = [parsePublicKey(publicKeyFile(key))];
  origin = await growingOrigin(join(work, 'origin'), key, FROM);
  plain = await startPlainServer(join(work, 'origin', 'current'));
}, 300_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  await plain?.close();
  await origin?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('pegscope mirror from python3 -m http.server', () => {
  it('a first pull downloads every file, checks it and publishes the copy as current', async () => {
    const summary = await pull(plain.url);
    expect(summary.fetched.files).toBe(summary.files);
    expect(summary.fetched.bytes).toBe(summary.bytes);
    expect(summary.linked.files).toBe(0);
    await expectFaithfulCopy(summary);
    // The layout serve reads, and nothing of the exporter's state: a copy has none.
    expect(readdirSync(copyOut()).sort()).toEqual(['.mirror', 'current', 'releases']);
    expect((await pull(plain.url)).status).toBe('up-to-date');
  }, 120_000);

  it('after 1 block: only what changed is downloaded, the rest is hard-linked from the current copy', async () => {
    const before = copyId();
    const dir = await origin.grow(FROM + 1);
    const summary = await pull(plain.url);
    await expectFaithfulCopy(summary);
    expect(summary.previous?.release_id).toBe(before);
    expect(summary.linked.files).toBeGreaterThan(summary.fetched.files);
    expect(summary.fetched.files + summary.linked.files).toBe(summary.files);
    const changes = readFileSync(join(dir, 'changes.json')).length;
    expect(summary.fetched.bytes).toBeLessThanOrEqual(changedBytes(dir) + changes);
  }, 120_000);

  it('after 100 blocks: bytes downloaded within 5% of what changes.json lists', async () => {
    const dir = await origin.grow(FROM + 101);
    const summary = await pull(plain.url);
    await expectFaithfulCopy(summary);
    const listed = changedBytes(dir) + readFileSync(join(dir, 'changes.json')).length;
    expect(summary.fetched.bytes).toBeLessThanOrEqual(listed * 1.05);
    expect(summary.fetched.bytes).toBeGreaterThanOrEqual(listed * 0.95);
  }, 180_000);

  it('a tampered file at the origin is refused, the current copy untouched; the next pull resumes from what was checked', async () => {
    const before = copyId();
    const dir = await origin.grow(FROM + 102);
    const changed = Object.keys((JSON.parse(readFileSync(join(dir, 'changes.json'), 'utf8')) as { changed: object }).changed);
    const victim = join(dir, changed.find((rel) => rel.startsWith('api/range/')) ?? changed[0]!);
    const good = readFileSync(victim);
    const bad = Buffer.from(good);
    bad.writeUInt8(bad[bad.length - 2]! ^ 1, bad.length - 2);
    unlinkSync(victim);
    writeFileSync(victim, bad);
    const refused = await pull(plain.url);
    expect(refused.status).toBe('refused');
    expect(refused.refused.files).toBe(1);
    expect(refused.problems.join('\n')).toMatch(/sha256 .* the signed manifest says/);
    expect(copyId()).toBe(before);
    expect(isOk(await verifyRelease(join(copyOut(), 'current')))).toBe(true);

    unlinkSync(victim);
    writeFileSync(victim, good);
    const healed = await pull(plain.url);
    expect(healed.resumed.files).toBe(refused.fetched.files - 1);
    expect(healed.fetched.files).toBe(1);
    await expectFaithfulCopy(healed);
  }, 120_000);

  it('a rollback is refused: an older release, or the same height signed earlier', async () => {
    const before = copyId();
    const releases = join(origin.outDir, 'releases');
    const older = join(releases, readdirSync(releases).filter((n) => !n.startsWith('.')).sort()[0]!);
    const old = await startPlainServer(older);
    try {
      const summary = await pull(old.url);
      expect(summary.status).toBe('refused');
      expect(summary.problems[0]).toMatch(/^rollback refused: the origin's release \S+ is at height \d+, below this copy's/);
    } finally {
      await old.close();
    }
    const sameHeight = join(work, 'same-height', `${'20200101T000000000Z'}-h${origin.height}`);
    cpSync(origin.dir(), sameHeight, { recursive: true });
    signRelease(sameHeight, key, { timestamp: 1_000 });
    const replay = await startPlainServer(sameHeight);
    try {
      const summary = await pull(replay.url);
      expect(summary.problems[0]).toMatch(/^rollback refused: .* was signed before this copy's/);
    } finally {
      await replay.close();
    }
    expect(copyId()).toBe(before);
  }, 60_000);
});

const ROOT = join(import.meta.dirname, '..');

/** `pegscope mirror` as a process of its own (the CLI through tsx). */
function mirrorProcess(url: string, ...flags: string[]): ChildProcess {
  writeFileSync(join(work, 'key.pub'), publicKeyFile(key));
  return spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'bin.ts'), 'mirror', url, '--out', copyOut(), '--public-key', join(work, 'key.pub'), ...flags],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
}

const objectsDir = () => join(copyOut(), '.mirror', 'objects');
const listObjects = (): string[] => (existsSync(objectsDir()) ? readdirSync(objectsDir()) : []);

describe('a pull killed during its downloads', () => {
  it.runIf(nginxAvailable())('leaves current serving the old release; the next pull reuses what was checked and completes', async () => {
    const before = copyId();
    await origin.grow(origin.height + 100);
    const slow = await staticOrigin(join(origin.outDir, 'current'), { bytesPerSecond: 40_000 });
    const child = mirrorProcess(slow.url, '--concurrency', '4');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let maps: string;
    try {
      // Killed once some files are downloaded and checked and others are half-way.
      const halfWay = (n: string): boolean => n.endsWith('.part') && (statSync(join(objectsDir(), n), { throwIfNoEntry: false })?.size ?? 0) > 0;
      for (let waited = 0; !(listObjects().some((n) => !n.endsWith('.part')) && listObjects().some(halfWay)); waited += 50) {
        if (waited > 120_000) throw new Error('the pull downloaded nothing within 120 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      maps = readFileSync(`/proc/${child.pid}/maps`, 'utf8');
      child.kill('SIGKILL');
      await exited;
    } finally {
      child.kill('SIGKILL');
      await slow.close();
    }
    // A mirror never loads DuckDB.
    expect(maps).toMatch(/node|libc/);
    expect(maps).not.toMatch(/duckdb/i);
    expect(copyId()).toBe(before);
    expect(isOk(await verifyRelease(join(copyOut(), 'current')))).toBe(true);
    const fromCopy = await router(copyOut());
    expect((await get(fromCopy, '/api/health')).status).toBe(200);
    const checked = listObjects().filter((n) => !n.endsWith('.part'));
    const parts = listObjects().filter((n) => n.endsWith('.part'));
    expect(checked.length).toBeGreaterThan(0);
    const sizeOf = (names: string[]): number => names.reduce((n, name) => n + statSync(join(objectsDir(), name)).size, 0);
    const [checkedBytes, partBytes] = [sizeOf(checked), sizeOf(parts)];
    expect(partBytes).toBeGreaterThan(0);

    // nginx honours Range: the half-downloaded files continue where the kill left them.
    const nginx = await startNginx(join(work, 'nginx-resume'), join(origin.outDir, 'current'), join(origin.dir(), 'nginx.conf'));
    try {
      const summary = await pull(nginx.url);
      expect(summary.resumed.files).toBe(checked.length);
      expect(summary.resumed.bytes).toBe(checkedBytes + partBytes);
      await expectFaithfulCopy(summary);
    } finally {
      await nginx.stop();
    }
    expect(listObjects()).toEqual([]);
  }, 240_000);

  it('the CLI prints one JSON line a pull, exits 1 on a refusal and 2 without a key', async () => {
    const run = async (url: string): Promise<{ code: number | null; stdout: string }> => {
      const child = mirrorProcess(url, '--json');
      let stdout = '';
      child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
      child.stderr!.resume();
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { code, stdout };
    };
    expect((await pull(plain.url)).ok).toBe(true);
    const ok = await run(plain.url);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ command: 'mirror', ok: true, status: 'up-to-date', release_id: copyId(), as_of_height: origin.height });
    const usage = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'bin.ts'), 'mirror', plain.url, '--out', copyOut()], { cwd: ROOT, encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/--public-key is required/);
    const html = await handOrigin((_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }).end('<p>'); });
    try {
      const refused = await run(html.url);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, status: 'refused', fetched: { files: 0, bytes: 0 } });
    } finally {
      await html.close();
    }
  }, 60_000);
});

describe('--every', () => {
  it('pulls again at each interval until stopped; a refused pull is logged and the next one tried', async () => {
    const root = join(work, 'every-root');
    mkdirSync(join(work, 'every-empty'), { recursive: true });
    symlinkSync(join(work, 'every-empty'), root);
    const server = await staticOrigin(root);
    const stop = new AbortController();
    const seen: MirrorSummary[] = [];
    const lines: string[] = [];
    try {
      await pullEvery({ origin: server.url, outDir: copyOut(), publicKeys: keys, keep: 3, log: (line) => lines.push(line), attempts: 1 }, 100, (summary) => {
        seen.push(summary);
        // The origin comes back after the first pull was refused.
        if (seen.length === 1) { unlinkSync(root); symlinkSync(join(origin.outDir, 'current'), root); }
        if (seen.length === 3) stop.abort();
      }, stop.signal);
    } finally {
      await server.close();
    }
    expect(seen.map((s) => s.status)).toEqual(['refused', 'up-to-date', 'up-to-date']);
    expect(lines.some((line) => /^mirror: manifest\.json\.minisig: the origin answered HTTP 404/.test(line))).toBe(true);
    expect(lines.at(-1)).toBe('mirror: stopped');
  }, 60_000);
});

/** A copy of the origin's current release, changed by `edit` (manifest lines, file names) and signed again. */
function forgedRelease(name: string, edit: (manifest: string) => string, fields: Parameters<typeof signRelease>[2] = {}, signer = key): string {
  const dir = join(work, 'forged', name, basename(origin.dir()));
  mkdirSync(join(work, 'forged', name), { recursive: true });
  cpSync(origin.dir(), dir, { recursive: true });
  writeFileSync(join(dir, 'manifest.json'), edit(readFileSync(join(dir, 'manifest.json'), 'utf8')));
  signRelease(dir, signer, fields);
  return dir;
}

/** A manifest line for `path`, placed where path order wants it. */
const withEntry = (path: string) => (manifest: string): string => {
  const lines = manifest.trimEnd().split('\n');
  const entries = lines.slice(1, -1).map((line) => line.replace(/,$/, ''));
  entries.push(`${JSON.stringify(path)}:{"size":1,"sha256":"${'0'.repeat(64)}"}`);
  const pathOf = (line: string): string => Object.keys(JSON.parse(`{${line}}`) as object)[0]!;
  entries.sort((a, b) => (pathOf(a) < pathOf(b) ? -1 : 1));
  return `${lines[0]}\n${entries.join(',\n')}\n}}\n`;
};

describe('a copy whose current was pointed back by hand', () => {
  it('publishes the origin\'s release again though its directory is there', async () => {
    const newest = copyId();
    const older = readdirSync(join(copyOut(), 'releases')).filter((n) => !n.startsWith('.') && n !== newest).sort().at(-1)!;
    const link = join(copyOut(), 'current-rollback');
    symlinkSync(join('releases', older), link);
    renameSync(link, join(copyOut(), 'current'));
    const summary = await pull(plain.url);
    expect(summary.previous?.release_id).toBe(older);
    await expectFaithfulCopy(summary);
    expect(copyId()).toBe(newest);
  }, 120_000);
});

describe('pegscope mirror refuses, the current copy untouched', () => {
  async function refusedBy(dir: string, extra: Partial<MirrorOptions> = {}): Promise<string> {
    const before = copyId();
    const server = await startPlainServer(dir);
    try {
      const summary = await pull(server.url, extra);
      expect(summary.status).toBe('refused');
      expect(summary.ok).toBe(false);
      expect(copyId()).toBe(before);
      return summary.problems.join('\n');
    } finally {
      await server.close();
    }
  }

  it('a signature by a key not trusted, a changed manifest, a missing signature', async () => {
    expect(await refusedBy(forgedRelease('other-key', (m) => m, {}, generateSecretKey()))).toMatch(/manifest\.json\.minisig: signed by key [0-9A-F]{16}, which is not among the trusted keys/);
    const changed = forgedRelease('changed', (m) => m);
    writeFileSync(join(changed, 'manifest.json'), readFileSync(join(changed, 'manifest.json'), 'utf8').replace('"sim"', '"sim" '));
    expect(await refusedBy(changed)).toMatch(/does not match the file/);
    const unsigned = forgedRelease('unsigned', (m) => m);
    unlinkSync(join(unsigned, 'manifest.json.minisig'));
    expect(await refusedBy(unsigned)).toMatch(/manifest\.json\.minisig: the origin answered HTTP 404/);
  }, 60_000);

  it('a key rotation: a release signed by the new key is accepted when both keys are trusted', async () => {
    const next = generateSecretKey();
    const rotated = forgedRelease('rotated', (m) => m, {}, next);
    expect(await refusedBy(rotated)).toMatch(/not among the trusted keys/);
    const server = await startPlainServer(rotated);
    try {
      const summary = await pull(server.url, { publicKeys: [...keys, parsePublicKey(publicKeyFile(next))] });
      expect(summary.status).toBe('up-to-date');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('another network than the copy\'s', async () => {
    const other = forgedRelease('regtest', (m) => m.replace('"network":"sim"', '"network":"regtest"'), { network: 'regtest', release: '20991231T000000000Z-h9999', as_of_height: origin.height });
    expect(await refusedBy(other)).toMatch(/the origin publishes regtest, this copy holds sim/);
  }, 60_000);

  it.each([
    ['an absolute path', '/etc/passwd', /is absolute/],
    ['a path with ..', 'api/../../escape.json', /has an empty, \. or \.\. segment/],
    ['a backslash', 'api\\..\\escape.json', /has a NUL or backslash/],
    ['the signature\'s own name', 'manifest.json.minisig', /which the release's own manifest or signature would overwrite/],
  ])('a manifest path that leaves the release: %s', async (_name, path, why) => {
    expect(await refusedBy(forgedRelease(`path-${_name.replace(/\W/g, '')}`, withEntry(path), { release: '20991231T000000000Z-h9999' }))).toMatch(why);
  }, 60_000);

  it('a file of the copy that became a symbolic link is downloaded again, never linked', async () => {
    const current = join(copyOut(), 'current');
    const rel = 'api/stats.json';
    const target = join(current, rel);
    const saved = readFileSync(target);
    unlinkSync(target);
    symlinkSync('/etc/hostname', target);
    try {
      const dir = await origin.grow(origin.height + 1);
      const summary = await pull(plain.url);
      expect(summary.status).toBe('published');
      expect(readFileSync(join(copyOut(), 'current', rel)).equals(readFileSync(join(dir, rel)))).toBe(true);
    } finally {
      unlinkSync(target);
      writeFileSync(target, saved);
    }
  }, 120_000);

  it('an origin that answers a web page, or 200 with another body', async () => {
    const html = await handOrigin((_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>hello'); });
    const json = await handOrigin((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{"error":"no"}'); });
    try {
      const before = copyId();
      expect((await pull(html.url)).problems.join()).toMatch(/answered a web page \(text\/html\), not the file/);
      expect((await pull(json.url)).problems.join()).toMatch(/not a minisign signature/);
      expect(copyId()).toBe(before);
    } finally {
      await html.close();
      await json.close();
    }
  });

  it('a redirect to another host is refused; one within the origin is followed', async () => {
    const away = await handOrigin((req, res) => { res.writeHead(302, { location: `http://localhost:1${req.url}` }).end(); });
    const moved = await staticOrigin(join(origin.outDir, 'current'), { moved: 'old' });
    try {
      expect((await pull(away.url)).problems.join()).toMatch(/redirects to http:\/\/localhost:1, another host; pegscope mirror follows redirects only within/);
      const summary = await pull(`${moved.url}old/`);
      expect(summary.problems).toEqual([]);
      expect(summary.status).toBe('up-to-date');
    } finally {
      await away.close();
      await moved.close();
    }
  });
});

describe('pegscope mirror from pegscope serve and from nginx with the release\'s nginx.conf', () => {
  it.runIf(nginxAvailable())('first pull, then +1 and +100 blocks: each copy verifies with the key and serves what the origin serves', async () => {
    const fromServe = join(work, 'copy-serve');
    const fromNginx = join(work, 'copy-nginx');
    const origins = { serve: await router(origin.outDir), nginx: (await startNginx(join(work, 'nginx'), join(origin.outDir, 'current'), join(origin.dir(), 'nginx.conf'))) };
    try {
      for (const step of [0, 1, 100]) {
        const dir = step === 0 ? origin.dir() : await origin.grow(origin.height + step);
        for (const [url, out] of [[origins.serve, fromServe], [origins.nginx.url, fromNginx]] as const) {
          const summary = await pull(url, { outDir: out });
          expect(summary.problems, `${url} +${step}`).toEqual([]);
          expect(summary.status).toBe('published');
          if (step > 0) expect(summary.fetched.bytes).toBeLessThanOrEqual((changedBytes(dir) + readFileSync(join(dir, 'changes.json')).length) * 1.05);
          const verified = await verifyRelease(join(out, 'current'), { publicKeys: keys });
          expect(isOk(verified), `${url} +${step}`).toBe(true);
          expect(await expectSameAnswers(origins.serve, await router(out), dir)).toBeGreaterThan(50);
        }
      }
    } finally {
      await origins.nginx.stop();
    }
  }, 300_000);
});
