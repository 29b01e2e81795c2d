/**
 * The install docs/deploy.md "From a package" documents, done exactly as
 * written in a clean directory: `npm pack` of the repository, the tarball
 * unpacked, then its `npm install` line. The wallet client (@pegscope/client,
 * a workspace that is on no registry) travels inside the tarball as a
 * bundled dependency; the other dependencies come from the npm registry.
 * Then the installed pegscope runs a job on the simulated chain.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** The shell lines of the "From a package" block of docs/deploy.md. */
function documentedLines(): string[] {
  const section = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8').split('From a package')[1] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').map((line) => line.trim()).filter(Boolean);
}

let work: string;
let server: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-package-'));
  server = join(work, 'srv', 'pegscope');
  mkdirSync(server, { recursive: true });
}, 60_000);
afterAll(() => { if (work) rmSync(work, { recursive: true, force: true }); });

describe('the package install of docs/deploy.md', () => {
  it('unpacks and installs with the documented commands, the client bundled, and runs a job', () => {
    const lines = documentedLines();
    expect(lines).toHaveLength(3);
    const [unpack, , install] = lines as [string, string, string];
    expect(unpack).toMatch(/^mkdir -p \/srv\/pegscope && tar xzf pegscope-[\d.]+\.tgz --strip-components=1 -C \/srv\/pegscope$/);
    // --ignore-scripts: dist/ is built by the global setup; packing must not rebuild it under the other test files.
    const packed = (JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' })) as { filename: string; files: { path: string }[] }[])[0]!;
    expect(packed.files.map((f) => f.path)).toContain('node_modules/@pegscope/client/dist/index.js');
    execFileSync('bash', ['-c', unpack.replaceAll('/srv/pegscope', server).replace(/pegscope-[\d.]+\.tgz/, join(work, packed.filename))]);
    // The install line as documented, run as the current user in the unpacked directory.
    const command = /^cd \/srv\/pegscope && sudo -u pegscope (npm install .*)$/.exec(install)?.[1];
    expect(command).toBe('npm install --omit=dev --ignore-scripts');
    execFileSync('bash', ['-c', command!], { cwd: server, encoding: 'utf8', stdio: 'pipe' });
    // The client is the bundled copy, not a link to a workspace or a registry download.
    expect(lstatSync(join(server, 'node_modules', '@pegscope', 'client')).isDirectory()).toBe(true);
    const pegscope = (...args: string[]): string => execFileSync(process.execPath, [join(server, 'dist', 'bin.js'), ...args], { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(pegscope('--version').trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    const summary = JSON.parse(pegscope('job', '--json', '--source', 'sim', '--preset', 'tiny', '--to', '1200', '--db', join(work, 'sim.duckdb'), '--out', join(work, 'out')).trim()) as { published: boolean; as_of_height: number };
    expect(summary).toMatchObject({ published: true, as_of_height: 1200 });
  }, 600_000);
});
