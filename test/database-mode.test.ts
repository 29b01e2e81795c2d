/**
 * The database holds every watch's webhook secret and URL (docs/deploy.md
 * "The database is private"): pegscope creates it for its owner alone, and
 * `watch add` warns when other users can read it.
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/cli.js';
import { Db, withPrivateFiles } from '../src/store/db.js';

const work = mkdtempSync(join(tmpdir(), 'pegscope-db-mode-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const modeOf = (path: string): number | null => {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat ? stat.mode & 0o777 : null;
};

async function cli(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  let stderr = '', stdout = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => { stderr += String(chunk); return true; });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => { stdout += String(chunk); return true; });
  try {
    return { code: await main(args), stderr, stdout };
  } finally {
    err.mockRestore();
    out.mockRestore();
    process.exitCode = undefined;
  }
}

describe('probe: the database\'s mode', () => {
  it('a new database is 0600 in a new directory 0700, whatever the umask gives other files', async () => {
    const path = join(work, 'fresh', 'data', 'mainnet.duckdb');
    (await Db.open(path)).close();
    expect(modeOf(path)?.toString(8)).toBe('600');
    expect(modeOf(join(work, 'fresh', 'data'))?.toString(8)).toBe('700');
  });

  it('the write-ahead log DuckDB recreates at every checkpoint is 0600 while `watch add` writes', async () => {
    const path = join(work, 'wal.duckdb');
    const db = await Db.open(path);
    try {
      await db.checkpoint();
      await withPrivateFiles(async () => {
        await db.setMeta('probe', 'secret-bearing write');
        expect(modeOf(`${path}.wal`)?.toString(8)).toBe('600');
      });
    } finally {
      db.close();
    }
  });

  it('`watch add` leaves the secret in the 0600 file, no log behind, and warns about a database other users can read', async () => {
    const path = join(work, 'watch.duckdb');
    (await Db.open(path)).close();
    const add = (address: string) => cli(['watch', 'add', address, '--network', 'mainnet', '--db', path, '--webhook', 'http://127.0.0.1:9/hook?token=t0k3n', '--allow-private-webhooks']);
    const quiet = await add('ltc1q5kg4gaxaqzr33y8r099j0u5xp8fypn8jg6ht4e');
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/warning/);
    expect(modeOf(path)?.toString(8)).toBe('600');
    expect([null, 0o600]).toContain(modeOf(`${path}.wal`));

    chmodSync(path, 0o644);
    const warned = await add('M8B5sGRdfNmF46qEpo2KJL7BTHe1jVH8tZ');
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain(`warning: ${path} (mode 0644) can be read or changed by other users, and it holds every watch's webhook secret and URL; run \`chmod 600 ${path}\``);
    expect(warned.stderr).not.toContain('t0k3n');
  });
});
