import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { formatCoin, parseCoinAmount, privacyOf, type AmountTable } from '../src/client/index.js';
import { buildPipelineTree, type PipelineTree } from './helpers/pipeline-release.js';

let tree: PipelineTree;
let server: RunningServer;
let table: AmountTable;

beforeAll(async () => {
  tree = await buildPipelineTree();
  server = await startServer({ sites: [{ network: 'sim', outDir: tree.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  // The wallet's view: the table as fetched over HTTP, not read from disk.
  table = (await (await fetch(`${server.url}/api/amounts.json`)).json()) as AmountTable;
});

afterAll(async () => {
  await server?.close();
  rmSync(tree.root, { recursive: true, force: true });
});

/** Amounts anywhere up to 21M coin, and amounts on or near the table's own rows (generated after beforeAll). */
const litoshi = fc.oneof(
  fc.integer({ min: 1, max: 2_100_000_000_000_000 }),
  fc.integer({ min: 1_000_000, max: 1_000_000_000 }),
  fc.constantFrom(1, 100_000_000, 2_100_000_000_000_000),
  fc.tuple(fc.nat(), fc.integer({ min: -250_000, max: 250_000 }), fc.boolean())
    .map(([i, offset, exact]) => {
      const rows = [...table.pegin, ...table.pegout];
      return Math.max(1, rows[i % rows.length]![0] + (exact ? 0 : offset));
    }),
);

describe('router and wallet client agree', () => {
  it('GET /api/privacy equals pegscope/client privacyOf on the fetched amount table', async () => {
    await fc.assert(
      fc.asyncProperty(litoshi, fc.constantFrom('pegin', 'pegout') as fc.Arbitrary<'pegin' | 'pegout'>, async (amount, side) => {
        const text = formatCoin(amount);
        const res = await fetch(`${server.url}/api/privacy?amount=${text}&side=${side}`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { privacy: unknown };
        expect(body.privacy).toEqual(privacyOf(table, parseCoinAmount(text), side));
      }),
      { numRuns: 300 },
    );
  });
});

describe('pegscope/client', () => {
  it('has no dependencies: every module it loads imports only relative paths (no npm, no node: builtins)', () => {
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, 'utf8');
      for (const [, spec] of source.matchAll(/(?:import|export)[^'"]*?from\s+'([^']+)'/g)) {
        expect(spec, `${file} imports ${spec}`).toMatch(/^\.\.?\//);
        visit(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')));
      }
    };
    visit(join(import.meta.dirname, '..', 'src', 'client', 'index.ts'));
    expect(seen.size).toBeGreaterThanOrEqual(3);
  });
});
