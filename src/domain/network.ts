/**
 * Network parameters (docs/methodology.md). `sim` is the built-in simulated chain; it uses
 * regtest formats. Name, unit and bech32 prefix are the wallet client's
 * (NETWORK_BASICS); the rest only the pipeline and the router need.
 */
import { NETWORK_BASICS, NETWORK_NAMES, type NetworkName, type Unit } from '@pegscope/client';

export { NETWORK_NAMES, type NetworkName } from '@pegscope/client';

/** Litecoin's target block interval, the same on every network (docs/methodology.md: ≈ 150 s). */
export const BLOCK_SECONDS = 150;

export interface NetworkParams {
  name: NetworkName;
  /** `getblockchaininfo.chain` of a node on this network (sim has no node). */
  nodeChain: 'main' | 'test' | 'regtest' | null;
  unit: Unit;
  bech32Hrp: string;
  /** Base58 version bytes: P2PKH, P2SH (current), P2SH (legacy, `3…` style). */
  base58: { p2pkh: number; p2sh: number; p2shLegacy: number };
  /** null: read from `getblockchaininfo.softforks.mweb` (regtest) or chosen by the sim. */
  mwebActivationHeight: number | null;
  defaultRpcPort: number;
}

export const NETWORKS: Record<NetworkName, NetworkParams> = {
  mainnet: {
    ...NETWORK_BASICS.mainnet, nodeChain: 'main',
    base58: { p2pkh: 0x30, p2sh: 0x32, p2shLegacy: 0x05 },
    mwebActivationHeight: 2265984, defaultRpcPort: 9332,
  },
  testnet: {
    ...NETWORK_BASICS.testnet, nodeChain: 'test',
    base58: { p2pkh: 0x6f, p2sh: 0x3a, p2shLegacy: 0xc4 },
    mwebActivationHeight: 2215584, defaultRpcPort: 19332,
  },
  regtest: {
    ...NETWORK_BASICS.regtest, nodeChain: 'regtest',
    base58: { p2pkh: 0x6f, p2sh: 0x3a, p2shLegacy: 0xc4 },
    mwebActivationHeight: null, defaultRpcPort: 19443,
  },
  sim: {
    ...NETWORK_BASICS.sim, nodeChain: null,
    base58: { p2pkh: 0x6f, p2sh: 0x3a, p2shLegacy: 0xc4 },
    mwebActivationHeight: null, defaultRpcPort: 0,
  },
};

export function networkParams(name: string): NetworkParams {
  if (!(NETWORK_NAMES as readonly string[]).includes(name)) {
    throw new Error(`unknown network "${name}"; allowed: ${NETWORK_NAMES.join(', ')}`);
  }
  return NETWORKS[name as NetworkName];
}
