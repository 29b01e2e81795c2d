/**
 * The CLI as a script drives it, each command a real `pegscope` process:
 * `--json` puts exactly one JSON document a run on standard output and the
 * log on standard error, a usage mistake is two lines, and a port in use
 * says which port and how to choose another.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASE_ID_PATTERN } from '../src/export/publish.js';

interface Ran { code: number | null; stdout: string; stderr: string }

/** `pegscope ARGS` from the sources, as a process; resolves when it exits. */
function pegscope(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '', stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Standard output as the one JSON document it must be: a single line. */
function onlyJson(ran: Ran): Record<string, any> {
  expect(ran.stdout.endsWith('\n') && ran.stdout.indexOf('\n') === ran.stdout.length - 1, ran.stdout).toBe(true);
  return JSON.parse(ran.stdout);
}

let work: string;
const outDir = () => join(work, 'out', 'sim');
const job = (to: number) => pegscope(['job', '--json', '--source', 'sim', '--preset', 'tiny', '--to', String(to), '--db', join(work, 'sim.duckdb'), '--out', outDir()]);
let first: Ran;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-cli-process-'));
  first = await job(1200);
}, 180_000);

afterAll(() => { if (work) rmSync(work, { recursive: true, force: true }); });

describe('pegscope job --json', () => {
  it('prints one summary of the release it published, and logs only on standard error', async () => {
    expect(first.code, first.stderr).toBe(0);
    const summary = onlyJson(first);
    const release = realpathSync(join(outDir(), 'current'));
    const manifest = JSON.parse(readFileSync(join(release, 'manifest.json'), 'utf8'));
    expect(summary).toMatchObject({
      command: 'job', network: 'sim', published: true, release_id: release.split('/').pop(), as_of_height: 1200, scanned_to: 1200,
      // The release's files: what manifest.json lists, and itself.
      files: Object.keys(manifest.files).length + 1, linked: 0, kept: 0,
      // Everything but itself and the manifest is new in a first release.
      changes: { added: Object.keys(manifest.files).length - 1, changed: 0, removed: 0 },
    });
    expect(summary.release_id).toMatch(RELEASE_ID_PATTERN);
    expect(summary.written).toBe(summary.files);
    expect(summary.new_blocks).toBeGreaterThan(0);
    expect(summary.seconds).toBeGreaterThan(0);
    expect(first.stderr).toContain(`published ${summary.release_id}`);
  });

  it('counts the files linked to the previous release and what changes.json lists in the next run', async () => {
    const next = await job(1260);
    expect(next.code, next.stderr).toBe(0);
    const summary = onlyJson(next);
    const changes = JSON.parse(readFileSync(join(outDir(), 'current', 'changes.json'), 'utf8'));
    expect(summary.as_of_height).toBe(1260);
    expect(summary.linked).toBeGreaterThan(0);
    expect(summary.written + summary.linked + summary.kept).toBe(summary.files);
    expect(summary.changes).toEqual({ added: Object.keys(changes.added).length, changed: Object.keys(changes.changed).length, removed: Object.keys(changes.removed).length });
    expect(summary.changes.changed).toBeGreaterThan(0);
  }, 180_000);
});

