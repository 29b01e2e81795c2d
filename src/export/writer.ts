import { createHash } from 'node:crypto';
import { constants as fsConstants, createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, open as openFile, readFile, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, createGzip, gzip } from 'node:zlib';
import { wrapJson, type AnalysisStamp } from '../api/envelope.js';
import { sqlString, type AppendColumn, type Db, type RowAppender, type SqlParams } from '../store/db.js';
import { CarriedFileDamaged, FileQueue, type FileStats, type RecordedFile } from './file-queue.js';
import { BR_MIN, CHANGES_FILE, GZ_MIN, MANIFEST_FILE, MANIFEST_SIGNATURE_FILE } from '../api/release-files.js';
import { exportSql } from './sql.js';
import type { ReleaseSize } from './ranges.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

const BR_GAIN = 0.9;
/**
 * Brotli at quality 7 with a window no larger than the file: within 1% of
 * quality 9's size on the release's JSON and scripts, in 1–3 ms a file
 * instead of 10–20 (quality 9 sets up tables for its whole default window).
 */
const brotliParams = (size: number): Record<number, number> => ({
  [zlib.BROTLI_PARAM_QUALITY]: 7,
  [zlib.BROTLI_PARAM_LGWIN]: Math.min(zlib.BROTLI_MAX_WINDOW_BITS, Math.max(zlib.BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(size)))),
  [zlib.BROTLI_PARAM_SIZE_HINT]: size,
});

/** Hands a file of the release (path, text) to the writer, which compresses it in the background (endpoints.ts collects what it returns). */
export type PutText = (path: string, text: string) => void;

/** The per-query document a file belongs to; an unchanged document's files move to the next release together. */
export interface DocKey {
  kind: string;
  q: string;
}

/** A file as the manifest lists it. */
export interface FileEntry {
  path: string;
  size: number;
  sha256: string;
}

export interface WriterCounts {
  files: number;
  written: number;
  /** Hard-linked from the previous release. */
  reused: number;
  /** Already in place: unchanged in the recycled release the writer writes into. */
  kept: number;
  /** Bytes actually written (reused and kept files cost none). */
  bytes: number;
}

/** Hex sha256 of a file's bytes, or of a text as UTF-8. */
export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
/** Whether a buffer is the whole of its ArrayBuffer, so moving that moves nothing else (small Buffers share a pool). */
const ownsMemory = (bytes: Buffer): boolean => bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;

/**
 * The files of a release as DuckDB rows, so that deciding what to carry over
 * from the previous release is one join, and memory does not grow with the
 * tree. The state's files index (state.ts FILES_INDEX) is this table without
 * `how`, with the inode and modification time (ns) of each file once written
 * (x_file_stats); it lists every file of the release but manifest.json and
 * changes.json. A file carried over later is checked against those
 * (file-ops.worker.mjs).
 */
const FILE_COLUMNS = 'path, size, sha256, stamp_height, stamp_time, kind, q';
/** What the files index records of a file on disk; an index of an earlier pegscope has neither. */
const STAT_COLUMNS = ['ino', 'mtime_ns'];
const CREATE_FILES = `CREATE OR REPLACE TEMP TABLE x_files (path VARCHAR, size BIGINT, sha256 VARCHAR,
  stamp_height INTEGER, stamp_time BIGINT, kind VARCHAR, q VARCHAR, how VARCHAR)`;
