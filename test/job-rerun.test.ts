import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_CHECK_FILE } from '../src/api/health.js';
import { resolveConfig } from '../src/config.js';
import { exportRelease } from '../src/export/export.js';
import { runJob } from '../src/job.js';
import { silentProgress } from '../src/progress.js';
import { startServer } from '../src/serve/server.js';
import { sqlString, Db } from '../src/store/db.js';
import type { JobSummary } from '../src/summary.js';
import { get } from './helpers/http.js';

/**
 * `npm start` twice on the same simulated chain: the second run scans
 * nothing new, so it publishes nothing (docs/static-hosting.md "When nothing
 * changed") and only records that it checked, which health reports. An
 * export asked for anyway publishes what the first did: only the time of the
 * analysis (`updated_at`) may differ, and the files that carry it; a mirror
 * then re-uploads those few files, not the whole release.
 */
const dir = mkdtempSync(join(tmpdir(), 'pegscope-rerun-'));
const config = resolveConfig({ network: 'sim', db: join(dir, 'sim.duckdb'), out: join(dir, 'out') });
const lines: string[] = [];
const run = (labels?: string[]) => runJob(config, { source: 'sim', preset: 'tiny', seed: 1, labels, log: (line) => lines.push(line), progress: silentProgress });
const current = () => join(config.outDir, readlinkSync(join(config.outDir, 'current')));
const releases = () => readdirSync(join(config.outDir, 'releases')).sort();
const check = () => JSON.parse(readFileSync(join(config.outDir, JOB_CHECK_FILE), 'utf8')) as { checked_at: number; release: string; as_of_height: number };

interface Changes { added: Record<string, unknown>; changed: Record<string, unknown>; removed: Record<string, unknown> }

/** The fields that say when the analysis ran (health.json calls it analysis_updated, and last_check follows it). */
const STAMPS = new Set(['updated_at', 'analysis_updated', 'last_check']);

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
  // The signed index lists the sha256 of stamped files (the amount table, api/ranges.json): their digests are stamps too.
  if (path.endsWith('api/signed.json')) return { ...(JSON.parse(text()) as object), files: null };
  if (/\.json(?:\.gz)?$/.test(path)) return unstamped(JSON.parse(text()));
  if (path.endsWith('files.parquet')) return db.all(`SELECT path, kind, q FROM read_parquet(${sqlString(path)}) ORDER BY path`);
  if (path.endsWith('.parquet')) return JSON.stringify(await db.all(`SELECT * FROM read_parquet(${sqlString(path)}) ORDER BY ALL`), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  // An Atom feed without entries is as new as the analysis that found none (src/export/feeds.ts): its feed-level <updated> is a stamp.
  if (path.endsWith('.atom') && !text().includes('<entry>')) return text().replace(/<updated>[^<]*<\/updated>/, '<updated/>');
  return text();
}

