import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { Db } from '../src/store/db.js';
import { loadMigrations, migrate, SCHEMA_VERSION, SchemaError } from '../src/store/schema.js';
import { readFixture } from './helpers/fixtures.js';
import { createSimSource } from '../src/chain/sim/index.js';
import { scanChain } from '../src/store/scan.js';
import { analyze } from '../src/analysis/analyze.js';
import { exportRelease } from '../src/export/export.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';

const dir = mkdtempSync(join(tmpdir(), 'pegscope-schema-'));
let n = 0;
const dbPath = () => join(dir, `db${++n}.duckdb`);
const open: Db[] = [];
afterEach(() => { while (open.length) open.pop()!.close(); });

async function openDb(path: string): Promise<Db> {
  const db = await Db.open(path);
  open.push(db);
  return db;
}

/** A database file written with plain DuckDB, as an older pegscope (or another program) left it. */
async function writeRaw(path: string, sql: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  try {
    await conn.run(sql);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Tables, columns (in order, with types and nullability) and constraints: what the appender and the queries rely on. */
async function layout(db: Db) {
  return {
    columns: await db.all(`SELECT table_name, column_index, column_name, data_type, is_nullable FROM duckdb_columns()
      WHERE database_name = current_database() AND schema_name = 'main' ORDER BY table_name, column_index`),
    constraints: (await db.all<{ table_name: string; constraint_type: string; constraint_column_names: string[] }>(`SELECT table_name, constraint_type, constraint_column_names
      FROM duckdb_constraints() WHERE database_name = current_database() AND schema_name = 'main' ORDER BY ALL`)).map((c) => JSON.stringify(c)),
  };
}

const OLD_ROWS = `
  INSERT INTO meta VALUES ('network', 'regtest'), ('cursor_height', '432'), ('mweb_activation_height', '432');
  INSERT INTO blocks VALUES (432, 'h432', 'h431', 1700000000, 3, 500000000, 'x', 1, 0, 500000000, 0, 2, 2, 'rltc1q', 'tag');
  INSERT INTO pegins VALUES ('p', 0, 432, 1700000000, 500000000, 'k', 1, 'rltc1qsource');`;

describe('schema version', () => {
  it('a new database gets the current schema and records its version', async () => {
    const db = await openDb(dbPath());
    expect(await db.getMeta('schema_version')).toBe(String(SCHEMA_VERSION));
    expect((await layout(db)).columns.map((c) => c.table_name)).toEqual(expect.arrayContaining(['blocks', 'meta', 'pegin_inputs', 'pegins', 'pegouts']));
  });

  it('a database written before versions were recorded is upgraded on open: version recorded, rows kept, same layout as a new one', async () => {
    const path = dbPath();
    await writeRaw(path, readFixture('schema-v1.sql') + OLD_ROWS);
    const old = await openDb(path);
    expect(await old.getMeta('schema_version')).toBe(String(SCHEMA_VERSION));
    expect(await old.getMeta('cursor_height')).toBe('432');
    expect(await old.all('SELECT height, hash FROM blocks')).toEqual([{ height: 432, hash: 'h432' }]);
    expect(await old.all('SELECT txid, source_address FROM pegins')).toEqual([{ txid: 'p', source_address: 'rltc1qsource' }]);
    const fresh = await openDb(dbPath());
    expect(await layout(old)).toEqual(await layout(fresh));
  });

  it('a version-1 database keeps its labels as labels of a label file, keyed by their source', async () => {
    const path = dbPath();
    // Version 1 made the labels table on first use (the old labels.sql).
    await writeRaw(path, `${readFixture('schema-v1.sql')}${OLD_ROWS}
      CREATE TABLE labels (address VARCHAR NOT NULL, entity VARCHAR NOT NULL, category VARCHAR NOT NULL, confidence DOUBLE NOT NULL,
        source VARCHAR NOT NULL, imported_at BIGINT NOT NULL, PRIMARY KEY (address, source));
      INSERT INTO labels VALUES ('rltc1qx', 'Coinbarn', 'exchange', 0.9, 'feed', 1700000000);`);
    const old = await openDb(path);
    expect(await old.all('SELECT * FROM labels')).toEqual([{
      address: 'rltc1qx', entity: 'Coinbarn', category: 'exchange', confidence: 0.9, source_kind: 'file', source_key: 'feed', source: 'feed',
      terms: null, details: null, imported_at: 1700000000n,
    }]);
    expect(await layout(old)).toEqual(await layout(await openDb(dbPath())));
  });

  it('a database of a newer pegscope is refused with both versions and what to do, and left untouched', async () => {
    const path = dbPath();
    const db = await openDb(path);
    await db.setMeta('schema_version', String(SCHEMA_VERSION + 1));
    open.pop()!.close();
    const err = await Db.open(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaError);
    expect((err as Error).message).toBe(`database ${path} was written by a newer pegscope (schema version ${SCHEMA_VERSION + 1}; `
      + `this pegscope reads up to ${SCHEMA_VERSION}); upgrade pegscope to use it, or pass --db with another file`);
    // Refused before anything was written: the version is still the newer one, and the file can be opened by plain DuckDB.
    const instance = await DuckDBInstance.create(path);
    const conn = await instance.connect();
    const rows = (await conn.runAndReadAll("SELECT value FROM meta WHERE key = 'schema_version'")).getRowObjectsJS();
    conn.closeSync();
    instance.closeSync();
    expect(rows).toEqual([{ value: String(SCHEMA_VERSION + 1) }]);
  });

  it('refuses a DuckDB file pegscope did not write, and an unreadable version', async () => {
    const foreign = dbPath();
    await writeRaw(foreign, 'CREATE TABLE orders (id INTEGER)');
    await expect(Db.open(foreign)).rejects.toThrow(/holds tables \(orders\) but no pegscope meta table: it was not written by pegscope/);
    const garbled = dbPath();
    await writeRaw(garbled, readFixture('schema-v1.sql') + "INSERT INTO meta VALUES ('schema_version', 'two');");
    await expect(Db.open(garbled)).rejects.toThrow(/unreadable schema version "two"/);
  });

  it('migrations run in version order in one transaction; a failing one leaves the database at its old version', async () => {
    const path = dbPath();
    const db = await openDb(path);
    const v = SCHEMA_VERSION;
    // Listed out of order on purpose: the second needs the first.
    const reached = await migrate(db, v, [
      { version: v + 2, name: 'fill', sql: "INSERT INTO extra VALUES ('a', 1); ALTER TABLE extra ADD COLUMN flag BOOLEAN DEFAULT true;" },
      { version: v + 1, name: 'extra', sql: 'CREATE TABLE extra (name VARCHAR, n INTEGER);' },
    ]);
    expect(reached).toBe(v + 2);
    expect(await db.getMeta('schema_version')).toBe(String(v + 2));
    expect(await db.all('SELECT * FROM extra')).toEqual([{ name: 'a', n: 1, flag: true }]);

    const err = await migrate(db, v + 2, [
      { version: v + 3, name: 'schema-xxx-more', sql: "INSERT INTO extra VALUES ('b', 2, false);" },
      { version: v + 4, name: 'schema-yyy-broken', sql: 'ALTER TABLE missing ADD COLUMN x INTEGER;' },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaError);
    expect((err as Error).message).toMatch(new RegExp(`upgrading database .* to schema version ${v + 4} \\(schema-yyy-broken\\) failed: .*missing.*; the database was left as it was`));
    expect(await db.getMeta('schema_version')).toBe(String(v + 2));
    expect(await db.all('SELECT name FROM extra')).toEqual([{ name: 'a' }]);
  });

  it('reads migration files in version order, ignores other files, and rejects a gap in the numbering', () => {
    const good = mkdtempSync(join(dir, 'migrations-'));
    writeFileSync(join(good, 'schema-003-second.sql'), 'SELECT 3;');
    writeFileSync(join(good, 'schema-002-first.sql'), 'SELECT 2;');
    writeFileSync(join(good, 'schema.sql'), 'SELECT 0;');
    writeFileSync(join(good, 'scan-counts.sql'), 'SELECT 1;');
    expect(loadMigrations(good)).toEqual([
      { version: 2, name: 'schema-002-first.sql', sql: 'SELECT 2;' },
      { version: 3, name: 'schema-003-second.sql', sql: 'SELECT 3;' },
    ]);
    const gap = mkdtempSync(join(dir, 'migrations-'));
    writeFileSync(join(gap, 'schema-002-first.sql'), 'SELECT 2;');
    writeFileSync(join(gap, 'schema-004-third.sql'), 'SELECT 4;');
    expect(() => loadMigrations(gap)).toThrow('migration schema-004-third.sql should be numbered 003');
  });
});

describe('memory limit', () => {
  const limit = async (db: Db): Promise<string> => (await db.one<{ l: string }>("SELECT current_setting('memory_limit') AS l"))!.l;

  it('holds while the work runs and is put back after it, also when the work fails', async () => {
    const db = await Db.open(':memory:');
    try {
      const before = await limit(db);
      expect(await db.withMemoryLimit(300, () => limit(db))).toMatch(/^(300\.0 MB|286\.1 MiB)$/);
      expect(await limit(db)).toBe(before);
      await expect(db.withMemoryLimit(300, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
      expect(await limit(db)).toBe(before);
      // Below the floor a statement could not run at all: the floor is used instead.
      expect(await db.withMemoryLimit(1, () => limit(db))).toMatch(/^(256\.0 MB|244\.1 MiB)$/);
    } finally {
      db.close();
    }
  });

  it('analyze and export run under the limit they are given (--memory-limit), and put the previous one back', async () => {
    const db = await Db.open(':memory:');
    const source = createSimSource({ preset: 'tiny', seed: 3, worker: false });
    const out = mkdtempSync(join(tmpdir(), 'pegscope-memory-'));
    try {
      await scanChain(db, source, { to: 600 });
      const before = await limit(db);
      const seen: string[] = [];
      await analyze(db, { now: 1_800_000_000, memoryLimitMb: 300, onStep: async () => { seen.push(await limit(db)); } });
      await exportRelease(db, { outDir: out, hostBudget: NO_HOST_BUDGET, memoryLimitMb: 400, onStep: async () => { seen.push(await limit(db)); } });
      expect(new Set(seen)).toEqual(new Set([expect.stringMatching(/^(300\.0 MB|286\.1 MiB)$/), expect.stringMatching(/^(400\.0 MB|381\.4 MiB)$/)]));
      expect(await limit(db)).toBe(before);
    } finally {
      db.close();
      await source.close();
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('appender', () => {
  it('appends whole numeric columns across chunk boundaries, and refuses columns it cannot take', async () => {
    const db = await Db.open(':memory:');
    try {
      await db.exec('CREATE TEMP TABLE w_counts (id INTEGER, share DOUBLE)');
      const columns = [{ name: 'id', type: 'integer' }, { name: 'share', type: 'double' }] as const;
      const appender = await db.appender('w_counts', columns, 'temp');
      const rows = 5000;
      appender.appendColumns([Int32Array.from({ length: rows }, (_, i) => i - 7), Float64Array.from({ length: rows }, (_, i) => i / 4)]);
      appender.close();
      const stored = await db.one<{ n: bigint; ids: bigint; shares: number; last: number }>(
        'SELECT count(*) AS n, sum(id) AS ids, sum(share) AS shares, max_by(share, id) AS last FROM w_counts');
      expect(stored).toEqual({ n: 5000n, ids: BigInt((rows * (rows - 1)) / 2 - 7 * rows), shares: (rows * (rows - 1)) / 8, last: 4999 / 4 });

      await db.exec('CREATE TEMP TABLE w_names (name VARCHAR)');
      const names = await db.appender('w_names', [{ name: 'name', type: 'varchar' }], 'temp');
      expect(() => names.appendColumns([[1]])).toThrow('appendColumns takes integer and double columns only; name is varchar');
      names.close();
    } finally {
      db.close();
    }
  });
});
