/**
 * The MWEB extension (Litecoin Core 0.21.2): the mw::Block header and body at
 * the end of a block, and the MWEB transaction body a peg-in carries in its
 * mempool form. A body keeps its input and output counts and each kernel's
 * public peg data; everything else is skipped.
 */
import type { Litoshi } from '../domain/amount.js';
import { hexOf, type Reader } from './bytes.js';

/** A kernel's public peg data (the amounts are in clear in the serialized kernel). */
export interface MwebKernel {
  features: number;
  fee: Litoshi | null;
  peginAmount: Litoshi | null;
  pegouts: { amount: Litoshi; scriptHex: string }[];
}

export interface MwebBody {
  inputCount: number;
  outputCount: number;
  kernels: MwebKernel[];
}

export interface MwebHeader {
  height: number;
  outputRoot: string;
  kernelRoot: string;
  leafsetRoot: string;
  kernelOffset: string;
  stealthOffset: string;
  /** Cumulative sizes: outputMmrSize is the node's `num_txos`. */
  outputMmrSize: number;
  kernelMmrSize: number;
}

const INPUT_STEALTH_KEY = 0x01, INPUT_EXTRA_DATA = 0x02;
const MESSAGE_STANDARD = 0x01, MESSAGE_EXTRA_DATA = 0x02;
const KERNEL_FEE = 0x01, KERNEL_PEGIN = 0x02, KERNEL_PEGOUT = 0x04, KERNEL_HEIGHT_LOCK = 0x08,
  KERNEL_STEALTH = 0x10, KERNEL_EXTRA_DATA = 0x20;
const RANGE_PROOF_SIZE = 675;

/** The roots and offsets are kept as bytes and shown as hex on access: the scan reads only the height and sizes. */
class RawMwebHeader implements MwebHeader {
  constructor(readonly height: number, private readonly roots: Uint8Array, readonly outputMmrSize: number, readonly kernelMmrSize: number) {}
  private root(i: number): string { return hexOf(this.roots.subarray(32 * i, 32 * i + 32)); }
  get outputRoot(): string { return this.root(0); }
  get kernelRoot(): string { return this.root(1); }
  get leafsetRoot(): string { return this.root(2); }
  get kernelOffset(): string { return this.root(3); }
  get stealthOffset(): string { return this.root(4); }
}

export function readMwebHeader(r: Reader): MwebHeader {
  const height = r.varint();
  const roots = r.take(5 * 32);
  const outputMmrSize = r.varint();
  const kernelMmrSize = r.varint();
  return new RawMwebHeader(height, roots, outputMmrSize, kernelMmrSize);
}

export function readMwebBody(r: Reader): MwebBody {
  const inputCount = r.compactSize();
  for (let i = 0; i < inputCount; i++) {
    const features = r.u8();
    r.skip(32 + 33 + 33); // output id, commitment, output pubkey
    if (features & INPUT_STEALTH_KEY) r.skip(33);
    if (features & INPUT_EXTRA_DATA) r.bytesVector();
    r.skip(64);
  }
  const outputCount = r.compactSize();
  for (let i = 0; i < outputCount; i++) {
    r.skip(33 + 33 + 33); // commitment, sender and receiver pubkeys
    const features = r.u8();
    if (features & MESSAGE_STANDARD) r.skip(33 + 1 + 8 + 16); // key exchange pubkey, view tag, masked value, masked nonce
    if (features & MESSAGE_EXTRA_DATA) r.bytesVector();
    r.skip(RANGE_PROOF_SIZE + 64);
  }
  const kernelCount = r.compactSize();
  const kernels: MwebKernel[] = [];
  for (let i = 0; i < kernelCount; i++) kernels.push(readKernel(r));
  return { inputCount, outputCount, kernels };
}

function readKernel(r: Reader): MwebKernel {
  const features = r.u8();
  const fee = features & KERNEL_FEE ? r.varint() : null;
  const peginAmount = features & KERNEL_PEGIN ? r.varint() : null;
  const pegouts: MwebKernel['pegouts'] = [];
  if (features & KERNEL_PEGOUT) {
    const count = r.compactSize();
    for (let i = 0; i < count; i++) {
      const amount = r.varint();
      pegouts.push({ amount, scriptHex: hexOf(r.bytesVector()) });
    }
  }
  if (features & KERNEL_HEIGHT_LOCK) r.varint();
  if (features & KERNEL_STEALTH) r.skip(33);
  if (features & KERNEL_EXTRA_DATA) r.bytesVector();
  r.skip(33 + 64); // excess, signature
  return { features, fee, peginAmount, pegouts };
}
