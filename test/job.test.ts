import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireJobLock, JobLockedError } from '../src/lock.js';
import { parseDuration, resolveConfig, UsageError } from '../src/config.js';
import { loadConfigFile } from '../src/config-file.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'pegscope-job-'));

describe('job lock', () => {
  it('refuses a second job on the same database while the first holds the lock', () => {
    const db = join(tempDir(), 'x.duckdb');
    const release = acquireJobLock(db);
    expect(() => acquireJobLock(db)).toThrow(JobLockedError);
    release();
    expect(existsSync(`${db}.lock`)).toBe(false);
    acquireJobLock(db)();
  });

  it('takes over a lock left by a process that died, and then holds it', () => {
    const db = join(tempDir(), 'x.duckdb');
    // Above Linux's largest pid (4194304): no process can have it.
    writeFileSync(`${db}.lock`, '999999999');
    const release = acquireJobLock(db);
    expect(readFileSync(`${db}.lock`, 'utf8')).toBe(String(process.pid));
    expect(() => acquireJobLock(db)).toThrow(`another pegscope job (pid ${process.pid}) is running on ${db}; this run is skipped`);
    release();
    expect(existsSync(`${db}.lock`)).toBe(false);
  });

  it('leaves a lock held by another live process alone', async () => {
    const db = join(tempDir(), 'x.duckdb');
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => other.once('spawn', resolve));
      writeFileSync(`${db}.lock`, String(other.pid));
      expect(() => acquireJobLock(db)).toThrow(JobLockedError);
      expect(() => acquireJobLock(db)).toThrow(`another pegscope job (pid ${other.pid}) is running on ${db}`);
      expect(readFileSync(`${db}.lock`, 'utf8')).toBe(String(other.pid));
    } finally {
      other.kill('SIGKILL');
    }
  });
});

describe('configuration', () => {
  afterEach(() => { vi.unstubAllEnvs(); });

  it('defaults to the simulated chain when no node is configured', () => {
    vi.stubEnv('LTC_RPC_URL', undefined);
    const config = resolveConfig({});
    expect(config.network.name).toBe('sim');
    expect(config.rpc).toBeNull();
    expect(config.dbPath).toBe('data/sim.duckdb');
    expect(config.outDir).toBe('out/sim');
  });

  it('defaults to mainnet when a node is configured, flags before environment', () => {
    const config = resolveConfig({ rpcUrl: 'http://127.0.0.1:9332', rpcUser: 'u', rpcPassword: 'p' });
    expect(config.network.name).toBe('mainnet');
    expect(config.rpc?.url).toBe('http://127.0.0.1:9332');
    expect(config.rpc?.user).toBe('u');
  });

  it('rejects an unknown network naming the allowed ones', () => {
    expect(() => resolveConfig({ network: 'bitcoin' })).toThrow(/allowed: mainnet, testnet, regtest, sim/);
    expect(() => resolveConfig({ network: 'bitcoin' })).toThrow(UsageError);
  });

  it('parses durations and rejects nonsense', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(() => parseDuration('5 minutes')).toThrow(/use a number followed by s, m or h/);
    expect(() => parseDuration('0s')).toThrow(/positive/);
  });

  it('reads a two-network config file with separate databases and trees', () => {
    const dir = tempDir();
    const file = join(dir, 'pegscope.json');
    writeFileSync(file, JSON.stringify({ networks: [
      { network: 'mainnet', db: 'm.duckdb', out: 'out/m', rpcUrl: 'http://127.0.0.1:9332', rpcCookie: '/c', hostnames: ['a.example'] },
      { network: 'testnet', db: 't.duckdb', out: 'out/t', rpcUrl: 'http://127.0.0.1:19332', hostnames: ['b.example'] },
    ] }));
    const sites = loadConfigFile(file);
    expect(sites.map((s) => [s.config.network.name, s.config.dbPath, s.config.outDir, s.hostnames])).toEqual([
      ['mainnet', 'm.duckdb', 'out/m', ['a.example']],
      ['testnet', 't.duckdb', 'out/t', ['b.example']],
    ]);
  });

  it('rejects a config file that names a network twice or has no networks', () => {
    const dir = tempDir();
    const twice = join(dir, 'twice.json');
    writeFileSync(twice, JSON.stringify({ networks: [{ network: 'sim' }, { network: 'sim', db: 'b' }] }));
    expect(() => loadConfigFile(twice)).toThrow(/appears twice/);
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{}');
    expect(() => loadConfigFile(empty)).toThrow(/non-empty "networks" array/);
  });

  it('rejects a config file whose rpcUrl is not http(s), naming the entry', () => {
    const file = join(tempDir(), 'ftp.json');
    writeFileSync(file, JSON.stringify({ networks: [{ network: 'testnet', rpcUrl: 'ftp://127.0.0.1:19332' }] }));
    expect(() => loadConfigFile(file)).toThrow(UsageError);
    expect(() => loadConfigFile(file)).toThrow(`${file}: networks[0]: "rpcUrl" must be an http:// or https:// URL, got ftp://…`);
  });
});
