import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOUBLE, DuckDBConnection, DuckDBDataChunk, DuckDBInstance, INTEGER, type DuckDBAppender, type DuckDBValue } from '@duckdb/node-api';
import { applySchema } from './schema.js';
import { MIN_MEMORY_LIMIT_MB } from '../domain/model.js';

/** Reads a .sql file that lives next to the code running it (copied to dist/ by the build). */
export function readSql(moduleUrl: string, name: string): string {
  return readFileSync(join(dirname(fileURLToPath(moduleUrl)), name), 'utf8');
}

/** A string as a SQL literal, for the places DuckDB takes no parameter (COPY … TO, read_parquet paths). */
export const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

export type SqlParams = Record<string, DuckDBValue> | DuckDBValue[];
/** A value handed to an appender; null is SQL NULL. */
export type Cell = string | number | bigint | boolean | null | undefined;
export type ColumnType = 'varchar' | 'integer' | 'bigint' | 'double' | 'boolean';
/** A column an appender fills, by name: the table must have exactly these columns, in this order. */
export interface AppendColumn { name: string; type: ColumnType }

/** Rows per DuckDB data chunk (its standard vector size). */
const CHUNK_ROWS = 2048;

/**
 * Rows appended in bulk to one table (DuckDB's appender), declared by column
 * name: `open` checks the names against the table, so a schema change fails
 * loudly instead of shifting values into the wrong column.
 */
export class RowAppender {
  private open = true;

  constructor(private readonly appender: DuckDBAppender, private readonly columns: readonly AppendColumn[]) {}

  /** One row, its cells in the declared column order. */
  append(row: readonly Cell[]): void {
    const a = this.appender;
    for (let i = 0; i < this.columns.length; i++) {
      const cell = row[i];
      if (cell === null || cell === undefined) {
        a.appendNull();
        continue;
      }
      switch (this.columns[i]!.type) {
        case 'varchar': a.appendVarchar(String(cell)); break;
        case 'integer': a.appendInteger(Number(cell)); break;
        case 'bigint': a.appendBigInt(BigInt(cell)); break;
        case 'double': a.appendDouble(Number(cell)); break;
        case 'boolean': a.appendBoolean(Boolean(cell)); break;
      }
    }
    a.endRow();
  }

  /**
   * Whole columns of numbers, index-aligned, for tables whose declared
   * columns are all integer or double: appended a DuckDB chunk at a time,
   * 2.7 s → 0.1 s for the horizon's 1.2 million counts at x10.
   */
  appendColumns(values: readonly ArrayLike<number>[]): void {
    const types = this.columns.map((c) => {
      if (c.type === 'integer') return INTEGER;
      if (c.type === 'double') return DOUBLE;
      throw new Error(`appendColumns takes integer and double columns only; ${c.name} is ${c.type}`);
    });
    if (values.length !== types.length) throw new Error(`appendColumns got ${values.length} columns for ${types.length}`);
    const rows = values[0]?.length ?? 0;
    const chunk = DuckDBDataChunk.create(types);
    for (let start = 0; start < rows; start += CHUNK_ROWS) {
      const end = Math.min(rows, start + CHUNK_ROWS);
      chunk.setColumns(values.map((column) => Array.prototype.slice.call(column, start, end) as number[]));
      this.appender.appendDataChunk(chunk);
    }
  }

  flush(): void {
    if (this.open) this.appender.flushSync();
  }

  /** Flushes and closes; later calls do nothing. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    this.appender.closeSync();
  }
}

/** What a query needs of a connection: the database's own (Db) or another of its connections (DbConnection). */
export interface Queryable {
  exec(sql: string, params?: SqlParams): Promise<void>;
  all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
  one<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined>;
}

/** A second connection to the same database, for work that runs beside the main one (dumps while documents are written). */
export class DbConnection implements Queryable {
  constructor(private readonly conn: DuckDBConnection) {}

  async exec(sql: string, params?: SqlParams): Promise<void> {
    await this.conn.run(sql, params as Record<string, DuckDBValue>);
  }

  /** Rows as plain objects. */
  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    const reader = await this.conn.runAndReadAll(sql, params as Record<string, DuckDBValue>);
    return reader.getRowObjectsJS() as T[];
  }

  /** The first row as a plain object, or undefined. */
  async one<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  close(): void {
    this.conn.closeSync();
  }
}

/**
 * Memory DuckDB freed goes back to the system soon, not when its allocator
 * gets round to it: without these a full x10 export held 2.6 GB RSS under a
 * 1.5 GB limit, with them 2.3 GB.
 */
const ALLOCATOR_SETTINGS: Record<string, string> = { allocator_background_threads: 'true', allocator_flush_threshold: '32MB' };

const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIR_MODE = 0o700;
/** Permission bits for the group and others. */
const SHARED_BITS = 0o077;

/** The paths of a database's files that hold its rows: the file and its write-ahead log. */
export const databaseFiles = (path: string): string[] => [path, `${path}.wal`];

/**
 * The database's files that users other than its owner may read or write
 * (with their modes), for a warning: none for :memory: or missing files.
 */
export function sharedDatabaseFiles(path: string): { file: string; mode: number }[] {
  if (path === ':memory:') return [];
  return databaseFiles(path).map((file) => ({ file, mode: (statSync(file, { throwIfNoEntry: false })?.mode ?? 0) & 0o777 }))
    .filter(({ mode }) => (mode & SHARED_BITS) !== 0);
}

