// minisign's formats, checked against Debian's `minisign` in both directions
// (docs/verifying.md): what pegscope signs, minisign verifies, and the reverse.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePublicKey, parseSignature, parseTrustedComment, base64Decode, SignatureError } from '@pegscope/client';
import {
  blake2b512OfFile, encodeSecretKey, formatTrustedComment, generateSecretKey, parseSecretKey, publicKeyFile, signBytes, signPrehashed, verifyBytes, verifyPrehashed,
} from '../src/trust/minisign.js';

const MINISIGN = process.env.PEGSCOPE_MINISIGN ?? 'minisign';
const hasMinisign = spawnSync(MINISIGN, ['-v']).status === 0;
if (!hasMinisign && process.env.PEGSCOPE_NODE_TESTS === '1') throw new Error(`"${MINISIGN}" cannot be run; install Debian's minisign (apt-get install minisign)`);

const dir = mkdtempSync(join(tmpdir(), 'pegscope-minisign-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('base64 and trusted comments', () => {
  it('decodes every padding length and refuses what is not base64', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 74]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 255);
      expect(Buffer.from(base64Decode(Buffer.from(bytes).toString('base64'), 'x'))).toEqual(Buffer.from(bytes));
    }
    expect(() => base64Decode('abc', 'the key')).toThrow(SignatureError);
    expect(() => base64Decode('ab!=', 'the key')).toThrow('the key is not base64');
  });

  it('reads the fields minisign writes and refuses a tab in a value', () => {
    expect(parseTrustedComment('timestamp:1\tfile:manifest.json\thashed')).toEqual({ timestamp: '1', file: 'manifest.json', hashed: '' });
    expect(formatTrustedComment([['network', 'sim'], ['as_of_height', 7]])).toBe('network:sim\tas_of_height:7');
    expect(() => formatTrustedComment([['release', 'a\tb']])).toThrow(SignatureError);
  });
});

describe('pegscope signatures', () => {
  const key = generateSecretKey();
  const publicKey = parsePublicKey(publicKeyFile(key));
  const bytes = new TextEncoder().encode('{"files":{}}\n');

  it('verify what they sign, in both algorithms, and name the failure', () => {
    for (const algorithm of ['ED', 'Ed'] as const) {
      const sig = signBytes(bytes, key, 'file:manifest.json\tas_of_height:5', algorithm);
      expect(parseSignature(sig).algorithm).toBe(algorithm);
      expect(verifyBytes(bytes, sig, [publicKey]).fields.as_of_height).toBe('5');
      const changed = Uint8Array.from(bytes);
      changed[2] = changed[2]! ^ 1;
      expect(() => verifyBytes(changed, sig, [publicKey])).toThrow('does not match the file');
      expect(() => verifyBytes(bytes, sig.replace('as_of_height:5', 'as_of_height:6'), [publicKey])).toThrow("trusted comment's signature");
      expect(() => verifyBytes(bytes, sig, [parsePublicKey(publicKeyFile(generateSecretKey()))])).toThrow('not among the trusted keys');
    }
  });

  it('sign and check a file streamed through its BLAKE2b-512 (ED) as they do its bytes; a prehash never checks an Ed signature', async () => {
    const file = join(dir, 'streamed.json');
    writeFileSync(file, bytes);
    const prehash = await blake2b512OfFile(file);
    const sig = signPrehashed(prehash, key, 'file:streamed.json');
    expect(verifyBytes(bytes, sig, [publicKey]).fields.file).toBe('streamed.json');
    expect(verifyPrehashed(prehash, signBytes(bytes, key, 'file:x'), [publicKey]).fields.file).toBe('x');
    expect(() => verifyPrehashed(prehash, signBytes(bytes, key, 'file:x', 'Ed'), [publicKey])).toThrow('must be signed prehashed');
  });

  it('round-trip the secret key file and refuse a damaged one without quoting it', () => {
    const text = encodeSecretKey(key);
    expect(parseSecretKey(text)).toEqual(key);
    const raw = Buffer.from(text.split('\n')[1]!, 'base64');
    raw[100] = raw[100]! ^ 1;
    const damaged = `untrusted comment: x\n${raw.toString('base64')}\n`;
    expect(() => parseSecretKey(damaged)).toThrow('damaged');
    try {
      parseSecretKey(damaged);
    } catch (err) {
      expect((err as Error).message).not.toContain(raw.toString('base64').slice(0, 12));
    }
  });
});

describe.runIf(hasMinisign)('interoperability with minisign', () => {
  const file = join(dir, 'manifest.json');
  writeFileSync(file, '{"version":"1","files":{"api/amounts.json":{"size":3}}}\n');

  it('minisign verifies what pegscope signs, and rejects it once one byte changes', () => {
    const key = generateSecretKey();
    writeFileSync(`${file}.minisig`, signBytes(readFileSync(file), key, 'file:manifest.json\tnetwork:sim'));
    const line = parsePublicKey(publicKeyFile(key)).line;
    const out = execFileSync(MINISIGN, ['-Vm', file, '-P', line], { encoding: 'utf8' });
    expect(out).toContain('Trusted comment: file:manifest.json\tnetwork:sim');
    writeFileSync(join(dir, 'other.json'), readFileSync(file, 'utf8').replace('"size":3', '"size":4'));
    const rejected = spawnSync(MINISIGN, ['-Vm', join(dir, 'other.json'), '-x', `${file}.minisig`, '-P', line], { encoding: 'utf8' });
    expect(rejected.status).not.toBe(0);
  });

  it('pegscope signs with a minisign -G -W key and verifies what minisign -S signs', () => {
    const pub = join(dir, 'k.pub');
    const sec = join(dir, 'k.key');
    execFileSync(MINISIGN, ['-G', '-W', '-p', pub, '-s', sec]);
    const key = parseSecretKey(readFileSync(sec, 'utf8'));
    const publicKey = parsePublicKey(readFileSync(pub, 'utf8'));
    expect(key.keyIdHex).toBe(publicKey.keyIdHex);
    const sig = signBytes(readFileSync(file), key, 'file:manifest.json');
    writeFileSync(`${file}.minisig`, sig);
    execFileSync(MINISIGN, ['-Vm', file, '-p', pub]);
    execFileSync(MINISIGN, ['-S', '-s', sec, '-m', file, '-t', 'as_of_height:9']);
    expect(verifyBytes(readFileSync(file), readFileSync(`${file}.minisig`, 'utf8'), [publicKey]).fields).toEqual({ as_of_height: '9' });
  });
});
