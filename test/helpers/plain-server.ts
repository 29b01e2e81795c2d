/**
 * A plain static directory server, as a mirror without rewrites or an API
 * would be: Python's http.server (python3 is on every machine this project
 * runs on), serving `root` under the sub-path `prefix`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './net.js';

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
  const port = await freePort();
  const child: ChildProcess = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', served], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}${prefix}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      break;
    } catch (err) {
      if (i > 100 || child.exitCode !== null) throw new Error(`python3 -m http.server did not start: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
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
