import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Reads a .sql file that lives next to the code running it (copied to dist/ by the build). */
export function readSql(moduleUrl: string, name: string): string {
  return readFileSync(join(dirname(fileURLToPath(moduleUrl)), name), 'utf8');
}

/** A string as a SQL literal, for the places DuckDB takes no parameter (COPY … TO, read_parquet paths). */
export const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** One open pegscope database: a DuckDB file (or :memory:) with the base schema applied. */
export class Db {
  private constructor(readonly path: string, readonly instance: DuckDBInstance, readonly conn: DuckDBConnection) {}

  static async open(path: string): Promise<Db> {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(path);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/lock/i.test(message)) {
        throw new Error(`database ${path} is in use by another pegscope process (${message}); wait for it to finish`);
      }
      throw err;
    }
    const conn = await instance.connect();
    const db = new Db(path, instance, conn);
    await db.exec(readFileSync(join(HERE, 'schema.sql'), 'utf8'));
    return db;
  }

  async exec(sql: string, params?: Record<string, DuckDBValue> | DuckDBValue[]): Promise<void> {
    await this.conn.run(sql, params as never);
  }

  /** Rows as plain objects; BIGINT columns come back as bigint. */
  async all<T = Record<string, unknown>>(sql: string, params?: Record<string, DuckDBValue> | DuckDBValue[]): Promise<T[]> {
    const reader = await this.conn.runAndReadAll(sql, params as never);
    return reader.getRowObjectsJS() as T[];
  }

  async one<T = Record<string, unknown>>(sql: string, params?: Record<string, DuckDBValue> | DuckDBValue[]): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  /** Runs `work` in one transaction: all of it is stored, or none. */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.exec('BEGIN TRANSACTION');
    try {
      const result = await work();
      await this.exec('COMMIT');
      return result;
    } catch (err) {
      await this.exec('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  async getMeta(key: string): Promise<string | undefined> {
    const row = await this.one<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key]);
    return row?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.exec('INSERT OR REPLACE INTO meta VALUES ($1, $2)', [key, value]);
  }

  close(): void {
    this.conn.closeSync();
    this.instance.closeSync();
  }
}
