/**
 * The docs state what the code does: the routes docs/api.md lists are the
 * files the router serves by name, the wallet code they print imports the
 * wallet package by its published name, the range format is named at its
 * source, and docs/amounts.md states the compressed siblings' real sizes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BR_MIN, GZ_MIN, RELEASE_FILE_RULES } from '../src/api/release-files.js';

const ROOT = join(import.meta.dirname, '..');
const read = (rel: string): string => readFileSync(join(ROOT, rel), 'utf8');
const section = (text: string, heading: string): string => {
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const next = text.indexOf('\n## ', start + heading.length + 2);
  return text.slice(start, next === -1 ? undefined : next);
};

describe('docs/api.md', () => {
  it('lists under Routes every single file the router serves by name', () => {
    const routes = section(read('docs/api.md'), '## Routes');
    const files = RELEASE_FILE_RULES.filter((r) => r.served && !r.sibling).flatMap((r) => [...r.paths.matchAll(/`([^`<*{]+)`/g)].map((m) => m[1]!))
      .filter((path) => /^[\w/.]+\.json$/.test(path));
    expect(files).toEqual(expect.arrayContaining(['api/openapi.json', 'api/amounts.json', 'manifest.json']));
    expect(files.filter((path) => !routes.includes(`/${path}`))).toEqual([]);
  });

  it('names the module that defines the range file format', () => {
    const dir = join(ROOT, 'packages/client/src');
    const defining = readdirSync(dir).filter((f) => /export const RANGE_DOCUMENTS_OPEN\b/.test(readFileSync(join(dir, f), 'utf8')));
    expect(defining).toEqual(['range.ts']);
    expect(section(read('docs/api.md'), '## Private lookups for wallets')).toContain(`(packages/client/src/${defining[0]}):`);
  });
});

describe('the docs\' wallet code', () => {
  it('imports the wallet package by its published name, as a wallet would', () => {
    const docs = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const wallet = docs.flatMap((doc) => [...read(doc).matchAll(/```(?:js|ts)\n([\s\S]*?)```/g)].map((m) => [doc, m[1]!] as const))
      .filter(([, code]) => /\b(?:privacyOf|parseAmountTable|RangeClient|fetchAmountTable)\b/.test(code));
    expect(wallet.length).toBeGreaterThanOrEqual(4);
    for (const [doc, code] of wallet) expect([...code.matchAll(/from '([^']+)'/g)].map((m) => m[1]), doc).toEqual(['@pegscope/client']);
  });
});

describe('docs/amounts.md', () => {
  it('promises a .br sibling only from BR_MIN, and a .gz one from GZ_MIN (src/api/release-files.ts)', () => {
    const paragraphs = read('docs/amounts.md').split(/\n(?=\* |\n)/).filter((p) => p.includes('.br')).map((p) => p.replace(/\s+/g, ' '));
    expect(paragraphs.length).toBeGreaterThan(0);
    for (const p of paragraphs) {
      expect(p).toContain(`\`.gz\` sibling of the table from ${GZ_MIN / 1024} KiB`);
      expect(p).toContain(`\`.br\` one from ${BR_MIN / 1024} KiB`);
    }
  });
});
