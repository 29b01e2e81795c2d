/**
 * The wallet client's address check (@pegscope/client isValidAddress) is the
 * router's (src/domain/address.ts) on every network, and RangeClient refuses
 * what the router refuses with the router's own 400 message, instead of
 * answering null for an address with a bad checksum.
 */
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidAddress as clientValid, LookupError, NETWORK_NAMES, RangeClient, type NetworkName } from '@pegscope/client';
import { decodeScript, isValidAddress as routerValid } from '../src/domain/address.js';
import { NETWORKS } from '../src/domain/network.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { exportTinyRelease, type TinyRelease } from './helpers/tiny-release.js';

/** Scripts of every address kind: P2PKH, P2SH, witness v0 (20 and 32 bytes), taproot, a future witness version. */
const script = fc.tuple(fc.integer({ min: 0, max: 5 }), fc.uint8Array({ minLength: 40, maxLength: 40 })).map(([kind, b]) => {
  const h20 = [...b.subarray(0, 20)];
  const h32 = [...b.subarray(0, 32)];
  return Uint8Array.from([
    [0x76, 0xa9, 0x14, ...h20, 0x88, 0xac], [0xa9, 0x14, ...h20, 0x87], [0x00, 0x14, ...h20],
    [0x00, 0x20, ...h32], [0x51, 0x20, ...h32], [0x52, 0x10, ...b.subarray(0, 16)],
  ][kind]!);
});
const network = fc.constantFrom(...NETWORK_NAMES);
const addressOf = (bytes: Uint8Array, name: NetworkName): string => decodeScript(bytes, NETWORKS[name]).address!;
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

describe('isValidAddress in the wallet client', () => {
  it('agrees with the router on valid addresses, one changed character, another network\'s and case changes', () => {
    fc.assert(fc.property(script, network, network, fc.nat(), fc.integer({ min: 0, max: ALPHABET.length - 1 }), (bytes, own, other, at, c) => {
      const address = addressOf(bytes, own);
      const changed = `${address.slice(0, at % address.length)}${ALPHABET[c]}${address.slice((at % address.length) + 1)}`;
      for (const s of [address, changed, addressOf(bytes, other), address.toUpperCase(), `${address[0]!.toUpperCase()}${address.slice(1)}`]) {
        for (const name of NETWORK_NAMES) expect(clientValid(name, s), `${name} ${s}`).toBe(routerValid(s, NETWORKS[name]));
      }
      expect(clientValid(own, address)).toBe(true);
    }), { numRuns: 400 });
  });

  it('agrees with the router on any string', () => {
    fc.assert(fc.property(fc.string({ maxLength: 100 }), network, (s, name) => {
      expect(clientValid(name, s)).toBe(routerValid(s, NETWORKS[name]));
    }), { numRuns: 2000 });
  });
});

describe('RangeClient and the router on a bad query', () => {
  let release: TinyRelease;
  let router: RunningServer;
  beforeAll(async () => {
    release = await exportTinyRelease();
    router = await startServer({ sites: [{ network: 'sim', outDir: release.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  }, 180_000);
  afterAll(async () => {
    await router?.close();
    if (release) rmSync(release.root, { recursive: true, force: true });
  });

  it('throws the router\'s 400 message for an address with a bad checksum, and for a txid where only addresses go', async () => {
    const client = new RangeClient({ base: `${router.url}/`, network: 'sim' });
    const good = addressOf(Uint8Array.from([0x00, 0x14, ...Array(20).fill(7)]), 'sim');
    const bad = `${good.slice(0, -1)}${good.endsWith('q') ? 'p' : 'q'}`;
    const txid = 'ab'.repeat(32);
    const base58 = addressOf(Uint8Array.from([0x76, 0xa9, 0x14, ...Array(20).fill(9), 0x88, 0xac]), 'sim');
    const badBase58 = `${base58.slice(0, 5)}${base58[5] === 'z' ? 'y' : 'z'}${base58.slice(6)}`;
    const cases: [('trace' | 'address' | 'follow'), string][] = [['trace', bad], ['address', bad], ['follow', bad], ['address', txid], ['trace', badBase58]];
    for (const [kind, q] of cases) {
      const answer = await fetch(`${router.url}/api/${kind}?q=${encodeURIComponent(q)}`);
      expect(answer.status, `${kind} ${q}`).toBe(400);
      const { error } = await answer.json() as { error: string };
      await expect(client.document(kind, q), `${kind} ${q}`).rejects.toThrow(new LookupError(error));
    }
    await expect(client.followChain(bad)).rejects.toThrow(LookupError);
    // A valid address still looks up: none in this release, so null.
    expect(await client.document('address', good)).toBeNull();
  }, 60_000);
});
