import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config.js';
import { runJob } from '../src/job.js';
import { silentProgress } from '../src/progress.js';
import { sqlString, Db } from '../src/store/db.js';

/**
 * `npm start` twice on the same simulated chain: the second run scans nothing
 * new, so it must publish what the first did. Only the time of the analysis
 * (`updated_at`) may differ, and the files that carry it; a mirror then
 * re-uploads those few files, not the whole release (docs/static-hosting.md).
 */
const dir = mkdtempSync(join(tmpdir(), 'pegscope-rerun-'));
const config = resolveConfig({ network: 'sim', db: join(dir, 'sim.duckdb'), out: join(dir, 'out') });
const run = () => runJob(config, { source: 'sim', preset: 'tiny', seed: 1, log: () => undefined, progress: silentProgress });
const current = () => join(config.outDir, readlinkSync(join(config.outDir, 'current')));

interface Changes { added: Record<string, unknown>; changed: Record<string, unknown>; removed: Record<string, unknown> }

/** The fields that say when the analysis ran (health.json calls it analysis_updated). */
const STAMPS = new Set(['updated_at', 'analysis_updated']);

/** A JSON value without its analysis time, at any depth. */
function unstamped(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unstamped);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !STAMPS.has(key)).map(([key, v]) => [key, unstamped(v)]));
}

/**
 * What a file says apart from when it was analysed: JSON without its stamps,
 * Parquet's rows (its key-value metadata carries the stamp). The files index
 * lists every file's size and sha256, which follow the stamps (a gzip's size
 * too): the files and their documents must stay.
 */
async function content(db: Db, path: string): Promise<unknown> {
  const text = (): string => (path.endsWith('.gz') ? gunzipSync(readFileSync(path)).toString('utf8') : readFileSync(path, 'utf8'));
  if (/\.json(?:\.gz)?$/.test(path)) return unstamped(JSON.parse(text()));
  if (path.endsWith('files.parquet')) return db.all(`SELECT path, kind, q FROM read_parquet(${sqlString(path)}) ORDER BY path`);
  if (path.endsWith('.parquet')) return JSON.stringify(await db.all(`SELECT * FROM read_parquet(${sqlString(path)}) ORDER BY ALL`), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  // An Atom feed without entries is as new as the analysis that found none (src/export/feeds.ts): its feed-level <updated> is a stamp.
  if (path.endsWith('.atom') && !text().includes('<entry>')) return text().replace(/<updated>[^<]*<\/updated>/, '<updated/>');
  return text();
}

describe('a second job on the same simulated chain', () => {
  let first = '';
  let second = '';
  let db: Db;
  beforeAll(async () => {
    await run();
    first = current();
    await run();
    second = current();
    db = await Db.open(':memory:');
  }, 180_000);
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const stats = (release: string) => JSON.parse(readFileSync(join(release, 'api', 'stats.json'), 'utf8')).stats;

  it('publishes the simulated labels from the first run on', () => {
    expect(second).not.toBe(first);
    expect(stats(first).labeled_addresses).toBeGreaterThan(0);
    expect(stats(first)).toEqual(stats(second));
  });

  it('changes no file beyond its analysis time', async () => {
    const changes = JSON.parse(readFileSync(join(second, 'changes.json'), 'utf8')) as Changes;
    expect(changes.added).toEqual({});
    expect(changes.removed).toEqual({});
    // The per-address, per-peg and per-block documents carry no stamp: none may change.
    expect(Object.keys(changes.changed).filter((path) => path.startsWith('api/range/'))).toEqual([]);
    for (const path of Object.keys(changes.changed)) {
      expect(await content(db, join(second, path)), path).toEqual(await content(db, join(first, path)));
    }
  });
});
