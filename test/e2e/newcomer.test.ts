import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The README's first fresh-machine command (the one that runs the job on the built-in default). */
function readmeRunCommand(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const section = readme.split('## Two commands on a fresh machine')[1] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const command = block.split('\n').map((line) => line.replace(/#.*$/, '').trim()).find(Boolean);
  if (!command) throw new Error('README has no command under "Two commands on a fresh machine"');
  return command;
}

async function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output so far:\n${output.slice(-4000)}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) { clearTimeout(timer); resolve(output); }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited with ${code} before ${pattern}:\n${output.slice(-4000)}`)); });
  });
}

describe('a newcomer on a fresh clone', () => {
  const workdir = mkdtempSync(join(tmpdir(), 'pegscope-newcomer-'));
  let child: ChildProcess | undefined;

  afterAll(() => {
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* the group is already gone */ }
    }
    rmSync(workdir, { recursive: true, force: true });
  });

  it('runs the README command, gets a served API and every endpoint answers', async () => {
    const clone = join(workdir, 'pegscope');
    execFileSync('git', ['clone', '-q', REPO, clone]);
    const command = readmeRunCommand();
    expect(command).toMatch(/npm start/);
    child = spawn('bash', ['-c', command], {
      cwd: clone, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PEGSCOPE_PORT: '0', CI: 'true' },
    });
    // Port 0: the demo binds a port of the kernel's choosing and names it in its banner.
    const banner = await waitForOutput(child, /Ctrl-C stops it/, 420_000);
    const api = /serving the simulated demo chain at (http:\/\/\S+\/api)/.exec(banner)?.[1];
    expect(api, banner).toBeDefined();
    const get = async (path: string) => {
      const response = await fetch(`${api}${path}`);
      expect(response.status, path).toBe(200);
      const body = await response.json() as Record<string, unknown>;
      expect(body.version, path).toBe('1');
      return body;
    };
    const index = await get('');
    expect(Object.keys(index.endpoints as object)).toEqual(expect.arrayContaining(['health', 'privacy', 'trace', 'links']));
    const health = await get('/health') as { health: { ok: boolean; pegins: number } };
    expect(health.health.ok).toBe(true);
    expect(health.health.pegins).toBeGreaterThan(0);
    for (const endpoint of ['/stats', '/privacy?amount=1.5', '/recommendations', '/pegin_amounts', '/pegout_amounts']) {
      expect((await get(endpoint)).network, endpoint).toBe('sim');
    }
    const links = await get('/links?min_confidence=0.5&limit=5') as { links: { pegout_address: string; pegout_height: number }[] };
    expect(links.links.length).toBeGreaterThan(0);
    const { pegout_address: address, pegout_height: height } = links.links[0]!;
    const trace = await get(`/trace?q=${address}`) as { trace: { type: string } };
    expect(trace.trace.type).toBe('address');
    await get(`/address?q=${address}`);
    await get(`/follow?q=${address}&depth=2`);
    const block = await get(`/block?q=${height}`) as { block: { height: number } };
    expect(block.block.height).toBe(height);

    // Ctrl-C reaches the whole foreground group (npm, sh, node), as in a terminal.
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child!.once('exit', (code, signal) => resolve({ code, signal }));
    });
    process.kill(-child.pid!, 'SIGINT');
    const { code, signal } = await exited;
    expect(code === 0 || code === 130 || signal === 'SIGINT', `code ${code}, signal ${signal}`).toBe(true);
    await expect(fetch(`${api}/health`)).rejects.toThrow();
  }, 600_000);
});
