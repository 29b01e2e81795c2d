import { describe, expect, it } from 'vitest';
import { parseWindows, UPLOAD_BOUNDS, uploadOf, uploadVerdict } from '../scripts/lib/upload.js';

describe('bench:export upload bound', () => {
  it('counts added and changed files, range files by kind and dump partitions by table', () => {
    const upload = uploadOf({
      added: { 'api/range/trace/3f0.json': { size: 100 }, 'dumps/links/links-0.csv.gz': { size: 7 } },
      changed: { 'api/range/trace/a01.json': { size: 50 }, 'api/stats.json': { size: 3 }, 'dumps/links/links-1.csv.gz': { size: 8 } },
    });
    expect(upload.files).toBe(5);
    expect(upload.bytes).toBe(168);
    expect(Object.fromEntries(upload.groups)).toEqual({ 'api/range/trace/': 150, 'dumps/links/': 15, 'api/stats.json': 3 });
  });

  it('fails an upload over 3% of files or of bytes after 100 blocks, and names each share', () => {
    const release = { files: 10_000, bytes: 500_000_000 };
    expect(uploadVerdict({ files: 300, bytes: 15_000_000 }, release, UPLOAD_BOUNDS[100]).problems).toEqual([]);
    const over = uploadVerdict({ files: 301, bytes: 22_800_000 }, release, UPLOAD_BOUNDS[100]);
    expect(over.byteShare).toBeCloseTo(0.0456, 6);
    expect(over.problems).toEqual([
      '301 of 10000 files is 3.01% (at most 3.0%)',
      '22800000 of 500000000 bytes is 4.56% (at most 3.0%)',
    ]);
  });

  it('bounds only the bytes after 1 block, at 0.3%', () => {
    const release = { files: 10_000, bytes: 500_000_000 };
    expect(uploadVerdict({ files: 2_000, bytes: 1_500_000 }, release, UPLOAD_BOUNDS[1]).problems).toEqual([]);
    expect(uploadVerdict({ files: 1, bytes: 1_500_001 }, release, UPLOAD_BOUNDS[1]).problems).toHaveLength(1);
  });

  it('reads windows as SEED@HEIGHT or SEED@tip, and refuses one outside the chain', () => {
    expect(parseWindows('7@599998, 1@tip', 600_431, 432)).toEqual([{ seed: 7, to: 599_998 }, { seed: 1, to: 600_431 }]);
    expect(parseWindows('', 600_431, 432)).toEqual([]);
    expect(() => parseWindows('1@600432', 600_431, 432)).toThrow(/from 533 to 600431/);
    expect(() => parseWindows('1@532', 600_431, 432)).toThrow(/from 533/);
    expect(() => parseWindows('tip', 600_431, 432)).toThrow(/SEED@HEIGHT/);
  });
});
