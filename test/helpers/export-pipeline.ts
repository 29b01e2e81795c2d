import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { expect } from 'vitest';
import { basename, dirname, join, relative } from 'node:path';
import { Db, sqlString } from '../../src/store/db.js';
import { DOCS_DB, FILES_INDEX } from '../../src/export/state.js';
import { createSimSource, type SimSource } from '../../src/chain/sim/index.js';
import { scanChain } from '../../src/store/scan.js';
import { analyze } from '../../src/analysis/analyze.js';

/** The real pipeline up to an analysed database: sim chain (tiny) → scan → analyze. */
export async function analysedDb(path: string, seed: number, to: number, now: number): Promise<{ db: Db; source: SimSource }> {
  const db = await Db.open(path);
  const source = createSimSource({ preset: 'tiny', seed });
  await scanChain(db, source, { to });
  await analyze(db, { now });
  return { db, source };
}

export async function scanAndAnalyze(db: Db, source: SimSource, to: number, now: number, horizon?: number): Promise<void> {
  await scanChain(db, source, { to });
  await analyze(db, { now, horizon });
}

/** Curated labels whose entity names a spreadsheet would run as formulas. */
export async function insertHostileLabels(db: Db, addresses: string[]): Promise<void> {
  for (const [i, address] of addresses.entries()) {
    await db.exec("INSERT OR REPLACE INTO labels (address, entity, category, confidence, source_kind, source_key, source, imported_at) VALUES ($1, $2, $3, 1.0, 'file', $4, $4, 0)",
      [address, i % 2 ? '@SUM(1+1)' : '=HYPERLINK("http://x","y")', 'exchange', 'test']);
  }
}

/** Every file of a tree, relative path → absolute path, sorted. */
export function treeFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(root, path), path);
    }
  };
  walk(root);
  return files;
}

/** Two trees with the same file names and the same bytes in each file (but the `ignored` paths, in neither). */
export function expectSameTree(actualRoot: string, expectedRoot: string, ignored: string[] = []): void {
  const a = treeFiles(actualRoot);
  const b = treeFiles(expectedRoot);
  for (const path of ignored) { a.delete(path); b.delete(path); }
  expect([...a.keys()]).toEqual([...b.keys()]);
  for (const [rel, path] of a) expect(readFileSync(path).equals(readFileSync(b.get(rel)!)), rel).toBe(true);
}

/**
 * Two releases' state directories (out/<network>/state/<id>) with the same
 * files and bytes; state.json names its own release, and is compared without
 * it. Each site's documents index names that release and holds the same rows.
 */
export async function expectSameState(actual: string, expected: string): Promise<void> {
  const withoutRelease = (dir: string): unknown => {
    const { release, ...state } = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { release: string };
    expect(release).toBe(basename(dir));
    return state;
  };
  expect(withoutRelease(actual)).toEqual(withoutRelease(expected));
  // The files index records each file's inode and mtime, which no two exports share: compared without them.
  expectSameTree(actual, expected, ['state.json', FILES_INDEX]);
  expect(await filesIndexOf(actual)).toEqual(await filesIndexOf(expected));
  expect(await docsIndexOf(actual)).toEqual(await docsIndexOf(expected));
}

/** A state's files index without its inodes and mtimes (every file has both), one text per row in path order. */
async function filesIndexOf(stateDir: string): Promise<string[]> {
  const db = await Db.open(':memory:');
  try {
    const index = sqlString(join(stateDir, FILES_INDEX));
    expect((await db.one<{ n: bigint }>(`SELECT count(*) AS n FROM read_parquet(${index}) WHERE ino IS NULL OR mtime_ns IS NULL`))!.n).toBe(0n);
    return (await db.all<{ row: string }>(`SELECT concat_ws(' ', path, size, sha256, stamp_height, stamp_time, kind, q) AS row FROM read_parquet(${index}) ORDER BY path`)).map((r) => r.row);
  } finally {
    db.close();
  }
}

/**
 * The rows of the documents index beside a release's state directory (its
 * documents, attribution and peg digests), in key order; fails unless it
 * names that release.
 */
export async function docsIndexOf(stateDir: string): Promise<string[]> {
  const db = await Db.open(':memory:');
  try {
    await db.exec(`ATTACH ${sqlString(join(dirname(stateDir), DOCS_DB))} AS docs_index (READ_ONLY)`);
    expect((await db.one<{ id: string }>('SELECT id FROM docs_index.release'))?.id).toBe(basename(stateDir));
    const rows = await db.all<{ row: string }>(`SELECT row FROM (
      SELECT concat_ws(' ', 'doc', kind, q, prefix, h, stamp_height, stamp_time) AS row FROM docs_index.docs
      UNION ALL SELECT concat_ws(' ', 'attribution', address, h) FROM docs_index.attribution
      UNION ALL SELECT concat_ws(' ', 'peg', side, txid, vout, digest) FROM docs_index.pegs) ORDER BY row`);
    return rows.map((r) => r.row);
  } finally {
    db.close();
  }
}

/** Whether every file the release's manifest lists is there with the listed sha256, and nothing else. */
export function isComplete(release: string): boolean {
  const manifest = JSON.parse(readFileSync(join(release, 'manifest.json'), 'utf8'));
  const files = treeFiles(release);
  files.delete('manifest.json');
  return files.size === Object.keys(manifest.files).length && [...files].every(([rel, path]) =>
    createHash('sha256').update(readFileSync(path)).digest('hex') === manifest.files[rel]?.sha256);
}
