import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlString, type Db } from '../src/store/db.js';
import { exportRelease } from '../src/export/export.js';
import { DOCS_DB } from '../src/export/state.js';
import { analysedDb, scanAndAnalyze } from './helpers/export-pipeline.js';

/**
 * An incremental export (docs/static-hosting.md) takes the documents it does not render
 * from the site's documents index, so it counts the documents the index will
 * hold once its own are merged and fails, before publishing, unless there is
 * one per key: an index that lost a document no export renders again, or
 * holds one with no key, must not go unnoticed.
 */
const HORIZON = 150;
const NOW = 1_800_000_000;
const work = mkdtempSync(join(tmpdir(), 'pegscope-docs-check-'));
const site = join(work, 'site');
let db: Db;

/** The site exported at height 2,400, and its database one block further. */
beforeAll(async () => {
  const pipeline = await analysedDb(join(work, 'sim.duckdb'), 4, 2_400, NOW);
  db = pipeline.db;
  await scanAndAnalyze(db, pipeline.source, 2_400, NOW, HORIZON);
  await exportRelease(db, { outDir: site });
  await scanAndAnalyze(db, pipeline.source, 2_401, NOW + 150, HORIZON);
  await pipeline.source.close();
}, 300_000);

afterAll(() => {
  db.close();
  rmSync(work, { recursive: true, force: true });
});

/** A copy of the site whose documents index `tamper` (SQL on the index attached as tampered) changed. */
async function tamperedSite(name: string, tamper: string): Promise<string> {
  const copy = join(work, name);
  cpSync(site, copy, { recursive: true, verbatimSymlinks: true });
  await db.exec(`ATTACH ${sqlString(join(copy, 'state', DOCS_DB))} AS tampered`);
  try {
    await db.exec(tamper);
  } finally {
    await db.exec('DETACH tampered');
  }
  return copy;
}

describe('the documents check of an incremental export', () => {
  it('passes on the index as the previous export left it', async () => {
    const copy = await tamperedSite('untouched', 'SELECT 1');
    await expect(exportRelease(db, { outDir: copy })).resolves.toBeDefined();
  }, 120_000);

  it('fails when the index lost a document this export does not render (the lowest block)', async () => {
    const copy = await tamperedSite('lost', `DELETE FROM tampered.docs WHERE kind = 'block'
      AND q = (SELECT q FROM tampered.docs WHERE kind = 'block' ORDER BY q::INTEGER LIMIT 1)`);
    await expect(exportRelease(db, { outDir: copy })).rejects.toThrow(/\d+ block documents for \d+ keys/);
  }, 120_000);

  it('fails when the index holds a document with no key', async () => {
    const copy = await tamperedSite('gained', `INSERT INTO tampered.docs
      SELECT kind, 'no-such-address', prefix, h, stamp_height, stamp_time FROM tampered.docs WHERE kind = 'address' LIMIT 1`);
    await expect(exportRelease(db, { outDir: copy })).rejects.toThrow(/\d+ address documents for \d+ keys/);
  }, 120_000);
});
