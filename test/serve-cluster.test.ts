/**
 * `pegscope serve --workers N` as an operator runs it: the CLI's primary
 * and its workers, real processes on a real port, against the release the
 * whole pipeline exports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { rangePath, rangePrefix, type RangesIndexBody } from '@pegscope/client';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { buildPipelineTree, type PipelineTree } from './helpers/pipeline-release.js';
import { spawnServe, type ServeProcess } from '../scripts/lib/serve-process.js';
import { get, type Res } from './helpers/http.js';

let tree: PipelineTree;
let single: RunningServer;

beforeAll(async () => {
  tree = await buildPipelineTree();
  single = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
});

afterAll(async () => {
  await single?.close();
  if (tree) rmSync(tree.root, { recursive: true, force: true });
});

interface Cluster extends ServeProcess {
  /** Pids from the primary's "worker <pid> started" lines, in order. */
  started(): number[];
}

async function startCluster(flags: string[]): Promise<Cluster> {
  const serving = await spawnServe(['--network', 'sim', '--out', tree.outDir, ...flags]);
  return { ...serving, started: () => [...serving.log().matchAll(/worker (\d+) started/g)].map((m) => Number(m[1])) };
}

async function until(done: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !done(); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > end) throw new Error(`not done within ${ms} ms`);
  }
}

