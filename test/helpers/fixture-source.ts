/**
 * A ChainSource over the regtest-small recording. Blocks recorded raw are served
 * as recorded; the others are re-serialized from their getblock-2 answer (header
 * fields + each transaction's `hex`, no MWEB tail), which hashes to the same block.
 */
import { NETWORKS } from '../../src/domain/network.js';
import type { ChainInfo, ChainSource } from '../../src/chain/types.js';
import { recordingLines, recordingTruth } from './fixtures.js';

export interface VerboseBlock {
  hash: string; height: number; version: number; previousblockhash: string; merkleroot: string; time: number; bits: string; nonce: number;
  tx: { txid: string; hex: string }[];
}

export function loadRecording() {
  const chain = recordingLines('chain.jsonl');
  const orphans = recordingLines('orphans.jsonl');
  const verbose = new Map<string, VerboseBlock>();
  for (const l of [...chain, ...orphans]) if (l.method === 'getblock' && l.params[1] === 2) verbose.set(l.params[0] as string, l.result as VerboseBlock);
  const raw = new Map(chain.filter((l) => l.method === 'getblock' && l.params[1] === 0).map((l) => [l.params[0] as string, l.result as string]));
  const txs = new Map(chain.filter((l) => l.method === 'getrawtransaction').map((l) => [l.params[0] as string, (l.result as { hex: string }).hex]));
  const mainChain = chain.filter((l) => l.method === 'getblockhash').map((l) => ({ height: l.params[0] as number, hash: l.result as string }));
  const orphanBlocks = orphans.filter((l) => l.method === 'getblock').map((l) => l.result as VerboseBlock);
  const truth = recordingTruth();
  return { verbose, raw, txs, mainChain, orphanBlocks, truth };
}

export type Recording = ReturnType<typeof loadRecording>;

function compactSize(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  const b = Buffer.alloc(3);
  b[0] = 0xfd;
  b.writeUInt16LE(n, 1);
  return b;
}

/** The canonical part of a block rebuilt from its verbose JSON. */
export function serializeVerbose(block: VerboseBlock): Buffer {
  const header = Buffer.alloc(80);
  header.writeInt32LE(block.version, 0);
  Buffer.from(block.previousblockhash, 'hex').reverse().copy(header, 4);
  Buffer.from(block.merkleroot, 'hex').reverse().copy(header, 36);
  header.writeUInt32LE(block.time, 68);
  header.writeUInt32LE(parseInt(block.bits, 16), 72);
  header.writeUInt32LE(block.nonce, 76);
  return Buffer.concat([header, compactSize(block.tx.length), ...block.tx.map((tx) => Buffer.from(tx.hex, 'hex'))]);
}

/**
 * A source whose best chain is `chain` (height → hash). `calls` counts what the scanner asked for.
 */
export function fixtureSource(rec: Recording, chain: Map<number, string>) {
  const tip = Math.max(...chain.keys());
  const calls = { blockHashes: 0, rawBlocks: 0, rawTransactions: 0, txids: [] as string[] };
  const source: ChainSource = {
    network: NETWORKS.regtest,
    async info(): Promise<ChainInfo> {
      return { chain: 'regtest', blocks: tip, headers: tip, initialBlockDownload: false, mwebActivationHeight: 432 };
    },
    async blockHashes(heights) {
      calls.blockHashes++;
      return heights.map((h) => {
        const hash = chain.get(h);
        if (!hash) throw new Error(`height ${h} out of range`);
        return hash;
      });
    },
    async rawBlocks(hashes) {
      calls.rawBlocks++;
      return hashes.map((hash) => {
        const raw = rec.raw.get(hash);
        if (raw) return Buffer.from(raw, 'hex');
        const block = rec.verbose.get(hash);
        if (!block) throw new Error(`unknown block ${hash}`);
        return serializeVerbose(block);
      });
    },
    async rawTransactions(txids) {
      calls.rawTransactions++;
      calls.txids.push(...txids);
      return txids.map((txid) => {
        const hex = rec.txs.get(txid);
        if (!hex) throw new Error(`transaction ${txid} not recorded`);
        return Buffer.from(hex, 'hex');
      });
    },
    async close() {},
  };
  return { source, calls };
}

/** The final best chain, optionally cut at `to`. */
export function finalChain(rec: Recording, to = Infinity): Map<number, string> {
  return new Map(rec.mainChain.filter((b) => b.height <= to).map((b) => [b.height, b.hash]));
}

/** The chain as it was before the reorg: blocks up to the fork, then the orphaned 890..893. */
export function orphanChain(rec: Recording): Map<number, string> {
  const fork = rec.truth.reorg.fork_height as number;
  const chain = finalChain(rec, fork);
  for (const b of rec.orphanBlocks) chain.set(b.height, b.hash);
  return chain;
}
