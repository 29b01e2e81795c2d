// Signed releases (docs/verifying.md) on real exports of the tiny sim chain,
// checked against Debian's `minisign`: keygen, export --sign-key, the wallet's
// signed index, verify --public-key, and the key never leaving memory.
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parsePublicKey, parseTrustedComment, parseSignature } from '@pegscope/client';
import { main } from '../src/cli.js';
import { exportRelease, type ExportResult } from '../src/export/export.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import { verifyRelease } from '../src/export/verify.js';
import { Db } from '../src/store/db.js';
import type { SimSource } from '../src/chain/sim/index.js';
import { parseSecretKey, type SecretKey } from '../src/trust/minisign.js';
import { startServer } from '../src/serve/server.js';
import { analysedDb, scanAndAnalyze, treeFiles } from './helpers/export-pipeline.js';
import { get } from './helpers/http.js';

const MINISIGN = process.env.PEGSCOPE_MINISIGN ?? 'minisign';
const hasMinisign = spawnSync(MINISIGN, ['-v']).status === 0;
if (!hasMinisign && process.env.PEGSCOPE_NODE_TESTS === '1') throw new Error(`"${MINISIGN}" cannot be run; install Debian's minisign (apt-get install minisign)`);

const NOW = 1_800_000_000;
let work: string;
let db: Db;
let source: SimSource;
/** A key made by `minisign -G -W`: pegscope signs with it. */
let secretFile: string;
let publicFile: string;
let key: SecretKey;
let logs: string[];
let signed: ExportResult;

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '', stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => { stdout += String(chunk); return true; });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => { stderr += String(chunk); return true; });
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = undefined;
  }
}

const exportSigned = (outDir: string, incremental = true): Promise<ExportResult> =>
  exportRelease(db, { outDir, hostBudget: NO_HOST_BUDGET, signKey: key, incremental, log: (line) => logs.push(line) });

/** A copy of the signed release, to damage. */
function copyOf(name: string): string {
  const dir = join(work, 'copies', name);
  cpSync(signed.dir, dir, { recursive: true });
  return dir;
}

const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-signed-'));
  secretFile = join(work, 'minisign.key');
  publicFile = join(work, 'minisign.pub');
  if (hasMinisign) execFileSync(MINISIGN, ['-G', '-W', '-p', publicFile, '-s', secretFile]);
  else expect((await run(['keygen', '--secret-key', secretFile, '--public-key', publicFile])).code).toBe(0);
  key = parseSecretKey(readFileSync(secretFile, 'utf8'));
  ({ db, source } = await analysedDb(join(work, 'tiny.duckdb'), 3, 1_500, NOW));
  logs = [];
  signed = await exportSigned(join(work, 'site'));
}, 300_000);

