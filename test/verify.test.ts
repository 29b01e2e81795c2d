import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/cli.js';
import { verifyRelease, type Problem } from '../src/export/verify.js';
import { exportTinyRelease, type TinyRelease } from './helpers/tiny-release.js';

const HEIGHT = 1_200;
let release: TinyRelease;
let copies: string;

beforeAll(async () => {
  release = await exportTinyRelease(1, HEIGHT); // a short chain: every test copies the release
  copies = mkdtempSync(join(release.root, 'copies-'));
}, 300_000);

afterAll(() => { if (release) rmSync(release.root, { recursive: true, force: true }); });

/** A mirror's copy of the release, to damage. */
function mirror(name: string): string {
  const dir = join(copies, name);
  cpSync(release.dir, dir, { recursive: true });
  return dir;
}

async function verify(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '', stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => { stdout += String(chunk); return true; });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => { stderr += String(chunk); return true; });
  try {
    return { code: await main(['verify', ...args]), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = undefined;
  }
}

async function problemsOf(dir: string): Promise<Problem[]> {
  const problems: Problem[] = [];
  await verifyRelease(dir, { onProblem: (p) => problems.push(p) });
  return problems;
}

const aTraceFile = (dir: string): string => `api/range/trace/${readdirSync(join(dir, 'api', 'range', 'trace')).find((n) => n.endsWith('.json'))!}`;

