/**
 * Raw Litecoin block parser (`getblock <hash> 0`), MWEB extension included:
 *   block = header(80) | CompactSize n | tx × n | [0x01 | mw::Block]   (the tail only from MWEB activation on)
 * Transactions are read by raw-tx.ts, the MWEB tail by mweb.ts.
 */
import type { NetworkParams } from '../domain/network.js';
import { hashId, latin1, ParseError, Reader, reversedHex } from './bytes.js';
import { readMwebBody, readMwebHeader, type MwebBody, type MwebHeader } from './mweb.js';
import { readTx, type RawOutput, type RawTx } from './raw-tx.js';
import type { ParsedBlock, ParsedTx, Pegin } from './types.js';

const HEADER_SIZE = 80;
/** A coinbase tag is made of printable ASCII runs at least this long (shorter ones are mostly random bytes). */
const MIN_TAG_RUN = 4;

/** A block with its transactions kept, for callers that need more than ParsedBlock (input resolution, tests). */
export interface RawBlock extends ParsedBlock {
  txs: RawTx[];
  mwebHeader: MwebHeader | null;
  mwebBody: MwebBody | null;
}

/** Parses one raw block (`getblock <hash> 0`). */
export function parseBlock(raw: Uint8Array, network: NetworkParams): RawBlock {
  if (raw.length < HEADER_SIZE + 1) throw new ParseError(`block of ${raw.length} bytes is shorter than a header`);
  const header = raw.subarray(0, HEADER_SIZE);
  const hash = hashId([header], HEADER_SIZE);
  const prevHash = reversedHex(header.subarray(4, 36));
  const time = new DataView(raw.buffer, raw.byteOffset + 68, 4).getUint32(0, true);
  const r = new Reader(raw, HEADER_SIZE);
  const txCount = r.compactSize();
  const txs: RawTx[] = [];
  for (let i = 0; i < txCount; i++) txs.push(readTx(r, network));
  let mwebHeader: MwebHeader | null = null;
  let mwebBody: MwebBody | null = null;
  if (r.remaining > 0) {
    const present = r.u8();
    if (present === 0x01) {
      mwebHeader = readMwebHeader(r);
      mwebBody = readMwebBody(r);
    } else if (present !== 0x00) {
      throw new ParseError(`block ${hash}: bad MWEB block marker 0x${present.toString(16)} after ${txCount} transactions`);
    }
  }
  if (r.remaining !== 0) throw new ParseError(`block ${hash}: ${r.remaining} unexpected bytes after the block`);
  return { ...summarize(hash, prevHash, time, txs), txs, mwebHeader, mwebBody,
    mweb: mwebHeader ? { height: mwebHeader.height, numTxos: mwebHeader.outputMmrSize, numKernels: mwebBody?.kernels.length ?? null } : null };
}

/**
 * What a block's HogEx tells: the coins held in MWEB after the block (its
 * vout[0]) and the peg-outs (every other output). The HogEx is the last
 * transaction of a block, so the search runs from the end.
 */
export function hogexFacts(txs: readonly ParsedTx[]): Pick<ParsedBlock, 'supply' | 'hogexTxid' | 'pegouts'> {
  for (let i = txs.length - 1; i >= 0; i--) {
    const hogex = txs[i]!;
    if (!hogex.isHogEx) continue;
    return {
      supply: hogex.outputs[0]!.value,
      hogexTxid: hogex.txid,
      pegouts: hogex.outputs.slice(1).map((out) => ({ txid: hogex.txid, vout: out.n, amount: out.value, address: out.address, scriptHex: out.scriptHex })),
    };
  }
  return { supply: null, hogexTxid: null, pegouts: [] };
}

function summarize(hash: string, prevHash: string, time: number, txs: RawTx[]): Omit<ParsedBlock, 'mweb'> {
  const pegins: Pegin[] = [];
  for (const tx of txs) {
    for (const vout of tx.peginVouts) {
      const out = tx.outputs[vout]!;
      pegins.push({ txid: tx.txid, vout, amount: out.value, kernelId: out.scriptHex.slice(4), inputs: tx.inputs });
    }
  }
  const coinbase = txs[0];
  return {
    hash, prevHash, time, txCount: txs.length,
    ...hogexFacts(txs),
    pegins,
    coinbase: {
      address: coinbase ? coinbaseAddress(coinbase.outputs) : null,
      tag: coinbase ? coinbaseTag(coinbase.firstScriptSig) : '',
    },
  };
}

/** Coinbase scripts repeat (a pool pays itself at a few addresses), so their addresses are remembered. */
const coinbaseAddresses = new Map<string, string | null>();
const MAX_COINBASE_ADDRESSES = 4096;

/** The first output with an address, as Litecoin Core would show it. */
function coinbaseAddress(outputs: readonly RawOutput[]): string | null {
  for (const out of outputs) {
    const key = `${out.network.name}:${latin1(out.script)}`;
    let address = coinbaseAddresses.get(key);
    if (address === undefined) {
      address = out.address;
      if (coinbaseAddresses.size >= MAX_COINBASE_ADDRESSES) coinbaseAddresses.clear();
      coinbaseAddresses.set(key, address);
    }
    if (address !== null) return address;
  }
  return null;
}

/** Pushes up to this size at the start of a coinbase are the BIP34 height and extranonces, not text. */
const MAX_LEADING_PUSH = 8;

/**
 * Pool tag of a coinbase: printable ASCII runs of its scriptSig, joined by a space
 * (e.g. "/poolin.com/"). Leading small pushes (BIP34 height, extranonce) are skipped
 * first: pools write their text as raw bytes, so the rest is searched byte by byte.
 */
export function coinbaseTag(scriptSig: Uint8Array): string {
  let pos = 0;
  while (pos < scriptSig.length) {
    const op = scriptSig[pos]!;
    if (op < 1 || op > MAX_LEADING_PUSH) break;
    pos += 1 + op;
  }
  return printableRuns(scriptSig.subarray(pos)).join(' ');
}

function printableRuns(data: Uint8Array): string[] {
  const runs: string[] = [];
  let start = 0;
  for (let i = 0; i <= data.length; i++) {
    const byte = data[i];
    if (byte !== undefined && byte >= 0x20 && byte <= 0x7e) continue;
    if (i - start >= MIN_TAG_RUN) {
      const trimmed = latin1(data.subarray(start, i)).trim();
      if (trimmed.length >= MIN_TAG_RUN) runs.push(trimmed);
    }
    start = i + 1;
  }
  return runs;
}
