import { writeFile } from 'node:fs/promises';
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
import { ReleaseWriter } from './writer.js';

export interface ExportOptions {
  outDir: string;
  /** Complete releases to keep (default 3). */
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
  reused: number;
  /** Bytes actually written (reused files cost none). */
  bytes: number;
}

/** Files written at once; enough to keep the disk busy, few enough to bound memory. */
const CONCURRENCY = 32;
const TXID = /^[0-9a-f]{64}$/;

const json = (value: unknown): string => JSON.stringify(value);

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
  const tmpDir = await startRelease(opts.outDir, id);
  const writer = new ReleaseWriter(tmpDir, stamp, previous, opts.incremental ?? true);
  log(`export ${stamp.network} at height ${stamp.as_of_height} into release ${id}${previous ? ' (reusing unchanged files of the current release)' : ''}`);

  await db.exec(trace.NODES_SQL);
  await writeEndpointDocuments(db, writer, stamp);
  const skipped = await writeQueryDocuments(db, writer, stamp, progress);
  if (skipped > 0) log(`skipped ${skipped} queries that are not a valid ${stamp.network} address or txid (never used as file names)`);
  await writeDumps(db, writer);
  await writer.put('_redirects', redirectsFile());
  await writer.put('_headers', headersFile());
  await writer.put('nginx.conf', nginxSnippet());

  const manifest: Manifest = { version: '1', network: stamp.network, as_of_height: stamp.as_of_height, updated_at: stamp.updated_at, ...writer.manifestParts() };
  await writeFile(join(tmpDir, MANIFEST_FILE), json(manifest));
  const dir = await publishRelease(opts.outDir, tmpDir, id);
  const pruned = await pruneReleases(opts.outDir, opts.keep ?? 3);
  const { files, written, reused, bytes } = writer.counts;
  log(`published ${id}: ${files} files, ${written} written, ${reused} reused, ${(bytes / 1e6).toFixed(1)} MB written${pruned.length ? `; pruned ${pruned.join(', ')}` : ''}`);
  return { releaseId: id, dir, files: files + 1, written: written + 1, reused, bytes };
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

/** trace, address, follow and block files for every query; returns how many keys were refused as file names. */
async function writeQueryDocuments(db: Db, writer: ReleaseWriter, stamp: AnalysisStamp, progress: Progress): Promise<number> {
  const network = networkParams(stamp.network);
  const isQuery = (q: string): boolean => TXID.test(q) || isValidAddress(q, network);
  let skipped = 0;

  await eachRow(db, trace.QUERY, 'export trace', progress, async ([q, body]) => {
    const key = String(q);
    if (!isQuery(key)) { skipped++; return; }
    const text = String(body);
    await writer.putDocument(`api/trace/${key}.json`, 'trace', text);
    await writer.put(`api/trace/${key}.csv`, trace.traceCsv(JSON.parse(text) as trace.Trace));
  });
  await eachRow(db, address.QUERY, 'export address', progress, async ([q, body]) => {
    const key = String(q);
    if (!isValidAddress(key, network)) return;
    await writer.putDocument(`api/address/${key}.json`, 'address', String(body));
  });
  await eachRow(db, follow.QUERY, 'export follow', progress, async ([q, hops, body]) => {
    const key = String(q);
    if (!isValidAddress(key, network)) return;
    const full = JSON.parse(String(body)) as follow.Follow;
    await writer.putDocument(`api/follow/${key}.json`, 'follow', json(follow.truncateFollow(full, follow.DEFAULT_DEPTH)));
    if (Number(hops) > 0) await writer.putDocument(`data/follow/${key}.json`, 'follow', String(body));
  });
  await eachRow(db, block.QUERY, 'export block', progress, async ([height, hash, body]) => {
    const byHeight = `api/block/${Number(height)}.json`;
    await writer.putDocument(byHeight, 'block', String(body));
    if (TXID.test(String(hash))) await writer.alias(`api/block/${String(hash)}.json`, byHeight);
  });
  return skipped;
}

/** Streams a query's rows and hands them to `each` with bounded concurrency, one DuckDB chunk at a time. */
async function eachRow(db: Db, sql: string, label: string, progress: Progress, each: (row: unknown[]) => Promise<void>): Promise<void> {
  const total = await db.one<{ n: bigint }>(`SELECT count(*) AS n FROM (${sql.replace(/;\s*$/, '')})`);
  progress.start(label, Number(total?.n ?? 0), 'docs');
  const limit = pLimit(CONCURRENCY);
  const result = await db.conn.stream(sql);
  let done = 0;
  for await (const rows of result.yieldRowsJs()) {
    await Promise.all(rows.map((row) => limit(() => each(row as unknown[]))));
    done += rows.length;
    progress.update(done);
  }
  progress.stop();
}
