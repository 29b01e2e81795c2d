import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db, sqlString } from '../src/store/db.js';
import { createSimSource, type SimSource } from '../src/chain/sim/index.js';
import { scanChain } from '../src/store/scan.js';
import { analyze } from '../src/analysis/analyze.js';
import { exportRelease, type ExportOptions, type ExportResult } from '../src/export/export.js';
import type { Layout } from '../src/export/ranges.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import { currentRelease } from '../src/export/publish.js';
import { expectSameState, expectSameTree, scanAndAnalyze } from './helpers/export-pipeline.js';
import { DOCS_DB } from '../src/export/state.js';
import { digestColumns, exportSql } from '../src/export/sql.js';
import { finalChain, fixtureSource, loadRecording, orphanChain } from './helpers/fixture-source.js';

/**
 * An incremental export (docs/static-hosting.md) renders only the documents that could have
 * changed, yet its tree is byte for byte the tree of a full export of the same
 * database. Two sites get the same history: one exports incrementally, the
 * other renders everything every time.
 */
const HORIZON = 150;
/** Dump partitions of 500 blocks: the tiny chain's early ones are final and carried over. */
const PARTITION = 500;
let work: string;
beforeAll(() => { work = mkdtempSync(join(tmpdir(), 'pegscope-incremental-')); });
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Sites { incremental: ExportResult; full: ExportResult; floor: string }
/** How many documents the incremental export rendered (its log line). */
const rendered = (sites: Sites): number => Number(/^rendering (\d+) of/.exec(sites.floor)?.[1] ?? NaN);

type Members = Record<string, { size: number; sha256: string }>;
const manifestFiles = (dir: string): Members => {
  const files: Members = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).files;
  return Object.fromEntries(Object.entries(files).filter(([path]) => path !== 'changes.json').map(([path, f]) => [path, { size: f.size, sha256: f.sha256 }]));
};

/** The documents index beside a release's state, as an earlier pegscope wrote it per release (kind, q, md5 in two halves, stamp), which held no block hashes. */
async function writeLegacyDocsIndex(stateDir: string, parquet: string): Promise<void> {
  const db = await Db.open(':memory:');
  try {
    await db.exec(`ATTACH ${sqlString(join(dirname(stateDir), DOCS_DB))} AS docs_index (READ_ONLY)`);
    await db.exec(`COPY (SELECT kind, q, ${digestColumns('h')}, stamp_height, stamp_time FROM docs_index.docs WHERE kind <> 'alias:block' ORDER BY kind, q) TO ${sqlString(parquet)} (FORMAT parquet)`);
  } finally {
    db.close();
  }
}

/**
 * The attribution and peg digests beside a release's state, as an earlier
 * pegscope wrote them per release (attribution.parquet: what each address
 * showed, from the analysis the release was made from; pegs.parquet, unless
 * `pegs` is false: the peg digests), taken out of the site's documents index.
 */
async function writeLegacyDigests(db: Db, stateDir: string, pegs: boolean): Promise<void> {
  for (const script of ['macros', 'attribution', 'attribution-now']) await db.exec(exportSql(script));
  await db.exec(`COPY (SELECT address, a.attribution::VARCHAR AS attribution, cluster_id, cluster_size FROM attribution_now() LEFT JOIN x_attribution a USING (address) LEFT JOIN a_clusters USING (address) ORDER BY address) TO ${sqlString(join(stateDir, 'attribution.parquet'))} (FORMAT parquet)`);
  await db.exec(`ATTACH ${sqlString(join(dirname(stateDir), DOCS_DB))} AS legacy_index`);
  try {
    if (pegs) await db.exec(`COPY (SELECT side, txid, vout, ${digestColumns('digest')} FROM legacy_index.pegs) TO ${sqlString(join(stateDir, 'pegs.parquet'))} (FORMAT parquet)`);
    await db.exec('DELETE FROM legacy_index.attribution; DELETE FROM legacy_index.pegs');
  } finally {
    await db.exec('DETACH legacy_index');
  }
}

/** A release's changes.json. */
const changesOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'changes.json'), 'utf8'));

/** changes.json is exactly the difference between the previous manifest and this one. */
function expectChangesBetween(previousDir: string | null, dir: string): void {
  const before = previousDir ? manifestFiles(previousDir) : {};
  const now = manifestFiles(dir);
  const pick = (from: Members, paths: string[]): Members => Object.fromEntries(paths.sort().map((p) => [p, from[p]!]));
  const changes = changesOf(dir);
  expect(changes.added).toEqual(pick(now, Object.keys(now).filter((p) => !(p in before))));
  expect(changes.changed).toEqual(pick(now, Object.keys(now).filter((p) => p in before && before[p]!.sha256 !== now[p]!.sha256)));
  expect(changes.removed).toEqual(pick(before, Object.keys(before).filter((p) => !(p in now))));
  expect(changes.previous).toEqual(previousDir ? expect.objectContaining({ as_of_height: expect.any(Number) }) : null);
}