const FILE_APPEND_COLUMNS: AppendColumn[] = [
  { name: 'path', type: 'varchar' }, { name: 'size', type: 'bigint' }, { name: 'sha256', type: 'varchar' },
  { name: 'stamp_height', type: 'integer' }, { name: 'stamp_time', type: 'bigint' }, { name: 'kind', type: 'varchar' },
  { name: 'q', type: 'varchar' }, { name: 'how', type: 'varchar' },
];
const CREATE_FILE_STATS = 'CREATE OR REPLACE TEMP TABLE x_file_stats (path VARCHAR, ino BIGINT, mtime_ns BIGINT)';
const FILE_STATS_COLUMNS: AppendColumn[] = [{ name: 'path', type: 'varchar' }, { name: 'ino', type: 'bigint' }, { name: 'mtime_ns', type: 'bigint' }];
const PARQUET_COLUMNS = 'SELECT name FROM parquet_schema($1)';
const loadFiles = (table: string, parquet: string | null, hasStats: boolean): string => {
  const stats = hasStats && parquet ? STAT_COLUMNS.join(', ') : 'NULL::BIGINT AS ino, NULL::BIGINT AS mtime_ns';
  return parquet
    ? `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT ${FILE_COLUMNS}, ${stats} FROM read_parquet(${sqlString(parquet)})`
    : `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT ${FILE_COLUMNS}, ${stats} FROM x_files WHERE false`;
};
/** The files index: x_files with the inode and mtime the file worker reported (the last report of a path wins: a name removed and written again). */
const INDEX_ROWS = `SELECT ${FILE_COLUMNS}, s.ino, s.mtime_ns FROM x_files
  LEFT JOIN (SELECT path, last(ino ORDER BY rowid) AS ino, last(mtime_ns ORDER BY rowid) AS mtime_ns FROM x_file_stats GROUP BY path) s USING (path)
  WHERE path <> ${sqlString(CHANGES_FILE)}
  ORDER BY path`;

/**
 * The keys an operation on one kind's documents covers: from `from` on and
 * below `to` (null: no bound), as text. A batch of range files covers an
 * interval of prefixes; a recycled release's file of another prefix length
 * still falls into exactly one batch.
 */
export interface KeyScope {
  from: string;
  to: string | null;
}
export const EVERY_KEY: KeyScope = { from: '', to: null };
/** A scope as the parameters after the kind in the SQL that takes one (docs-unchanged.sql, recycled-to-remove.sql, RENDER_BATCH_KEYS). */
export const scopeParams = (scope: KeyScope): [string, string | null] => [scope.from, scope.to];

const PLAN_UNCHANGED = exportSql('docs-unchanged');
const PLAN_CARRY = exportSql('carry-plan');
/** x_unchanged: every document of one kind ($1) whose files the previous release lists. */
const EVERY_UNCHANGED = 'CREATE OR REPLACE TEMP TABLE x_unchanged AS SELECT DISTINCT q FROM x_prev_files WHERE kind = $1';
const RECYCLED_TO_REMOVE = exportSql('recycled-to-remove');
const CARRIED_DIRS = "SELECT DISTINCT regexp_extract(path, '^(.*)/[^/]*$', 1) AS dir FROM x_carry WHERE NOT kept";
const CARRIED_TO_LINK = 'SELECT path, size, sha256, ino, mtime_ns FROM x_carry WHERE NOT kept ORDER BY path';
/** The recycled release's files left in place, with what its files index recorded of them. */
const KEPT_TO_CHECK = 'SELECT path, size, sha256, kept_ino AS ino, kept_mtime_ns AS mtime_ns FROM x_carry WHERE kept ORDER BY path';
const RECORD_CARRIED = `INSERT INTO x_files SELECT ${FILE_COLUMNS}, CASE WHEN kept THEN 'kept' ELSE 'reused' END FROM x_carry`;
const RECYCLED_OTHER_FILES = 'SELECT path FROM x_recycled_files WHERE kind IS NULL';
/** The previous release's files outside per-query documents. */
const PREVIOUS_PLAIN_FILES = 'SELECT path, size, sha256, ino, mtime_ns FROM x_prev_files WHERE kind IS NULL';
/** The previous release's range files, for PreviousRanges' checked reads. */
const PREVIOUS_RANGE_FILES = "SELECT path, size, sha256, ino, mtime_ns FROM x_prev_files WHERE kind LIKE 'range:%'";
const COUNTS = exportSql('files-counts');
const DOCUMENT_FILES = exportSql('document-files');
/** Files, bytes and the largest file of the release (x_files). */
const RELEASE_SIZE = 'SELECT count(*) AS files, sum(size) AS total, arg_max(path, size) AS path, max(size) AS largest FROM x_files';

