/**
 * The router's lookups in manifest.json by binary search over its sorted
 * lines (src/serve/manifest-index.ts): every listed path is found with its
 * entry, nothing else is, at sizes that take the search and the scan.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ManifestFormatError, ManifestIndex } from '../src/serve/manifest-index.js';

const sha = (i: number): string => i.toString(16).padStart(64, '0');

function manifestText(paths: readonly string[]): string {
  const sorted = [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = sorted.map((p, i) => `${JSON.stringify(p)}:{"size":${i},"sha256":"${sha(i)}"${i % 3 ? ',"stamp":0' : ''}}${i < sorted.length - 1 ? ',' : ''}`);
  return ['{"version":"1","network":"sim","as_of_height":1,"updated_at":2,"stamps":[[1,2]],"files":{', ...lines, '}}'].join('\n');
}

function withManifest<T>(text: string, use: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'pegscope-manifest-'));
  try {
    writeFileSync(join(dir, 'manifest.json'), text);
    return use(join(dir, 'manifest.json'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pathPart = fc.stringMatching(/^[a-z0-9_]{1,12}$/);
const relPath = fc.array(pathPart, { minLength: 1, maxLength: 4 }).map((parts) => `${parts.join('/')}.json`);

describe('ManifestIndex', () => {
  it('finds every listed path with its entry and no other path, from one file to thousands', () => {
    fc.assert(fc.property(fc.uniqueArray(relPath, { minLength: 1, maxLength: 3_000, size: 'max' }), fc.array(relPath, { maxLength: 50 }), (paths, others) => {
      const sorted = [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      withManifest(manifestText(paths), (file) => {
        const index = ManifestIndex.open(file);
        try {
          for (const [i, p] of sorted.entries()) expect(index.lookup(p)).toEqual({ size: i, sha256: sha(i) });
          for (const p of others.filter((o) => !paths.includes(o))) expect(index.lookup(p)).toBeNull();
        } finally {
          index.close();
        }
      });
    }), { numRuns: 10 });
  });

  it('finds each of 20,000 paths of a release-shaped manifest (the binary search, not only the scan)', () => {
    const paths = Array.from({ length: 20_000 }, (_, i) => `api/range/trace/${i.toString(16).padStart(5, '0')}.json`);
    withManifest(manifestText(paths), (file) => {
      const index = ManifestIndex.open(file);
      try {
        for (const [i, p] of paths.entries()) expect(index.lookup(p)?.sha256, p).toBe(sha(i));
        for (const p of ['api/range/trace/0000.json', 'api/range/trace/fffff.json', 'a', 'zzz', 'api/range/trace/00000.jso']) expect(index.lookup(p), p).toBeNull();
      } finally {
        index.close();
      }
    });
  });

  it('refuses a manifest that is not in the exporter\'s shape, naming what is wrong', () => {
    withManifest('{"files":{\n"a":{"size":1}\n}}', (file) => {
      expect(() => ManifestIndex.lookupIn(file, 'a')).toThrow(new ManifestFormatError('the entry of "a" lacks a size or sha256'));
    });
    withManifest('{"files":{\nnot a line\n}}', (file) => {
      expect(() => ManifestIndex.lookupIn(file, 'x')).toThrow(/a line is not a file entry/);
    });
  });
});