/** Exports into both sites and checks the trees are the same. */
async function exportBoth(db: Db, name: string, layout: Layout): Promise<Sites> {
  const logs: string[] = [];
  const options: Omit<ExportOptions, 'outDir'> = { layout, hostBudget: NO_HOST_BUDGET, dumpPartitionBlocks: PARTITION };
  const previous = await currentRelease(join(work, name, 'incremental'));
  const incremental = await exportRelease(db, { ...options, outDir: join(work, name, 'incremental'), log: (line) => logs.push(line) });
  // The full export renders in small batches, the incremental one (a tiny chain) in one: batching changes no byte.
  const full = await exportRelease(db, { ...options, outDir: join(work, name, 'full'), incremental: false, renderBatchDocs: 97 });
  expectSameTree(incremental.dir, full.dir);
  await expectSameState(incremental.stateDir, full.stateDir);
  // The exporter's own state is beside the release, never in it.
  expect(Object.keys(manifestFiles(incremental.dir)).filter((path) => /^data\/[^/]+\.(parquet|json\.gz)$|^data\/state\.json$|^nginx\.conf\./.test(path))).toEqual([]);
  expectChangesBetween(previous, incremental.dir);
  return { incremental, full, floor: logs.find((l) => l.startsWith('rendering')) ?? '' };
}

