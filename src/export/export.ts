import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { isValidAddress } from '../domain/address.js';
import { networkParams, type NetworkName } from '../domain/network.js';
import { buildAmountTable } from '../domain/privacy.js';
import { fromBigint } from '../domain/amount.js';
import type { Db } from '../store/db.js';
import { silentProgress, type Progress } from '../progress.js';
import type { AnalysisStamp } from '../api/envelope.js';
import { healthDocument } from '../api/health.js';
import * as stats from '../api/stats.js';
import * as recommendations from '../api/recommendations.js';
import * as links from '../api/links.js';
import * as amounts from '../api/top-amounts.js';
import * as trace from '../api/trace.js';
import * as address from '../api/address.js';
import * as follow from '../api/follow.js';
import * as block from '../api/block.js';
import { indexDocument } from '../api/index.js';
import { redirectsFile, headersFile, nginxSnippet } from './configs.js';
import { writeDumps } from './dumps.js';
import { MANIFEST_FILE, type Manifest } from './manifest.js';
import { currentRelease, publishRelease, pruneReleases, releaseId, startRelease } from './publish.js';
import { ReleaseWriter, type PreviousRelease } from './writer.js';

export interface ExportOptions {
  outDir: string;
  /** Complete releases to keep (default 3); once there are this many, the oldest is recycled into the next one. */
  keep?: number;
  /** Hard-link files unchanged since the current release (default true); false rewrites every byte. */
  incremental?: boolean;
  progress?: Progress;
  log?: (line: string) => void;
}

export interface ExportResult {
  releaseId: string;
  dir: string;
  files: number;
  written: number;
  /** Files hard-linked to the previous release. */
  reused: number;
  /** Files of a recycled old release left in place because their bytes were already right. */
  kept: number;
  /** Bytes actually written (reused and kept files cost none). */
  bytes: number;
}

/** Files written at once; enough to keep the disk busy, few enough to bound memory. */
const CONCURRENCY = 32;
const TXID = /^[0-9a-f]{64}$/;

const json = (value: unknown): string => JSON.stringify(value);

/** The export's working tables; dropped so a long-running job does not keep them in memory. */
const DROP_TEMP_TABLES = ['x_attribution', 'x_pegin_inputs', 'x_pegin_links', 'x_pegout_links', 'x_pegin_nodes', 'x_pegout_nodes',
  'x_addresses', 'x_address_pegins', 'x_doc', 'x_bodies', 'x_prev_bodies'].map((t) => `DROP TABLE IF EXISTS ${t};`).join('\n');

/**
 * Writes a complete release of the static tree (SPEC §4) from the analysed
 * database and publishes it atomically: a kill at any point leaves `current`
 * on the previous complete release.
 */
export async function exportRelease(db: Db, opts: ExportOptions): Promise<ExportResult> {
  const log = opts.log ?? (() => undefined);
  const progress = opts.progress ?? silentProgress;
  const stamp = await analysisStamp(db);
  const previous = await currentRelease(opts.outDir);
  const id = releaseId(stamp.as_of_height);
  const keep = opts.keep ?? 3;
  const incremental = opts.incremental ?? true;
  const { dir: tmpDir, recycled } = await startRelease(opts.outDir, id, incremental ? keep : undefined);
  const writer = new ReleaseWriter(tmpDir, stamp, previous, incremental, recycled?.manifest ?? null);
  log(`export ${stamp.network} at height ${stamp.as_of_height} into release ${id}${recycled ? ` (recycling release ${recycled.id}, which pruning would remove)` : ''}${previous ? ' (reusing unchanged files of the current release)' : ''}`);

  try {
    await db.exec(trace.NODES_SQL);
    await writeEndpointDocuments(db, writer, stamp);
    const skipped = await writeQueryDocuments(db, writer, stamp, previous, incremental, progress);
    if (skipped > 0) log(`skipped ${skipped} queries that are not a valid ${stamp.network} address or txid (never used as file names)`);
    await writeDumps(db, writer);
    await writer.put('_redirects', redirectsFile());
    await writer.put('_headers', headersFile());
    await writer.put('nginx.conf', nginxSnippet());
    await writer.finish();
  } catch (err) {
    await writer.abandon();
    await rm(tmpDir, { recursive: true, force: true });
    throw err;
  } finally {
    await db.exec(DROP_TEMP_TABLES);
  }

  const manifest: Manifest = { version: '1', network: stamp.network, as_of_height: stamp.as_of_height, updated_at: stamp.updated_at, ...writer.manifestParts() };
  const manifestText = json(manifest);
  // A recycled release's old manifest is replaced, never written through.
  await rm(join(tmpDir, MANIFEST_FILE), { force: true });
  await writeFile(join(tmpDir, MANIFEST_FILE), manifestText);
  const dir = await publishRelease(opts.outDir, tmpDir, id);
  const pruned = await pruneReleases(opts.outDir, keep);
  // The manifest counts as one more written file.
  const { files, written, reused, kept, bytes } = writer.counts;
  const result = { releaseId: id, dir, files: files + 1, written: written + 1, reused, kept, bytes: bytes + Buffer.byteLength(manifestText) };
  log(`published ${id}: ${result.files} files, ${result.written} written, ${reused} linked to the previous release, ${kept} kept in place, ${(result.bytes / 1e6).toFixed(1)} MB written${pruned.length ? `; pruned ${pruned.join(', ')}` : ''}`);
  return result;
}

