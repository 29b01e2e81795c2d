/**
 * The scan loop: chain source → parsed blocks → DuckDB base tables.
 *
 * One DuckDB transaction per batch of blocks stores the rows and moves
 * meta.cursor_height, so a killed scan leaves only whole batches. Reorgs are
 * found by comparing stored hashes with the node's and undone down to the
 * common ancestor before scanning on. The next batches are fetched and parsed
 * while the current one is stored (a bounded prefetch queue).
 */
import type { Litoshi } from '../domain/amount.js';
import type { NetworkParams } from '../domain/network.js';
import { ChainSourceError, initialDownloadError, NetworkMismatchError } from '../chain/errors.js';
import { ParseError } from '../chain/bytes.js';
import { parseBlock } from '../chain/parse.js';
import { parseTransaction, type RawTx } from '../chain/raw-tx.js';
import { blockFromVerboseJson } from '../chain/verbose.js';
import type { ChainSource, ParsedBlock, PeginInput, TxOutput } from '../chain/types.js';
import { silentProgress, type Progress } from '../progress.js';
import { readSql, type AppendColumn, type Cell, type ColumnType, type Db } from './db.js';

export interface ScanOptions {
  /** Highest height to scan (default: the node's tip). */
  to?: number;
  progress?: Progress;
  log?: (line: string) => void;
  /** Blocks per DuckDB transaction; by default sized to about BATCH_BYTES of raw blocks. */
  batchBlocks?: number;
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
/** Previous transactions of peg-in inputs kept across batches. */
const TX_CACHE_SIZE = 20_000;

const DELETE_ABOVE = readSql(import.meta.url, 'scan-delete-above.sql');
const PEGIN_SOURCES = readSql(import.meta.url, 'scan-pegin-sources.sql');
const STORED_HASHES = readSql(import.meta.url, 'scan-stored-hashes.sql');
const COUNT_FROM = readSql(import.meta.url, 'scan-counts.sql');

/** A chain reorganised under a running scan: the loop finds the fork point and continues. */
class ChainMovedError extends Error {}

interface FetchedBlock {
  height: number;
  block: ParsedBlock;
  /** Transactions of raw-parsed blocks (verbose-fallback blocks have none). */
  txs: RawTx[];
}

interface Batch {
  from: number;
  to: number;
  blocks: FetchedBlock[];
  bytes: number;
  /** Previous outputs of the batch's peg-in inputs, resolved while earlier batches are stored. */
  inputs: PeginInput[];
}

export async function scanChain(db: Db, source: ChainSource, opts: ScanOptions = {}): Promise<ScanResult> {
  const log = opts.log ?? (() => undefined);
  const progress = opts.progress ?? silentProgress;
  const sizer = opts.batchBlocks !== undefined ? fixedSize(Math.max(1, opts.batchBlocks)) : adaptiveSize();
  const network = source.network;

  const info = await source.info();
  const expectedChain = network.nodeChain ?? 'sim';
  if (info.chain !== expectedChain) {
    throw new NetworkMismatchError(`the node is on chain "${info.chain}" but --network is ${network.name} (expects "${expectedChain}"); `
      + `pass --network ${networkForChain(info.chain)} or point --rpc-url at a ${network.name} node`);
  }
  if (info.initialBlockDownload) {
    throw initialDownloadError(info.blocks, info.headers);
  }
  await claimDatabase(db, network, info.mwebActivationHeight, info.chain === 'sim' ? 'sim' : 'rpc');

  const activation = info.mwebActivationHeight;
  let cursor = Math.max(activation - 1, Number((await db.getMeta('cursor_height')) ?? activation - 1));
  await db.transaction(() => execEach(db, DELETE_ABOVE, [cursor]));

  let reorgDepth = 0;
  let tip = Math.min(info.blocks, opts.to ?? Number.POSITIVE_INFINITY);
  const fork = await findFork(db, source, cursor, activation, info.blocks);
  if (fork < cursor) {
    log(`reorg: stored blocks ${fork + 1}..${cursor} are no longer on the node's chain; removing them`);
    await rewind(db, fork);
    reorgDepth += cursor - fork;
    cursor = fork;
  }

  let fromHeight = cursor + 1;
  if (fromHeight > tip) return { fromHeight, toHeight: cursor, blocks: 0, pegins: 0, pegouts: 0, reorgDepth };

  log(`scan: ${network.name} blocks ${fromHeight}..${tip} (node tip ${info.blocks}, MWEB from ${activation})`);
  const cache = new TxCache(TX_CACHE_SIZE);
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
        const forkHeight = await findFork(db, source, batch.from - 1, activation, currentTip);
        log(`reorg during scan at height ${batch.from}: rewinding to ${forkHeight}`);
        await rewind(db, forkHeight);
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

async function execEach(db: Db, sql: string, params: number[]): Promise<void> {
  for (const statement of sql.split(/;\s*(?:\n|$)/)) {
    const body = statement.replace(/^\s*--.*$/gm, '').trim();
    if (body) await db.exec(body, params);
  }
}

async function storedHash(db: Db, height: number): Promise<string | null> {
  const row = await db.one<{ hash: string }>('SELECT hash FROM blocks WHERE height = $1', [height]);
  return row?.hash ?? null;
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

async function fetchBatch(source: ChainSource, from: number, to: number, cache: TxCache): Promise<Batch> {
  const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const hashes = await source.blockHashes(heights);
  const raws = await source.rawBlocks(hashes);
  const blocks: FetchedBlock[] = [];
  for (let i = 0; i < heights.length; i++) {
    const height = heights[i]!;
    const hash = hashes[i]!;
    try {
      const block = parseBlock(raws[i]!, source.network);
      if (block.hash !== hash) throw new ParseError(`block at height ${height} hashes to ${block.hash}, the node said ${hash}`);
      if (block.mweb && block.mweb.height !== height) throw new ParseError(`block ${hash} at height ${height} carries an MWEB header for height ${block.mweb.height}`);
      blocks.push({ height, block, txs: block.txs });
    } catch (err) {
      if (!(err instanceof ParseError) || !source.verboseBlocks) throw err;
      // Verbosity 2 is slow but is the node's own reading of the block.
      const [json] = await source.verboseBlocks([hash]);
      blocks.push({ height, block: blockFromVerboseJson(json!), txs: [] });
    }
  }
  const inputs = await resolveInputs(blocks, source, cache);
  return { from, to, blocks, inputs, bytes: raws.reduce((total, raw) => total + raw.length, 0) };
}

/** Each block must extend the one before it; otherwise the chain moved since the hashes were read. */
function checkLinks(batch: Batch, lastHash: string | null): void {
  let prev = lastHash;
  for (const { block, height } of batch.blocks) {
    if (prev !== null && block.prevHash !== prev) throw new ChainMovedError(`block ${block.hash} at ${height} does not extend ${prev}`);
    prev = block.hash;
  }
}

/**
 * Previous outputs of every peg-in transaction's inputs: from the cache, this
 * batch, or the node. The cache is asked first so that the batch's txids are
 * hashed only where needed, from the peg-in's block backwards.
 */
async function resolveInputs(blocks: FetchedBlock[], source: ChainSource, cache: TxCache): Promise<PeginInput[]> {
  const inBatch = new BatchTxIndex(blocks);
  const peginTxs = new Map<string, { pegin: ParsedBlock['pegins'][number]; at: number }>();
  blocks.forEach(({ block }, at) => {
    for (const pegin of block.pegins) if (!peginTxs.has(pegin.txid)) peginTxs.set(pegin.txid, { pegin, at });
  });
  const lookup = (txid: string, at: number): readonly TxOutput[] | undefined => cache.get(txid) ?? inBatch.find(txid, at)?.outputs;

  const missing = new Set<string>();
  for (const { pegin, at } of peginTxs.values()) {
    for (const input of pegin.inputs) if (input.prevTxid !== null && !lookup(input.prevTxid, at)) missing.add(input.prevTxid);
  }
  if (missing.size > 0) {
    const txids = [...missing];
    const raws = await source.rawTransactions(txids);
    raws.forEach((raw, i) => {
      const tx = parseTransaction(raw, source.network);
      if (tx.txid !== txids[i]) throw new ChainSourceError(`getrawtransaction ${txids[i]} returned transaction ${tx.txid}`);
      cache.set(tx.txid, tx.outputs.map(plainOutput));
    });
  }

  const rows: PeginInput[] = [];
  for (const { pegin, at } of peginTxs.values()) {
    pegin.inputs.forEach((input, n) => {
      if (input.prevTxid === null) return;
      const prev = lookup(input.prevTxid, at)?.[input.prevVout];
      if (!prev) throw new ChainSourceError(`peg-in ${pegin.txid} spends ${input.prevTxid}:${input.prevVout}, which the source does not have`);
      rows.push({ peginTxid: pegin.txid, n, prevTxid: input.prevTxid, prevVout: input.prevVout, address: prev.address, value: prev.value });
    });
  }
  return rows;
}

/**
 * The batch's transactions by txid, indexed block by block on demand: a txid
 * costs a double SHA-256, and a peg-in spends transactions mined at most in
 * its own block, usually shortly before it.
 */
class BatchTxIndex {
  private readonly byTxid = new Map<string, RawTx>();
  private readonly indexed: boolean[];
  constructor(private readonly blocks: readonly FetchedBlock[]) {
    this.indexed = blocks.map(() => false);
  }
  /** The transaction with this txid in block `at` of the batch or before it. */
  find(txid: string, at: number): RawTx | undefined {
    let tx = this.byTxid.get(txid);
    for (let i = at; tx === undefined && i >= 0; i--) {
      if (this.indexed[i]) continue;
      this.indexed[i] = true;
      for (const blockTx of this.blocks[i]!.txs) this.byTxid.set(blockTx.txid, blockTx);
      tx = this.byTxid.get(txid);
    }
    return tx;
  }
}

/** Cached outputs are plain values, so they do not keep the whole raw transaction alive. */
function plainOutput(out: TxOutput): TxOutput {
  return { n: out.n, value: out.value, scriptHex: '', type: out.type, address: out.address };
}

/** A small LRU over transaction outputs (Map keeps insertion order). */
class TxCache {
  private readonly map = new Map<string, readonly TxOutput[]>();
  constructor(private readonly capacity: number) {}
  get(txid: string): readonly TxOutput[] | undefined {
    const value = this.map.get(txid);
    if (value !== undefined) { this.map.delete(txid); this.map.set(txid, value); }
    return value;
  }
  set(txid: string, outputs: readonly TxOutput[]): void {
    this.map.delete(txid);
    this.map.set(txid, outputs);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }
}

const cols = (spec: string): AppendColumn[] => spec.split(/\s*,\s*/).map((c) => {
  const [name, type] = c.split(' ');
  return { name: name!, type: type as ColumnType };
});
/** The base tables' columns in schema.sql order; the appender checks them against the database. */
const BLOCK_COLUMNS = cols('height integer, hash varchar, prev_hash varchar, time bigint, tx_count integer, supply bigint, hogex_txid varchar, '
  + 'pegin_count integer, pegout_count integer, pegin_total bigint, pegout_total bigint, mweb_num_txos bigint, mweb_num_kernels integer, '
  + 'coinbase_address varchar, coinbase_tag varchar');
const PEGIN_COLUMNS = cols('txid varchar, vout integer, height integer, block_time bigint, amount bigint, kernel_id varchar, input_count integer, source_address varchar');
const INPUT_COLUMNS = cols('pegin_txid varchar, n integer, height integer, prev_txid varchar, prev_vout integer, address varchar, value bigint');
const PEGOUT_COLUMNS = cols('txid varchar, vout integer, height integer, block_time bigint, amount bigint, address varchar, script_hex varchar');

/** Sum of the amounts, without an intermediate array per block. */
function sumAmounts(items: readonly { amount: Litoshi }[]): Litoshi {
  let total = 0;
  for (const item of items) total += item.amount;
  return total;
}

/** One transaction: the batch's rows, the peg-in sources, the cursor. */
async function storeBatch(db: Db, batch: Batch): Promise<void> {
  const heightOf = new Map<string, number>();
  const blockRows: Cell[][] = [], peginRows: Cell[][] = [], pegoutRows: Cell[][] = [];
  const inputCount = new Map<string, number>();
  for (const { block } of batch.blocks) for (const p of block.pegins) inputCount.set(p.txid, p.inputs.length);
  for (const { height, block: b } of batch.blocks) {
    blockRows.push([height, b.hash, b.prevHash, b.time, b.txCount, b.supply, b.hogexTxid, b.pegins.length, b.pegouts.length,
      sumAmounts(b.pegins), sumAmounts(b.pegouts), b.mweb?.numTxos ?? null, b.mweb?.numKernels ?? null,
      b.coinbase.address, b.coinbase.tag]);
    for (const p of b.pegins) {
      heightOf.set(p.txid, height);
      peginRows.push([p.txid, p.vout, height, b.time, p.amount, p.kernelId, inputCount.get(p.txid)!, null]);
    }
    for (const p of b.pegouts) pegoutRows.push([p.txid, p.vout, height, b.time, p.amount, p.address, p.scriptHex]);
  }
  const inputRows: Cell[][] = batch.inputs.map((i) => [i.peginTxid, i.n, heightOf.get(i.peginTxid)!, i.prevTxid, i.prevVout, i.address, i.value]);

  await db.transaction(async () => {
    await append(db, 'blocks', BLOCK_COLUMNS, blockRows);
    await append(db, 'pegins', PEGIN_COLUMNS, peginRows);
    await append(db, 'pegin_inputs', INPUT_COLUMNS, inputRows);
    await append(db, 'pegouts', PEGOUT_COLUMNS, pegoutRows);
    if (peginRows.length > 0) await db.exec(PEGIN_SOURCES, [batch.from, batch.to]);
    await db.setMeta('cursor_height', String(batch.to));
  });
}

async function append(db: Db, table: string, columns: AppendColumn[], rows: Cell[][]): Promise<void> {
  if (rows.length === 0) return;
  const appender = await db.appender(table, columns);
  try {
    for (const row of rows) appender.append(row);
  } finally {
    appender.close();
  }
}