afterAll(async () => {
  db?.close();
  await source?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('pegscope keygen', () => {
  it('writes a 0600 secret key and its public key, prints the key id and key, and never overwrites either', async () => {
    const secret = join(work, 'k.key');
    const pub = join(work, 'k.pub');
    const made = await run(['keygen', '--secret-key', secret, '--public-key', pub]);
    expect(made.code, made.stderr).toBe(0);
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    const publicKey = parsePublicKey(readFileSync(pub, 'utf8'));
    expect(parseSecretKey(readFileSync(secret, 'utf8')).keyIdHex).toBe(publicKey.keyIdHex);
    expect(made.stdout).toBe(`key id ${publicKey.keyIdHex}\npublic key ${publicKey.line}\n`);
    expect(made.stderr).not.toContain(readFileSync(secret, 'utf8').split('\n')[1]);

    const before = readFileSync(secret);
    const again = await run(['keygen', '--secret-key', secret, '--public-key', join(work, 'other.pub')]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--secret-key .*k\.key exists; pegscope never overwrites a key file/);
    expect(readFileSync(secret).equals(before)).toBe(true);
    expect(existsSync(join(work, 'other.pub'))).toBe(false);
    // A public key file in the way stops it before any secret key is made.
    const blocked = await run(['keygen', '--secret-key', join(work, 'fresh.key'), '--public-key', pub]);
    expect(blocked.code).toBe(2);
    expect(existsSync(join(work, 'fresh.key'))).toBe(false);
  });

  it.runIf(hasMinisign)('makes a key minisign signs and verifies with', async () => {
    const secret = join(work, 'm.key');
    const pub = join(work, 'm.pub');
    expect((await run(['keygen', '--secret-key', secret, '--public-key', pub])).code).toBe(0);
    const file = join(work, 'note.txt');
    writeFileSync(file, 'signed by a pegscope key\n');
    execFileSync(MINISIGN, ['-S', '-s', secret, '-m', file]);
    execFileSync(MINISIGN, ['-Vm', file, '-p', pub]);
  });
});

describe('a signed release', () => {
  it('carries manifest.json.minisig (ED) whose trusted comment names the file, network, height, release and key', () => {
    const sig = parseSignature(readFileSync(join(signed.dir, 'manifest.json.minisig'), 'utf8'));
    expect(sig.algorithm).toBe('ED');
    const manifest = JSON.parse(readFileSync(join(signed.dir, 'manifest.json'), 'utf8'));
    const fields = parseTrustedComment(sig.trustedComment);
    expect(Object.keys(fields)).toEqual(['timestamp', 'file', 'network', 'as_of_height', 'release', 'key_id']);
    expect(fields).toMatchObject({ file: 'manifest.json', network: 'sim', as_of_height: String(manifest.as_of_height), release: signed.releaseId, key_id: key.keyIdHex });
    expect(Math.abs(Number(fields.timestamp) - Date.now() / 1000)).toBeLessThan(600);
    // The manifest lists the index's signature, never its own.
    expect(Object.keys(manifest.files)).toContain('api/signed.json.minisig');
    expect(Object.keys(manifest.files)).not.toContain('manifest.json.minisig');
    expect(logs.some((line) => line.includes(`with key ${key.keyIdHex}`))).toBe(true);
  });

  it.runIf(hasMinisign)('passes minisign -V, the manifest and the wallet\'s index, and fails it once one byte of the manifest changes', () => {
    const line = parsePublicKey(readFileSync(publicFile, 'utf8')).line;
    const out = execFileSync(MINISIGN, ['-Vm', join(signed.dir, 'manifest.json'), '-P', line], { encoding: 'utf8' });
    expect(out).toContain(`release:${signed.releaseId}`);
    execFileSync(MINISIGN, ['-Vm', join(signed.dir, 'api/signed.json'), '-p', publicFile]);
    const dir = copyOf('one-byte');
    const bytes = readFileSync(join(dir, 'manifest.json'));
    const at = bytes.indexOf('"sha256":"') + 10;
    bytes[at] = bytes[at] === 0x30 ? 0x31 : 0x30;
    writeFileSync(join(dir, 'manifest.json'), bytes);
    const rejected = spawnSync(MINISIGN, ['-Vm', join(dir, 'manifest.json'), '-P', line], { encoding: 'utf8' });
    expect(rejected.status).toBe(1);
    expect(rejected.stderr).toMatch(/Signature verification failed/);
  });

  it('has a wallet index whose shards list every range file\'s sha256, in the documented shape', () => {
    const index = JSON.parse(readFileSync(join(signed.dir, 'api/signed.json'), 'utf8'));
    const ranges = JSON.parse(readFileSync(join(signed.dir, 'api/ranges.json'), 'utf8'));
    expect(Object.keys(index)).toEqual(['version', 'network', 'as_of_height', 'files', 'ranges']);
    expect(index.files).toEqual({
      'api/amounts.json': sha256(readFileSync(join(signed.dir, 'api/amounts.json'))),
      'api/ranges.json': sha256(readFileSync(join(signed.dir, 'api/ranges.json'))),
    });
    expect(Object.keys(index.ranges)).toEqual(['address', 'block', 'follow', 'trace']);
    for (const [kind, entry] of Object.entries<{ prefix_length: number; shard_length: number; shards: Record<string, string> }>(index.ranges)) {
      expect(entry.prefix_length).toBe(ranges.kinds[kind].prefix_length);
      expect(entry.shard_length).toBe(Math.max(1, entry.prefix_length - 2));
      const listed: Record<string, string> = {};
      for (const [shard, digest] of Object.entries(entry.shards)) {
        const text = readFileSync(join(signed.dir, `api/signed/${kind}/${shard}.json`));
        expect(sha256(text)).toBe(digest);
        const parsed = JSON.parse(text.toString('utf8'));
        expect(text.toString('utf8')).toBe(JSON.stringify(parsed));
        expect(parsed).toMatchObject({ kind, shard });
        Object.assign(listed, parsed.ranges);
      }
      const files = readdirSync(join(signed.dir, 'api/range', kind)).map((name) => name.replace(/\.json$/, '')).sort();
      expect(Object.keys(listed).sort()).toEqual(files);
      for (const prefix of files) expect(listed[prefix]).toBe(sha256(readFileSync(join(signed.dir, `api/range/${kind}/${prefix}.json`))));
    }
  });

  it('is served by pegscope serve: the manifest\'s signature beside the manifest, and the wallet\'s index', async () => {
    const server = await startServer({ sites: [{ network: 'sim', outDir: join(work, 'site') }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    try {
      for (const path of ['manifest.json.minisig', 'api/signed.json', 'api/signed.json.minisig', 'api/signed/trace/0.json']) {
        const res = await get(server.url, `/${path}`);
        expect(res.status, path).toBe(200);
        expect(res.text, path).toBe(readFileSync(join(signed.dir, path), 'utf8'));
      }
      expect((await get(server.url, '/manifest.json.minisig')).headers['content-type']).toBe('text/plain; charset=utf-8');
    } finally {
      await server.close();
    }
  });

  it('holds no trace of the secret key, in the release, its state or the log', () => {
    const secretLine = readFileSync(secretFile, 'utf8').split('\n')[1]!;
    const needles = [secretLine, secretLine.slice(40, 80), Buffer.from(key.seed).toString('base64'), Buffer.from(key.seed).toString('hex')];
    const trees = [signed.dir, signed.stateDir];
    for (const root of trees) {
      for (const [rel, path] of treeFiles(root)) {
        const text = readFileSync(path).toString('latin1');
        for (const needle of needles) expect(text.includes(needle), `${relative(work, root)}/${rel}`).toBe(false);
      }
    }
    for (const needle of needles) expect(logs.join('\n')).not.toContain(needle);
  });

  it('passes verify --public-key, given as the key, the file or in a list with another key, and --json reports the signature', async () => {
    const line = parsePublicKey(readFileSync(publicFile, 'utf8')).line;
    const other = join(work, 'other-key.pub');
    expect((await run(['keygen', '--secret-key', join(work, 'other-key.key'), '--public-key', other])).code).toBe(0);
    for (const keys of [['--public-key', line], ['--public-key', publicFile], ['--public-key', `${other},${line}`], ['--public-key', other, '--public-key', publicFile]]) {
      const ran = await run(['verify', signed.dir, ...keys]);
      expect(ran.code, ran.stdout).toBe(0);
      expect(ran.stdout).toMatch(new RegExp(`^ok: .*; signed by key ${key.keyIdHex} for release ${signed.releaseId}, its wallet's index too\\n$`));
    }
    const json = await run(['verify', '--json', signed.dir, '--public-key', publicFile]);
    expect(JSON.parse(json.stdout).signature).toEqual({
      ok: true, key_id: key.keyIdHex, network: 'sim', as_of_height: 1_500, release: signed.releaseId, timestamp: expect.any(Number), index_ok: true,
    });
  });

  it('fails verify --public-key with another key, or without its signature, exit 1 and the problem in --json', async () => {
    const other = join(work, 'stranger.pub');
    expect((await run(['keygen', '--secret-key', join(work, 'stranger.key'), '--public-key', other])).code).toBe(0);
    const stranger = await run(['verify', signed.dir, '--public-key', other]);
    expect(stranger.code).toBe(1);
    expect(stranger.stdout).toMatch(new RegExp(`^signature: manifest.json.minisig does not verify: signed by key ${key.keyIdHex}, which is not among the trusted keys`, 'm'));
    expect(stranger.stdout).toMatch(/^FAILED: .* is not signed by a trusted key as required: 2 signature/m);

    const dir = copyOf('unsigned');
    unlinkSync(join(dir, 'manifest.json.minisig'));
    const json = await run(['verify', '--json', dir, '--public-key', publicFile]);
    expect(json.code).toBe(1);
    const summary = JSON.parse(json.stdout);
    expect(summary.signature).toMatchObject({ ok: false, problem: expect.stringMatching(/^manifest.json.minisig is missing: the release is not signed/) });
    expect(summary.problems).toContainEqual({ kind: 'signature', path: 'manifest.json.minisig', detail: expect.stringMatching(/is missing/) });
    // Without keys the same copy passes: the signature is required only when keys are given.
    expect((await run(['verify', dir])).code).toBe(0);
  });

  it('fails a copy whose manifest and index a mirror rewrote around swapped range files: the signature, and the index even unsigned', async () => {
    const dir = copyOf('swapped');
    const [a, b] = readdirSync(join(dir, 'api/range/trace')).slice(0, 2).map((name) => `api/range/trace/${name}`) as [string, string];
    const bytesA = readFileSync(join(dir, a));
    writeFileSync(join(dir, a), readFileSync(join(dir, b)));
    writeFileSync(join(dir, b), bytesA);
    // The hostile mirror rewrites the manifest's entries to match what it serves.
    const manifest = readFileSync(join(dir, 'manifest.json'), 'utf8').split('\n').map((line) => {
      const path = /^"([^"]+)":/.exec(line)?.[1];
      if (path !== a && path !== b) return line;
      const bytes = readFileSync(join(dir, path));
      return line.replace(/"size":\d+,"sha256":"[0-9a-f]{64}"/, `"size":${bytes.length},"sha256":"${sha256(bytes)}"`);
    });
    writeFileSync(join(dir, 'manifest.json'), manifest.join('\n'));
    const problems: { kind: string; path: string }[] = [];
    await verifyRelease(dir, { onProblem: (p) => problems.push(p) });
    expect(problems.map((p) => p.kind)).toEqual(['index', 'index']);
    expect(problems.every((p) => p.path.startsWith('api/signed/trace/'))).toBe(true);
    const ran = await run(['verify', dir, '--public-key', publicFile]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/^signature: manifest.json.minisig does not verify: the signature by key \w+ does not match the file$/m);
  });

  it.runIf(hasMinisign)('verify accepts a manifest signature made by minisign -S with the same trusted comment', async () => {
    const dir = copyOf('minisign-signed');
    const comment = parseSignature(readFileSync(join(dir, 'manifest.json.minisig'), 'utf8')).trustedComment;
    unlinkSync(join(dir, 'manifest.json.minisig'));
    execFileSync(MINISIGN, ['-S', '-s', secretFile, '-m', join(dir, 'manifest.json'), '-t', comment]);
    const ran = await run(['verify', dir, '--public-key', publicFile]);
    expect(ran.code, ran.stdout).toBe(0);
  });

  it('export --sign-key refuses a missing or damaged key file before any work, quoting none of it (exit 2); PEGSCOPE_SIGN_KEY names the file', async () => {
    const out = join(work, 'cli-site');
    const missing = await run(['export', '--db', join(work, 'tiny.duckdb'), '--out', out, '--sign-key', join(work, 'absent.key')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--sign-key .*absent\.key cannot be read \(ENOENT\); make a key with `pegscope keygen/);
    const lines = readFileSync(secretFile, 'utf8').split('\n');
    const raw = Buffer.from(lines[1]!, 'base64');
    raw[120] = raw[120]! ^ 1;
    const damaged = join(work, 'damaged.key');
    writeFileSync(damaged, `${lines[0]}\n${raw.toString('base64')}\n`);
    vi.stubEnv('PEGSCOPE_SIGN_KEY', damaged);
    try {
      const bad = await run(['export', '--db', join(work, 'tiny.duckdb'), '--out', out]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/PEGSCOPE_SIGN_KEY .*damaged\.key: the secret key is damaged/);
      for (const needle of [raw.toString('base64').slice(60, 100), lines[1]!.slice(60, 100)]) expect(bad.stderr).not.toContain(needle);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(existsSync(join(out, 'current'))).toBe(false);
  });

  it('job --sign-key signs the release it publishes, and export signs with the key PEGSCOPE_SIGN_KEY names', async () => {
    const out = join(work, 'job-site');
    const job = await run(['job', '--network', 'sim', '--source', 'sim', '--preset', 'tiny', '--to', '600', '--db', join(work, 'job.duckdb'), '--out', out, '--sign-key', secretFile]);
    expect(job.code, job.stderr).toBe(0);
    expect(job.stderr).not.toContain('can be read by other users');
    expect((await run(['verify', join(out, 'current'), '--public-key', publicFile])).code).toBe(0);
    vi.stubEnv('PEGSCOPE_SIGN_KEY', secretFile);
    // A key other users can read signs, with a warning naming the fix.
    chmodSync(secretFile, 0o644);
    try {
      const exported = await run(['export', '--db', join(work, 'job.duckdb'), '--out', out]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stderr).toContain(`warning: the signing key ${secretFile} (mode 0644) can be read by other users, who could sign releases as you; run \`chmod 600 ${secretFile}\``);
    } finally {
      chmodSync(secretFile, 0o600);
      vi.unstubAllEnvs();
    }
    const verified = await run(['verify', '--json', join(out, 'current'), '--public-key', publicFile]);
    expect(JSON.parse(verified.stdout).signature).toMatchObject({ ok: true, key_id: key.keyIdHex, as_of_height: 600 });
  });
});

describe('signed exports, incremental and full', () => {
  const INDEX_SIGNATURE = 'api/signed.json.minisig';
  /**
   * A release's manifest without the index's signature, whose bytes hold the
   * signing time and release id, and without changes.json, which lists that
   * signature's sha256 (compared on its own).
   */
  const manifestWithoutSignatures = (dir: string): string =>
    readFileSync(join(dir, 'manifest.json'), 'utf8').split('\n').filter((line) => !line.startsWith(`"${INDEX_SIGNATURE}"`) && !line.startsWith('"changes.json"')).join('\n');
  /** changes.json without the index's signature. */
  const changesWithoutSignatures = (dir: string): unknown => {
    const changes = JSON.parse(readFileSync(join(dir, 'changes.json'), 'utf8'));
    for (const list of ['added', 'changed', 'removed']) delete changes[list][INDEX_SIGNATURE];
    return changes;
  };
  /** Every file but the signatures (.minisig), the manifest and changes.json, which list one of them. */
  const unsignedTree = (dir: string): Map<string, string> => {
    const files = treeFiles(dir);
    for (const rel of [...files.keys()]) if (rel.endsWith('.minisig') || rel === 'manifest.json' || rel === 'changes.json') files.delete(rel);
    return new Map([...files].map(([rel, path]) => [rel, sha256(readFileSync(path))]));
  };

  it('write the same bytes but the signatures, and a new block changes few shards, the others carried over', async () => {
    const previous = signed;
    // The full site has the same history (documents keep the stamp of the analysis that last changed them).
    await exportSigned(join(work, 'full-site'), false);
    await scanAndAnalyze(db, source, 1_501, NOW + 150);
    const incremental = await exportSigned(join(work, 'site'));
    const full = await exportSigned(join(work, 'full-site'), false);
    expect(unsignedTree(incremental.dir)).toEqual(unsignedTree(full.dir));
    expect(manifestWithoutSignatures(incremental.dir)).toBe(manifestWithoutSignatures(full.dir));
    expect(changesWithoutSignatures(incremental.dir)).toEqual(changesWithoutSignatures(full.dir));
    for (const result of [incremental, full]) {
      const problems: string[] = [];
      const keys = [parsePublicKey(readFileSync(publicFile, 'utf8'))];
      const verified = await verifyRelease(result.dir, { publicKeys: keys, onProblem: (p) => problems.push(`${p.kind} ${p.path} ${p.detail}`) });
      expect(problems).toEqual([]);
      expect(verified.signature).toMatchObject({ ok: true, release: result.releaseId, as_of_height: 1_501 });
    }
    const changes = JSON.parse(readFileSync(join(incremental.dir, 'changes.json'), 'utf8'));
    const changedShards = Object.keys({ ...changes.added, ...changes.changed }).filter((path) => path.startsWith('api/signed/'));
    const shards = [...treeFiles(incremental.dir).keys()].filter((rel) => rel.startsWith('api/signed/'));
    expect(changedShards.length).toBeLessThan(shards.length / 4);
    // The signed index changes with every release (its height), its signature too.
    expect(Object.keys(changes.changed)).toEqual(expect.arrayContaining(['api/signed.json', 'api/signed.json.minisig']));
    for (const rel of shards.filter((path) => !changedShards.includes(path))) {
      expect(statSync(join(incremental.dir, rel)).ino, rel).toBe(statSync(join(previous.dir, rel)).ino);
    }
  });

  it('an unsigned export of a signed site writes the index without signatures, and removes the recycled ones', async () => {
    const site = join(work, 'site');
    // Three releases are there already (keep 3): this one recycles the oldest, signed one.
    await scanAndAnalyze(db, source, 1_502, NOW + 300);
    await exportSigned(site);
    await scanAndAnalyze(db, source, 1_503, NOW + 450);
    const unsigned = await exportRelease(db, { outDir: site, hostBudget: NO_HOST_BUDGET });
    expect(unsigned.kept + unsigned.reused).toBeGreaterThan(0);
    expect(existsSync(join(unsigned.dir, 'manifest.json.minisig'))).toBe(false);
    expect(existsSync(join(unsigned.dir, 'api/signed.json.minisig'))).toBe(false);
    expect(existsSync(join(unsigned.dir, 'api/signed.json'))).toBe(true);
    const problems: string[] = [];
    await verifyRelease(unsigned.dir, { onProblem: (p) => problems.push(`${p.kind} ${p.path}`) });
    expect(problems).toEqual([]);
    // The router answers an unsigned release's missing signature 404, not as a damaged release.
    const server = await startServer({ sites: [{ network: 'sim', outDir: site }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    try {
      expect((await get(server.url, '/manifest.json.minisig')).status).toBe(404);
      expect((await get(server.url, '/api/health')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