async function analysisStamp(db: Db): Promise<AnalysisStamp> {
  const rows = await db.all<{ key: string; value: string }>("SELECT key, value FROM a_meta").catch(() => []);
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  const asOf = Number(meta.get('as_of_height'));
  const updatedAt = Number(meta.get('updated_at'));
  if (!Number.isSafeInteger(asOf) || !Number.isSafeInteger(updatedAt)) {
    throw new Error('the database has no analysis to export (a_meta lacks as_of_height/updated_at); run `pegscope analyze` first');
  }
  const network = networkParams(meta.get('network') ?? '').name as NetworkName;
  return { network, as_of_height: asOf, updated_at: updatedAt };
}

/** The default-parameter documents, the index, the amount table and the top lists. */
async function writeEndpointDocuments(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp): Promise<void> {
  const counts = await db.one<{ cursor: string | null; pegins: bigint; pegouts: bigint }>(
    "SELECT (SELECT value FROM meta WHERE key = 'cursor_height') AS cursor, (SELECT count(*) FROM pegins) AS pegins, (SELECT count(*) FROM pegouts) AS pegouts",
  );
  await writer.put('api/health.json', json(healthDocument(stamp, {
    last_scanned_block: Number(counts?.cursor ?? stamp.as_of_height),
    pegins: Number(counts?.pegins ?? 0), pegouts: Number(counts?.pegouts ?? 0),
  })));
  await writer.put('api/stats.json', json(stats.statsDocument(stamp, await db.all(stats.QUERY))));
  const rec = await db.one<{ doc: string }>(recommendations.QUERY);
  if (!rec) throw new Error('a_recommendations is empty; run `pegscope analyze` before exporting');
  await writer.put('api/recommendations.json', json(recommendations.recommendationsDocument(stamp, rec.doc)));
  await writer.put('api/index.json', json(indexDocument(stamp)));

  const topLinks = await db.one<{ links: string | null }>(links.QUERY, [links.TOP_LINKS]);
  const linksTop = links.linksDocument(stamp, JSON.parse(topLinks?.links ?? '[]'));
  await writer.put('data/links.json', json(linksTop));
  const linksDefault = links.sliceLinks(linksTop, links.DEFAULT_MIN_CONFIDENCE, links.DEFAULT_LIMIT);
  await writer.put('api/links.json', json(linksDefault));
  await writer.put('api/links.csv', links.linksCsv(linksDefault));

  for (const side of ['pegin', 'pegout'] as const) {
    const top = await db.one<{ rows: string | null }>(amounts.QUERY, [side, amounts.TOP_AMOUNTS]);
    const topDoc = amounts.amountsDocument(stamp, side, JSON.parse(top?.rows ?? '[]'));
    const name = amounts.amountsKey(side);
    await writer.put(`data/${name}.json`, json(topDoc));
    const byDefault = amounts.sliceAmounts(topDoc, side, amounts.DEFAULT_AMOUNTS_LIMIT);
    await writer.put(`api/${name}.json`, json(byDefault));
    await writer.put(`api/${name}.csv`, amounts.amountsCsv(byDefault, side));
  }

  const rows = await db.all<{ side: string; amount: bigint; count: bigint }>('SELECT side, amount, count FROM a_amounts ORDER BY side, amount');
  const pairs = (side: string) => rows.filter((r) => r.side === side).map((r) => [fromBigint(r.amount), Number(r.count)] as const);
  await writer.put('api/amounts.json', json(buildAmountTable({ pegin: pairs('pegin'), pegout: pairs('pegout') })));
}

/** Content hashes of the per-query documents, read by the next incremental export. */
export const BODIES_FILE = 'data/bodies.parquet';

interface DocRow { q: string; body: string | null; same: boolean; [column: string]: unknown }

/**
 * trace, address, follow and block files for every query. DuckDB renders each
 * document body and hashes it; bodies equal to the previous release's are
 * not even fetched when reusing: their files are hard-linked. Returns how many
 * keys were refused as file names.
 */
