import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ModuleGraph } from './helpers/module-graph-child.js';

const ROOT = join(import.meta.dirname, '..');
const CHILD = join(import.meta.dirname, 'helpers', 'module-graph-child.ts');

/** What importing `entry` (relative to the repository) resolves and maps, in a fresh process. */
async function moduleGraph(entry: string): Promise<ModuleGraph> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD, entry], { cwd: ROOT });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as ModuleGraph;
}

const duckdbModules = (graph: ModuleGraph): string[] =>
  graph.modules.filter((m) => m.specifier.includes('@duckdb') || m.url.includes('/@duckdb/')).map((m) => m.url);

describe('layers', () => {
  it.each([
    ['the router', 'src/serve/server.ts', 'src/serve/'],
    // `pegscope serve` and `verify` run from the CLI module: the commands that need DuckDB import it when they run.
    ['the CLI before a command runs', 'src/cli.ts', 'src/serve/'],
    ['the wallet client', 'src/client/index.ts', 'packages/client/dist/index.js'],
    // `pegscope mirror` keeps a copy with no DuckDB run (docs/mirror.md); test/mirror.test.ts also reads a pulling process's maps.
    ['the mirror', 'src/mirror/mirror.ts', 'src/mirror/'],
    // A mirror's operator checks a copy with `verify --public-key` on a host with no DuckDB run either.
    ['verify', 'src/export/verify.ts', 'src/export/verify-signature.ts'],
  ])('%s never loads DuckDB: no @duckdb module in its import graph and no DuckDB library mapped', async (_name, entry, seen) => {
    const graph = await moduleGraph(entry);
    // The hook saw the graph (else an empty list would pass).
    expect(graph.modules.some((m) => m.url.includes(seen))).toBe(true);
    expect(duckdbModules(graph)).toEqual([]);
    expect(graph.duckdbLibraries).toEqual([]);
  });

  it('the lint fails on an import cycle even when both imports are type-only', async () => {
    mkdirSync(join(ROOT, '.scratch'), { recursive: true });
    const dir = mkdtempSync(join(ROOT, '.scratch', 'cycle-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport interface A { b: B }\n");
      writeFileSync(join(dir, 'b.ts'), "import type { A } from './a.js';\nexport interface B { a: A | null }\n");
      const cruise = promisify(execFile)(process.execPath, ['--import', './scripts/lint-typescript.mjs', 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs', dir, '--config', '.dependency-cruiser.cjs'], { cwd: ROOT });
      await expect(cruise).rejects.toMatchObject({ stdout: expect.stringMatching(/error no-circular/) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('the check sees DuckDB where it is loaded: the exporter', async () => {
    const graph = await moduleGraph('src/export/export.ts');
    expect(duckdbModules(graph).length).toBeGreaterThan(0);
    expect(graph.duckdbLibraries.length).toBeGreaterThan(0);
  });
});
