/**
 * Router throughput and latency (autocannon) against Debian's nginx serving
 * the same trace file, in the same run on the same machine:
 *   1. a trace file      nginx /api/trace/<q>.json  vs  router /api/trace?q=<q>
 *   2. links with non-default parameters (router only: sliced per request)
 *   3. privacy with varying amounts (router only: computed per request)
 * The release comes from the real pipeline (sim → scan → analyze → export).
 * The router runs in its own process with rate limiting off; nginx with one
 * worker, so both have one core's worth of server.
 *
 *   npm run bench:serve [-- --preset tiny|demo --seconds 5 --connections 32]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Db } from '../src/store/db.js';
import { createSimSource, type SimPresetName } from '../src/chain/sim/index.js';
import { scanChain } from '../src/store/scan.js';
import { analyze } from '../src/analysis/analyze.js';
import { exportRelease } from '../src/export/export.js';
import { startServer } from '../src/serve/server.js';
import { consoleProgress } from '../src/progress.js';
import { parseAmountTable, privacyOf } from '@pegscope/client';
import { freePort } from '../test/helpers/net.js';

const NGINX = '/usr/sbin/nginx';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

/** Child mode: just the router, so autocannon does not share its event loop. */
async function routerChild(outDir: string, port: number): Promise<void> {
  const server = await startServer({ sites: [{ network: 'sim', outDir }], host: '127.0.0.1', port, rateLimit: 0 });
  process.send?.('ready');
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

async function buildRelease(root: string, preset: SimPresetName): Promise<string> {
  const outDir = join(root, 'out', 'sim');
  const db = await Db.open(':memory:');
  try {
    const progress = consoleProgress();
    await scanChain(db, createSimSource({ preset, seed: 1 }), { progress });
    await analyze(db);
    await exportRelease(db, { outDir, progress });
  } finally {
    db.close();
  }
  return outDir;
}

async function startNginx(root: string, releaseDir: string, port: number): Promise<ChildProcess> {
  const prefix = join(root, 'nginx');
  const conf = join(root, 'nginx.conf');
  writeFileSync(conf, `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${prefix}.pid;
error_log ${prefix}-error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}-body;
  proxy_temp_path ${prefix}-proxy;
  fastcgi_temp_path ${prefix}-fastcgi;
  uwsgi_temp_path ${prefix}-uwsgi;
  scgi_temp_path ${prefix}-scgi;
  default_type application/json;
  sendfile on;
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:${port};
    root ${releaseDir};
    add_header Access-Control-Allow-Origin *;
    etag on;
  }
}
`);
  const child = spawn(NGINX, ['-p', root, '-e', `${prefix}-error.log`, '-c', conf], { stdio: ['ignore', 'inherit', 'inherit'] });
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}; see ${prefix}-error.log`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health.json`).then((r) => r.ok, () => false);
    if (ok) return child;
  }
  throw new Error('nginx did not come up within 5 s');
}

interface Figures { label: string; rps: number; mbps: number; p50: number; p99: number; errors: number; non2xx: number }

