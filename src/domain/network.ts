/** Network parameters (SPEC §1). `sim` is the built-in simulated chain; it uses regtest formats. */
export type NetworkName = 'mainnet' | 'testnet' | 'regtest' | 'sim';
export const NETWORK_NAMES: readonly NetworkName[] = ['mainnet', 'testnet', 'regtest', 'sim'];

/** Litecoin's target block interval, the same on every network (SPEC §1: ≈ 150 s). */
export const BLOCK_SECONDS = 150;

export interface NetworkParams {
  name: NetworkName;
  /** `getblockchaininfo.chain` of a node on this network (sim has no node). */
  nodeChain: 'main' | 'test' | 'regtest' | null;
  unit: 'LTC' | 'tLTC' | 'rLTC';
  bech32Hrp: string;
  /** Base58 version bytes: P2PKH, P2SH (current), P2SH (legacy, `3…` style). */
  base58: { p2pkh: number; p2sh: number; p2shLegacy: number };
  /** null: read from `getblockchaininfo.softforks.mweb` (regtest) or chosen by the sim. */
  mwebActivationHeight: number | null;
  defaultRpcPort: number;
}

export const NETWORKS: Record<NetworkName, NetworkParams> = {
  mainnet: {
    name: 'mainnet', nodeChain: 'main', unit: 'LTC', bech32Hrp: 'ltc',
    base58: { p2pkh: 0x30, p2sh: 0x32, p2shLegacy: 0x05 },
    mwebActivationHeight: 2265984, defaultRpcPort: 9332,
  },
  testnet: {
    name: 'testnet', nodeChain: 'test', unit: 'tLTC', bech32Hrp: 'tltc',
    base58: { p2pkh: 0x6f, p2sh: 0x3a, p2shLegacy: 0xc4 },
    mwebActivationHeight: 2215584, defaultRpcPort: 19332,
  },
  regtest: {
    name: 'regtest', nodeChain: 'regtest', unit: 'rLTC', bech32Hrp: 'rltc',
    base58: { p2pkh: 0x6f, p2sh: 0x3a, p2shLegacy: 0xc4 },
    mwebActivationHeight: null, defaultRpcPort: 19443,
  },
  sim: {
    name: 'sim', nodeChain: null, unit: 'rLTC', bech32Hrp: 'rltc',
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
