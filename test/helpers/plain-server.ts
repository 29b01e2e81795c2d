/**
 * A plain static directory server, as a mirror without rewrites or an API
 * would be: Python's http.server (python3 is on every machine this project
 * runs on), serving `root` under the sub-path `prefix`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface PlainServer {
  /** The base URL of the mirror: http://127.0.0.1:<port><prefix> */
  url: string;
  close(): Promise<void>;
}

export async function startPlainServer(root: string, prefix = '/'): Promise<PlainServer> {
  const served = mkdtempSync(join(tmpdir(), 'pegscope-plain-'));
  const mount = join(served, prefix);
  mkdirSync(dirname(mount), { recursive: true });
  if (prefix === '/') rmSync(served, { recursive: true });
  symlinkSync(root, prefix === '/' ? served : mount.replace(/\/$/, ''));
  // Port 0: the server binds a port of the kernel's choosing and names it in its first line (-u: unbuffered).
  const child: ChildProcess = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', served], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`python3 -m http.server named no port within 30 s: ${output}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const serving = /Serving HTTP on \S+ port (\d+)/.exec(output);
      if (serving) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        resolve(serving[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`python3 -m http.server exited with ${code}: ${output}`)); });
  });
  // The request log goes to stderr: drained, so a long test never fills the pipe.
  child.stdout!.resume();
  child.stderr!.resume();
  const url = `http://127.0.0.1:${port}${prefix}`;
  return {
    url,
    close: () => new Promise<void>((resolve) => {
      child.once('exit', () => {
        rmSync(served, { recursive: true, force: true });
        resolve();
      });
      child.kill('SIGTERM');
    }),
  };
}