async function stop(cluster: Cluster): Promise<number | null> {
  if (cluster.child.exitCode === null) cluster.child.kill('SIGTERM');
  return cluster.exited;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A response as compared: status, body and every header but the clock's. */
function comparable(res: Res): object {
  const { date, ...headers } = res.headers;
  expect(date).toBeTypeOf('string');
  return { status: res.status, headers, body: res.body.toString('base64') };
}

describe('pegscope serve --workers 2', () => {
  it('answers byte for byte and header for header as one process does', async () => {
    const cluster = await startCluster(['--workers', '2', '--rate-limit', '0']);
    try {
      const { address, pegin_tx: peginTx } = tree.traceQ;
      const etag = (await get(single.url, `/api/trace?q=${address}`)).headers.etag as string;
      const requests: [string, Record<string, string>?, string?][] = [
        ['/api'], ['/api/stats'], [`/api/trace?q=${address}`], [`/api/trace/${peginTx}.csv`], [`/api/address?q=${address}`],
        [`/api/follow?q=${tree.longestFollow.address}&depth=10`], ['/api/links?limit=3&format=csv'], ['/api/privacy?amount=1.5'],
        [`/api/block?q=${tree.block.hash}`], ['/api/ranges.json'], ['/api/links', { 'accept-encoding': 'br' }],
        [`/api/trace?q=${address}`, { 'if-none-match': etag }], ['/api/stats', {}, 'HEAD'], ['/api/stats', {}, 'OPTIONS'],
        ['/api/trace?q=nope'], ['/api/nothing'], ['/api/stats', {}, 'POST'], ['/manifest.json', { range: 'bytes=0-99' }], ['/'],
      ];
      // Not /api/health: its analysis age may tick between the two requests.
      // Each request goes on a new connection, which the primary hands to the workers in turn; the list
      // is odd in length, so in the second round every request goes to the other worker.
      expect(requests.length % 2).toBe(1);
      for (let round = 0; round < 2; round++) {
        for (const [path, headers = {}, method = 'GET'] of requests) {
          const [want, got] = [await get(single.url, path, { headers, method }), await get(cluster.url, path, { headers, method })];
          expect(comparable(got), `${method} ${path}`).toEqual(comparable(want));
        }
      }
    } finally {
      expect(await stop(cluster)).toBe(0);
    }
  }, 300_000);

  it('a range copied over another is a 503 from every worker while broken, and the right answer from every worker after repair', async () => {
    const cluster = await startCluster(['--workers', '2', '--rate-limit', '0']);
    const { address } = tree.traceQ;
    const layout = JSON.parse(readFileSync(join(tree.dir, 'api', 'ranges.json'), 'utf8')) as RangesIndexBody;
    const rel = rangePath('trace', rangePrefix(address, layout.kinds.trace.prefix_length));
    const other = readdirSync(join(tree.dir, 'api', 'range', 'trace')).map((n) => `api/range/trace/${n}`).find((r) => r !== rel && r.endsWith('.json'))!;
    const right = await get(single.url, `/api/trace?q=${address}`);
    const saved = readFileSync(join(tree.dir, rel));
    try {
      copyFileSync(join(tree.dir, other), join(tree.dir, rel));
      // New connections alternate between the workers: four requests reach each twice.
      for (let i = 0; i < 4; i++) {
        const res = await get(cluster.url, `/api/trace?q=${address}`);
        expect(res.status, `request ${i}`).toBe(503);
        expect(res.json.error).toMatch(/cannot be read/);
      }
      writeFileSync(join(tree.dir, rel), saved);
      for (let i = 0; i < 4; i++) expect((await get(cluster.url, `/api/trace?q=${address}`)).text, `request ${i}`).toBe(right.text);
      // Workers write their log lines in batches, within 100 ms.
      const refused = new RegExp(`refused: ${rel.replaceAll('.', '\\.')} (does not have the sha256|has \\d+ bytes)`);
      await until(() => refused.test(cluster.log()), 10_000);
    } finally {
      writeFileSync(join(tree.dir, rel), saved);
      expect(await stop(cluster)).toBe(0);
    }
  }, 300_000);

  it('counts a client once across workers: the limit, not twice the limit', async () => {
    const cluster = await startCluster(['--workers', '2', '--rate-limit', '5']);
    try {
      // New connections alternate between the two workers; limits counted per worker would let 10 through.
      const answers: Res[] = [];
      for (let i = 0; i < 12; i++) answers.push(await get(cluster.url, '/api/stats'));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
      expect(answers.slice(0, 5).map((r) => r.headers['ratelimit-remaining'])).toEqual(['4', '3', '2', '1', '0']);
      expect(Number(answers[5]!.headers['retry-after'])).toBeGreaterThan(0);
      // Concurrent requests, read by both workers in the same turn, are counted exactly as well.
      const other = await startCluster(['--workers', '2', '--rate-limit', '7']);
      try {
        const burst = await Promise.all(Array.from({ length: 20 }, () => get(other.url, '/api/stats')));
        expect(burst.filter((r) => r.status === 200)).toHaveLength(7);
        expect(burst.filter((r) => r.status === 429)).toHaveLength(13);
      } finally {
        expect(await stop(other)).toBe(0);
      }
    } finally {
      expect(await stop(cluster)).toBe(0);
    }
  }, 300_000);

  it('replaces a worker that dies, keeps answering, and stops every worker on SIGTERM', async () => {
    const cluster = await startCluster(['--workers', '2', '--rate-limit', '0']);
    const [first, second] = cluster.started() as [number, number];
    expect(new Set([first, second]).size).toBe(2);
    process.kill(first, 'SIGKILL');
    await until(() => cluster.started().length === 3, 120_000);
    expect(cluster.log()).toMatch(new RegExp(`worker ${first} was killed by SIGKILL; starting another`));
    const replacement = cluster.started()[2]!;
    await until(() => cluster.log().includes(`worker ${replacement} is serving`), 120_000);
    for (let i = 0; i < 6; i++) expect((await get(cluster.url, '/api/stats')).status).toBe(200);
    expect(alive(first)).toBe(false);
    expect(await stop(cluster)).toBe(0);
    expect([second, replacement].filter(alive)).toEqual([]);
    await expect(get(cluster.url, '/api/health')).rejects.toThrow(/ECONNREFUSED/);
  }, 300_000);

  it('a port in use stops the cluster before it forks a worker: one message naming the port and how to choose another, exit 2', async () => {
    const port = new URL(single.url).port;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin.ts', 'serve', '--network', 'sim', '--out', tree.outDir, '--port', port, '--workers', '2'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toBe(`pegscope: port ${port} on 127.0.0.1 is in use (EADDRINUSE): stop what listens there, or choose another port with --port N or PEGSCOPE_PORT=N\n`);
  }, 300_000);
});
