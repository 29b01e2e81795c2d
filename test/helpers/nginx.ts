/**
 * Debian's nginx serving a release with the snippet the export wrote
 * (release/nginx.conf), on a free loopback port, in its own temp prefix.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { freePort } from './net.js';

export const NGINX = '/usr/sbin/nginx';
export const nginxAvailable = (): boolean => existsSync(NGINX);

export interface RunningNginx {
  port: number;
  url: string;
  /** nginx's access log (combined format: the request line with its query string), when asked for. */
  accessLog: string | null;
  stop(): Promise<void>;
}

/**
 * Starts nginx with `root` (a release, or a `current` symlink) and the
 * release's snippet; `work` holds its pid, logs and temp dirs. With
 * `accessLog`, every request line is logged, unbuffered, to work/access.log.
 */
export async function startNginx(work: string, root: string, snippet: string, opts: { accessLog?: boolean } = {}): Promise<RunningNginx> {
  const port = await freePort();
  mkdirSync(join(work, 'logs'), { recursive: true });
  const accessLog = opts.accessLog ? join(work, 'access.log') : null;
  writeFileSync(join(work, 'nginx.conf'), `
worker_processes 1;
pid ${join(work, 'nginx.pid')};
error_log ${join(work, 'error.log')} warn;
events { worker_connections 64; }
http {
  include /etc/nginx/mime.types;
  access_log ${accessLog ?? 'off'};
  client_body_temp_path ${work}/body; proxy_temp_path ${work}/proxy; fastcgi_temp_path ${work}/fcgi;
  uwsgi_temp_path ${work}/uwsgi; scgi_temp_path ${work}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    include ${snippet};
  }
}
`);
  const child = spawn(NGINX, ['-p', work, '-c', join(work, 'nginx.conf'), '-e', join(work, 'error.log'), '-g', 'daemon off; user root;'], { stdio: 'ignore' });
  await waitFor(child, port, work);
  return { port, url: `http://127.0.0.1:${port}`, accessLog, stop: () => stop(child) };
}

function answers(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/api' }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end();
  });
}

async function waitFor(child: ChildProcess, port: number, work: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    try {
      await answers(port);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`nginx did not answer on port ${port}: ${readFileSync(join(work, 'error.log'), 'utf8')}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.pid && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGQUIT');
    await exited;
  }
}
