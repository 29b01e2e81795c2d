/**
 * dumps/views-http.sql, written with --site-url (docs/dumps.md "Querying a
 * mirror over HTTP"): the views of dumps/views.sql over the site's URLs,
 * each dump's Parquet files listed, since HTTP has no glob. DuckDB's httpfs
 * is an extension downloaded on first use, which this offline test cannot
 * fetch: the test checks the listed URLs name exactly the release's Parquet
 * files under the site URL, and that the views over those files, read from
 * the release directory, give what views.sql gives.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRelease } from '../src/export/export.js';
import { DUMPS } from '../src/export/dumps.js';
import { analysedDb } from './helpers/export-pipeline.js';

const SITE = 'https://pegscope.example/sim/';
let work: string;
let release: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-dumps-http-'));
  const { db, source } = await analysedDb(':memory:', 3, 2_400, 1_800_000_000);
  try {
    release = (await exportRelease(db, { outDir: join(work, 'out'), siteUrl: SITE, dumpPartitionBlocks: 500 })).dir;
  } finally {
    await source.close();
    db.close();
  }
}, 300_000);
afterAll(() => { if (work) rmSync(work, { recursive: true, force: true }); });

/** Every view's row count, after running `sql` on a fresh in-memory DuckDB. */
async function counts(sql: string): Promise<Record<string, number>> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await conn.run(sql);
    const out: Record<string, number> = {};
    for (const dump of DUMPS) out[dump.name] = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${dump.name}`)).getRows()[0]![0]);
    return out;
  } finally {
    conn.closeSync();
  }
}

describe('dumps/views-http.sql', () => {
  it('lists every Parquet file of the release under the site URL, each dump its own, and nothing else', () => {
    const sql = readFileSync(join(release, 'dumps', 'views-http.sql'), 'utf8');
    expect(sql).toContain('INSTALL httpfs;\nLOAD httpfs;');
    const manifest = Object.keys((JSON.parse(readFileSync(join(release, 'manifest.json'), 'utf8')) as { files: Record<string, unknown> }).files);
    expect(manifest).toContain('dumps/views-http.sql');
    const listed = [...sql.matchAll(/'([^']+\.parquet)'/g)].map((m) => m[1]!);
    expect(listed.every((url) => url.startsWith(`${SITE}dumps/`))).toBe(true);
    expect(listed.map((url) => url.slice(SITE.length)).sort()).toEqual(manifest.filter((path) => path.endsWith('.parquet')).sort());
    // Several partitions of a partitioned dump, each named.
    expect(listed.filter((url) => url.includes('/dumps/pegins/')).length).toBeGreaterThan(1);
  });

  it('gives the views of dumps/views.sql, read from the files it names', async () => {
    const http = readFileSync(join(release, 'dumps', 'views-http.sql'), 'utf8');
    // The release directory stands in for the site: httpfs is not needed to read the same files from disk.
    const local = http.replace(/^(INSTALL|LOAD) httpfs;$/gm, '').replaceAll(SITE, `${release}/`);
    const globbed = readFileSync(join(release, 'dumps', 'views.sql'), 'utf8');
    const cwd = process.cwd();
    process.chdir(release);
    try {
      const expected = await counts(globbed);
      expect(Object.values(expected).some((n) => n > 0)).toBe(true);
      process.chdir(cwd);
      expect(await counts(local)).toEqual(expected);
    } finally {
      process.chdir(cwd);
    }
  });

  it('is not written without --site-url', async () => {
    const { db, source } = await analysedDb(':memory:', 3, 1_200, 1_800_000_000);
    try {
      const dir = (await exportRelease(db, { outDir: join(work, 'plain') })).dir;
      expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).not.toContain('views-http.sql');
    } finally {
      await source.close();
      db.close();
    }
  }, 120_000);
});
