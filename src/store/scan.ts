/**
 * The scan loop: chain source → parsed blocks → DuckDB base tables.
 *
 * One DuckDB transaction per batch of blocks stores the rows and moves
 * meta.cursor_height, so a killed scan leaves only whole batches (append.ts).
 * Reorgs are found by comparing stored hashes with the node's and undone down
 * to the common ancestor before scanning on (reorg.ts). The next batches are
 * fetched, parsed and their peg-in inputs resolved (batch.ts, inputs.ts) while
 * the current one is stored: a bounded prefetch queue.
 */
import type { NetworkParams } from '../domain/network.js';
import { initialDownloadError, NetworkMismatchError, remoteText } from '../chain/errors.js';
import type { ChainInfo, ChainSource } from '../chain/types.js';
import { silentProgress, type Progress } from '../progress.js';
import { storeBatch } from './append.js';
import { fetchBatch, type Batch } from './batch.js';
import { readSql, type Db } from './db.js';
import { TxCache } from './inputs.js';
import { ChainMovedError, checkLinks, deleteAbove, storedHash, undoReorg } from './reorg.js';

export interface ScanOptions {
  /** Highest height to scan (default: the node's tip). */
  to?: number;
  progress?: Progress;
  log?: (line: string) => void;
  /** Blocks per DuckDB transaction; by default sized to about BATCH_BYTES of raw blocks. */
  batchBlocks?: number;
  /** Scan the blocks a node still syncing (blocks < headers) already has, instead of refusing. */
  allowSyncing?: boolean;
}

export interface ScanResult {
  fromHeight: number;
  toHeight: number;
  blocks: number;
  pegins: number;
  pegouts: number;
  /** Blocks removed because the node's chain no longer contains them. */
  reorgDepth: number;
}

/**
 * Default batches hold about this many bytes of raw blocks (~20 full mainnet
 * blocks) and at most MAX_BATCH_BLOCKS small ones: per-transaction costs
 * (commit, appender setup) stay small next to fetching, and the last batch,
 * which nothing overlaps, stays short.
 */
const BATCH_BYTES = 32 * 1024 * 1024;
const FIRST_BATCH_BLOCKS = 100;
const MIN_BATCH_BLOCKS = 10;
const MAX_BATCH_BLOCKS = 250;
/** Batches fetched and parsed ahead while one is being stored. */
const PREFETCH_BATCHES = 3;
const COUNT_FROM = readSql(import.meta.url, 'scan-counts.sql');

export async function scanChain(db: Db, source: ChainSource, opts: ScanOptions = {}): Promise<ScanResult> {
  const log = opts.log ?? (() => undefined);
  const progress = opts.progress ?? silentProgress;
  const sizer = opts.batchBlocks !== undefined ? fixedSize(Math.max(1, opts.batchBlocks)) : adaptiveSize();
  const network = source.network;

  const info = await source.info();
  const expectedChain = network.nodeChain ?? 'sim';
  if (info.chain !== expectedChain) {
    const chain = remoteText(info.chain, 40);
    throw new NetworkMismatchError(`the node is on chain "${chain}" but --network is ${network.name} (expects "${expectedChain}"); `
      + `pass --network ${networkForChain(chain)} or point --rpc-url at a ${network.name} node`);
  }
  if (info.initialBlockDownload) checkSync(info, opts.allowSyncing === true, log);
  await claimDatabase(db, network, info.mwebActivationHeight, info.chain === 'sim' ? 'sim' : 'rpc');

  const activation = info.mwebActivationHeight;
  let cursor = Math.max(activation - 1, Number((await db.getMeta('cursor_height')) ?? activation - 1));
  await deleteAbove(db, cursor);

  let reorgDepth = 0;
  let tip = Math.min(info.blocks, opts.to ?? Number.POSITIVE_INFINITY);
  const fork = await undoReorg(db, source, cursor, activation, info.blocks);
  if (fork < cursor) {
    log(`reorg: stored blocks ${fork + 1}..${cursor} are no longer on the node's chain; removing them`);
    reorgDepth += cursor - fork;
    cursor = fork;
  }

  let fromHeight = cursor + 1;
  if (fromHeight > tip) return { fromHeight, toHeight: cursor, blocks: 0, pegins: 0, pegouts: 0, reorgDepth };

  log(`scan: ${network.name} blocks ${fromHeight}..${tip} (node tip ${info.blocks}, MWEB from ${activation})`);
  const cache = new TxCache();
  let lastHash = await storedHash(db, cursor);
  progress.start('scan', tip - cursor, 'blocks');
  let done = 0;
  try {
    let next = cursor + 1;
    const queue: Promise<Batch>[] = [];
    const fill = (): void => {
      while (queue.length < PREFETCH_BATCHES && next <= tip) {
        const to = Math.min(tip, next + sizer.next() - 1);
        const pending = fetchBatch(source, next, to, cache).then((batch) => { sizer.observe(batch); return batch; });
        pending.catch(() => undefined); // awaited in order below; dropped batches must not crash the process
        queue.push(pending);
        next = to + 1;
      }
    };
    fill();
    while (queue.length > 0) {
      const batch = await queue.shift()!;
      fill();
      try {
        checkLinks(batch, lastHash);
        await storeBatch(db, batch);
      } catch (err) {
        if (!(err instanceof ChainMovedError)) throw err;
        queue.length = 0;
        const currentTip = (await source.info()).blocks;
        tip = Math.min(currentTip, opts.to ?? Number.POSITIVE_INFINITY);
        const forkHeight = await undoReorg(db, source, batch.from - 1, activation, currentTip);
        log(`reorg during scan at height ${batch.from}: rewinding to ${forkHeight}`);
        reorgDepth += batch.from - 1 - forkHeight;
        fromHeight = Math.min(fromHeight, forkHeight + 1);
        done = Math.max(0, done - (batch.from - 1 - forkHeight));
        next = forkHeight + 1;
        lastHash = await storedHash(db, forkHeight);
        fill();
        continue;
      }
      lastHash = batch.blocks.at(-1)!.block.hash;
      done += batch.blocks.length;
      progress.update(done);
    }
  } finally {
    progress.stop();
  }
  const counts = await db.one<{ blocks: bigint; pegins: bigint; pegouts: bigint; top: number | null }>(COUNT_FROM, [fromHeight]);
  return {
    fromHeight,
    toHeight: counts?.top ?? fromHeight - 1,
    blocks: Number(counts?.blocks ?? 0),
    pegins: Number(counts?.pegins ?? 0),
    pegouts: Number(counts?.pegouts ?? 0),
    reorgDepth,
  };
}

