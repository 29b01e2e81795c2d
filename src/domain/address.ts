import { base58check as makeBase58check, bech32, bech32m, hex } from '@scure/base';
import { sha256 } from '@pegscope/client';
import type { NetworkParams } from './network.js';

// The pure-JS sha256 (no node:crypto), so the explorer page bundles this same checksum code for the browser.
const base58check = makeBase58check((data: Uint8Array) => sha256(data));

/** Litecoin Core's name for a script's type (scriptPubKey.type). */
export type ScriptType =
  | 'pubkeyhash' | 'scripthash' | 'witness_v0_keyhash' | 'witness_v0_scripthash' | 'witness_v1_taproot'
  | 'witness_unknown' | 'witness_mweb_pegin' | 'witness_mweb_hogaddr' | 'pubkey' | 'multisig' | 'nulldata' | 'nonstandard';

export interface DecodedScript {
  type: ScriptType;
  /** Encoded address, or null where the node shows none (MWEB scripts, nulldata, bare pubkey, multisig). */
  address: string | null;
  /** Witness program of a witness output (the peg-in kernel id for witness_mweb_pegin). */
  program?: Uint8Array;
}

const OP_0 = 0x00, OP_1 = 0x51, OP_16 = 0x60, OP_RETURN = 0x6a;

/** Classifies a scriptPubKey the way Litecoin Core does and encodes its address for the network. */
export function decodeScript(script: Uint8Array, network: NetworkParams): DecodedScript {
  const n = script.length;
  if (n === 25 && script[0] === 0x76 && script[1] === 0xa9 && script[2] === 0x14 && script[23] === 0x88 && script[24] === 0xac) {
    return { type: 'pubkeyhash', address: encodeBase58(network.base58.p2pkh, script.subarray(3, 23)) };
  }
  if (n === 23 && script[0] === 0xa9 && script[1] === 0x14 && script[22] === 0x87) {
    return { type: 'scripthash', address: encodeBase58(network.base58.p2sh, script.subarray(2, 22)) };
  }
  const witness = witnessProgram(script);
  if (witness) {
    const { version, program } = witness;
    if (version === 9 && program.length === 32) return { type: 'witness_mweb_pegin', address: null, program };
    if (version === 8 && program.length === 32) return { type: 'witness_mweb_hogaddr', address: null, program };
    const address = encodeSegwit(network.bech32Hrp, version, program);
    if (version === 0 && program.length === 20) return { type: 'witness_v0_keyhash', address, program };
    if (version === 0 && program.length === 32) return { type: 'witness_v0_scripthash', address, program };
    if (version === 1 && program.length === 32) return { type: 'witness_v1_taproot', address, program };
    if (version === 0) return { type: 'nonstandard', address: null };
    return { type: 'witness_unknown', address, program };
  }
  if (n > 0 && script[0] === OP_RETURN) return { type: 'nulldata', address: null };
  if ((n === 35 && script[0] === 33 && script[34] === 0xac) || (n === 67 && script[0] === 65 && script[66] === 0xac)) {
    return { type: 'pubkey', address: null };
  }
  if (n > 3 && script[n - 1] === 0xae) return { type: 'multisig', address: null };
  return { type: 'nonstandard', address: null };
}

function witnessProgram(script: Uint8Array): { version: number; program: Uint8Array } | null {
  if (script.length < 4 || script.length > 42) return null;
  const op = script[0]!;
  if (op !== OP_0 && (op < OP_1 || op > OP_16)) return null;
  if (script[1]! + 2 !== script.length) return null;
  return { version: op === OP_0 ? 0 : op - OP_1 + 1, program: script.subarray(2) };
}

function encodeBase58(version: number, hash: Uint8Array): string {
  const payload = new Uint8Array(hash.length + 1);
  payload[0] = version;
  payload.set(hash, 1);
  return base58check.encode(payload);
}

function encodeSegwit(hrp: string, version: number, program: Uint8Array): string {
  const words = [version, ...bech32.toWords(program)];
  return version === 0 ? bech32.encode(hrp, words, 1000) : bech32m.encode(hrp, words, 1000);
}

/**
 * The scriptPubKey an address pays, or null when it is not a valid address of
 * this network (bad checksum, wrong prefix or HRP, wrong length, wrong bech32 variant).
 */
export function addressToScript(address: string, network: NetworkParams): Uint8Array | null {
  if (address.length < 14 || address.length > 90) return null;
  const lower = address.toLowerCase();
  if (lower.startsWith(`${network.bech32Hrp}1`)) {
    if (address !== lower && address !== address.toUpperCase()) return null;
    return segwitScript(lower, network.bech32Hrp);
  }
  return base58Script(address, network);
}

function segwitScript(address: string, hrp: string): Uint8Array | null {
  for (const coder of [bech32, bech32m]) {
    let decoded;
    try {
      decoded = coder.decode(address as `${string}1${string}`, 1000);
    } catch {
      continue;
    }
    if (decoded.prefix !== hrp || decoded.words.length === 0) return null;
    const version = decoded.words[0]!;
    if (version > 16 || (version === 0) !== (coder === bech32)) return null;
    let program: Uint8Array;
    try {
      program = bech32.fromWords(decoded.words.slice(1));
    } catch {
      return null;
    }
    if (program.length < 2 || program.length > 40) return null;
    if (version === 0 && program.length !== 20 && program.length !== 32) return null;
    const script = new Uint8Array(program.length + 2);
    script[0] = version === 0 ? OP_0 : OP_1 + version - 1;
    script[1] = program.length;
    script.set(program, 2);
    return script;
  }
  return null;
}

function base58Script(address: string, network: NetworkParams): Uint8Array | null {
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return null;
  }
  if (payload.length !== 21) return null;
  const hash = payload.subarray(1);
  const version = payload[0];
  if (version === network.base58.p2pkh) return hex.decode(`76a914${hex.encode(hash)}88ac`);
  if (version === network.base58.p2sh || version === network.base58.p2shLegacy) return hex.decode(`a914${hex.encode(hash)}87`);
  return null;
}

export function isValidAddress(address: string, network: NetworkParams): boolean {
  return addressToScript(address, network) !== null;
}

/** Script → address convenience for hex scripts. */
export function scriptHexToAddress(scriptHex: string, network: NetworkParams): string | null {
  return decodeScript(hex.decode(scriptHex), network).address;
}