describe('pegscope verify', () => {
  it('passes a published release through out/<network>/current, with every listed file counted', async () => {
    const manifest = JSON.parse(readFileSync(join(release.dir, 'manifest.json'), 'utf8'));
    const listed = Object.keys(manifest.files).length;
    const { code, stdout } = await verify([join(release.outDir, 'current')]);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^ok: .*current matches its manifest.json \\(${listed} files, \\d+ bytes, sim as of height ${HEIGHT}\\)\\n$`));
  });

  it('fails on one changed byte (same size), naming the file and both sha256', async () => {
    const dir = mirror('changed');
    const rel = aTraceFile(dir);
    const bytes = readFileSync(join(dir, rel));
    bytes[10] = bytes[10] === 0x41 ? 0x42 : 0x41;
    writeFileSync(join(dir, rel), bytes);
    const { code, stdout } = await verify([dir]);
    expect(code).toBe(1);
    expect(stdout).toMatch(new RegExp(`^changed: ${rel} has sha256 [0-9a-f]{64}; manifest.json says [0-9a-f]{64}$`, 'm'));
    expect(stdout).toMatch(/^FAILED: .* does not match its manifest.json: 1 changed \(/m);
  });

  it('fails on a file of another size without hashing it', async () => {
    const dir = mirror('resized');
    writeFileSync(join(dir, 'api/stats.json'), `${readFileSync(join(dir, 'api/stats.json'), 'utf8')} `);
    expect(await problemsOf(dir)).toEqual([{ kind: 'changed', path: 'api/stats.json', detail: expect.stringMatching(/^has \d+ bytes; manifest.json says \d+$/) }]);
  });

  it('fails on a missing file with its own message', async () => {
    const dir = mirror('missing');
    unlinkSync(join(dir, 'api/health.json'));
    const { code, stdout } = await verify([dir]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^missing: api\/health.json is listed in manifest.json but not in the directory$/m);
    expect(stdout).toMatch(/: 1 missing \(/);
  });

  it('fails on an extra file, a dotfile and a symbolic link the manifest does not list', async () => {
    const dir = mirror('extra');
    writeFileSync(join(dir, 'api/zz-extra.json'), '{}');
    writeFileSync(join(dir, '.env'), 'SECRET=1');
    symlinkSync('stats.json', join(dir, 'api/alias.json'));
    const { code, stdout } = await verify([dir]);
    expect(code).toBe(1);
    for (const rel of ['.env', 'api/alias.json', 'api/zz-extra.json']) expect(stdout).toContain(`extra: ${rel} is not listed in manifest.json\n`);
    expect(stdout).toMatch(/: 3 extra \(/);
  });

  it('fails on a listed file replaced by a symbolic link, even one to identical bytes', async () => {
    const dir = mirror('symlinked');
    const rel = 'api/stats.json';
    cpSync(join(dir, rel), join(copies, 'stats-copy.json'));
    unlinkSync(join(dir, rel));
    symlinkSync(join(copies, 'stats-copy.json'), join(dir, rel));
    expect(await problemsOf(dir)).toEqual([{ kind: 'not-a-file', path: rel, detail: expect.stringMatching(/not a regular file/) }]);
  });

  it('walks the tree in the manifest\'s path order: a listed api/range.json comes before api/range/…', async () => {
    const dir = mirror('order');
    // A file named like a directory plus an extension sorts before that directory's files ('.' < '/').
    const body = '{"listed":true}';
    writeFileSync(join(dir, 'api/range.json'), body);
    const lines = readFileSync(join(dir, 'manifest.json'), 'utf8').split('\n');
    const at = lines.findIndex((line) => line.startsWith('"api/range/'));
    lines.splice(at, 0, `"api/range.json":{"size":${body.length},"sha256":"${createHash('sha256').update(body).digest('hex')}"},`);
    writeFileSync(join(dir, 'manifest.json'), lines.join('\n'));
    unlinkSync(join(dir, 'api/amounts.json'));
    writeFileSync(join(dir, 'zz.txt'), 'x');
    const problems = await problemsOf(dir);
    expect(problems.map((p) => `${p.kind} ${p.path}`)).toEqual(['missing api/amounts.json', 'extra zz.txt']);
  });

  it('refuses a manifest that names a path outside the release, reading nothing there', async () => {
    const dir = mirror('escape');
    const manifest = readFileSync(join(dir, 'manifest.json'), 'utf8').split('\n');
    manifest.splice(1, 0, '"../../etc/passwd":{"size":1,"sha256":"' + '0'.repeat(64) + '"},');
    writeFileSync(join(dir, 'manifest.json'), manifest.join('\n'));
    const { code, stdout } = await verify([dir]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^invalid-manifest: manifest.json line 2: "..\/..\/etc\/passwd" has an empty, . or .. segment/m);
    expect(stdout).toMatch(/^FAILED: .*: its manifest.json cannot be read as a pegscope manifest/m);
  });

  it('verify --json prints ok:false and the problem when the manifest cannot be parsed (exit 1); exit 2 prints nothing', async () => {
    const dir = mirror('unparsable-json');
    const text = readFileSync(join(dir, 'manifest.json'), 'utf8');
    writeFileSync(join(dir, 'manifest.json'), text.slice(0, text.lastIndexOf('}}')));
    const { code, stdout } = await verify(['--json', dir]);
    expect(code).toBe(1);
    const summary = JSON.parse(stdout) as { ok: boolean; problems: Problem[]; problem_counts: Record<string, number> };
    expect(summary.ok).toBe(false);
    expect(summary.problems).toEqual([{ kind: 'invalid-manifest', path: 'manifest.json', detail: expect.stringMatching(/ends before its closing \}\} \(truncated\?\)/) }]);
    expect(summary.problem_counts['invalid-manifest']).toBe(1);
    const usage = await verify(['--json', join(copies, 'absent')]);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
  });

  it('fails on a truncated manifest', async () => {
    const dir = mirror('truncated');
    const text = readFileSync(join(dir, 'manifest.json'), 'utf8');
    writeFileSync(join(dir, 'manifest.json'), text.slice(0, text.lastIndexOf('}}')));
    const { code, stdout } = await verify([dir]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/ends before its closing \}\} \(truncated\?\)/);
  });

  it('exits 2 for a missing argument, a path that does not exist, and a network directory instead of a release', async () => {
    expect((await verify([])).code).toBe(2);
    const absent = await verify([join(copies, 'absent')]);
    expect(absent.code).toBe(2);
    expect(absent.stderr).toMatch(/cannot open .*absent \(ENOENT\); give a release directory such as out\/mainnet\/current/);
    const network = await verify([release.outDir]);
    expect(network.code).toBe(2);
    expect(network.stderr).toMatch(/is a network's output directory, not a release; give .*current/);
  });

  it('exits 2 for a directory without a manifest.json', async () => {
    const dir = mirror('no-manifest');
    rmSync(join(dir, 'manifest.json'));
    const { code, stderr } = await verify([dir]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/has no manifest.json: it is not a pegscope release/);
  });

  it('refuses a manifest.json that is a symbolic link to a manifest outside, which it would otherwise pass (exit 2)', async () => {
    const dir = mirror('linked-manifest');
    const outside = join(copies, 'outside-manifest.json');
    renameSync(join(dir, 'manifest.json'), outside);
    symlinkSync(outside, join(dir, 'manifest.json'));
    const { code, stdout, stderr } = await verify([dir]);
    expect(code).toBe(2);
    expect(stdout).not.toMatch(/^ok:/m);
    expect(stderr).toMatch(/manifest.json is a symbolic link; a release's manifest must be a regular file inside it/);
  });
});
