import { mkdtempSync, readFileSync, readlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config.js';
import { runJob, runJobEvery } from '../src/job.js';
import { JobLockedError } from '../src/lock.js';
import { silentProgress } from '../src/progress.js';
import { freePort } from './helpers/net.js';

const dir = mkdtempSync(join(tmpdir(), 'pegscope-jobrun-'));
const outDir = join(dir, 'out');
const simConfig = resolveConfig({ network: 'sim', db: join(dir, 'sim.duckdb'), out: outDir });
const quiet = { log: () => undefined, progress: silentProgress };

async function nodeDownConfig() {
  const port = await freePort();
  return resolveConfig({ network: 'regtest', db: join(dir, 'regtest.duckdb'), out: outDir, rpcUrl: `http://127.0.0.1:${port}`, rpcUser: 'u', rpcPassword: 'secret-password' });
}

describe('pegscope job', () => {
  let firstRelease = '';

  beforeAll(async () => {
    const result = await runJob(simConfig, { source: 'sim', preset: 'tiny', seed: 3, ...quiet });
    firstRelease = result.releaseId;
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
    await expect(runJob(await nodeDownConfig(), { source: 'rpc', log: (l) => lines.push(l), progress: silentProgress }))
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
    await runJobEvery(await nodeDownConfig(), { source: 'rpc', log, progress: silentProgress }, '1s', stop.signal);
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
});
