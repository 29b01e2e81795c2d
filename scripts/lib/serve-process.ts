/**
 * `pegscope serve` as an operator runs it, in a child process on `--port 0`:
 * ready when it logs the URL it bound, so no port is picked beforehand (and
 * raced for) and no port is polled. For the tests and bench:serve; spawnReady
 * does the same for any server that names its URL on stderr.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

export interface ServeProcess {
  child: ChildProcess;
  /** http://host:port, as the ready line names it. */
  url: string;
  /** Everything the process (and its workers) wrote to stderr so far. */
  log(): string;
  exited: Promise<number | null>;
}

export interface SpawnServeOptions {
  /** Starting tsx in every process can take a while on a busy machine (default 120 s). */
  timeoutMs?: number;
  /**
   * Write stderr (the request log) to this file, from its start, instead of a pipe: a process
   * that blocks in a load generator cannot drain a pipe, and a full pipe stalls the router.
   */
  logFile?: string;
}

const SERVING = /serving .* at (http:\/\/\S+)\/api/;

/** Starts `pegscope serve ARGS --port 0` and resolves once it is serving; rejects with its stderr when it exits first. */
export function spawnServe(args: readonly string[], opts: SpawnServeOptions = {}): Promise<ServeProcess> {
  return spawnReady('pegscope serve', process.execPath, ['--import', 'tsx', 'src/bin.ts', 'serve', ...args, '--port', '0'], SERVING, opts);
}

/** Starts `command ARGS` and resolves with the URL once stderr matches `ready` (its first group); rejects with its stderr when it exits first. */
export async function spawnReady(what: string, command: string, args: readonly string[], ready: RegExp, opts: SpawnServeOptions = {}): Promise<ServeProcess> {
  const logFd = opts.logFile ? openSync(opts.logFile, 'w') : null;
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', logFd ?? 'pipe'] });
  if (logFd !== null) closeSync(logFd);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  const log = (): string => (opts.logFile ? readFileSync(opts.logFile, 'utf8') : stderr);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await readyUrl(what, child, ready, log, exited, opts.timeoutMs ?? 120_000);
  return { child, url, log, exited };
}

/** The URL of the ready line, looked for whenever stderr grows (or, in a file, every 50 ms). */
function readyUrl(what: string, child: ChildProcess, ready: RegExp, log: () => string, exited: Promise<number | null>, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const url = ready.exec(log())?.[1];
      if (url) done(() => resolve(url));
    };
    const poll = child.stderr ? null : setInterval(check, 50);
    const timer = setTimeout(() => done(() => {
      child.kill();
      reject(new Error(`${what} did not log its URL within ${timeoutMs} ms:\n${log()}`));
    }), timeoutMs);
    let settled = false;
    function done(settle: () => void): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      child.stderr?.off('data', check);
      settle();
    }
    child.stderr?.on('data', check);
    void exited.then((code) => done(() => reject(new Error(`${what} exited with ${code}:\n${log()}`))));
  });
}
