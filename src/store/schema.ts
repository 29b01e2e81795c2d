/**
 * The database's schema version (meta.schema_version) and its migrations.
 *
 * schema.sql is the current schema; a new database gets it whole. A database
 * written by an older pegscope is upgraded by the migrations next to it,
 * `schema-NNN-what.sql`, each taking the schema from version NNN-1 to NNN; all
 * that a database needs run in one transaction, with the new version. Version 1
 * is the schema pegscope wrote before it recorded a version, so a pegscope
 * database without schema_version is at version 1. A database of a newer
 * version than this pegscope knows is refused, untouched.
 *
 * To change the schema: edit schema.sql and add the next schema-NNN-what.sql
 * doing the same to an existing database (test/schema.test.ts compares both).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const MIGRATION_FILE = /^schema-(\d{3})-[a-z0-9-]+\.sql$/;
/** The version of a pegscope database that records none. */
const UNVERSIONED = 1;

export interface Migration {
  /** The version this migration produces. */
  version: number;
  name: string;
  sql: string;
}

/** A database this pegscope cannot use as it is: written by a newer pegscope, or not by pegscope at all. */
export class SchemaError extends Error {
  override name = 'SchemaError';
}

/** The migrations in `dir`, in version order; their numbers must run 2, 3, … without gaps. */
export function loadMigrations(dir: string = HERE): Migration[] {
  const migrations = readdirSync(dir)
    .map((name) => ({ name, match: MIGRATION_FILE.exec(name) }))
    .filter((entry) => entry.match !== null)
    .map(({ name, match }) => ({ version: Number(match![1]), name, sql: readFileSync(join(dir, name), 'utf8') }))
    .sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== UNVERSIONED + 1 + i) throw new Error(`migration ${m.name} should be numbered ${String(UNVERSIONED + 1 + i).padStart(3, '0')}`);
  });
  return migrations;
}

export const MIGRATIONS: readonly Migration[] = loadMigrations();
/** The schema version this pegscope writes. */
export const SCHEMA_VERSION = UNVERSIONED + MIGRATIONS.length;

/** Brings an opened database to SCHEMA_VERSION: creates a new one, upgrades an older one, refuses a newer one. */
/** What the schema needs of a database (db.ts opens one and applies the schema, so this module names only these). */
export interface SchemaTarget {
  readonly path: string;
  all<T>(sql: string): Promise<T[]>;
  exec(sql: string): Promise<void>;
  transaction<T>(work: () => Promise<T>): Promise<T>;
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
}

export async function applySchema(db: SchemaTarget): Promise<void> {
  const tables = (await db.all<{ name: string }>(
    "SELECT table_name AS name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' ORDER BY name",
  )).map((t) => t.name);
  if (tables.length === 0) {
    await db.transaction(async () => {
      await db.exec(readFileSync(join(HERE, 'schema.sql'), 'utf8'));
      await db.setMeta('schema_version', String(SCHEMA_VERSION));
    });
    return;
  }
  if (!tables.includes('meta')) {
    throw new SchemaError(`database ${db.path} holds tables (${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', …' : ''}) but no pegscope meta table: `
      + 'it was not written by pegscope; pass --db with a pegscope database or a new file');
  }
  const stored = await db.getMeta('schema_version');
  const version = stored === undefined ? UNVERSIONED : parseVersion(db, stored);
  if (version > SCHEMA_VERSION) {
    throw new SchemaError(`database ${db.path} was written by a newer pegscope (schema version ${version}; this pegscope reads up to ${SCHEMA_VERSION}); `
      + 'upgrade pegscope to use it, or pass --db with another file');
  }
  if (stored === undefined || version < SCHEMA_VERSION) await migrate(db, version, MIGRATIONS);
}

function parseVersion(db: SchemaTarget, text: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) {
    throw new SchemaError(`database ${db.path} has an unreadable schema version "${text}" in its meta table; pass --db with another file`);
  }
  return Number(text);
}

/**
 * Runs the migrations above version `from`, in order, and records the last
 * version reached, in one transaction: on any failure the database stays at
 * `from`. Returns the new version.
 */
export async function migrate(db: SchemaTarget, from: number, migrations: readonly Migration[]): Promise<number> {
  const pending = migrations.filter((m) => m.version > from).sort((a, b) => a.version - b.version);
  const to = pending.at(-1)?.version ?? from;
  await db.transaction(async () => {
    for (const migration of pending) {
      try {
        await db.exec(migration.sql);
      } catch (err) {
        throw new SchemaError(`upgrading database ${db.path} to schema version ${migration.version} (${migration.name}) failed: ${(err as Error).message.replace(/\s+/g, ' ')}; `
          + 'the database was left as it was');
      }
    }
    await db.setMeta('schema_version', String(to));
  });
  return to;
}