describe.each<Layout>(['ranges', 'files'])('incremental export (%s layout)', (layout) => {
  let db: Db;
  let source: SimSource;
  const now = 1_800_000_000;
  const advance = (to: number, at: number): Promise<void> => scanAndAnalyze(db, source, to, at, HORIZON);
  /** Rows on one side only of two Parquet files. */
  const differingRows = async (a: string, b: string): Promise<number> => {
    const [left, right] = [a, b].map((file) => `FROM read_parquet(${sqlString(file)})`);
    return Number((await db.one<{ n: bigint }>(`SELECT count(*) AS n FROM ((${left} EXCEPT ALL ${right}) UNION ALL (${right} EXCEPT ALL ${left}))`))!.n);
  };

  beforeAll(async () => {
    db = await Db.open(join(work, `${layout}.duckdb`));
    source = createSimSource({ preset: 'tiny', seed: 11, worker: false });
  });
  afterAll(async () => { db.close(); await source.close(); });

  it('gives the full export\'s tree after scan, +1 block, +100 blocks and a labels import, rendering only pegs above the floor', async () => {
    await advance(2_400, now);
    const first = await exportBoth(db, layout, layout);
    expect(first.floor).toMatch(/^rendering (\d+) of \1 documents: every document \(no previous release to build on\)$/);

    await advance(2_401, now + 150);
    const one = await exportBoth(db, layout, layout);
    // One new block changes few files: the budget a mirror uploads.
    const changed = changesOf(one.incremental.dir);
    expect(Object.keys(changed.added).length + Object.keys(changed.changed).length).toBeLessThan(one.incremental.files / 4);
    // Block 2,401 holds no peg: the analysis is the one the first release shows, so no peg or address is compared and nothing is rendered.
    expect((await db.one<{ pegs: number }>('SELECT pegin_count + pegout_count AS pegs FROM blocks WHERE height = 2401'))?.pegs).toBe(0);
    expect(one.floor).toMatch(/^rendering 0 of \d+ documents: the analysis is the one the previous release shows, so no peg or address changed$/);
    expect(one.incremental.reused).toBeGreaterThan(0);
    // So are the tables without heights: the previous release's files, which name the analysis that last changed their rows.
    const tables = ['attribution', 'labels', 'entity_flows'].map((name) => `dumps/${name}.parquet`);
    for (const path of tables) {
      expect(Object.keys(changed.changed)).not.toContain(path);
      expect(statSync(join(one.incremental.dir, path)).nlink).toBeGreaterThan(1);
    }

    // Block 2,402 holds one: only what changed is rendered, not every document of a peg above the floor.
    await advance(2_402, now + 300);
    const withPeg = await exportBoth(db, layout, layout);
    expect(withPeg.floor).toMatch(new RegExp(`: the documents of changed pegs above height ${2_401 - 2 * HORIZON} and of addresses whose attribution changed$`));
    expect(rendered(withPeg)).toBeGreaterThan(0);
    expect(rendered(withPeg)).toBeLessThan(rendered(first) / 20);

    await advance(2_501, now + 15_150);
    const hundred = await exportBoth(db, layout, layout);
    expect(hundred.floor).toContain(`changed pegs above height ${2_402 - 2 * HORIZON} `);
    // Chain data is partitioned ten times finer (50 blocks here): partitions below the tip are carried over, the open one is written; all name their heights.
    const files = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).files as Record<string, unknown>;
    const partitions = Object.keys(files(hundred.incremental.dir)).filter((p) => p.startsWith('dumps/pegins/') && p.endsWith('.parquet'));
    const firstPart = Math.floor(Number((await db.one<{ h: number }>('SELECT min(height) AS h FROM blocks'))!.h) / 50) * 50;
    expect(partitions[0]).toBe(`dumps/pegins/pegins-${String(firstPart).padStart(8, '0')}-${String(firstPart + 49).padStart(8, '0')}.parquet`);
    expect(partitions.at(-1)).toBe('dumps/pegins/pegins-00002500-00002549.parquet');
    const changes = changesOf(hundred.incremental.dir);
    expect(Object.keys(changes.added)).toContain('dumps/pegins/pegins-00002500-00002549.parquet');
    expect(Object.keys(changes.changed)).toContain('dumps/pegins/pegins-00002400-00002449.parquet');
    expect(Object.keys(changes.changed)).not.toContain('dumps/pegins/pegins-00002350-00002399.parquet');
    expect(statSync(join(hundred.incremental.dir, 'dumps/pegins/pegins-00002350-00002399.parquet')).nlink).toBeGreaterThan(1);
    // Clusters are partitioned by the height they first funded a peg-in: a partition the previous release held whole is written again
    // exactly when its rows changed, else hard-linked.
    const clusterParts = Object.keys(files(hundred.incremental.dir))
      .filter((p) => Number(/^dumps\/clusters\/clusters-\d+-(\d+)\.parquet$/.exec(p)?.[1] ?? Infinity) < 2_402);
    expect(clusterParts.length).toBeGreaterThan(2);
    const rewritten: string[] = [];
    for (const path of clusterParts) {
      const differing = await differingRows(join(withPeg.incremental.dir, path), join(hundred.incremental.dir, path));
      const linked = statSync(join(hundred.incremental.dir, path)).nlink > 1;
      expect({ path, changed: path in changes.changed, linked }).toEqual({ path, changed: differing > 0, linked: differing === 0 });
      if (differing > 0) rewritten.push(path);
    }
    expect(rewritten.length).toBeLessThan(clusterParts.length);

    // Labels on addresses of old pegs change attribution below the floor.
    const old = await db.all<{ address: string }>(
      'SELECT DISTINCT address FROM pegouts WHERE height < $1 AND address IS NOT NULL ORDER BY address LIMIT 3', [2_000]);
    expect(old.length).toBeGreaterThan(0);
    for (const { address } of old) await db.exec("INSERT OR REPLACE INTO labels (address, entity, category, confidence, source_kind, source_key, source, imported_at) VALUES ($1, 'Coinbarn', 'exchange', 0.9, 'file', 'test', 'test', 0)", [address]);
    await analyze(db, { now: now + 15_300, horizon: HORIZON });
    const labelled = await exportBoth(db, layout, layout);
    expect(Object.keys(changesOf(labelled.incremental.dir).changed)).toEqual(expect.arrayContaining(['dumps/attribution.parquet', 'dumps/labels.parquet']));
    // A chain partition whose blocks are all analysed leaves the analysis out of its metadata, so a new analysis of the same chain carries it over.
    const open = 'dumps/pegins/pegins-00002450-00002499.parquet';
    expect(open in files(labelled.incremental.dir)).toBe(true);
    expect(Object.keys(changesOf(labelled.incremental.dir).changed)).not.toContain(open);
    expect(statSync(join(labelled.incremental.dir, open)).nlink).toBeGreaterThan(1);
    // So does the partition at the tip when no block added to it: it names the analysis that last changed its rows.
    const tip = 'dumps/pegins/pegins-00002500-00002549.parquet';
    expect(Object.keys(changesOf(labelled.incremental.dir).changed)).not.toContain(tip);
    expect(statSync(join(labelled.incremental.dir, tip)).nlink).toBeGreaterThan(1);
    expect(await db.all(`SELECT decode(value) AS value FROM parquet_kv_metadata(${sqlString(join(labelled.full.dir, tip))})
      WHERE decode(key) IN ('pegscope.as_of_height', 'pegscope.updated_at') ORDER BY decode(key)`)).toEqual([{ value: '2501' }, { value: String(now + 15_150) }]);
    // So does a partition of analysed rows below the tip when none of its pegs changed, final or not.
    // Their partitions are as fine as the chain tables' (docs/dumps.md): the ten below the tip's.
    const height = (h: number): string => String(h).padStart(8, '0');
    const analysed = ['links', 'reuse', 'pegin_scores', 'pegout_scores']
      .flatMap((name) => Array.from({ length: 10 }, (_, i) => 2_000 + i * 50).map((from) => `dumps/${name}/${name}-${height(from)}-${height(from + 49)}.parquet`));
    const carried = analysed.filter((path) => statSync(join(labelled.incremental.dir, path)).nlink > 1);
    expect(carried.length).toBeGreaterThan(0);
    expect(Object.keys(changesOf(labelled.incremental.dir).changed)).not.toContain(carried[0]);

    // Two horizons later the partition turns final: written once more, its metadata now says so.
    await advance(2_800, now + 60_000);
    const later = await exportBoth(db, layout, layout);
    expect(Object.keys(changesOf(later.incremental.dir).changed)).toContain(open);
  }, 600_000);

  it('renders again the documents of a peg whose link changed in a column no score shows', async () => {
    // The candidate count of a link within two horizons of the tip (older pegs are final): trace and block documents show it.
    const changed = await db.one<{ n: bigint }>(`UPDATE a_links SET candidate_count = candidate_count + 7
      WHERE (pegout_txid, pegout_vout, pegin_txid, pegin_vout) = (SELECT (pegout_txid, pegout_vout, pegin_txid, pegin_vout) FROM a_links
        WHERE pegin_height > (SELECT value::INTEGER FROM a_meta WHERE key = 'as_of_height') - 2 * $1
        ORDER BY pegout_txid, pegout_vout, pegin_txid, pegin_vout LIMIT 1)
      RETURNING candidate_count AS n`, [HORIZON]);
    expect(changed?.n).toBeGreaterThan(7n);
    const after = await exportBoth(db, layout, layout);
    expect(after.floor).toContain(': the documents of changed pegs above height');
    expect(rendered(after)).toBeGreaterThan(0);
  }, 300_000);
});

