/**
 * The repository stands on its own: every path of this repository that the
 * README, the CHANGELOG or docs/ name exists, and nothing cites a contract
 * or a tracker that is not in the repository.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const DOCS = ['README.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
/** A repository path as the docs write one; a pattern (`<name>`, `*`, `{a,b}`) is checked down to its last literal directory. */
const PATH = /(?<![\w./-])((?:src|docs|scripts|test|schemas|packages)\/[A-Za-z0-9_./<>*{},-]*[A-Za-z0-9_>*}])/g;

function literalPart(path: string): string {
  const wild = path.search(/[<*{]/);
  return wild === -1 ? path : dirname(path.slice(0, wild + 1));
}

describe('the docs', () => {
  it('name only paths that exist in the repository', () => {
    const missing: string[] = [];
    for (const doc of DOCS) {
      for (const [, path] of readFileSync(join(ROOT, doc), 'utf8').matchAll(PATH)) {
        if (!existsSync(join(ROOT, literalPart(path!)))) missing.push(`${doc}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('cite the project\'s own docs, never SPEC sections or issue numbers (src, docs, test, scripts)', () => {
    const cited: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const rel = `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(rel);
        else if (/\.(?:ts|sql|md|mjs|html)$/.test(entry.name) && rel !== 'test/docs-paths.test.ts') {
          readFileSync(join(ROOT, rel), 'utf8').split('\n').forEach((line, i) => {
            if (/SPEC \u00a7|\bissue \d/.test(line)) cited.push(`${rel}:${i + 1}`);
          });
        }
      }
    };
    for (const dir of ['src', 'docs', 'test', 'scripts', 'packages/client/src']) walk(dir);
    expect(cited).toEqual([]);
  });
});
