/**
 * The bulk dumps of an exported release: every computed table is
 * published, its Parquet file names the network, heights and analysis it
 * covers, its rows count what /api/stats counts, the links dump says what
 * /api/links says, and the CSV is the Parquet file with lists joined.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLabels } from '../src/analysis/labels.js';
import { analyze } from '../src/analysis/analyze.js';
import { createSimSource } from '../src/chain/sim/index.js';
import { coinNumber, fromBigint } from '../src/domain/amount.js';
import { networkParams } from '../src/domain/network.js';
import { exportRelease } from '../src/export/export.js';
import { DUMPS, dumpGlob, LIST_SEPARATOR, partitionBlocksOf, unordered, type Dump } from '../src/export/dumps.js';
import { exportSql } from '../src/export/sql.js';
import type { LinksTop } from '../src/api/links.js';
import { guardCell } from '../src/api/csv.js';
import { Db, sqlString } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';

const NOW = 1_800_000_000;
/** An entity name holding the CSV's list separator: only the Parquet list keeps its sentence whole. */
const SEPARATED_ENTITY = 'Ex; Change Ltd';
/** Entity names a spreadsheet would run as formulas: the CSV dumps carry them guarded, the Parquet files as they are. */
const HOSTILE_ENTITIES = ['=HYPERLINK("http://x","y")', '+1+1', '@SUM(1)'];

let work: string;
let db: Db;
let dir: string;
const readJson = (rel: string): any => JSON.parse(readFileSync(join(dir, rel), 'utf8'));
const dumpOf = (name: string): Dump => DUMPS.find((d) => d.name === name)!;
/** Every partition of a dump (or its one file), in height order. */
const parquet = (name: string): string => `read_parquet(${sqlString(join(dir, dumpGlob(dumpOf(name), 'parquet')))})`;
const csv = (name: string): string => `read_csv(${sqlString(join(dir, dumpGlob(dumpOf(name), 'csv.gz')))}, header = true, all_varchar = true)`;
const number = async (sql: string): Promise<number> => Number(Object.values((await db.one(sql))!)[0]);

/**
 * The tiny chain with labels that reach every table: an exchange on an
 * address of a multi-address cluster (propagates to the cluster) funding
 * linked peg-ins, and sanctioned peg-out destinations of links (risk ≥ 70).
 */
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-dumps-'));
  db = await Db.open(':memory:');
  const source = createSimSource({ preset: 'tiny', seed: 1 });
  try {
    await scanChain(db, source, { to: 2_600 });
  } finally {
    await source.close();
  }
  await analyze(db, { now: NOW });
  const funder = await db.one<{ address: string }>(`
    SELECT p.source_address AS address FROM a_links l JOIN pegins p ON p.txid = l.pegin_txid AND p.vout = l.pegin_vout
    JOIN a_clusters c ON c.address = p.source_address WHERE c.cluster_size > 1 AND l.confidence >= 0.5
    ORDER BY p.source_address LIMIT 1`);
  const destinations = await db.all<{ address: string }>(`
    SELECT DISTINCT pegout_address AS address FROM a_links WHERE confidence >= 0.5 AND pegout_address IS NOT NULL ORDER BY address LIMIT 3`);
  const file = join(work, 'labels.csv');
  writeFileSync(file, ['address,entity,category,confidence,source',
    `${funder!.address},"${SEPARATED_ENTITY}",exchange,0.9,test`,
    ...destinations.map((d, i) => `${d.address},"${HOSTILE_ENTITIES[i]!.replaceAll('"', '""')}",sanctioned,1,test`)].join('\n'));
  await importLabels(db, [file], networkParams('sim'));
  await analyze(db, { now: NOW + 60 });
  dir = (await exportRelease(db, { outDir: join(work, 'out') })).dir;
}, 300_000);