/** Both sites of `name` after exporting the regtest recording's `chain` (analysed with a 40-block horizon), then `next`, with the database. */
async function exportRecording(name: string, chain: 'orphan' | 'final', next: (db: Db, first: Sites) => Promise<Sites>): Promise<Sites> {
  const rec = loadRecording();
  const db = await Db.open(join(work, `${name}.duckdb`));
  try {
    await scanChain(db, fixtureSource(rec, chain === 'orphan' ? orphanChain(rec) : finalChain(rec)).source);
    await analyze(db, { now: 1_700_000_000, horizon: 40 });
    return await next(db, await exportBoth(db, name, 'ranges'));
  } finally {
    db.close();
  }
}

describe('incremental export on a chain shorter than two horizons (the demo\'s)', () => {
  it('compares every peg with the previous release instead of rendering everything, and gives the full export\'s tree', async () => {
    const db = await Db.open(':memory:');
    const source = createSimSource({ preset: 'tiny', seed: 5, worker: false });
    try {
      // The default horizon: the chain is far shorter than two of them.
      await scanChain(db, source, { to: 2_000 });
      await analyze(db, { now: 1_800_000_000 });
      await exportBoth(db, 'short', 'ranges');
      await scanChain(db, source, { to: 2_060 });
      await analyze(db, { now: 1_800_000_600 });
      const grown = await exportBoth(db, 'short', 'ranges');
      const match = /^rendering (\d+) of (\d+) documents: the documents of changed pegs above height 0 and of addresses whose attribution changed$/.exec(grown.floor);
      expect(match, grown.floor).not.toBeNull();
      expect(Number(match![1])).toBeLessThan(Number(match![2]));
    } finally {
      await source.close();
      db.close();
    }
  }, 300_000);
});