async function writeQueryDocuments(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, previous: PreviousRelease | null, reuse: boolean, progress: Progress): Promise<number> {
  const network = networkParams(stamp.network);
  const isQuery = (q: string): boolean => TXID.test(q) || isValidAddress(q, network);
  let skipped = 0;
  await loadPreviousBodies(db, previous);
  await db.exec('CREATE OR REPLACE TEMP TABLE x_bodies (kind VARCHAR, q VARCHAR, h VARCHAR)');
  const docs = (kind: string, sql: string, each: (row: DocRow) => Promise<boolean>) => eachDocument(db, kind, sql, reuse, progress, each);

  await docs('trace', trace.QUERY, async ({ q, body, same }) => {
    if (!isQuery(q)) { skipped++; return true; }
    const json = `api/trace/${q}.json`, csv = `api/trace/${q}.csv`;
    if (same && body === null) return (await writer.reuseUnchanged(json)) && writer.reuseUnchanged(csv);
    await writer.putDocument(json, 'trace', body!);
    await writer.put(csv, trace.traceCsv(JSON.parse(body!) as trace.Trace));
    return true;
  });
  await docs('address', address.QUERY, async ({ q, body, same }) => {
    if (!isValidAddress(q, network)) return true;
    const path = `api/address/${q}.json`;
    if (same && body === null) return writer.reuseUnchanged(path);
    await writer.putDocument(path, 'address', body!);
    return true;
  });
  await docs('follow', follow.QUERY, async ({ q, body, same, hops }) => {
    if (!isValidAddress(q, network)) return true;
    const api = `api/follow/${q}.json`, full = `data/follow/${q}.json`;
    const chained = Number(hops) > 0;
    if (same && body === null) return (await writer.reuseUnchanged(api)) && (!chained || writer.reuseUnchanged(full));
    await writer.putDocument(api, 'follow', json(follow.truncateFollow(JSON.parse(body!) as follow.Follow, follow.DEFAULT_DEPTH)));
    if (chained) await writer.putDocument(full, 'follow', body!);
    return true;
  });
  await docs('block', block.QUERY, async ({ q, body, same, hash }) => {
    const byHeight = `api/block/${q}.json`;
    if (same && body === null) {
      if (!(await writer.reuseUnchanged(byHeight))) return false;
    } else {
      await writer.putDocument(byHeight, 'block', body!);
    }
    if (TXID.test(String(hash))) await writer.alias(`api/block/${String(hash)}.json`, byHeight);
    return true;
  });
  await db.exec(`COPY (SELECT kind, q, h FROM x_bodies ORDER BY kind, q) TO ${sqlString(await writer.pathFor(BODIES_FILE))} (FORMAT parquet)`);
  await writer.adopt(BODIES_FILE);
  return skipped;
}

async function loadPreviousBodies(db: Db, previous: PreviousRelease | null): Promise<void> {
  const path = previous && previous.manifest.files[BODIES_FILE] ? join(previous.dir, BODIES_FILE) : null;
  await db.exec(path
    ? `CREATE OR REPLACE TEMP TABLE x_prev_bodies AS SELECT kind, q, h FROM read_parquet(${sqlString(path)})`
    : 'CREATE OR REPLACE TEMP TABLE x_prev_bodies (kind VARCHAR, q VARCHAR, h VARCHAR)');
}

const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * Renders one kind of document (rows q, body, …) into a temp table with its
 * hash, records the hashes, and hands every row to `each`: `same` when the
 * previous release had the same body, and then `body` is null if files are
 * reused. `each` returns false when it could not reuse; those rows are
 * fetched with their body afterwards.
 */
async function eachDocument(db: Db, kind: string, sql: string, reuse: boolean, progress: Progress, each: (row: DocRow) => Promise<boolean>): Promise<void> {
  const query = sql.replace(/;\s*$/, '');
  await db.exec(`CREATE OR REPLACE TEMP TABLE x_doc AS SELECT *, md5(body) AS h FROM (${query})`);
  await db.exec(`INSERT INTO x_bodies SELECT ${sqlString(kind)}, q, h FROM x_doc`);
  const select = (bodyWhenSame: string, where: string) => `SELECT d.* EXCLUDE (body, h), coalesce(p.h = d.h, false) AS same,
      CASE WHEN p.h = d.h THEN ${bodyWhenSame} ELSE d.body END AS body
    FROM x_doc d LEFT JOIN x_prev_bodies p ON p.kind = ${sqlString(kind)} AND p.q = d.q ${where} ORDER BY d.q`;
  const missed = await eachRow(db, select(reuse ? 'NULL' : 'd.body', ''), `export ${kind}`, progress, each);
  if (missed.length > 0) {
    const list = missed.map(sqlString).join(', ');
    await eachRow(db, select('d.body', `WHERE d.q IN (${list})`).replace('coalesce(p.h = d.h, false) AS same', 'false AS same'), `export ${kind} (not reusable)`, progress, each);
  }
}

/** Streams rows to `each` with bounded concurrency, one DuckDB chunk at a time; returns the q of rows it refused. */
async function eachRow(db: Db, sql: string, label: string, progress: Progress, each: (row: DocRow) => Promise<boolean>): Promise<string[]> {
  const total = await db.one<{ n: bigint }>('SELECT count(*) AS n FROM x_doc');
  progress.start(label, Number(total?.n ?? 0), 'docs');
  const limit = pLimit(CONCURRENCY);
  const result = await db.conn.stream(sql);
  const missed: string[] = [];
  let done = 0;
  for await (const rows of result.yieldRowObjectJs()) {
    await Promise.all(rows.map((row) => limit(async () => {
      const doc = { ...row, q: String(row.q) } as DocRow;
      if (!(await each(doc))) missed.push(doc.q);
    })));
    done += rows.length;
    progress.update(done);
  }
  progress.stop();
  return missed;
}
