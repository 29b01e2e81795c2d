import { afterEach, describe, expect, it, vi } from 'vitest';
import { batchLines } from '../src/serve/log-lines.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('batched log lines', () => {
  it('writes whole lines in batches of at most 4 KB, each within 100 ms', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    const lines = batchLines((chunk) => writes.push(chunk));
    const line = (i: number): string => `GET /api/trace ${i} ${'x'.repeat(90)}\n`;
    for (let i = 0; i < 100; i++) lines.add(line(i));
    // Nothing waits longer than the flush interval.
    expect(writes.length).toBeGreaterThan(1);
    vi.advanceTimersByTime(100);
    expect(writes.join('')).toBe(Array.from({ length: 100 }, (_, i) => line(i)).join(''));
    for (const chunk of writes) {
      expect(Buffer.byteLength(chunk)).toBeLessThanOrEqual(4096);
      expect(chunk.endsWith('\n')).toBe(true);
    }
  });

  it('a lone line is written after the interval, or at once by flush (exit)', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    const lines = batchLines((chunk) => writes.push(chunk), 100);
    lines.add('one\n');
    vi.advanceTimersByTime(99);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['one\n']);
    lines.add('two\n');
    lines.flush();
    expect(writes).toEqual(['one\n', 'two\n']);
    vi.advanceTimersByTime(1_000);
    expect(writes).toEqual(['one\n', 'two\n']);
  });

  it('counts bytes, not characters', () => {
    const writes: string[] = [];
    const lines = batchLines((chunk) => writes.push(chunk));
    const wide = `${'é'.repeat(1500)}\n`; // 3,001 bytes in 1,501 characters
    lines.add(wide);
    lines.add(wide);
    expect(writes).toEqual([wide]);
    lines.flush();
    expect(writes).toEqual([wide, wide]);
  });
});