async function measure(label: string, url: string, seconds: number, connections: number, paths?: () => string): Promise<Figures> {
  const opts: Record<string, unknown> = { url, connections, duration: seconds, pipelining: 1 };
  if (paths) opts.requests = [{ setupRequest: (req: { path: string }) => ({ ...req, path: paths() }) }];
  const result = await autocannon(opts);
  return { label, rps: result.requests.average, mbps: result.throughput.average / 1e6, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

async function main(): Promise<void> {
  const preset = arg('preset', 'tiny') as SimPresetName;
  const seconds = Number(arg('seconds', '5'));
  const connections = Number(arg('connections', '32'));
  const root = mkdtempSync(join(tmpdir(), 'pegscope-bench-serve-'));
  const children: ChildProcess[] = [];
  try {
    console.log(`building a release (sim ${preset}) …`);
    const outDir = await buildRelease(root, preset);
    const releaseDir = join(outDir, 'current');
    // The largest address trace: the heaviest file a wallet or analyst fetches.
    const traces = readdirSync(join(releaseDir, 'api', 'trace')).filter((n) => n.endsWith('.json') && !/^[0-9a-f]{64}\.json$/.test(n));
    const q = traces.map((n) => ({ n, size: readFileSync(join(releaseDir, 'api', 'trace', n)).length })).sort((a, b) => b.size - a.size)[0]!;
    const qValue = q.n.slice(0, -5);
    const { table } = parseAmountTable(readFileSync(join(releaseDir, 'api', 'amounts.json'), 'utf8'), { network: 'sim' });
    console.log(`trace file: ${q.n} (${q.size} bytes); amount table: ${table.pegin.length} peg-in amounts`);

    const [routerPort, nginxPort] = [await freePort(), await freePort()];
    const router = spawn(process.execPath, ['--import', 'tsx', process.argv[1]!, '--child', outDir, String(routerPort)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(router);
    await new Promise<void>((resolve, reject) => {
      router.once('message', () => resolve());
      router.once('exit', (code) => reject(new Error(`router exited with ${code}`)));
    });
    children.push(await startNginx(root, join(outDir, 'releases', readdirSync(join(outDir, 'releases')).find((n) => !n.startsWith('.'))!), nginxPort));

    const routerUrl = `http://127.0.0.1:${routerPort}`;
    const nginxUrl = `http://127.0.0.1:${nginxPort}`;
    // Same bytes from both: check before measuring.
    const [a, b] = await Promise.all([fetch(`${routerUrl}/api/trace?q=${qValue}`).then((r) => r.text()), fetch(`${nginxUrl}/api/trace/${q.n}`).then((r) => r.text())]);
    if (a !== b) throw new Error('router and nginx disagree on the trace file');

    let i = 0;
    const amounts = table.pegin.map(([amount]) => amount);
    const amountPath = (): string => {
      i++;
      const base = amounts[i % amounts.length] ?? 100_000_000;
      const litoshi = i % 2 ? base : base + ((i * 7919) % 1_000_000);
      return `/api/privacy?amount=${(litoshi / 1e8).toFixed(8)}&side=${i % 3 ? 'pegin' : 'pegout'}`;
    };
    const linkParams = (): string => `/api/links?min_confidence=0.${1 + (i++ % 9)}&limit=${50 + (i % 200)}`;

    const figures: Figures[] = [];
    console.log(`measuring ${seconds} s each, ${connections} connections …`);
    // Alternate nginx and router twice: the machine is shared, so load drifts between runs.
    const pairs: [Figures, Figures][] = [];
    for (let round = 1; round <= 2; round++) {
      pairs.push([
        await measure(`nginx   trace file (round ${round})`, `${nginxUrl}/api/trace/${q.n}`, seconds, connections),
        await measure(`router  trace file (round ${round})`, `${routerUrl}/api/trace?q=${qValue}`, seconds, connections),
      ]);
    }
    figures.push(...pairs.flat());
    figures.push(await measure('router  links (non-default)', routerUrl, seconds, connections, linkParams));
    figures.push(await measure('router  privacy', routerUrl, seconds, connections, amountPath));
    // Latency without queueing: one client at a time, the case of a wallet's pre-flight check.
    figures.push(await measure('router  privacy, 1 connection', routerUrl, seconds, 1, amountPath));

    console.log('\n| case | req/s | MB/s | p50 ms | p99 ms | errors | non-2xx |\n|---|---:|---:|---:|---:|---:|---:|');
    for (const f of figures) console.log(`| ${f.label} | ${f.rps.toFixed(0)} | ${f.mbps.toFixed(1)} | ${f.p50} | ${f.p99} | ${f.errors} | ${f.non2xx} |`);
    const [loaded, privacy] = figures.slice(-2) as [Figures, Figures];
    const ratio = pairs.reduce((sum, [nginx, router]) => sum + router.rps / nginx.rps, 0) / pairs.length;
    console.log(`\nrouter/nginx on the trace file (mean of the rounds): ${(ratio * 100).toFixed(0)}% (target >= 50%) ${ratio >= 0.5 ? 'OK' : 'BELOW TARGET'}`);
    // The scoring itself, without HTTP: what is left of the p99 is the server and the machine.
    const calls = 20_000;
    const started = performance.now();
    for (let n = 0; n < calls; n++) privacyOf(table, amounts[n % amounts.length]! + (n % 1000), n % 2 ? 'pegin' : 'pegout');
    console.log(`privacyOf alone: ${(((performance.now() - started) / calls) * 1000).toFixed(1)} µs per call (${table.pegin.length} peg-in amounts)`);
    console.log(`privacy p99: ${privacy.p99} ms with one connection (target < 5 ms) ${privacy.p99 < 5 ? 'OK' : 'ABOVE TARGET'}; `
      + `${loaded.p99} ms at ${connections} connections, where queueing at ${loaded.rps.toFixed(0)} req/s dominates`);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await routerChild(process.argv[3]!, Number(process.argv[4]));
else await main();
