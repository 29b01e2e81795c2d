import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rangePath, rangePrefix, type RangeHeader } from '@pegscope/client';
import { encodeRange } from '../src/api/range-file.js';
import { PreviousRanges, rangeBatches } from '../src/export/range-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'pegscope-previous-ranges-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The previous release's trace ranges at `length` digits, one document per key. */
function previousRelease(keys: string[], length: number): string {
  const release = join(dir, `len${length}`);
  const byPrefix = new Map<string, string[]>();
  for (const key of keys) byPrefix.set(rangePrefix(key, length), [...(byPrefix.get(rangePrefix(key, length)) ?? []), key]);
  for (const [prefix, inRange] of byPrefix) {
    const sorted = [...inRange].sort();
    const header: RangeHeader = { version: '1', network: 'sim', unit: 'rLTC', as_of_height: 1, updated_at: 2, range: { kind: 'trace', prefix, hash: 'sha256', keys: sorted } };
    const path = join(release, rangePath('trace', prefix));
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, encodeRange(header, sorted.map((key) => JSON.stringify({ key }))));
  }
  return release;
}

describe('PreviousRanges', () => {
  const keys = Array.from({ length: 300 }, (_, i) => `key-${i}`);
  const lengths = (trace: number) => ({ trace, address: 1, follow: 1, block: 1 });

  it.each([[1, 2], [2, 2], [2, 1]])('finds each unrendered document in the previous release whose prefixes had %i digits, this one %i', async (before, now) => {
    const previous = new PreviousRanges(previousRelease(keys, before), lengths(before));
    for (const key of keys) {
      const doc = await previous.document('trace', rangePrefix(key, now), key, 0);
      expect(doc.toString('utf8')).toBe(JSON.stringify({ key }));
    }
  });

  it('serves documents from the files read ahead, and a missing file read ahead fails only the document asked of it', async () => {
    const reads: { path: string; read: Promise<Buffer> }[] = [];
    const countingRead = (path: string): Promise<Buffer> => {
      const read = readFile(path);
      reads.push({ path, read });
      return read;
    };
    const previous = new PreviousRanges(previousRelease(keys, 2), lengths(2), countingRead);
    // The next few ranges, as the writer reads ahead of the range it builds.
    const prefixes = [...new Set(keys.map((key) => rangePrefix(key, 2)))].sort().slice(0, 16);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => { unhandled.push(reason); };
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const prefix of prefixes) previous.readAhead('trace', prefix);
      // No such range: reading it ahead must not be an unhandled rejection.
      previous.readAhead('trace', 'zz');
      await Promise.allSettled(reads.map(({ read }) => read));
      // Node reports a rejection nobody handled before the next turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    expect(reads.map(({ path }) => path)).toEqual([...prefixes, 'zz'].map((prefix) => join(dir, 'len2', rangePath('trace', prefix))));
    const readAhead = keys.filter((key) => prefixes.includes(rangePrefix(key, 2)));
    for (const key of readAhead) expect((await previous.document('trace', rangePrefix(key, 2), key, 0)).toString('utf8')).toBe(JSON.stringify({ key }));
    // Every one came from a file already read.
    expect(reads).toHaveLength(prefixes.length + 1);
    await expect(previous.document('trace', 'zz', 'missing', 0)).rejects.toThrow(/ENOENT/);
  });

  it('says which file lacks a document instead of writing a range without it', async () => {
    const previous = new PreviousRanges(previousRelease(keys, 1), lengths(1));
    await expect(previous.document('trace', rangePrefix('other', 1), 'other', 0)).rejects.toThrow(/lacks other/);
  });
});

describe('rangeBatches', () => {
  it.each([[1, 1], [1, 3], [2, 7], [2, 256], [1, 40], [3, 25]])('splits the prefixes of %i hex digits into %i batches of consecutive prefixes, each key in exactly one scope', (length, count) => {
    const batches = rangeBatches(length, count);
    const ranges = 16 ** length;
    expect(batches).toHaveLength(Math.min(count, ranges));
    // Consecutive, none empty, together every prefix, sizes within one of each other.
    expect(batches[0]!.first).toBe(0);
    expect(batches.at(-1)!.end).toBe(ranges);
    batches.forEach((b, i) => {
      expect(b.end).toBeGreaterThan(b.first);
      if (i > 0) expect(b.first).toBe(batches[i - 1]!.end);
    });
    const sizes = batches.map((b) => b.end - b.first);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    // Every prefix, and any key of another prefix length (a recycled release's), falls into exactly one scope, its batch's for a prefix.
    const inScope = (key: string) => batches.filter(({ scope }) => key >= scope.from && (scope.to === null || key < scope.to));
    for (let n = 0; n < ranges; n++) {
      const prefix = n.toString(16).padStart(length, '0');
      expect(inScope(prefix).map((b) => b.first)).toEqual([batches.find((b) => n >= b.first && n < b.end)!.first]);
    }
    for (const key of ['', '0', 'f', 'fff', 'ffff', '00000', '8', '7ff', '80', 'ffffffff']) expect(inScope(key), key).toHaveLength(1);
  });
});