describe('a second job on the same simulated chain', () => {
  let first = '';
  let firstSummary: JobSummary;
  let secondSummary: JobSummary;
  let releasesAfterFirst: string[] = [];
  let checkAfterFirst: ReturnType<typeof check>;
  let checkAfterSecond: ReturnType<typeof check>;
  let exported = '';
  let db: Db;
  beforeAll(async () => {
    firstSummary = await run();
    first = current();
    releasesAfterFirst = releases();
    checkAfterFirst = check();
    // The check is in whole seconds: the second must be later.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    secondSummary = await run();
    checkAfterSecond = check();
    const fileDb = await Db.open(config.dbPath);
    try {
      exported = (await exportRelease(fileDb, { outDir: config.outDir, progress: silentProgress })).dir;
    } finally {
      fileDb.close();
    }
    db = await Db.open(':memory:');
  }, 240_000);
  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes nothing: no new release directory, and current as it was', () => {
    expect(firstSummary.published).toBe(true);
    expect(secondSummary.published).toBe(false);
    expect(secondSummary.release_id).toBe(firstSummary.release_id);
    expect(secondSummary.changes).toEqual({ added: 0, changed: 0, removed: 0 });
    expect(releasesAfterFirst).toEqual([firstSummary.release_id]);
    expect(lines).toContain(`up to date: release ${firstSummary.release_id} (height ${firstSummary.as_of_height})`);
  });

  it('records each successful check beside the releases, not inside them', () => {
    expect(checkAfterFirst).toMatchObject({ release: firstSummary.release_id, as_of_height: firstSummary.as_of_height });
    expect(checkAfterSecond.release).toBe(firstSummary.release_id);
    expect(checkAfterSecond.checked_at).toBeGreaterThan(checkAfterFirst.checked_at);
    expect(existsSync(join(first, JOB_CHECK_FILE))).toBe(false);
  });

  it('publishes the simulated labels from the first run on, and an export asked for anyway the same content', async () => {
    const stats = (release: string) => JSON.parse(readFileSync(join(release, 'api', 'stats.json'), 'utf8')).stats;
    expect(exported).not.toBe(first);
    expect(stats(first).labeled_addresses).toBeGreaterThan(0);
    expect(stats(first)).toEqual(stats(exported));
    const changes = JSON.parse(readFileSync(join(exported, 'changes.json'), 'utf8')) as Changes;
    expect(changes.added).toEqual({});
    expect(changes.removed).toEqual({});
    // The per-address, per-peg and per-block documents carry no stamp: none may change.
    expect(Object.keys(changes.changed).filter((path) => path.startsWith('api/range/'))).toEqual([]);
    for (const path of Object.keys(changes.changed)) {
      expect(await content(db, join(exported, path)), path).toEqual(await content(db, join(first, path)));
    }
  });

  it('publishes again when the labels change, though no block arrived', async () => {
    const labels = join(dir, 'more-labels.csv');
    const address = (JSON.parse(readFileSync(join(current(), 'api', 'links.json'), 'utf8')) as { links: { pegout_address: string }[] }).links[0]!.pegout_address;
    writeFileSync(labels, `address,entity,category,confidence,source\n${address},Rerun Exchange,exchange,0.9,rerun test\n`);
    const summary = await run([labels]);
    expect(summary.published).toBe(true);
    expect(summary.new_blocks).toBe(0);
    expect(current()).toBe(join(config.outDir, 'releases', summary.release_id));
  }, 120_000);

  it('health stays ok on a quiet chain while the job checks, and turns false once it stops checking', async () => {
    const { checked_at: checkedAt } = check();
    const health = JSON.parse(readFileSync(join(current(), 'api', 'health.json'), 'utf8')).health as { analysis_updated: number };
    // The release's analysis is older than the last check: pretend it is an hour and a half older.
    let now = (checkedAt + 60) * 1000;
    const server = await startServer({ sites: [{ network: 'sim', outDir: config.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0, staleAfterSeconds: 600, now: () => now });
    try {
      const quiet = (await get(server.url, '/api/health')).json.health;
      expect(quiet).toMatchObject({ ok: true, last_check: checkedAt, check_age_seconds: 60, analysis_updated: health.analysis_updated });
      writeFileSync(join(config.outDir, JOB_CHECK_FILE), JSON.stringify({ ...check(), checked_at: health.analysis_updated - 5400 }));
      now = (health.analysis_updated + 700) * 1000;
      const analysisOnly = (await get(server.url, '/api/health')).json.health;
      // An older check never hides a newer analysis.
      expect(analysisOnly).toMatchObject({ ok: false, last_check: health.analysis_updated, check_age_seconds: 700, analysis_age_seconds: 700 });
      writeFileSync(join(config.outDir, JOB_CHECK_FILE), JSON.stringify({ ...check(), checked_at: health.analysis_updated + 650 }));
      expect((await get(server.url, '/api/health')).json.health).toMatchObject({ ok: true, check_age_seconds: 50, analysis_age_seconds: 700 });
    } finally {
      await server.close();
    }
  });
});