afterAll(() => {
  db?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the dumps of a release', () => {
  it('carry the network, the heights and the analysis in every Parquet file\'s key-value metadata; a partition its own heights', async () => {
    const manifest = readJson('manifest.json');
    const first = await number('SELECT min(height) FROM blocks');
    const metadata = async (file: string) => Object.fromEntries((await db.all<{ key: string; value: string }>(
      `SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(${sqlString(file)})`)).map((r) => [r.key, r.value]));
    const analysis = { 'pegscope.as_of_height': String(manifest.as_of_height), 'pegscope.updated_at': String(manifest.updated_at) };
    for (const dump of DUMPS) {
      if (!dump.height) {
        expect(await metadata(join(dir, 'dumps', `${dump.name}.parquet`)), dump.name).toEqual({
          'pegscope.network': 'sim', 'pegscope.from_height': String(first), 'pegscope.to_height': String(manifest.as_of_height), ...analysis,
        });
        continue;
      }
      // The tiny chain is younger than two horizons: no partition is final; only the open one, at the tip, names the analysis.
      const size = partitionBlocksOf(dump);
      const files = Object.keys(manifest.files).filter((p: string) => p.startsWith(`dumps/${dump.name}/`) && p.endsWith('.parquet'));
      const starts = Array.from({ length: Math.floor(manifest.as_of_height / size) + 1 }, (_, i) => i * size);
      expect(files, dump.name).toEqual(starts.map((from) => `dumps/${dump.name}/${dump.name}-${String(from).padStart(8, '0')}-${String(from + size - 1).padStart(8, '0')}.parquet`));
      for (const [i, from] of starts.entries()) {
        expect(await metadata(join(dir, files[i]!)), files[i]).toEqual({
          'pegscope.network': 'sim', 'pegscope.from_height': String(from), 'pegscope.to_height': String(from + size - 1), 'pegscope.final': 'false',
          ...(from + size - 1 > manifest.as_of_height ? analysis : {}),
        });
      }
    }
    expect(manifest.updated_at).toBe(NOW + 60);
  });

  it('split every table whose rows change below the tip as finely as the chain tables, so a changed link or score rewrites a small partition', () => {
    const blocks = (name: string): number => partitionBlocksOf(DUMPS.find((d) => d.name === name)!);
    for (const name of ['links', 'reuse', 'pegin_scores', 'pegout_scores']) expect(blocks(name), name).toBe(blocks('pegins'));
    expect(blocks('pegins')).toBeLessThan(blocks('clusters'));
  });

  it('hold in each height column only heights inside the range the metadata gives', async () => {
    const { as_of_height: top } = readJson('manifest.json');
    const first = await number('SELECT min(height) FROM blocks');
    for (const { name, height } of DUMPS) {
      if (!height) continue;
      const row = await db.one<{ n: bigint; lo: number; hi: number }>(`SELECT count(*) AS n, min(${height}) AS lo, max(${height}) AS hi FROM ${parquet(name)}`);
      expect(Number(row!.n), name).toBeGreaterThan(0);
      expect(row!.lo >= first && row!.hi <= top, `${name}: ${row!.lo}..${row!.hi}`).toBe(true);
    }
  });

  it('count what /api/stats counts', async () => {
    const { stats } = readJson('api/stats.json');
    const { health } = readJson('api/health.json');
    const counts: [string, number, string][] = [
      ['total_pegins', stats.total_pegins, `SELECT count(*) FROM ${parquet('pegins')}`],
      ['total_pegins', stats.total_pegins, `SELECT count(*) FROM ${parquet('pegin_scores')}`],
      ['total_pegins', stats.total_pegins, `SELECT sum(pegin_count) FROM ${parquet('blocks')}`],
      ['health pegins', health.pegins, `SELECT count(*) FROM ${parquet('pegins')}`],
      ['total_pegouts', stats.total_pegouts, `SELECT count(*) FROM ${parquet('pegouts')}`],
      ['total_pegouts', stats.total_pegouts, `SELECT count(*) FROM ${parquet('pegout_scores')}`],
      ['total_pegouts', stats.total_pegouts, `SELECT sum(pegout_count) FROM ${parquet('blocks')}`],
      ['health pegouts', health.pegouts, `SELECT count(*) FROM ${parquet('pegouts')}`],
      ['reported_links', stats.reported_links, `SELECT count(*) FROM ${parquet('links')}`],
      ['high_confidence_links', stats.high_confidence_links, `SELECT count(*) FROM ${parquet('links')} WHERE confidence >= 0.9`],
      ['linkable_pegouts', stats.linkable_pegouts, `SELECT count(DISTINCT (pegout_txid, pegout_vout)) FROM ${parquet('links')} WHERE confidence >= 0.5`],
      ['reuse_links', stats.reuse_links, `SELECT count(*) FROM ${parquet('reuse')}`],
      ['clustered_addresses', stats.clustered_addresses, `SELECT count(*) FROM ${parquet('clusters')}`],
      ['multi_address_clusters', stats.multi_address_clusters, `SELECT count(DISTINCT cluster_id) FROM ${parquet('clusters')} WHERE cluster_size > 1`],
      ['attributed_addresses', stats.attributed_addresses, `SELECT count(*) FROM ${parquet('attribution')}`],
      ['avg_privacy_score', stats.avg_privacy_score, `SELECT round(avg(privacy_score), 2) FROM ${parquet('pegin_scores')}`],
      ['high_risk_pegouts', stats.high_risk_pegouts, `SELECT count(*) FROM ${parquet('pegout_scores')} WHERE risk_score >= 70`],
    ];
    for (const [key, want, sql] of counts) expect(await number(sql), `${key}: ${sql}`).toBe(want);
    for (const side of ['pegin', 'pegout']) {
      const sum = (await db.one<{ s: bigint }>(`SELECT sum(amount_litoshi) AS s FROM ${parquet(`${side}s`)}`))!.s;
      expect(coinNumber(fromBigint(sum)), side).toBe(stats[`total_${side}_amount`]);
    }
    // The labels reach every count: cluster propagation, sanctioned destinations, multi-address clusters, reuse.
    expect(stats.attributed_addresses).toBeGreaterThan(stats.labeled_addresses);
    for (const key of ['high_risk_pegouts', 'multi_address_clusters', 'reuse_links', 'linkable_pegouts']) expect(stats[key], key).toBeGreaterThan(0);
  });

  it('agree with each other where they count the same rows', async () => {
    expect(await number(`SELECT sum(links) FROM ${parquet('entity_flows')}`))
      .toBe(await number(`SELECT count(*) FROM ${parquet('links')} WHERE confidence >= 0.5`));
    expect(await number(`SELECT count(*) FROM ${parquet('pegin_inputs')}`))
      .toBe(await number(`SELECT sum(input_count) FROM (SELECT DISTINCT txid, input_count FROM ${parquet('pegins')})`));
    expect(await number(`SELECT count(*) FROM ${parquet('entity_flows')} WHERE from_entity = ${sqlString(SEPARATED_ENTITY)}`)).toBeGreaterThan(0);
  });

  it('give each link the attribution, risk score and figures /api/links gives it', async () => {
    const top = readJson('data/links.json') as LinksTop;
    const rows = await db.all<Record<string, any>>(`SELECT * FROM ${parquet('links')}`);
    const byKey = new Map(rows.map((r) => [`${r.pegout_txid}:${r.pegout_vout}:${r.pegin_txid}:${r.pegin_vout}`, r]));
    expect(top.links.length).toBe(Math.min(rows.length, 500));
    for (const link of top.links) {
      const row = byKey.get(`${link.pegout_txid}:${link.pegout_vout}:${link.pegin_txid}:${link.pegin_vout}`);
      expect(row, link.pegout_txid).toBeDefined();
      expect({
        pegout_entity: row!.pegout_entity, pegout_category: row!.pegout_category, risk_score: row!.risk_score,
        confidence: row!.confidence, block_gap: row!.block_gap, candidate_count: Number(row!.candidate_count), reasons: row!.reasons,
        pegout_height: row!.pegout_height, pegin_height: row!.pegin_height, pegout_address: row!.pegout_address,
        pegout_amount: coinNumber(fromBigint(row!.pegout_amount_litoshi)), pegin_amount: coinNumber(fromBigint(row!.pegin_amount_litoshi)),
      }).toEqual({
        pegout_entity: link.pegout_entity, pegout_category: link.pegout_category, risk_score: link.risk_score,
        confidence: link.confidence, block_gap: link.block_gap, candidate_count: link.candidate_count, reasons: link.reasons,
        pegout_height: link.pegout_height, pegin_height: link.pegin_height, pegout_address: link.pegout_address,
        pegout_amount: link.pegout_amount, pegin_amount: link.pegin_amount,
      });
    }
    expect(top.links.filter((l) => l.pegout_category === 'sanctioned').length).toBeGreaterThan(0);
  });

  it('keep reasons a list in Parquet, whole even where an item holds the CSV separator', async () => {
    for (const name of ['links', 'pegin_scores', 'pegout_scores']) {
      const [column] = await db.all<{ column_type: string }>(`SELECT column_type FROM (DESCRIBE SELECT reasons FROM ${parquet(name)})`);
      expect(column!.column_type, name).toBe('VARCHAR[]');
    }
    const funded = await db.all<{ reasons: string[] }>(`SELECT reasons FROM ${parquet('pegin_scores')} WHERE list_contains(reasons, ${sqlString(`funded from an address attributed to ${SEPARATED_ENTITY}: −15`)})`);
    expect(funded.length).toBeGreaterThan(0);
  });

  it('have a CSV with the Parquet file\'s rows in its order, lists joined by "; " (an empty one an empty field)', async () => {
    for (const dump of DUMPS) {
      const columns = (await db.all<{ column_name: string; column_type: string }>(`DESCRIBE SELECT * FROM ${parquet(dump.name)}`));
      expect(columns.filter((c) => c.column_type.endsWith('[]')).map((c) => c.column_name), `${dump.name} list columns`).toEqual(dump.lists);
      const asText = columns.map((c) => (c.column_type.endsWith('[]')
        // An empty list is an empty field, which reads back as NULL.
        ? `nullif(array_to_string(${c.column_name}, ${sqlString(LIST_SEPARATOR)}), '')` : `${c.column_name}::VARCHAR`));
      const text = columns.map((c) => c.column_type === 'VARCHAR' || c.column_type.endsWith('[]'));
      const fromParquet = (await db.all(`SELECT ${asText.join(', ')} FROM ${parquet(dump.name)}`))
        .map((row) => Object.values(row).map((v, i) => (text[i] && typeof v === 'string' ? guardCell(v) : v)));
      const fromCsv = await db.all(`SELECT * FROM ${csv(dump.name)}`);
      expect(fromCsv.map(Object.values), dump.name).toEqual(fromParquet);
    }
  });

  it('name each row\'s block by the hash and time the chain has at its height', async () => {
    const blocks = `(SELECT height, hash, time FROM blocks)`;
    const sides: [string, string, string, string][] = [
      ['blocks', 'height', 'block_hash', 'block_time'], ['pegins', 'height', 'block_hash', 'block_time'],
      ['pegin_inputs', 'height', 'block_hash', 'block_time'], ['pegouts', 'height', 'block_hash', 'block_time'],
      ['links', 'pegout_height', 'pegout_block_hash', 'pegout_block_time'], ['links', 'pegin_height', 'pegin_block_hash', 'pegin_block_time'],
      ['reuse', 'pegout_height', 'pegout_block_hash', 'pegout_block_time'], ['reuse', 'pegin_height', 'pegin_block_hash', 'pegin_block_time'],
      ['pegin_scores', 'height', 'block_hash', 'block_time'], ['pegout_scores', 'height', 'block_hash', 'block_time'],
    ];
    for (const [name, height, hash, time] of sides) {
      const row = await db.one<{ n: bigint; wrong: bigint }>(`SELECT count(*) AS n, count(*) FILTER (WHERE b.hash IS DISTINCT FROM d.${hash} OR b.time IS DISTINCT FROM d.${time}) AS wrong
        FROM ${parquet(name)} d LEFT JOIN ${blocks} b ON b.height = d.${height}`);
      expect(Number(row!.n), name).toBeGreaterThan(0);
      expect(Number(row!.wrong), `${name}.${hash}, ${time}`).toBe(0);
    }
  });

  it('come with dumps/views.sql: a view per dump over its files, a TIMESTAMP WITH TIME ZONE beside each time in seconds', async () => {
    // A database of its own: the analysed one has tables of these names.
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    const all = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS();
    try {
      await conn.run(`SET file_search_path = ${sqlString(dir)}`);
      await conn.run(readFileSync(join(dir, 'dumps', 'views.sql'), 'utf8'));
      for (const dump of DUMPS) {
        expect(await all(`SELECT count(*) AS n FROM ${dump.name}`), dump.name).toEqual(await all(`SELECT count(*) AS n FROM ${parquet(dump.name)}`));
      }
      const types = Object.fromEntries((await all('DESCRIBE links')).map((c) => [c.column_name, c.column_type]));
      expect(types).toMatchObject({ pegin_block_time: 'BIGINT', pegin_block_timestamp: 'TIMESTAMP WITH TIME ZONE', pegout_block_timestamp: 'TIMESTAMP WITH TIME ZONE' });
      expect(await all('SELECT count(*) AS n FROM links WHERE epoch(pegout_block_timestamp) <> pegout_block_time OR epoch(pegin_block_timestamp) <> pegin_block_time'))
        .toEqual([{ n: 0n }]);
      expect(Object.keys(readJson('manifest.json').files)).toContain('dumps/views.sql');
    } finally {
      conn.closeSync();
    }
  });

  it('guard every text cell a spreadsheet would run as a formula in the CSV, and keep the raw text in Parquet', async () => {
    for (const name of ['attribution', 'entity_flows', 'links', 'pegout_scores']) {
      const cells = async (source: string): Promise<string[]> => (await db.all(`SELECT * FROM ${source}`))
        .flatMap((row) => Object.values(row).flat()).filter((cell): cell is string => typeof cell === 'string');
      const rawCells = await cells(parquet(name));
      const csvCells = await cells(csv(name));
      const hostile = HOSTILE_ENTITIES.filter((entity) => rawCells.some((cell) => cell.includes(entity)));
      expect(hostile.length, name).toBeGreaterThan(0);
      expect(csvCells.filter((cell) => /^[=+@\t\r]/.test(cell)), name).toEqual([]);
      for (const cell of rawCells.filter((c) => HOSTILE_ENTITIES.some((entity) => c.startsWith(entity)))) {
        expect(csvCells, `${name}: ${cell}`).toContain(`'${cell}`);
      }
    }
  });

  it('digest a partition by the same rows as its file, whatever order the query sorts them in', async () => {
    await db.exec(exportSql('macros'));
    await db.exec(exportSql('analysed'));
    const digest = (sql: string) => db.one(`SELECT count(*) AS n, sum(hash(t))::VARCHAR AS h FROM (${sql}) t`);
    for (const dump of DUMPS) {
      const query = exportSql(`dump-${dump.name}`);
      const rows = unordered(query);
      expect(rows, dump.name).not.toMatch(/\bORDER BY [^()]*$/);
      expect(await digest(rows), dump.name).toEqual(await digest(query));
    }
    expect(() => unordered('SELECT 1 FROM t')).toThrow(/does not end with its ORDER BY/);
  });
});