/**
 * Runs `work` with a umask that gives new files to their owner alone, so a
 * write-ahead log DuckDB creates meanwhile (it deletes and recreates it at
 * every checkpoint, with the process's umask) is 0600. Only for commands that
 * write secrets and publish nothing (`watch add`): a release's files must stay
 * readable by the web server.
 */
export async function withPrivateFiles<T>(work: () => Promise<T>): Promise<T> {
  const previous = process.umask(SHARED_BITS);
  try {
    return await work();
  } finally {
    process.umask(previous);
  }
}

/**
 * One open pegscope database: a DuckDB file (or :memory:) at this pegscope's
 * schema version (schema.ts). The only code that touches the DuckDB driver.
 */
export class Db {
  /** The memory limit withMemoryLimit set; null: DuckDB's default. */
  private memoryLimitMb: number | null = null;

  private constructor(readonly path: string, private readonly instance: DuckDBInstance, private readonly conn: DuckDBConnection) {}

  static async open(path: string): Promise<Db> {
    const created = path !== ':memory:' && !existsSync(path);
    // The database holds webhook secrets and URLs (docs/deploy.md "The database is private"): a directory
    // pegscope creates for it, and the file itself when new, are its owner's alone.
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(path, ALLOCATOR_SETTINGS);
      if (created) chmodSync(path, PRIVATE_FILE_MODE);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/lock/i.test(message)) {
        throw new Error(`database ${path} is in use by another pegscope process (${message}); wait for it to finish`);
      }
      throw err;
    }
    const db = new Db(path, instance, await instance.connect());
    try {
      await applySchema(db);
    } catch (err) {
      db.close();
      throw err;
    }
    return db;
  }

  async exec(sql: string, params?: SqlParams): Promise<void> {
    await this.conn.run(sql, params as Record<string, DuckDBValue>);
  }

  /**
   * Runs `work` with DuckDB's memory limit at `mb` (it spills to disk beyond
   * it), then puts the previous limit back.
   */
  async withMemoryLimit<T>(mb: number, work: () => Promise<T>): Promise<T> {
    // Kept here, not read back: DuckDB reports the limit rounded ("18.7 GiB"), and its default is a RESET.
    const previous = this.memoryLimitMb;
    this.memoryLimitMb = Math.max(MIN_MEMORY_LIMIT_MB, Math.floor(mb));
    await this.exec(`SET memory_limit = '${this.memoryLimitMb}MB'`);
    try {
      return await work();
    } finally {
      this.memoryLimitMb = previous;
      await this.exec(previous === null ? 'RESET memory_limit' : `SET memory_limit = '${previous}MB'`);
    }
  }

  /** Rows as plain objects; BIGINT columns come back as bigint. */
  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    const reader = await this.conn.runAndReadAll(sql, params as Record<string, DuckDBValue>);
    return reader.getRowObjectsJS() as T[];
  }

  async one<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  /** A query's rows as arrays, one DuckDB chunk at a time, so a large result never sits in memory whole. */
  async *stream(sql: string, params?: SqlParams): AsyncGenerator<unknown[][]> {
    const result = await this.conn.stream(sql, params as Record<string, DuckDBValue>);
    for await (const rows of result.yieldRowsJs()) yield rows as unknown[][];
  }

  /**
   * A query's numeric columns (INTEGER, BIGINT, DOUBLE; no NULLs, BIGINTs
   * within 2^53) as whole Float64Arrays, read from DuckDB's chunks without
   * building rows: x10's 1.2 million pegs in a third of the time rows took.
   */
  async numberColumns(sql: string, params?: SqlParams): Promise<Float64Array[]> {
    const result = await this.conn.stream(sql, params as Record<string, DuckDBValue>);
    const parts: Float64Array[][] = Array.from({ length: result.columnCount }, () => []);
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      for (const [c, part] of parts.entries()) {
        const vector = chunk.getColumnVector(c);
        const values = new Float64Array(chunk.rowCount);
        for (let row = 0; row < values.length; row++) {
          const value = vector.getItem(row);
          if (typeof value !== 'number' && typeof value !== 'bigint') throw new Error(`numberColumns: column ${c} holds ${String(value)}, not a number`);
          values[row] = Number(value);
        }
        part.push(values);
      }
    }
    return parts.map((chunks) => {
      const column = new Float64Array(chunks.reduce((n, values) => n + values.length, 0));
      let offset = 0;
      for (const values of chunks) { column.set(values, offset); offset += values.length; }
      return column;
    });
  }

  /** An appender for `table` (in `schema`: 'main', or 'temp' for temp tables) after checking its columns by name. */
  async appender(table: string, columns: readonly AppendColumn[], schema: 'main' | 'temp' = 'main'): Promise<RowAppender> {
    const catalog = schema === 'temp' ? 'temp' : undefined;
    const actual = await this.all<{ name: string }>(
      `SELECT column_name AS name FROM duckdb_columns() WHERE table_name = $1 AND schema_name = 'main' AND ${catalog ? "database_name = 'temp'" : "database_name <> 'temp'"} ORDER BY column_index`,
      [table]);
    const names = actual.map((c) => c.name).join(', ');
    const declared = columns.map((c) => c.name).join(', ');
    if (names !== declared) throw new Error(`table ${table} has columns (${names}) but the appender declares (${declared}); the database schema and this pegscope disagree`);
    return new RowAppender(await this.conn.createAppender(table, 'main', catalog), columns);
  }

  /** A second connection to this database; close it when done. */
  async connect(): Promise<DbConnection> {
    return new DbConnection(await this.instance.connect());
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

  /** Moves the write-ahead log into the database file (and removes the log). */
  async checkpoint(): Promise<void> {
    await this.exec('CHECKPOINT');
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
