/**
 * `export` publishes only what `analyze` covered: after a scan past the
 * analysed height without a new analysis, the release still describes the
 * chain up to as_of_height and nothing above it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';
import { exportRelease, type ExportResult } from '../src/export/export.js';
import { DUMPS, dumpGlob } from '../src/export/dumps.js';
import { releaseDocuments } from './helpers/release-docs.js';
import { analysedDb, treeFiles } from './helpers/export-pipeline.js';

const H1 = 2_000;
const H2 = 2_300;

let work: string;
let db: Db;
let release: ExportResult;

const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));
const count = async (sql: string): Promise<number> => Number((await db.one<{ n: bigint }>(sql))!.n);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-analysed-'));
  const pipeline = await analysedDb(':memory:', 11, H1, 1_800_000_000);
  db = pipeline.db;
  // Scanned further, never analysed.
  await scanChain(db, pipeline.source, { to: H2 });
  await pipeline.source.close();
  release = await exportRelease(db, { outDir: join(work, 'out') });
}, 300_000);

afterAll(() => {
  db?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Every number under a key naming a height, anywhere in a JSON value. */
function heightsIn(value: unknown, out: number[] = []): number[] {
  if (Array.isArray(value)) for (const item of value) heightsIn(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (/(^|_)height$/.test(key) && key !== 'as_of_height' && typeof item === 'number') out.push(item);
      else heightsIn(item, out);
    }
  }
  return out;
}

describe('an export after scanning past the analysed height', () => {
  it('has pegs above the analysed height in the database (the premise)', async () => {
    expect(await count(`SELECT count(*) AS n FROM pegins WHERE height > ${H1}`)).toBeGreaterThan(0);
    expect(await count(`SELECT count(*) AS n FROM pegouts WHERE height > ${H1}`)).toBeGreaterThan(0);
  });

  it('counts only the analysed pegs in health', async () => {
    const health = readJson(join(release.dir, 'api', 'health.json'));
    expect(health.as_of_height).toBe(H1);
    expect(health.health.pegins).toBe(await count(`SELECT count(*) AS n FROM pegins WHERE height <= ${H1}`));
    expect(health.health.pegouts).toBe(await count(`SELECT count(*) AS n FROM pegouts WHERE height <= ${H1}`));
  });

  it('writes no document for a peg or block above it, and no document holds one', async () => {
    const tree = treeFiles(release.dir);
    const trace = releaseDocuments(release.dir, 'trace');
    const later = await db.all<{ txid: string }>(`SELECT txid FROM pegins WHERE height > ${H1} UNION SELECT txid FROM pegouts WHERE height > ${H1}`);
    for (const { txid } of later) expect(trace.documents.has(txid), txid).toBe(false);
    const blocks = await db.all<{ height: number; hash: string }>(`SELECT height, hash FROM blocks WHERE height > ${H1} AND pegin_count + pegout_count > 0`);
    expect(blocks.length).toBeGreaterThan(0);
    const block = releaseDocuments(release.dir, 'block');
    for (const { height, hash } of blocks) {
      expect(block.documents.has(String(height)), String(height)).toBe(false);
      expect(block.aliases.has(hash), hash).toBe(false);
    }
    let documents = 0;
    for (const [rel, path] of tree) {
      if (!/^(api|data)\/.*\.json$/.test(rel)) continue;
      const value = readJson(path);
      // A range file holds documents: each is checked.
      for (const doc of rel.startsWith('api/range/') ? value.documents : [value]) {
        documents++;
        const above = heightsIn(doc).filter((height) => height > H1);
        expect(above, rel).toEqual([]);
      }
    }
    expect(documents).toBeGreaterThan(1000);
  });

  it('totals an address over the analysed pegs only', async () => {
    const expected = await db.all<{ address: string; funded: bigint; received: bigint }>(`
      WITH funded AS (SELECT address, count(DISTINCT pegin_txid) AS n FROM pegin_inputs WHERE height <= ${H1} AND address IS NOT NULL GROUP BY address),
           received AS (SELECT address, count(*) AS n FROM pegouts WHERE height <= ${H1} AND address IS NOT NULL GROUP BY address)
      SELECT address, coalesce(f.n, 0) AS funded, coalesce(r.n, 0) AS received FROM funded f FULL JOIN received r USING (address)`);
    const addresses = releaseDocuments(release.dir, 'address').documents;
    let compared = 0;
    for (const { address, funded, received } of expected) {
      const text = addresses.get(address);
      if (!text) continue;
      const doc = JSON.parse(text).address;
      expect([doc.pegins_funded.count, doc.pegouts_received.count], address).toEqual([Number(funded), Number(received)]);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
    const onlyLater = await db.all<{ address: string }>(`
      SELECT address FROM (SELECT address, height FROM pegouts UNION ALL SELECT address, height FROM pegin_inputs)
      WHERE address IS NOT NULL GROUP BY address HAVING min(height) > ${H1}`);
    expect(onlyLater.length).toBeGreaterThan(0);
    for (const { address } of onlyLater) expect(addresses.has(address), address).toBe(false);
  });

  it('dumps only the analysed rows: no height above it in any dump, every analysed peg, input and block', async () => {
    const analysedRows: Record<string, string> = {
      pegins: `SELECT count(*) AS n FROM pegins WHERE height <= ${H1}`,
      pegouts: `SELECT count(*) AS n FROM pegouts WHERE height <= ${H1}`,
      pegin_inputs: `SELECT count(*) AS n FROM pegin_inputs WHERE height <= ${H1}`,
      blocks: `SELECT count(*) AS n FROM blocks WHERE supply IS NOT NULL AND height <= ${H1}`,
    };
    for (const dump of DUMPS) {
      const { name, height } = dump;
      if (!height) continue;
      const want = analysedRows[name] ? await count(analysedRows[name]) : null;
      for (const file of [`read_parquet('${join(release.dir, dumpGlob(dump, 'parquet'))}')`, `read_csv('${join(release.dir, dumpGlob(dump, 'csv.gz'))}', header = true)`]) {
        const row = await db.one<{ n: bigint; top: number }>(`SELECT count(*) AS n, max(${height}) AS top FROM ${file}`);
        expect(Number(row!.n), `${name} ${file}`).toBeGreaterThan(0);
        expect(row!.top, `${name} ${file}`).toBeLessThanOrEqual(H1);
        if (want !== null) expect(Number(row!.n), `${name} ${file}`).toBe(want);
      }
    }
  });
});

describe('the export SQL', () => {
  it('reads blocks and pegs only through the views bounded by the analysed height', () => {
    const dir = join(import.meta.dirname, '..', 'src', 'export');
    const sources = [...readdirSync(dir).filter((f) => f.endsWith('.ts')), ...readdirSync(join(dir, 'sql')).filter((f) => f !== 'analysed.sql').map((f) => join('sql', f))];
    expect(sources).toContain(join('sql', 'nodes.sql'));
    for (const file of sources) {
      expect(readFileSync(join(dir, file), 'utf8').match(/\b(FROM|JOIN)\s+(blocks|pegins|pegin_inputs|pegouts)\b/gi), file).toBeNull();
    }
  });
});
