/**
 * The address check the router applies to `q` (docs/api.md), so a wallet
 * that looks up through range files refuses what the router refuses, with
 * the same message: bech32 (witness v0) or bech32m (v1 to 16) with the
 * network's prefix and a program of a valid length, or base58check with
 * one of the network's version bytes.
 */
import { NETWORK_BASICS, type NetworkName } from './network.js';
import { sha256d } from './sha256.js';

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
/** BIP 350: what the checksum of a bech32m string leaves (bech32's leaves 1). */
const BECH32M = 0x2bc830a3;

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >> i) & 1) chk ^= GENERATOR[i]!;
  }
  return chk;
}

function isSegwit(s: string, hrp: string): boolean {
  if (s !== s.toLowerCase() && s !== s.toUpperCase()) return false;
  const lower = s.toLowerCase();
  const data = [...lower.slice(hrp.length + 1)].map((c) => BECH32.indexOf(c));
  if (data.length < 7 || data.includes(-1)) return false;
  const codes = [...hrp].map((c) => c.charCodeAt(0));
  const version = data[0]!;
  if (polymod([...codes.map((c) => c >> 5), 0, ...codes.map((c) => c & 31), ...data]) !== (version === 0 ? 1 : BECH32M) || version > 16) return false;
  // The program: 5-bit words to bytes, with at most 4 bits of zero padding.
  let acc = 0;
  let bits = 0;
  let length = 0;
  for (const word of data.slice(1, -6)) {
    acc = ((acc << 5) | word) & 0xfff;
    bits += 5;
    if (bits >= 8) { bits -= 8; length++; }
  }
  if (bits > 4 || (acc & ((1 << bits) - 1)) !== 0) return false;
  return length >= 2 && length <= 40 && (version !== 0 || length === 20 || length === 32);
}

function isBase58(s: string, network: NetworkName): boolean {
  // Little-endian digits of the number, then one zero byte per leading '1'.
  const digits: number[] = [];
  for (const c of s) {
    let carry = BASE58.indexOf(c);
    if (carry < 0) return false;
    for (let i = 0; i < digits.length; i++) {
      carry += digits[i]! * 58;
      digits[i] = carry & 255;
      carry >>= 8;
    }
    for (; carry > 0; carry >>= 8) digits.push(carry & 255);
  }
  const bytes = [...Array<number>(/^1*/.exec(s)![0].length).fill(0), ...digits.reverse()];
  if (bytes.length !== 25) return false;
  const check = sha256d(Uint8Array.from(bytes.slice(0, 21)));
  const versions = network === 'mainnet' ? [0x30, 0x32, 0x05] : [0x6f, 0x3a, 0xc4];
  return versions.includes(bytes[0]!) && bytes.slice(21).every((b, i) => b === check[i]);
}

/** Whether `s` is an address of `network` as the router checks it (bad checksum, prefix, version or length: false). */
export function isValidAddress(network: NetworkName, s: string): boolean {
  const { bech32Hrp } = NETWORK_BASICS[network];
  if (s.length < 14 || s.length > 90) return false;
  return s.toLowerCase().startsWith(`${bech32Hrp}1`) ? isSegwit(s, bech32Hrp) : isBase58(s, network);
}

/** What the router's 400 says an address must be (the router's message uses it too). */
export const addressRequirement = (network: NetworkName): string =>
  `a valid ${network} address (${NETWORK_BASICS[network].bech32Hrp}1…, or base58 with a correct checksum)`;
