/**
 * Router throughput and latency against Debian's nginx, in the same run on
 * the same machine, with wrk (Debian package) as the load generator:
 *   1. nginx   /api/trace/<q>.json of a `--layout files` release (the file itself, nginx's best case)
 *   2. router  /api/trace?q=<q> of a range release (the same document bytes, cut from its range file)
 *   3. router  /api/privacy with amounts that vary per request (computed, rarely cached)
 * and, for scale: the router's trace with the per-IP rate limit on (every
 * request counted by the primary) and with one worker, a bare node:http
 * cluster sending the same bytes with no routing at all (Node's ceiling here),
 * and every address once on a freshly started router against nginx (each
 * range file read, checked against the manifest's sha256 and indexed on its
 * first use: the cost of serving only what the release vouches for).
 * Each case runs `--rounds` short times, nginx and router interleaved,
 * because the machine is shared and its load drifts; ratios compare the
 * same round, and the summary takes the median round.
 *
 *   npm run bench:serve [-- --preset demo --seconds 3 --rounds 10 --threads 2 --connections 8
 *                          --workers N --nginx-workers auto --rebuild]
 *
 * The releases are built once into .bench/serve-<preset>/ (sim → scan →
 * analyze → export, both layouts) and reused; --rebuild builds them again.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { analyze } from '../src/analysis/analyze.js';
import { exportRelease } from '../src/export/export.js';
import { NO_HOST_BUDGET, type Layout } from '../src/export/ranges.js';
import type { SimPresetName } from '../src/chain/sim/index.js';
import { parseAmountTable, type AmountTable } from '@pegscope/client';
import { consoleProgress } from '../src/progress.js';
import { benchFlags, median, simPreset } from './lib/bench.js';
import { startNginx } from './lib/nginx.js';
import { spawnReady, spawnServe } from './lib/serve-process.js';
import { cachedSimDb } from './lib/sim-cache.js';

const WRK = '/usr/bin/wrk';

/** The release of each layout, exported from the same analysed chain; built once and reused. */
async function releases(preset: SimPresetName, rebuild: boolean): Promise<Record<Layout, string>> {
  const root = resolve('.bench', `serve-${preset}`);
  const outDirs: Record<Layout, string> = { ranges: join(root, 'ranges'), files: join(root, 'files') };
  if (!rebuild && Object.values(outDirs).every((dir) => existsSync(join(dir, 'current')))) {
    console.log(`reusing the releases in ${root} (exported ${statSync(join(outDirs.ranges, 'current')).mtime.toISOString()}; --rebuild to export again)`);
    return outDirs;
  }
  rmSync(root, { recursive: true, force: true });
  const { db } = await cachedSimDb(preset, 1);
  try {
    await analyze(db);
    for (const layout of ['ranges', 'files'] as const) {
      console.log(`exporting the ${layout} layout into ${outDirs[layout]} …`);
      await exportRelease(db, { outDir: outDirs[layout], layout, hostBudget: NO_HOST_BUDGET, progress: consoleProgress() });
    }
  } finally {
    db.close();
  }
  return outDirs;
}

/** Every address with a trace document, in a fixed shuffled order (wrk's threads start at different places in it). */
function addressTraces(filesRelease: string): string[] {
  const names = readdirSync(join(filesRelease, 'api', 'trace')).filter((n) => n.endsWith('.json') && !/^[0-9a-f]{64}\.json$/.test(n));
  return names.map((n) => n.slice(0, -5)).sort((a, b) => (a.split('').reverse().join('') < b.split('').reverse().join('') ? -1 : 1));
}

/** The address trace whose document is closest to `bytes` long (the issue's figures are for a 4.6 KB one). */
function pickTrace(filesRelease: string, bytes: number): { q: string; size: number } {
  const dir = join(filesRelease, 'api', 'trace');
  const traces = readdirSync(dir).filter((n) => n.endsWith('.json') && !/^[0-9a-f]{64}\.json$/.test(n));
  const sized = traces.map((n) => ({ q: n.slice(0, -5), size: statSync(join(dir, n)).size }));
  return sized.sort((a, b) => Math.abs(a.size - bytes) - Math.abs(b.size - bytes))[0]!;
}