/** Files of per-query documents (range files included) written, and carried over unchanged. */
export interface DocumentFiles {
  written: number;
  carried: number;
}

export interface WriterOptions {
  /** The current release and its files index, when unchanged documents are hard-linked from it. */
  previous: { dir: string; files: string } | null;
  /** `dir` holds a recycled old release (one pruning would remove): its files index. */
  recycledFiles: string | null;
  /** The most names a carried file may have (the releases kept, each with a name by height and by hash); more is a hard link from outside. */
  maxLinks: number;
}

/** A file of the previous release as its files index records it. */
type PreviousFile = FileEntry & RecordedFile;
const previousFileOf = (row: { path: string; size: number | bigint; sha256: string; ino: bigint | null; mtime_ns: bigint | null }): PreviousFile =>
  ({ path: row.path, size: Number(row.size), sha256: row.sha256, ino: row.ino, mtime_ns: row.mtime_ns });

/**
 * Writes the files of one release directory and records them in x_files for
 * the manifest. Per-query documents whose body is unchanged since the
 * previous release are carried over whole by `carryUnchanged`: hard-linked,
 * or left in place when `dir` is a recycled release that already has them.
 * Every other name of a recycled release is removed before it gets new bytes
 * (never written through: releases share inodes). File operations run in
 * order on a worker thread.
 */
export class ReleaseWriter {
  private readonly dirs = new Set<string>();
  private readonly files: FileQueue;
  /** The previous release's files outside per-query documents, by path: what `put` carries over when its bytes are the same, and the dumps' partitions. */
  private previousPlain = new Map<string, PreviousFile>();

  private constructor(
    private readonly db: Db, readonly dir: string, private readonly previousDir: string | null,
    private readonly appender: RowAppender, private readonly statsAppender: RowAppender, private readonly maxLinks: number,
  ) {
    const prefix = `${dir}/`;
    this.files = new FileQueue((stats: FileStats[]) => {
      for (const [path, ino, mtimeNs] of stats) this.statsAppender.append([path.slice(prefix.length), ino, mtimeNs]);
    });
  }

  static async open(db: Db, dir: string, opts: WriterOptions): Promise<ReleaseWriter> {
    await db.exec(CREATE_FILES);
    await db.exec(CREATE_FILE_STATS);
    await db.exec(loadFiles('x_prev_files', opts.previous?.files ?? null, await hasStatColumns(db, opts.previous?.files ?? null)));
    await db.exec(loadFiles('x_recycled_files', opts.recycledFiles, await hasStatColumns(db, opts.recycledFiles)));
    const appenders = [await db.appender('x_files', FILE_APPEND_COLUMNS, 'temp'), await db.appender('x_file_stats', FILE_STATS_COLUMNS, 'temp')] as const;
    const writer = new ReleaseWriter(db, dir, opts.previous?.dir ?? null, ...appenders, opts.maxLinks);
    try {
      if (opts.previous) {
        const rows = await db.all<PreviousFile>(PREVIOUS_PLAIN_FILES);
        writer.previousPlain = new Map(rows.map((f) => [f.path, previousFileOf(f)]));
      }
      // A recycled release may hold links planted since it was published: none is followed, none stays.
      if (opts.recycledFiles) writer.files.push({ op: 'scrub', path: dir });
      // Files outside documents are always written anew, and the manifest (its signature too, or it goes) and changes.json always change.
      writer.remove(MANIFEST_FILE);
      writer.remove(MANIFEST_SIGNATURE_FILE);
      writer.remove(CHANGES_FILE);
      if (opts.recycledFiles) await writer.eachPath(RECYCLED_OTHER_FILES, [], (path) => writer.remove(path));
    } catch (err) {
      await writer.abandon();
      throw err;
    }
    return writer;
  }

