import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalKey, keyHash, parseRange, RangeFormatError, type RangeHeader } from '@pegscope/client';
import { encodeRange, indexRange, rangeFileBytes } from '../src/api/range-file.js';
import { prefixLengthFor, RANGE_TARGET } from '../src/export/ranges.js';

const header = (keys: string[], chains?: string[]): RangeHeader => ({
  version: '1', network: 'sim', unit: 'rLTC', as_of_height: 10, updated_at: 20,
  range: { kind: 'follow', prefix: 'ab', hash: 'sha256', keys, ...(chains ? { chains } : {}) },
});

describe('range files', () => {
  it('cut back into exactly the documents they were made of, whatever the documents hold', () => {
    const doc = fc.json().map((j) => JSON.stringify(JSON.parse(j)));
    fc.assert(fc.property(fc.uniqueArray(fc.string(), { maxLength: 20 }), fc.array(doc, { minLength: 40, maxLength: 40 }), fc.nat(5), (keys, docs, chainCount) => {
      const chains = keys.slice(0, chainCount);
      const all = docs.slice(0, keys.length + chains.length);
      const text = encodeRange(header(keys, chains), all);
      const parsed = parseRange(text);
      expect([...parsed.documents.keys()]).toEqual(keys);
      expect([...parsed.documents.values(), ...parsed.chains.values()]).toEqual(all);
      expect([...parsed.chains.keys()]).toEqual(chains);
      // The file itself is JSON, so any consumer can read it without this module.
      expect((JSON.parse(text) as { documents: unknown[] }).documents).toEqual(all.map((d) => JSON.parse(d)));
    }));
  });

  it('are built and cut as bytes exactly as as text (the exporter and the router work on bytes)', () => {
    const doc = fc.json().map((j) => JSON.stringify(JSON.parse(j)));
    fc.assert(fc.property(fc.uniqueArray(fc.string(), { maxLength: 20 }), fc.array(doc, { minLength: 40, maxLength: 40 }), fc.nat(5), (keys, docs, chainCount) => {
      const chains = keys.slice(0, chainCount);
      const all = docs.slice(0, keys.length + chains.length);
      const bytes = rangeFileBytes(header(keys, chains), all.map((d) => Buffer.from(d)));
      expect(bytes.toString('utf8')).toBe(encodeRange(header(keys, chains), all));
      const indexed = indexRange(bytes);
      expect([...indexed.documents.keys()]).toEqual(keys);
      expect([...indexed.documents.values(), ...indexed.chains.values()].map((b) => b.toString('utf8'))).toEqual(all);
    }));
  });

  it('an empty range is valid JSON with no documents', () => {
    const text = encodeRange(header([]), []);
    expect(JSON.parse(text).documents).toEqual([]);
    expect(parseRange(text).documents.size).toBe(0);
  });

  it('refuses text that is not a range file, or whose line count disagrees with its keys', () => {
    expect(() => parseRange('{"a":1}\n')).toThrow(RangeFormatError);
    const text = encodeRange(header(['a', 'b']), ['{"x":1}', '{"x":2}']);
    expect(() => parseRange(text.replace(',\n{"x":2}', ''))).toThrow(/expected 2 document lines/);
  });
});

describe('keys and prefixes', () => {
  it('hashes keys with sha256 of their UTF-8 bytes', () => {
    fc.assert(fc.property(fc.string(), (key) => {
      expect(keyHash(key)).toBe(createHash('sha256').update(key, 'utf8').digest('hex'));
    }));
  });

  it('normalises hex and bech32 to lower case, keeps base58 as given, heights as decimal', () => {
    const hex = 'AB'.repeat(32);
    expect(canonicalKey(hex)).toBe(hex.toLowerCase());
    expect(canonicalKey('LTC1QXYZ')).toBe('ltc1qxyz');
    expect(canonicalKey('RLTC1QABC')).toBe('rltc1qabc');
    expect(canonicalKey('LcHKx7a')).toBe('LcHKx7a');
    expect(canonicalKey(1234)).toBe('1234');
  });

  it('chooses the prefix length whose mean range size is nearest the target band', () => {
    for (const documents of [0, 1, 100, 5_000, 15_196, 186_000, 435_000, 1_890_000, 30_000_000]) {
      const length = prefixLengthFor(documents);
      const mean = documents / 16 ** length;
      const others = [length - 1, length + 1].filter((l) => l >= 1).map((l) => documents / 16 ** l);
      const distance = (m: number) => Math.abs(Math.log(m / Math.sqrt(RANGE_TARGET.min * RANGE_TARGET.max)));
      expect(length).toBeGreaterThanOrEqual(1);
      if (documents > 0) for (const other of others) expect(distance(mean)).toBeLessThanOrEqual(distance(other));
    }
    expect(prefixLengthFor(435_000)).toBe(3);
  });
});
