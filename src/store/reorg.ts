/**
 * Reorgs: the stored chain is compared with the node's by block hash; rows
 * above the common ancestor are deleted and the cursor moves there, in one
 * transaction, before the scan goes on.
 */
import type { ChainSource } from '../chain/types.js';
import type { Batch } from './batch.js';
import { readSql, type Db } from './db.js';

const DELETE_ABOVE = readSql(import.meta.url, 'scan-delete-above.sql');
const STORED_HASHES = readSql(import.meta.url, 'scan-stored-hashes.sql');

/** A chain reorganised under a running scan: the loop finds the fork point and continues. */
export class ChainMovedError extends Error {}

/** Each block must extend the one before it; otherwise the chain moved since the hashes were read. */
export function checkLinks(batch: Batch, lastHash: string | null): void {
  let prev = lastHash;
  for (const { block, height } of batch.blocks) {
    if (prev !== null && block.prevHash !== prev) throw new ChainMovedError(`block ${block.hash} at ${height} does not extend ${prev}`);
    prev = block.hash;
  }
}

/** Runs a file of statements one by one: DuckDB binds parameters to a single statement only. */
async function execEach(db: Db, sql: string, params: number[]): Promise<void> {
  for (const statement of sql.split(/;\s*(?:\n|$)/)) {
    const body = statement.replace(/^\s*--.*$/gm, '').trim();
    if (body) await db.exec(body, params);
  }
}

/** Deletes every row above `height` (rows above the cursor are never trusted). */
export async function deleteAbove(db: Db, height: number): Promise<void> {
  await db.transaction(() => execEach(db, DELETE_ABOVE, [height]));
}

/** The stored hash at `height`, or null below the first stored block. */
export async function storedHash(db: Db, height: number): Promise<string | null> {
  const row = await db.one<{ hash: string }>('SELECT hash FROM blocks WHERE height = $1', [height]);
  return row?.hash ?? null;
}

/**
 * Undoes a reorg: finds the highest stored block at or below `top` that is
 * still on the node's chain and, when blocks above it left that chain, deletes
 * them and moves the cursor there. Returns that height (`top` when nothing moved).
 */
export async function undoReorg(db: Db, source: ChainSource, top: number, activation: number, nodeTip: number): Promise<number> {
  const fork = await findFork(db, source, top, activation, nodeTip);
  if (fork < top) await rewind(db, fork);
  return fork;
}

/** Deletes everything above `height` and moves the cursor there, in one transaction. */
async function rewind(db: Db, height: number): Promise<void> {
  await db.transaction(async () => {
    await execEach(db, DELETE_ABOVE, [height]);
    await db.setMeta('cursor_height', String(height));
  });
}

/**
 * Highest stored height whose hash the node still has at that height: the
 * common ancestor. Windows grow ×4 so a deep reorg costs few round trips.
 */
async function findFork(db: Db, source: ChainSource, cursor: number, activation: number, nodeTip: number): Promise<number> {
  let top = cursor;
  let window = 16;
  while (top >= activation) {
    const low = Math.max(activation, top - window + 1);
    const stored = await db.all<{ height: number; hash: string }>(STORED_HASHES, [low, top]);
    const heights = stored.map((row) => row.height).filter((h) => h <= nodeTip);
    const nodeHashes = new Map<number, string>();
    const hashes = await source.blockHashes(heights);
    heights.forEach((h, i) => nodeHashes.set(h, hashes[i]!));
    for (const row of stored) {
      if (nodeHashes.get(row.height) === row.hash) return row.height;
    }
    top = low - 1;
    window *= 4;
  }
  return activation - 1;
}
