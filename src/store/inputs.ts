/**
 * Input resolution: the previous outputs spent by peg-in transactions (their
 * funding addresses and values), from an LRU of earlier lookups, the batch
 * itself, or the source (getrawtransaction).
 */
import { ChainSourceError } from '../chain/errors.js';
import { parseTransaction, type RawTx } from '../chain/raw-tx.js';
import type { ChainSource, ParsedBlock, PeginInput, TxOutput } from '../chain/types.js';

/** A block as a scan batch fetched it, before its peg-in inputs are resolved. */
export interface FetchedBlock {
  height: number;
  block: ParsedBlock;
  /** Transactions of raw-parsed blocks (verbose-fallback blocks have none). */
  txs: RawTx[];
}

/** Previous transactions of peg-in inputs kept across batches. */
const TX_CACHE_SIZE = 20_000;

/**
 * Previous outputs of every peg-in transaction's inputs: from the cache, this
 * batch, or the node. The cache is asked first so that the batch's txids are
 * hashed only where needed, from the peg-in's block backwards.
 */
export async function resolveInputs(blocks: FetchedBlock[], source: ChainSource, cache: TxCache): Promise<PeginInput[]> {
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
export class TxCache {
  private readonly map = new Map<string, readonly TxOutput[]>();
  constructor(private readonly capacity = TX_CACHE_SIZE) {}
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
