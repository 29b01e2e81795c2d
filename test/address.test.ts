import { hex } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { addressToScript, decodeScript, isValidAddress } from '../src/domain/address.js';
import { NETWORKS, type NetworkParams } from '../src/domain/network.js';
import { MAINNET_BLOCK_HEIGHTS, mainnetBlock, recordingLines } from './helpers/fixtures.js';


interface NodeOutput { scriptPubKey: { hex: string; type: string; address?: string; addresses?: string[] } }
interface NodeBlock { tx: { vout: NodeOutput[] }[] }

function fixtureBlocks(): { block: NodeBlock; network: NetworkParams }[] {
  const mainnet = MAINNET_BLOCK_HEIGHTS.map((h) => ({
    block: mainnetBlock<NodeBlock>(h),
    network: NETWORKS.mainnet,
  }));
  const regtest = recordingLines('chain.jsonl')
    .filter((l) => l.method === 'getblock' && l.params[1] === 2)
    .map((l) => ({ block: l.result as NodeBlock, network: NETWORKS.regtest }));
  return [...mainnet, ...regtest];
}

describe('scripts and addresses', () => {
  const outputs = fixtureBlocks().flatMap(({ block, network }) =>
    block.tx.flatMap((tx) => tx.vout.map((vout) => ({ spk: vout.scriptPubKey, network }))));

  it('classifies and encodes every recorded output exactly as Litecoin Core did', () => {
    expect(outputs.length).toBeGreaterThan(2000);
    const types = new Set<string>();
    for (const { spk, network } of outputs) {
      const decoded = decodeScript(hex.decode(spk.hex), network);
      types.add(spk.type);
      expect(decoded.type, spk.hex).toBe(spk.type);
      expect(decoded.address, spk.hex).toBe(spk.address ?? spk.addresses?.[0] ?? null);
    }
    expect(types).toContain('witness_mweb_pegin');
    expect(types).toContain('witness_mweb_hogaddr');
    expect(types).toContain('pubkeyhash');
    expect(types).toContain('scripthash');
  });

  it('maps every recorded address back to its script', () => {
    for (const { spk, network } of outputs) {
      const address = spk.address ?? spk.addresses?.[0];
      if (address) expect(hex.encode(addressToScript(address, network)!)).toBe(spk.hex);
    }
  });

  it('rejects a bad checksum, another network, mixed case and junk', () => {
    const good = 'rltc1qw4v2ym8cupwazjwhqhe95ldy7emh4zlhcvfyl6';
    expect(isValidAddress(good, NETWORKS.regtest)).toBe(true);
    expect(isValidAddress(good.toUpperCase(), NETWORKS.regtest)).toBe(true);
    expect(isValidAddress(good.replace(/l6$/, 'l7'), NETWORKS.regtest)).toBe(false);
    expect(isValidAddress(good, NETWORKS.mainnet)).toBe(false);
    expect(isValidAddress(`rltc1Q${good.slice(6)}`, NETWORKS.regtest)).toBe(false);
    for (const junk of ['', '../../etc/passwd', 'x'.repeat(200), 'ltc1', '1'.repeat(34)]) {
      expect(isValidAddress(junk, NETWORKS.mainnet), junk).toBe(false);
    }
  });
});