describe('incremental export across a reorg', () => {
  it('gives the full export\'s tree after a reorg of 4 blocks replaced a peg-out (regtest recording)', async () => {
    const after = await exportRecording('reorg', 'orphan', async (db) => {
      const rec = loadRecording();
      const scanned = await scanChain(db, fixtureSource(rec, finalChain(rec)).source);
      expect(scanned.reorgDepth).toBe(4);
      await analyze(db, { now: 1_700_000_100, horizon: 40 });
      return exportBoth(db, 'reorg', 'ranges');
    });
    // The chain the previous release showed is gone: its peg digests say nothing, every peg above the floor is rendered.
    expect(after.floor).toMatch(/: the documents of every peg above height \d+/);
  }, 300_000);

  it('builds on a release without peg digests (an earlier pegscope) by rendering every peg above the floor', async () => {
    const after = await exportRecording('upgrade', 'final', async (db, before) => {
      await writeLegacyDigests(db, before.incremental.stateDir, false);
      await analyze(db, { now: 1_700_000_100, horizon: 40 });
      return exportBoth(db, 'upgrade', 'ranges');
    });
    expect(after.floor).toMatch(/: the documents of every peg above height \d+/);
  }, 300_000);

  it('builds on a release whose attribution and peg digests are in its state (an earlier pegscope), rendering only what changed', async () => {
    let total = 0;
    const after = await exportRecording('digests', 'final', async (db, before) => {
      total = Number(/^rendering (\d+) of/.exec(before.floor)?.[1]);
      await writeLegacyDigests(db, before.incremental.stateDir, true);
      await analyze(db, { now: 1_700_000_100, horizon: 40 });
      return exportBoth(db, 'digests', 'ranges');
    });
    expect(after.floor).toMatch(/: the documents of changed pegs above height \d+/);
    // Imported, the digests say what changed: without them every address would count as changed.
    expect(rendered(after)).toBeLessThan(total / 2);
  }, 300_000);

  it('builds on a release of an earlier pegscope that holds its state (data/*.parquet), and lists those files as removed', async () => {
    const after = await exportRecording('legacy', 'final', async (db, before) => {
      await makeLegacy(db, before.incremental);
      await makeLegacy(db, before.full);
      await analyze(db, { now: 1_700_000_100, horizon: 40 });
      return exportBoth(db, 'legacy', 'ranges');
    });
    expect(after.floor).toMatch(/: the documents of changed pegs above height \d+/);
    expect(Object.keys(changesOf(after.incremental.dir).removed)).toEqual(expect.arrayContaining(LEGACY_STATE.map((name) => `data/${name}`)));
  }, 300_000);
});

const LEGACY_STATE = ['attribution.parquet', 'docs.parquet', 'files.parquet', 'pegs.parquet', 'state.json'];

/**
 * Makes a site's current release one of an earlier pegscope: its state inside
 * it as data/state.json (naming no release) and data/*.parquet, listed in its
 * manifest, with its documents index as data/docs.parquet, and no state
 * directory or documents index beside it.
 */
async function makeLegacy(db: Db, release: ExportResult): Promise<void> {
  const data = join(release.dir, 'data');
  mkdirSync(data, { recursive: true });
  await writeLegacyDigests(db, release.stateDir, true);
  await writeLegacyDocsIndex(release.stateDir, join(release.stateDir, 'docs.parquet'));
  rmSync(join(dirname(release.stateDir), DOCS_DB));
  expect(readdirSync(release.stateDir).sort()).toEqual(LEGACY_STATE);
  // An earlier pegscope's files index recorded no inode or mtime.
  const filesIndex = join(release.stateDir, 'files.parquet');
  await db.exec(`COPY (SELECT path, size, sha256, stamp_height, stamp_time, kind, q FROM read_parquet(${sqlString(filesIndex)})) TO ${sqlString(join(data, 'files.parquet'))} (FORMAT parquet, COMPRESSION zstd)`);
  rmSync(filesIndex);
  for (const name of LEGACY_STATE.filter((name) => name !== 'files.parquet')) renameSync(join(release.stateDir, name), join(data, name));
  rmSync(release.stateDir, { recursive: true });
  const { release: _id, ...state } = JSON.parse(readFileSync(join(data, 'state.json'), 'utf8')) as { release: string };
  writeFileSync(join(data, 'state.json'), JSON.stringify(state));
  const { files, ...head } = JSON.parse(readFileSync(join(release.dir, 'manifest.json'), 'utf8')) as { files: Members };
  for (const name of LEGACY_STATE) {
    const bytes = readFileSync(join(data, name));
    files[`data/${name}`] = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  // The manifest's own layout (one member per line, in path order): changes.json reads the previous manifest line by line.
  const members = Object.keys(files).sort().map((path) => `${JSON.stringify(path)}:${JSON.stringify(files[path])}`);
  writeFileSync(join(release.dir, 'manifest.json'), `${JSON.stringify(head).slice(0, -1)},"files":{\n${members.join(',\n')}\n}}`);
}
