import type { Litoshi } from '../domain/amount.js';
import type { NetworkParams } from '../domain/network.js';

/** What the scanner needs from a chain: a Litecoin Core node over RPC, or the simulated chain. */
export interface ChainSource {
  readonly network: NetworkParams;
  /** Tip, sync state and MWEB activation height (getblockchaininfo). */
  info(): Promise<ChainInfo>;
  /** Block hashes at these heights, in order (getblockhash). */
  blockHashes(heights: readonly number[]): Promise<string[]>;
  /** Raw serialized blocks, MWEB extension included (getblock <hash> 0). */
  rawBlocks(hashes: readonly string[]): Promise<Uint8Array[]>;
  /** Raw serialized transactions (getrawtransaction <txid> false; needs -txindex on a node). */
  rawTransactions(txids: readonly string[]): Promise<Uint8Array[]>;
  /** Fallback for blocks the raw parser rejects: the node's own `getblock <hash> 2` answers (RPC only). */
  verboseBlocks?(hashes: readonly string[]): Promise<VerboseBlockJson[]>;
  close(): Promise<void>;
}

export interface ChainInfo {
  /** getblockchaininfo.chain: main, test, regtest (the sim answers "sim"). */
  chain: string;
  blocks: number;
  headers: number;
  initialBlockDownload: boolean;
  mwebActivationHeight: number;
}

/** A transaction output as the scanner sees it. */
export interface TxOutput {
  n: number;
  value: Litoshi;
  scriptHex: string;
  /** witness_mweb_pegin, witness_mweb_hogaddr, witness_v0_keyhash, pubkeyhash, … (Litecoin Core's names). */
  type: string;
  /** Encoded address for the network, or null (nulldata, nonstandard, MWEB scripts). */
  address: string | null;
}

export interface TxInput {
  /** null for the coinbase input. */
  prevTxid: string | null;
  prevVout: number;
}

export interface ParsedTx {
  txid: string;
  inputs: TxInput[];
  outputs: TxOutput[];
  isHogEx: boolean;
}

export interface Pegin {
  txid: string;
  vout: number;
  amount: Litoshi;
  /** The 32-byte witness program: the peg-in kernel id. */
  kernelId: string;
  /** Inputs of the peg-in transaction (their previous outputs are resolved later). */
  inputs: TxInput[];
}

export interface Pegout {
  /** The HogEx txid. */
  txid: string;
  vout: number;
  amount: Litoshi;
  address: string | null;
  scriptHex: string;
}

/** Everything pegscope keeps of one block. */
export interface ParsedBlock {
  hash: string;
  prevHash: string;
  time: number;
  txCount: number;
  /** HogEx vout[0] value: coins held in MWEB after this block; null before MWEB. */
  supply: Litoshi | null;
  hogexTxid: string | null;
  pegins: Pegin[];
  pegouts: Pegout[];
  /** From the MWEB header, when the block has an MWEB extension. */
  mweb: { height: number; numTxos: number; numKernels: number | null } | null;
  coinbase: { address: string | null; tag: string };
}

/** The previous output spent by a peg-in input. */
export interface PeginInput {
  peginTxid: string;
  n: number;
  prevTxid: string;
  prevVout: number;
  address: string | null;
  value: Litoshi;
}

/** The parts of a `getblock <hash> 2` answer the fallback path reads. */
export interface VerboseBlockJson {
  hash: string;
  previousblockhash?: string;
  time: number;
  tx: VerboseTxJson[];
  mweb?: { height: number; num_txos: number; num_kernels: number };
}

export interface VerboseTxJson {
  txid: string;
  vin: { coinbase?: string; txid?: string; vout?: number }[];
  vout: { value: number | string; n: number; scriptPubKey: { hex: string; type: string; address?: string; addresses?: string[] } }[];
}