describe('pegscope verify --json', () => {
  it('prints one object for a good release: its id, height, files and no problems, exit 0', async () => {
    const ran = await pegscope(['verify', '--json', join(outDir(), 'current')]);
    expect(ran.code, ran.stderr).toBe(0);
    const release = realpathSync(join(outDir(), 'current'));
    const manifest = JSON.parse(readFileSync(join(release, 'manifest.json'), 'utf8'));
    expect(onlyJson(ran)).toMatchObject({
      command: 'verify', ok: true, release_id: release.split('/').pop(), network: 'sim', as_of_height: manifest.as_of_height,
      files: Object.keys(manifest.files).length, problems: [], problem_counts: { missing: 0, changed: 0, extra: 0, 'not-a-file': 0, unreadable: 0, 'invalid-manifest': 0 },
    });
  });

  it('lists the problems it found in the object, exit 1', async () => {
    const copy = join(work, 'mirror');
    await pegscope(['job', '--source', 'sim', '--preset', 'tiny', '--to', '1200', '--db', join(work, 'copy.duckdb'), '--out', copy]);
    const release = join(copy, 'current');
    appendFileSync(join(release, 'api', 'stats.json'), ' ');
    rmSync(join(release, 'api', 'health.json'));
    const ran = await pegscope(['verify', '--json', release]);
    expect(ran.code).toBe(1);
    const summary = onlyJson(ran);
    expect(summary.ok).toBe(false);
    expect(summary.problems.map((p: { kind: string; path: string }) => `${p.kind} ${p.path}`)).toEqual(['missing api/health.json', 'changed api/stats.json']);
    expect(summary.problem_counts).toMatchObject({ missing: 1, changed: 1 });
  }, 180_000);

  it('prints nothing on standard output for a directory that is not a release, exit 2', async () => {
    const ran = await pegscope(['verify', '--json', work]);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(/^pegscope verify: .*manifest\.json/);
  });
});

describe('a usage mistake', () => {
  it.each([
    [['verify', '--frob', 'x'], "pegscope verify: unknown option '--frob'", 'run `pegscope verify --help` for usage'],
    [['job', '--jsn'], "pegscope job: unknown option '--jsn' (did you mean --json?)", 'run `pegscope job --help` for usage'],
    [['frobnicate'], "pegscope: unknown command 'frobnicate'", 'run `pegscope --help` for usage'],
    [['watch', 'add', 'x'], "pegscope watch add: required option '--webhook <url>' not specified", 'run `pegscope watch add --help` for usage'],
    [['scan', '--to', 'x'], 'pegscope scan: --to must be a whole number from 0 to 2147483647, got "x"', 'run `pegscope scan --help` for usage'],
    [['serve', '--port', '99999'], 'pegscope serve: --port must be a whole number from 0 to 65535, got "99999"', 'run `pegscope serve --help` for usage'],
    [['job', '--every', '5x'], 'pegscope job: --every: "5x" is not a duration; use a number followed by s, m or h (e.g. 5m)', 'run `pegscope job --help` for usage'],
    [['serve', '--db', 'x.duckdb'], "pegscope serve: unknown option '--db'", 'run `pegscope serve --help` for usage'],
    [['labels', 'import', '--out', 'x', 'f.csv'], "pegscope labels import: unknown option '--out'", 'run `pegscope labels import --help` for usage'],
  ])('%j is two lines, what was wrong and where the usage is, exit 2', async (args, what, usage) => {
    const ran = await pegscope(args);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toBe(`${what}\n${usage}\n`);
  });
});

describe('a port in use', () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => { busy?.close(); });

  it.each([
    ['serve', ['serve', '--network', 'sim', '--workers', '1']],
    ['demo', ['demo']],
  ])('%s says which port and how to choose another, exit 2', async (_name, args) => {
    const ran = await pegscope([...args, '--port', String(port)]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(`pegscope: port ${port} on 127.0.0.1 is in use (EADDRINUSE): stop what listens there, or choose another port with --port N or PEGSCOPE_PORT=N\n`);
  });

  it('PEGSCOPE_PORT names the port as --port does', async () => {
    const ran = await pegscope(['serve', '--network', 'sim', '--workers', '2'], { PEGSCOPE_PORT: String(port) });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(`pegscope: port ${port} on 127.0.0.1 is in use (EADDRINUSE): stop what listens there, or choose another port with --port N or PEGSCOPE_PORT=N\n`);
  });
});

describe('pegscope export --help', () => {
  it('prints the host budget\'s default once, in the flag\'s own words', async () => {
    const ran = await pegscope(['export', '--help']);
    expect(ran.code).toBe(0);
    expect(ran.stdout.replace(/\s+/g, ' ').match(/files=20000,file=25MiB,total=1GB/g)).toHaveLength(1);
    expect(ran.stdout).not.toContain('maxFiles');
  });
});
