/**
 * What a wallet needs to know of each network: its name, coin unit
 * and bech32 prefix. The server's fuller network parameters
 * (src/domain/network.ts) are built on these, so the two never disagree.
 */
export type NetworkName = 'mainnet' | 'testnet' | 'regtest' | 'sim';

export type Unit = 'LTC' | 'tLTC' | 'rLTC';

export interface NetworkBasics {
  name: NetworkName;
  unit: Unit;
  bech32Hrp: string;
}

/** `sim` is the built-in simulated chain; it uses regtest formats. */
export const NETWORK_BASICS: Readonly<Record<NetworkName, NetworkBasics>> = {
  mainnet: { name: 'mainnet', unit: 'LTC', bech32Hrp: 'ltc' },
  testnet: { name: 'testnet', unit: 'tLTC', bech32Hrp: 'tltc' },
  regtest: { name: 'regtest', unit: 'rLTC', bech32Hrp: 'rltc' },
  sim: { name: 'sim', unit: 'rLTC', bech32Hrp: 'rltc' },
};

export const NETWORK_NAMES = Object.keys(NETWORK_BASICS) as readonly NetworkName[];

export function isNetworkName(name: unknown): name is NetworkName {
  return typeof name === 'string' && (NETWORK_NAMES as readonly string[]).includes(name);
}

/** What is wrong with a `network` that is not one of NETWORK_NAMES. @internal */
export const notANetwork = (network: unknown): string => `network is ${JSON.stringify(network)}; expected one of ${NETWORK_NAMES.join(', ')}`;

/** What is wrong with a `file` of another network's release than the one `asked` for. @internal */
export const otherNetwork = (file: string, network: unknown, asked: string): string => `${file} is of the ${network} release, but ${asked} was asked for`;
