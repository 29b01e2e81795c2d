/**
 * `pegscope serve` as an operator runs it, in a child process on `--port 0`:
 * ready when it logs the URL it bound, so no port is picked beforehand (and
 * raced for) and no port is polled.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServeProcess {
  child: ChildProcess;
  /** http://host:port, as the ready line names it. */
  url: string;
  /** Everything the process (and its workers) wrote to stderr so far. */
  log(): string;
  exited: Promise<number | null>;
}

const READY = /serving .* at (http:\/\/\S+)\/api/;

/** Starts `pegscope serve ARGS --port 0` and resolves once it is serving; rejects with its stderr when it exits first. */
export async function spawnServe(args: readonly string[], timeoutMs = 120_000): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin.ts', 'serve', ...args, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // Starting tsx in every process can take a while on a busy machine.
    const timer = setTimeout(() => { child.kill(); reject(new Error(`pegscope serve did not log its URL within ${timeoutMs} ms:\n${stderr}`)); }, timeoutMs);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const ready = READY.exec(stderr);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`pegscope serve exited with ${code}:\n${stderr}`));
    });
  });
  return { child, url, log: () => stderr, exited };
}
