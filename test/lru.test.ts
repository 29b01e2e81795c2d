import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Lru } from '../src/lru.js';

describe('bounded LRU', () => {
  it('evicts the least recently used entry when over maxEntries; get refreshes an entry', () => {
    const lru = new Lru<string, number>({ maxEntries: 3 });
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    expect(lru.get('a')).toBe(1);
    lru.set('d', 4);
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('a'), lru.get('c'), lru.get('d')]).toEqual([1, 3, 4]);
    expect(lru.size).toBe(3);
  });

  it('evicts by bytes, counts a replaced entry once, and refuses a value larger than the whole budget', () => {
    const lru = new Lru<string, string>({ maxEntries: 100, maxBytes: 10 });
    lru.set('a', 'x', 4);
    lru.set('b', 'y', 4);
    lru.set('a', 'x2', 5);
    expect(lru.bytes).toBe(9);
    lru.set('c', 'z', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.bytes).toBe(8);
    expect(lru.set('huge', 'h', 11)).toBe(false);
    expect(lru.get('huge')).toBeUndefined();
    expect([lru.get('a'), lru.get('c')]).toEqual(['x2', 'z']);
    expect(lru.delete('a')).toBe(true);
    expect(lru.bytes).toBe(3);
  });

  it('never holds more than its limits, whatever the sequence of operations', () => {
    const op = fc.tuple(fc.constantFrom('get', 'set', 'delete'), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 30 }));
    fc.assert(fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
      const lru = new Lru<number, number>({ maxEntries: 8, maxBytes: 60 });
      const sizes = new Map<number, number>();
      for (const [kind, key, bytes] of ops) {
        if (kind === 'get') lru.get(key);
        else if (kind === 'delete') lru.delete(key);
        else if (lru.set(key, bytes, bytes)) sizes.set(key, bytes);
        expect(lru.size).toBeLessThanOrEqual(8);
        expect(lru.bytes).toBeLessThanOrEqual(60);
      }
      // The byte count is the sum of what is held: nothing leaks through replace, delete or eviction.
      let held = 0;
      for (const key of sizes.keys()) if (lru.get(key) !== undefined) held += sizes.get(key)!;
      expect(lru.bytes).toBe(held);
    }));
  });
});
