import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, readlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config.js';
import { runJob, runJobs, runJobsEvery } from '../src/job.js';
import { JobLockedError } from '../src/lock.js';
import { silentProgress } from '../src/progress.js';
import { REFUSED_URL } from './helpers/net.js';

const dir = mkdtempSync(join(tmpdir(), 'pegscope-jobrun-'));
const outDir = join(dir, 'out');
const simConfig = resolveConfig({ network: 'sim', db: join(dir, 'sim.duckdb'), out: outDir });
const quiet = { log: () => undefined, progress: silentProgress };

function nodeDownConfig() {
  return resolveConfig({ network: 'regtest', db: join(dir, 'regtest.duckdb'), out: outDir, rpcUrl: REFUSED_URL, rpcUser: 'u', rpcPassword: 'secret-password' });
}

describe('pegscope job', () => {
  let firstRelease = '';

  beforeAll(async () => {
    const result = await runJob(simConfig, { source: 'sim', preset: 'tiny', seed: 3, ...quiet });
    firstRelease = result.release_id;
  }, 180_000);

  it('scans, imports the simulated labels, analyses and publishes a release', () => {
    expect(readlinkSync(join(outDir, 'current'))).toContain(firstRelease);
    const stats = JSON.parse(readFileSync(join(outDir, 'current', 'api', 'stats.json'), 'utf8'));
    expect(stats.network).toBe('sim');
    expect(stats.stats.total_pegins).toBeGreaterThan(100);
    expect(stats.stats.labeled_addresses).toBeGreaterThan(0);
    expect(existsSync(`${simConfig.dbPath}.lock`)).toBe(false);
  });

  it('a node that is down fails the run with a clear error and leaves the last good release served', async () => {
    const lines: string[] = [];
    await expect(runJob(nodeDownConfig(), { source: 'rpc', log: (l) => lines.push(l), progress: silentProgress }))
      .rejects.toThrow(/cannot reach the Litecoin node/);
    expect(readlinkSync(join(outDir, 'current'))).toContain(firstRelease);
    expect(JSON.parse(readFileSync(join(outDir, 'current', 'api', 'health.json'), 'utf8')).network).toBe('sim');
    expect(lines.join('\n')).not.toContain('secret-password');
  }, 60_000);

  it('--every logs a failed tick and retries at the next one, then stops when asked', async () => {
    const lines: string[] = [];
    const stop = new AbortController();
    const log = (line: string) => {
      lines.push(line);
      if (lines.filter((l) => l.startsWith('job failed')).length === 2) stop.abort();
    };
    await runJobsEvery([nodeDownConfig()], { source: 'rpc', log, progress: silentProgress }, '1s', stop.signal);
    const failures = lines.filter((l) => l.startsWith('job failed'));
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/last good release stays published; retrying in 1s/);
    expect(lines.at(-1)).toBe('job: stopped');
  }, 90_000);

  it('refuses to run while another job holds the database', async () => {
    const running = runJob(simConfig, { source: 'sim', preset: 'tiny', seed: 3, ...quiet });
    await expect(runJob(simConfig, { source: 'sim', preset: 'tiny', seed: 3, ...quiet })).rejects.toThrow(JobLockedError);
    await running;
  }, 180_000);

  describe('with several networks (job --config)', () => {
    // A node that refuses every password: its network fails at once, without retries.
    const refusing = createServer((req, res) => { req.resume(); res.writeHead(401).end(); });
    let regtest: ReturnType<typeof resolveConfig>;
    beforeAll(async () => {
      await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
      const port = (refusing.address() as { port: number }).port;
      regtest = resolveConfig({ network: 'regtest', db: join(dir, 'refused.duckdb'), out: join(dir, 'out-regtest'), rpcUrl: `http://127.0.0.1:${port}`, rpcUser: 'u', rpcPassword: 'p' });
    });
    afterAll(() => { refusing.close(); });

    /** The network of each line, in order, with repeats collapsed: ['sim', 'regtest'] when sim ran wholly before regtest. */
    const turns = (lines: string[]) => lines.map((l) => /^\[(\w+)\]/.exec(l)?.[1]).filter((n, i, all) => n !== undefined && n !== all[i - 1]);

    it('runs the networks in turn, each line naming its network, and a failing one does not stop the others', async () => {
      const lines: string[] = [];
      await expect(runJobs([simConfig, regtest], { preset: 'tiny', seed: 3, log: (l) => lines.push(l), progress: silentProgress }))
        .rejects.toThrow('the job failed for regtest (see above); the other networks were published');
      expect(turns(lines)).toEqual(['sim', 'regtest']);
      expect(lines.some((l) => l.startsWith('[sim] export:') || l.startsWith('[sim] scan:'))).toBe(true);
      expect(lines.at(-1)).toMatch(/^\[regtest\] job failed: the node at .* rejected the RPC user\/password \(HTTP 401\)/);
    }, 180_000);

    it('--every runs every network in turn on each tick', async () => {
      const lines: string[] = [];
      const stop = new AbortController();
      const log = (line: string) => {
        lines.push(line);
        if (lines.filter((l) => l.startsWith('[regtest] job failed')).length === 2) stop.abort();
      };
      await runJobsEvery([simConfig, regtest], { preset: 'tiny', seed: 3, log, progress: silentProgress }, '1s', stop.signal);
      expect(turns(lines)).toEqual(['sim', 'regtest', 'sim', 'regtest']);
      expect(lines.filter((l) => l.startsWith('[regtest] job failed'))[0]).toMatch(/retrying in 1s$/);
      expect(lines.at(-1)).toBe('job: stopped');
    }, 180_000);
  });
});
