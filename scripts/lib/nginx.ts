/**
 * Debian's nginx serving a release with the snippet the export wrote
 * (release/nginx.conf), on a loopback port, in its own temp prefix: for the
 * tests, and for bench:serve as a mirror would run it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PortTakenError, startOnSomePort, type RetryOptions } from './bind-retry.js';

export const NGINX = '/usr/sbin/nginx';
export const nginxAvailable = (): boolean => existsSync(NGINX);

export interface RunningNginx {
  port: number;
  url: string;
  /** nginx's access log (combined format: the request line with its query string), when asked for. */
  accessLog: string | null;
  stop(): Promise<void>;
}

export interface NginxOptions extends RetryOptions {
  /** Log every request line, unbuffered, to work/access.log. */
  accessLog?: boolean;
  /** worker_processes (default 1). */
  workers?: string;
  /** worker_connections (default 64). */
  connections?: number;
  /** keepalive_requests (default nginx's own, 1000). */
  keepaliveRequests?: number;
}

/**
 * Starts nginx with `root` (a release, or a `current` symlink) and the
 * release's snippet; `work` holds its pid, logs and temp dirs. nginx needs its
 * port in the config, so a taken port is retried on another (bind-retry.ts).
 */
export function startNginx(work: string, root: string, snippet: string, opts: NginxOptions = {}): Promise<RunningNginx> {
  mkdirSync(join(work, 'logs'), { recursive: true });
  return startOnSomePort((port) => startOn(port, work, root, snippet, opts), opts);
}

async function startOn(port: number, work: string, root: string, snippet: string, opts: NginxOptions): Promise<RunningNginx> {
  const accessLog = opts.accessLog ? join(work, 'access.log') : null;
  const pidFile = join(work, 'nginx.pid');
  const errorLog = join(work, 'error.log');
  rmSync(pidFile, { force: true });
  writeFileSync(errorLog, '');
  writeFileSync(join(work, 'nginx.conf'), `
worker_processes ${opts.workers ?? 1};
pid ${pidFile};
error_log ${errorLog} warn;
events { worker_connections ${opts.connections ?? 64}; }
http {
  include /etc/nginx/mime.types;
  access_log ${accessLog ?? 'off'};
  ${opts.keepaliveRequests ? `keepalive_requests ${opts.keepaliveRequests};` : ''}
  client_body_temp_path ${work}/body; proxy_temp_path ${work}/proxy; fastcgi_temp_path ${work}/fcgi;
  uwsgi_temp_path ${work}/uwsgi; scgi_temp_path ${work}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    include ${snippet};
  }
}
`);
  const user = process.getuid?.() === 0 ? ' user root;' : '';
  const child = spawn(NGINX, ['-p', work, '-c', join(work, 'nginx.conf'), '-e', errorLog, '-g', `daemon off;${user}`], { stdio: 'ignore' });
  await boundOrExited(child, pidFile, port, errorLog);
  return { port, url: `http://127.0.0.1:${port}`, accessLog, stop: () => stop(child) };
}

/** nginx writes its pid file only once it has bound its port; exiting first means it could not. */
async function boundOrExited(child: ChildProcess, pidFile: string, port: number, errorLog: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!existsSync(pidFile)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      if (child.exitCode === null) await stop(child);
      const log = readFileSync(errorLog, 'utf8');
      if (/Address already in use/.test(log)) throw new PortTakenError(port, 'nginx: Address already in use');
      throw new Error(`nginx did not start on port ${port}: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.pid && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGQUIT');
    await exited;
  }
}