  /**
   * A file of the release with these bytes; returns it and its compressed
   * siblings. A file outside per-query documents whose bytes the previous
   * release has at the same path is carried over with its siblings, not
   * compressed again (the explorer's assets, the OpenAPI document and most
   * feeds when no new entry came).
   */
  async put(path: string, data: string | Buffer, doc?: DocKey, stamp?: AnalysisStamp): Promise<FileEntry[]> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const carried = doc === undefined ? this.carrySame(path, bytes) : null;
    if (carried) return carried;
    const file = this.write(path, bytes, doc, stamp);
    return bytes.length < GZ_MIN ? [file] : [file, ...await this.compress(path, bytes, doc)];
  }

  /**
   * A file without compressed siblings (a host compresses it on the fly),
   * carried over when the previous release has these bytes at `path` (the
   * signed index's shards: most are unchanged after a block).
   */
  putBare(path: string, bytes: Buffer): FileEntry {
    const previous = this.previousPlain.get(path);
    if (previous?.size === bytes.length && previous.sha256 === sha256(bytes)) {
      this.carryFile(previous);
      return previous;
    }
    return this.write(path, bytes);
  }

  /** The rows of a query over the files recorded so far (x_files). */
  async recorded<T>(sql: string, params?: SqlParams): Promise<T[]> {
    this.appender.flush();
    return this.db.all<T>(sql, params);
  }

  /** A file no client is sent as it is (the router's top lists, the nginx snippet): no compressed siblings. */
  putPlain(path: string, text: string): void {
    this.write(path, Buffer.from(text));
  }

  /**
   * A file written as it is, without compressed siblings (range files: a host
   * compresses them on the fly, and siblings would double the file count).
   * The writer takes `bytes`: when they own their memory they move to the file
   * worker uncopied, and must not be used afterwards.
   */
  putRange(path: string, bytes: Buffer, doc: DocKey, stamp: AnalysisStamp): void {
    this.ensureDir(path);
    this.record({ path, size: bytes.length, sha256: sha256(bytes) }, doc, stamp);
    this.files.push({ op: 'write', path: this.at(path), data: bytes, transfer: ownsMemory(bytes) });
  }

  /** A per-query document `{envelope, key: body}` stamped with the analysis that last changed its body. */
  putDocument(path: string, key: string, body: string, doc: DocKey, stamp: AnalysisStamp): Promise<FileEntry[]> {
    return this.put(path, wrapJson(stamp, key, body), doc, stamp);
  }

  /** A second name (hard link) for files just put, e.g. a block by hash next to the block by height. */
  alias(path: string, files: FileEntry[], doc: DocKey, stamp: AnalysisStamp): void {
    this.ensureDir(path);
    const [main] = files;
    for (const file of files) {
      const name = path + file.path.slice(main!.path.length);
      this.files.push({ op: 'link', from: this.at(file.path), path: this.at(name) });
      this.record({ ...file, path: name }, doc, file === main ? stamp : undefined);
    }
  }

  /**
   * A file whose text DuckDB rendered along with its size and sha256; the
   * caller records it in SQL with `recordRendered`, so the bytes are neither
   * hashed nor converted on this thread.
   */
  writeRendered(path: string, text: string): void {
    this.ensureDir(path);
    this.files.push({ op: 'write', path: this.at(path), data: text });
  }

  /** A second name for a file written by `writeRendered`. */
  linkRendered(path: string, target: string): void {
    this.ensureDir(path);
    this.files.push({ op: 'link', from: this.at(target), path: this.at(path) });
  }

  /** Records files written by writeRendered: `rows` selects path, size, sha256, stamp_height, stamp_time, kind, q. */
  async recordRendered(rows: string, params: SqlParams): Promise<void> {
    this.appender.flush();
    await this.db.exec(`INSERT INTO x_files SELECT *, 'written' FROM (${rows})`, params);
  }

  /**
   * Finds one kind's documents in `scope` that are unchanged since the
   * previous release (x_unchanged, docs-unchanged.sql), carries their files
   * over, and removes the recycled release's other files of that kind in
   * `scope` before they are written again.
   */
  async carryUnchanged(kind: string, scope: KeyScope): Promise<void> {
    const params = [kind, ...scopeParams(scope)];
    await this.db.exec(PLAN_UNCHANGED, params);
    await this.carryPlanned(kind, params);
  }

  /**
   * Carries every file of one kind of the previous release over, as
   * carryUnchanged does, for a kind none of whose documents changed (the
   * caller knows): no document is compared.
   */
  async carryEvery(kind: string): Promise<void> {
    await this.db.exec(EVERY_UNCHANGED, [kind]);
    await this.carryPlanned(kind, [kind, ...scopeParams(EVERY_KEY)]);
  }

  /** Carries over the files of one kind's documents in x_unchanged; `params` are the kind and the scope. */
  private async carryPlanned(kind: string, params: SqlParams): Promise<void> {
    await this.db.exec(PLAN_CARRY, [kind]);
    await this.eachPath(RECYCLED_TO_REMOVE, params, (path) => this.remove(path));
    await this.eachPath(CARRIED_DIRS, [], (dir) => this.mkdirOnce(this.at(dir)));
    await this.eachFile(KEPT_TO_CHECK, (file) => this.files.push({ op: 'check', path: this.at(file.path), expect: file, maxLinks: this.maxLinks }));
    await this.eachFile(CARRIED_TO_LINK, (file) => this.pushCarry(file));
    this.appender.flush();
    await this.db.exec(RECORD_CARRIED);
  }

  /** A link to the previous release's file once the worker checked it is the one its files index records. */
  private pushCarry(file: PreviousFile): void {
    this.files.push({ op: 'carry', from: `${this.previousDir!}/${file.path}`, path: this.at(file.path), expect: file, maxLinks: this.maxLinks });
  }

  /**
   * Reads the previous release's range files as PreviousRanges does, each
   * checked as a carried file is (a damaged one fails the export with
   * CarriedFileDamaged, which then writes every file anew): never through a
   * link, a regular file of the size recorded, hashed when its inode or
   * mtime is not the one recorded. Without a files index, only the first two.
   */
  async previousRangeReader(): Promise<(path: string) => Promise<Buffer>> {
    const records = new Map((await this.db.all<PreviousFile>(PREVIOUS_RANGE_FILES)).map((row) => [`${this.previousDir ?? ''}/${row.path}`, previousFileOf(row)]));
    return (path) => readChecked(path, records.get(path) ?? null);
  }

  /** The previous release's file at `path` outside per-query documents (none without a previous release). */
  previousFile(path: string): FileEntry | undefined {
    return this.previousPlain.get(path);
  }

  /** A file of the previous release (listed in its files index as `file`) hard-linked into this one unchanged, once checked. */
  carryFile(file: FileEntry): void {
    this.ensureDir(file.path);
    this.pushCarry(this.previousPlain.get(file.path) ?? { ...file, ino: null, mtime_ns: null });
    this.record(file, undefined, undefined, 'reused');
  }

  /** A file something else (DuckDB COPY) wrote into the release. */
  async adopt(path: string): Promise<void> {
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of createReadStream(this.at(path))) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    const stats = await lstat(this.at(path), { bigint: true });
    this.statsAppender.append([path, stats.ino, stats.mtimeNs]);
    this.record({ path, size, sha256: hash.digest('hex') });
  }

  /**
   * Gzips a file written into the release (`plain`, removed after) as
   * `path` and adopts that. Node's zlib runs on libuv's thread pool;
   * DuckDB's own CSV gzip took four times as long for a larger file.
   */
  async adoptGzipped(plain: string, path: string, level: number): Promise<void> {
    // Created anew, never through a name already there (pathFor removed it).
    await pipeline(createReadStream(this.at(plain)), createGzip({ level }), createWriteStream(await this.pathFor(path), { flags: 'wx' }));
    await rm(this.at(plain));
    await this.adopt(path);
  }

  /** Records a file written after `finish` (changes.json): in the manifest, not in the files index. */
  async recordFinished(path: string): Promise<void> {
    const bytes = await readFile(this.at(path));
    await this.db.exec(`INSERT INTO x_files (path, size, sha256, how) VALUES ($1, $2, $3, 'written')`, [path, bytes.length, sha256(bytes)]);
  }

  /**
   * Where a file of this release lives (for writers that need a path, e.g.
   * COPY); its directory exists on return, no name is there (a writer that
   * follows links cannot write through one planted in a recycled release),
   * and no queued removal can take the file away. Other queued operations
   * go on: waiting for them held the dumps behind thousands of links.
   */
  async pathFor(path: string): Promise<string> {
    const dir = dirname(this.at(path));
    await mkdir(dir, { recursive: true });
    this.dirs.add(dir);
    await this.files.removalsApplied();
    // Here, not through the worker: waiting for a removal queued now would wait for every link queued before it.
    await rm(this.at(path), { force: true });
    return this.at(path);
  }

  /**
   * Writes the files index to `index` (in the release's state, not in the
   * release) once `finish` applied every file operation: it lists every file
   * of the release but changes.json and manifest.json, with the inode and
   * mtime the file worker reported.
   */
  async writeIndex(index: string): Promise<void> {
    await this.db.exec(`COPY (${INDEX_ROWS}) TO ${sqlString(index)} (FORMAT parquet, COMPRESSION zstd)`);
  }

  /** Makes every file recorded so far visible to SQL in x_files (changes.json compares them). */
  flushRecords(): void {
    this.appender.flush();
  }

  /** Waits for every file operation and stops the worker: the tree is complete but for manifest.json when it resolves. */
  async finish(): Promise<void> {
    try {
      await this.files.drain();
    } finally {
      this.closeAppender();
      await this.files.close();
    }
  }

  /** Waits while the file worker is too far behind; producers call it between pages. */
  ready(): Promise<void> {
    return this.files.ready();
  }

  /** Stops the worker after a failure, leaving pending operations unapplied. */
  async abandon(): Promise<void> {
    try {
      this.closeAppender();
    } finally {
      await this.files.close();
    }
  }

  /** The whole release's size once finished, the manifest (not in x_files) included. */
  async size(manifestBytes: number): Promise<ReleaseSize> {
    const row = (await this.db.one<{ files: bigint; total: bigint | null; path: string | null; largest: bigint | null }>(RELEASE_SIZE))!;
    const largest = row.path !== null && Number(row.largest) >= manifestBytes
      ? { path: row.path, bytes: Number(row.largest) } : { path: MANIFEST_FILE, bytes: manifestBytes };
    return { files: Number(row.files) + 1, largestFile: largest, totalBytes: Number(row.total ?? 0) + manifestBytes };
  }

  async counts(): Promise<WriterCounts> {
    const row = (await this.db.one<Record<keyof WriterCounts, bigint>>(COUNTS))!;
    return { files: Number(row.files), written: Number(row.written), reused: Number(row.reused), kept: Number(row.kept), bytes: Number(row.bytes) };
  }

  /** The files of per-query documents, once every one is queued. */
  async documentFiles(): Promise<DocumentFiles> {
    this.flushRecords();
    const row = (await this.db.one<{ written: bigint; carried: bigint }>(DOCUMENT_FILES))!;
    return { written: Number(row.written), carried: Number(row.carried) };
  }

  private closeAppender(): void {
    try {
      this.appender.close();
    } finally {
      this.statsAppender.close();
    }
  }

  /** A file this export wrote, or one it carried over on its own (carried documents are recorded in SQL). */
  private record(file: FileEntry, doc?: DocKey, stamp?: AnalysisStamp, how: 'written' | 'reused' = 'written'): void {
    this.appender.append([file.path, file.size, file.sha256, stamp?.as_of_height, stamp?.updated_at, doc?.kind, doc?.q, how]);
  }

  /** Carries over the previous release's file at `path` and its siblings when its bytes are `bytes`; null when they differ (or a sibling is missing). */
  private carrySame(path: string, bytes: Buffer): FileEntry[] | null {
    const previous = this.previousPlain.get(path);
    if (previous?.size !== bytes.length || previous.sha256 !== sha256(bytes)) return null;
    const gz = this.previousPlain.get(`${path}.gz`);
    const br = this.previousPlain.get(`${path}.br`);
    if (bytes.length >= GZ_MIN && !gz) return null;
    const files = bytes.length < GZ_MIN ? [previous] : [previous, gz!, ...(br ? [br] : [])];
    for (const file of files) this.carryFile(file);
    return files;
  }

  /** The .gz (and .br when it pays) siblings of a file of at least GZ_MIN bytes. */
  private async compress(path: string, bytes: Buffer, doc?: DocKey): Promise<FileEntry[]> {
    const gz = await gzipAsync(bytes, { level: 9 });
    const siblings = [this.write(`${path}.gz`, gz, doc)];
    if (bytes.length < BR_MIN) return siblings;
    const br = await brotliAsync(bytes, { params: brotliParams(bytes.length) });
    if (br.length < gz.length * BR_GAIN) siblings.push(this.write(`${path}.br`, br, doc));
    return siblings;
  }

  private write(path: string, bytes: Buffer, doc?: DocKey, stamp?: AnalysisStamp): FileEntry {
    this.ensureDir(path);
    this.files.push({ op: 'write', path: this.at(path), data: bytes });
    const file = { path, size: bytes.length, sha256: sha256(bytes) };
    this.record(file, doc, stamp);
    return file;
  }

  private remove(path: string): void {
    this.files.push({ op: 'remove', path: this.at(path) });
  }

  /** Streams the files a query selects (path, size, sha256, ino, mtime_ns) to `each`, a DuckDB chunk at a time. */
  private async eachFile(sql: string, each: (file: PreviousFile) => void): Promise<void> {
    for await (const rows of this.db.stream(sql)) {
      for (const [path, size, sha256, ino, mtimeNs] of rows) {
        each({ path: String(path), size: Number(size), sha256: String(sha256), ino: ino === null ? null : BigInt(ino as bigint), mtime_ns: mtimeNs === null ? null : BigInt(mtimeNs as bigint) });
      }
      await this.files.ready();
    }
  }

  /** Streams a one-column query's values to `each`, a DuckDB chunk at a time. */
  private async eachPath(sql: string, params: SqlParams, each: (value: string) => void): Promise<void> {
    for await (const rows of this.db.stream(sql, params)) {
      for (const [value] of rows) each(String(value));
      await this.files.ready();
    }
  }

  /** A release path on disk; paths are built from validated parts, so concatenation (not path.join's normalising) is enough. */
  private at(path: string): string {
    return `${this.dir}/${path}`;
  }

  private ensureDir(path: string): void {
    this.mkdirOnce(dirname(this.at(path)));
  }

  private mkdirOnce(dir: string): void {
    if (this.dirs.has(dir)) return;
    this.dirs.add(dir);
    this.files.push({ op: 'mkdir', path: dir });
  }
}