/** The least a node:http cluster can do per request: the same body and a similar head, nothing looked up. */
const BARE_NODE = `
const cluster = require('node:cluster');
const http = require('node:http');
const [workers, file] = process.argv.slice(2);
if (cluster.isPrimary) {
  // Workers listening on port 0 share one port the primary chose; the first to listen names it.
  for (let i = 0; i < Number(workers); i++) cluster.fork().once('listening', ({ port }) => { if (i === 0) console.error(\`listening at http://127.0.0.1:\${port}\`); });
} else {
  const body = require('node:fs').readFileSync(file);
  const head = ['Access-Control-Allow-Origin', '*', 'X-Content-Type-Options', 'nosniff', 'ETag', '"x"', 'Cache-Control', 'public, max-age=300',
    'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length)];
  http.createServer((req, res) => { res.writeHead(200, head); res.end(body); }).listen(0, '127.0.0.1');
}`;

/** Something this bench started, and how to stop it. */
type Stoppable = { stop(): Promise<void> };

/** A child process, stopped with SIGTERM. */
function stoppable(child: ChildProcess): Stoppable {
  return {
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function startBareNode(work: string, workers: number, file: string): Promise<Stoppable & { url: string }> {
  // A file, not -e: cluster workers run the primary's script.
  const script = join(work, 'bare-node.cjs');
  writeFileSync(script, BARE_NODE);
  const bare = await spawnReady('bare node:http', process.execPath, [script, String(workers), file], /listening at (http:\/\/\S+)/);
  return { url: bare.url, ...stoppable(bare.child) };
}

/**
 * `pegscope serve` as an operator runs it (rate limit off unless given),
 * through the CLI so --workers is what is measured; its request log goes to
 * a file, as it would to journald.
 */
async function startRouter(outDir: string, workers: number, rateLimit: number, logFile: string): Promise<Stoppable & { url: string }> {
  const router = await spawnServe(['--network', 'sim', '--out', outDir, '--rate-limit', String(rateLimit), '--workers', String(workers)], { logFile });
  return { url: router.url, ...stoppable(router.child) };
}

/**
 * wrk's report as one JSON line (done() runs once, over every thread). With
 * `paths`, each request takes the next one; each thread starts elsewhere in
 * the list so the threads do not ask the same URLs in step.
 */
function wrkScript(paths: string[] | null): string {
  const report = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK {"requests":%d,"duration_us":%d,"errors":%d,"non2xx":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;
  if (!paths) return report;
  return `
local paths = {${paths.map((p) => JSON.stringify(p)).join(',\n')}}
local threads = 0
setup = function(thread) threads = threads + 1; thread:set("first", threads * 7919) end
local i = 0
init = function(args) i = first end
request = function()
  i = i + 1
  return wrk.format(nil, paths[(i % #paths) + 1])
end
${report}`;
}

interface Figures { label: string; rps: number; p50: number; p99: number; max: number; errors: number; non2xx: number }

function measure(label: string, url: string, script: string, o: { seconds: number; threads: number; connections: number }): Figures {
  const out = execFileSync(WRK, [`-t${o.threads}`, `-c${o.connections}`, `-d${o.seconds}s`, '-s', script, url], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => l.startsWith('WRK '));
  if (!line) throw new Error(`wrk printed no report:\n${out}`);
  const r = JSON.parse(line.slice(4)) as { requests: number; duration_us: number; errors: number; non2xx: number; p50_us: number; p99_us: number; max_us: number };
  return { label, rps: r.requests / (r.duration_us / 1e6), p50: r.p50_us / 1000, p99: r.p99_us / 1000, max: r.max_us / 1000, errors: r.errors, non2xx: r.non2xx };
}

/** Privacy URLs with amounts the release has and amounts it has not, on both sides, each a distinct URL. */
function privacyPaths(table: AmountTable, count: number): string[] {
  const amounts = table.pegin.map(([amount]) => amount);
  const coins = (litoshi: number): string => `${Math.floor(litoshi / 100_000_000)}.${String(litoshi % 100_000_000).padStart(8, '0')}`;
  return Array.from({ length: count }, (_, i) => {
    const base = amounts[i % amounts.length] ?? 100_000_000;
    const litoshi = base + Math.floor(i / amounts.length) * 7 + (i % 2 ? 0 : 1 + ((i * 7919) % 1_000_000));
    return `/api/privacy?amount=${coins(litoshi)}&side=${i % 3 ? 'pegin' : 'pegout'}`;
  });
}

async function main(): Promise<void> {
  const flags = benchFlags('bench:serve', 'Router throughput and latency against nginx on the same release, with wrk.', {
    preset: { type: 'string', default: 'demo', help: 'sim preset of the releases' },
    seconds: { type: 'integer', default: 3, help: 'seconds of each wrk run' },
    rounds: { type: 'integer', default: 10, help: 'rounds of nginx and router, interleaved' },
    threads: { type: 'integer', default: 2, help: 'wrk threads' },
    connections: { type: 'integer', default: 8, help: 'wrk connections' },
    workers: { type: 'integer', default: availableParallelism(), help: 'router --workers' },
    'nginx-workers': { type: 'string', default: 'auto', help: 'nginx worker_processes' },
    'doc-bytes': { type: 'integer', default: 4600, help: 'size of the trace document to ask for' },
    rebuild: { type: 'boolean', help: 'export the releases again' },
  });
  const preset = simPreset('bench:serve', flags.preset);
  const load = { seconds: flags.seconds, threads: flags.threads, connections: flags.connections };
  const { rounds, workers } = flags;
  const nginxWorkers = flags['nginx-workers'];
  const outDirs = await releases(preset, flags.rebuild);
  const filesRelease = realpathSync(join(outDirs.files, 'current'));
  const { q, size } = pickTrace(filesRelease, flags['doc-bytes']);
  const { table } = parseAmountTable(readFileSync(join(filesRelease, 'api', 'amounts.json'), 'utf8'), { network: 'sim' });

  const work = mkdtempSync(join(tmpdir(), 'pegscope-bench-serve-'));
  const started: Stoppable[] = [];
  try {
    const scripts = { plain: join(work, 'plain.lua'), privacy: join(work, 'privacy.lua'), nginxKeys: join(work, 'nginx-keys.lua'), routerKeys: join(work, 'router-keys.lua') };
    writeFileSync(scripts.plain, wrkScript(null));
    writeFileSync(scripts.privacy, wrkScript(privacyPaths(table, 200_000)));
    const start = async (starting: Promise<Stoppable & { url: string }>): Promise<string> => {
      const server = await starting;
      started.push(server);
      return server.url;
    };
    // As a mirror would run it: the release's own snippet (release/nginx.conf).
    const nginxOptions = { workers: nginxWorkers, connections: 1024, keepaliveRequests: 1_000_000 };
    const origins = {
      nginx: await start(startNginx(join(work, 'nginx'), filesRelease, join(filesRelease, 'nginx.conf'), nginxOptions)),
      router: await start(startRouter(outDirs.ranges, workers, 0, join(work, 'router.log'))),
      limited: await start(startRouter(outDirs.ranges, workers, 1_000_000, join(work, 'router-limited.log'))),
      single: await start(startRouter(outDirs.ranges, 1, 0, join(work, 'router-single.log'))),
      bare: await start(startBareNode(work, workers, join(filesRelease, 'api', 'trace', `${q}.json`))),
    };
    const nginxUrl = `${origins.nginx}/api/trace/${q}.json`;
    const routerUrl = `${origins.router}/api/trace?q=${q}`;

    // Same bytes from both: check before measuring.
    const [a, b] = await Promise.all([fetch(nginxUrl).then((r) => r.arrayBuffer()), fetch(routerUrl).then((r) => r.arrayBuffer())]);
    if (!Buffer.from(a).equals(Buffer.from(b))) throw new Error('router (ranges) and nginx (files) disagree on the trace document');

    // Warm-up: JIT, the answer cache and the release watch, so round 1 measures what the others do.
    const warm = { ...load, seconds: 1 };
    for (const target of [nginxUrl, routerUrl, `${origins.limited}/api/trace?q=${q}`, `${origins.single}/api/trace?q=${q}`, `${origins.bare}/`]) measure('warm-up', target, scripts.plain, warm);
    measure('warm-up', `${origins.router}/`, scripts.privacy, warm);
    console.log(`\nsim ${preset}; trace document ${q} (${size} bytes); ${table.pegin.length} peg-in amounts`);
    console.log(`wrk -t${load.threads} -c${load.connections} -d${load.seconds}s, ${rounds} rounds; router --workers ${workers}, nginx worker_processes ${nginxWorkers}; ${availableParallelism()} CPUs, shared with other work\n`);
    const rows: Figures[] = [];
    const ratios: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const n = measure(`nginx   trace file, round ${round}`, nginxUrl, scripts.plain, load);
      const r = measure(`router  trace ?q=, round ${round}`, routerUrl, scripts.plain, load);
      const p = measure(`router  privacy, round ${round}`, `${origins.router}/`, scripts.privacy, load);
      rows.push(n, r, p);
      ratios.push(r.rps / n.rps);
    }
    rows.push(measure('router  trace ?q=, rate limit on', `${origins.limited}/api/trace?q=${q}`, scripts.plain, load));
    rows.push(measure('router  trace ?q=, --workers 1', `${origins.single}/api/trace?q=${q}`, scripts.plain, load));
    rows.push(measure(`bare node:http, ${workers} workers, same bytes`, `${origins.bare}/`, scripts.plain, load));
    // Every address once, on a router started for it: each range is read, checked against the
    // manifest's sha256 and indexed on its first key, each answer computed once.
    const addresses = addressTraces(filesRelease);
    writeFileSync(scripts.nginxKeys, wrkScript(addresses.map((a) => `/api/trace/${a}.json`)));
    writeFileSync(scripts.routerKeys, wrkScript(addresses.map((a) => `/api/trace?q=${a}`)));
    rows.push(measure(`nginx   trace files, ${addresses.length} distinct addresses`, `${origins.nginx}/`, scripts.nginxKeys, load));
    const fresh = await start(startRouter(outDirs.ranges, workers, 0, join(work, 'router-fresh.log')));
    rows.push(measure(`router  trace ?q=, ${addresses.length} distinct addresses, fresh router`, `${fresh}/`, scripts.routerKeys, load));

    console.log('| case | req/s | p50 ms | p99 ms | max ms | errors | non-2xx |\n|---|---:|---:|---:|---:|---:|---:|');
    for (const f of rows) {
      console.log(`| ${f.label} | ${f.rps.toFixed(0)} | ${f.p50.toFixed(2)} | ${f.p99.toFixed(2)} | ${f.max.toFixed(1)} | ${f.errors} | ${f.non2xx} |`);
    }
    const byLabel = (prefix: string): Figures[] => rows.filter((f) => f.label.startsWith(prefix));
    const [nginxKeys, routerKeys] = [byLabel('nginx   trace files,')[0]!, byLabel('router  trace ?q=, ').find((f) => f.label.endsWith('fresh router'))!];
    console.log(`\ndistinct addresses on a fresh router (ranges read, sha256-checked, indexed on first use): ${routerKeys.rps.toFixed(0)} req/s, ${(routerKeys.rps / nginxKeys.rps * 100).toFixed(0)}% of nginx's ${nginxKeys.rps.toFixed(0)}`);
    const traces = byLabel('router  trace ?q=, round');
    const privacy = byLabel('router  privacy');
    const ratio = median(ratios);
    console.log(`\nrouter/nginx req/s per round: ${ratios.map((x) => `${(x * 100).toFixed(0)}%`).join(', ')}; median ${(ratio * 100).toFixed(0)}% (target >= 50%) ${ratio >= 0.5 ? 'OK' : 'BELOW TARGET'}`);
    const traceP99 = median(traces.map((f) => f.p99));
    console.log(`router trace p99, median of rounds: ${traceP99.toFixed(2)} ms (target < 5 ms) ${traceP99 < 5 ? 'OK' : 'ABOVE TARGET'}`);
    const [privacyRps, privacyP99] = [median(privacy.map((f) => f.rps)), median(privacy.map((f) => f.p99))];
    console.log(`router privacy, median of rounds: ${privacyRps.toFixed(0)} req/s (target >= 10000) with p99 ${privacyP99.toFixed(2)} ms (target < 5 ms) ${privacyRps >= 10_000 && privacyP99 < 5 ? 'OK' : 'BELOW TARGET'}`);
  } finally {
    for (const server of started) await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