interface BatchSizer { next(): number; observe(batch: Batch): void }

function fixedSize(blocks: number): BatchSizer {
  return { next: () => blocks, observe() {} };
}

/** Sizes the next batch from the average raw size of the blocks fetched so far. */
function adaptiveSize(): BatchSizer {
  let blocks = 0, bytes = 0;
  return {
    next() {
      if (blocks === 0) return FIRST_BATCH_BLOCKS;
      const fit = Math.floor(BATCH_BYTES / (bytes / blocks));
      return Math.min(MAX_BATCH_BLOCKS, Math.max(MIN_BATCH_BLOCKS, fit));
    },
    observe(batch) {
      blocks += batch.blocks.length;
      bytes += batch.bytes;
    },
  };
}

/**
 * A node in initial block download: Litecoin Core says so whenever its tip is
 * more than a day old, so a node with every block it has headers for (a
 * testnet node, a restored regtest chain) is scanned with a warning. A node
 * that really is syncing (blocks < headers) is refused unless allowed: its
 * analysis would describe a chain that stops in the past.
 */
function checkSync(info: ChainInfo, allowSyncing: boolean, log: (line: string) => void): void {
  if (info.blocks >= info.headers) {
    log(`warning: the node reports initial block download but has every block it knows of (${info.blocks}): `
      + 'its tip is more than a day old (usual for testnet and restored regtest chains); scanning it');
    return;
  }
  if (!allowSyncing) throw initialDownloadError(info.blocks, info.headers);
  log(`warning: the node is still syncing (blocks ${info.blocks}/${info.headers}); --allow-syncing: scanning the ${info.blocks} blocks it has`);
}

function networkForChain(chain: string): string {
  return ({ main: 'mainnet', test: 'testnet', regtest: 'regtest', sim: 'sim' } as Record<string, string>)[chain] ?? chain;
}

/** A database belongs to one network and one MWEB activation height; refuse to mix. */
async function claimDatabase(db: Db, network: NetworkParams, activation: number, sourceKind: string): Promise<void> {
  const storedNetwork = await db.getMeta('network');
  if (storedNetwork !== undefined && storedNetwork !== network.name) {
    throw new NetworkMismatchError(`database ${db.path} holds ${storedNetwork} data, not ${network.name}; `
      + `use --db with another file for ${network.name} (default data/${network.name}.duckdb)`);
  }
  const storedActivation = await db.getMeta('mweb_activation_height');
  if (storedActivation !== undefined && Number(storedActivation) !== activation) {
    throw new NetworkMismatchError(`database ${db.path} was scanned from a chain with MWEB active from ${storedActivation}, `
      + `this source says ${activation}: it is another chain; use a fresh --db`);
  }
  await db.transaction(async () => {
    await db.setMeta('network', network.name);
    await db.setMeta('mweb_activation_height', String(activation));
    await db.setMeta('source', sourceKind);
  });
}