/** Whether a files index (null: none) records inodes and mtimes; one of an earlier pegscope does not. */
async function hasStatColumns(db: Db, parquet: string | null): Promise<boolean> {
  if (parquet === null) return false;
  const names = new Set((await db.all<{ name: string }>(PARQUET_COLUMNS, [parquet])).map((r) => r.name));
  return STAT_COLUMNS.every((name) => names.has(name));
}

const READ_FLAGS = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK;

/** Reads another release's file checked against its record (ReleaseWriter.previousRangeReader); CarriedFileDamaged when it fails. */
async function readChecked(path: string, record: RecordedFile | null): Promise<Buffer> {
  let handle;
  try {
    handle = await openFile(path, READ_FLAGS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new CarriedFileDamaged(`${path} is a symbolic link`);
    throw err;
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile()) throw new CarriedFileDamaged(`${path} is not a regular file`);
    if (record && stats.size !== BigInt(record.size)) throw new CarriedFileDamaged(`${path} has ${stats.size} bytes, the files index lists ${record.size}`);
    const bytes = await handle.readFile();
    const same = record?.ino == null || (stats.ino === record.ino && stats.mtimeNs === record.mtime_ns);
    if (record && !same && sha256(bytes) !== record.sha256) throw new CarriedFileDamaged(`${path} does not have the sha256 the files index lists (changed in place or replaced)`);
    return bytes;
  } finally {
    await handle.close();
  }
}
