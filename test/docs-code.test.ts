/**
 * The code blocks of docs/dumps.md and docs/amounts.md run against the demo
 * release (`pegscope job --preset demo`, what `npm start` publishes, in
 * out/sim/current), so the docs cannot drift from the code:
 * - `sql` in DuckDB (@duckdb/node-api) from the release root with
 *   dumps/views.sql read, as docs/dumps.md tells readers to start; the last
 *   statement must return rows;
 * - `js` and `ts` with node (ts through tsx), from the directory holding
 *   out/sim, against a local router;
 * - `sh` with bash -euo pipefail in an empty directory.
 * `json` blocks must parse; `text` blocks are shown output. Any other fence,
 * an untagged one included, fails. A block not to run says so on the line
 * before it: `<!-- doc-test: skip (why) -->`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../src/serve/server.js';

const REPO = realpathSync(new URL('..', import.meta.url));
const DOCS = ['docs/dumps.md', 'docs/amounts.md'] as const;
const RUN = ['sql', 'js', 'ts', 'sh'] as const;
const SHOWN = ['json', 'text'];
const SKIP = /^<!-- doc-test: skip \((.+)\) -->$/;
const MIRROR = 'https://mirror.example';

interface CodeBlock { doc: string; line: number; lang: string; code: string; skip: string | null }

/** Every fenced block of a doc, with its 1-based line and the skip marker right above it. */
function codeBlocks(doc: string, text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${doc}:${i + 1}: a fence that is never closed`);
    const skip = SKIP.exec(lines[i - 1] ?? '')?.[1] ?? null;
    blocks.push({ doc, line: i + 1, lang: open[1]!, code: lines.slice(i + 1, end).join('\n'), skip });
    i = end;
  }
  return blocks;
}

const BLOCKS = DOCS.flatMap((doc) => codeBlocks(doc, readFileSync(join(REPO, doc), 'utf8')));
const runnable = (b: CodeBlock): boolean => (RUN as readonly string[]).includes(b.lang) && b.skip === null;

/**
 * What the test changes in a block before running it: names a doc leaves to
 * the reader, and the mirror it points at (the local router here). Each must
 * apply to some block, so a stale entry fails instead of silently doing nothing.
 */
const SUBSTITUTIONS: { doc: string; from: string; to: (router: string) => string }[] = [
  { doc: 'docs/dumps.md', from: MIRROR, to: (router) => router },
  { doc: 'docs/amounts.md', from: MIRROR, to: (router) => router },
  // The wallet examples are written for mainnet; the demo is the simulated chain.
  { doc: 'docs/amounts.md', from: "network: 'mainnet'", to: () => "network: 'sim'" },
];
/** Declarations a doc's ts/js blocks use without defining: `base` (the mirror), and the wallet's own storage. */
const PRELUDES: Record<string, (router: string) => string> = {
  'docs/amounts.md': (router) => `const base = ${JSON.stringify(router)};\nconst load = (): null => null;\nconst save = (_stored: unknown): void => undefined;\n`,
  'docs/dumps.md': () => '',
};

let work: string;
let scripts: string;
let release: string;
let router: RunningServer;
let duckdb: DuckDBInstance;
const applied = new Set<number>();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-docs-code-'));
  mkdirSync(join(REPO, '.scratch'), { recursive: true });
  // Inside the repository, so the blocks' imports (@duckdb/node-api, @pegscope/client) resolve as in a checkout.
  scripts = mkdtempSync(join(REPO, '.scratch', 'doc-blocks-'));
  const job = spawnSync(process.execPath, ['--import', 'tsx', 'src/bin.ts', 'job', '--source', 'sim', '--preset', 'demo',
    '--db', join(work, 'data', 'sim.duckdb'), '--out', join(work, 'out', 'sim')], { cwd: REPO, encoding: 'utf8' });
  expect(job.status, job.stderr).toBe(0);
  release = realpathSync(join(work, 'out', 'sim', 'current'));
  router = await startServer({ sites: [{ network: 'sim', outDir: join(work, 'out', 'sim') }], host: '127.0.0.1', port: 0, rateLimit: 0, log: () => undefined });
  duckdb = await DuckDBInstance.create(':memory:');
}, 300_000);

afterAll(async () => {
  await router?.close();
  duckdb?.closeSync();
  if (scripts) rmSync(scripts, { recursive: true, force: true });
  if (work) rmSync(work, { recursive: true, force: true });
});

function prepared(block: CodeBlock): string {
  let code = block.code;
  SUBSTITUTIONS.forEach((s, i) => {
    if (s.doc !== block.doc || !code.includes(s.from)) return;
    code = code.replaceAll(s.from, s.to(router.url));
    applied.add(i);
  });
  return code;
}

/** The rows of the last statement of `sql`, run after dumps/views.sql from the release root. */
async function runSql(sql: string): Promise<number> {
  const connection = await duckdb.connect();
  try {
    await connection.run(`SET file_search_path = '${release.replaceAll("'", "''")}'`);
    await connection.run(readFileSync(join(release, 'dumps', 'views.sql'), 'utf8'));
    const statements = await connection.extractStatements(sql);
    let rows = 0;
    for (let i = 0; i < statements.count; i++) rows = (await (await statements.prepare(i)).runAndReadAll()).currentRowCount;
    return rows;
  } finally {
    connection.closeSync();
  }
}

interface Ran { status: number | null; stdout: string; stderr: string }

/** A process run to its end; asynchronously, since the router answering it runs in this process. */
function run(command: string, args: readonly string[], cwd: string): Promise<Ran> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  let stdout = '', stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
}

function runScript(block: CodeBlock, code: string): Promise<Ran> {
  if (block.lang === 'sh') return run('bash', ['-euo', 'pipefail', '-c', code], mkdtempSync(join(work, 'sh-')));
  const file = join(scripts, `${block.doc.replace(/\W/g, '-')}-${block.line}.${block.lang === 'ts' ? 'mts' : 'mjs'}`);
  writeFileSync(file, `${PRELUDES[block.doc]!(router.url)}${code}\n`);
  const loader = block.lang === 'ts' ? ['--import', join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')] : [];
  // From the directory holding out/sim, as a reader of the docs runs them after `npm start`.
  return run(process.execPath, [...loader, file], work);
}

describe('the code blocks of the docs', () => {
  it('are each tagged with a language this test runs or shows, and each skipped one says why', () => {
    for (const block of BLOCKS) expect([...RUN, ...SHOWN], `${block.doc}:${block.line} \`\`\`${block.lang}`).toContain(block.lang);
    for (const doc of DOCS) {
      const markers = readFileSync(join(REPO, doc), 'utf8').split('\n').filter((line) => line.includes('doc-test:'));
      expect(markers.every((line) => SKIP.test(line)), `${doc}: ${markers.join(' | ')}`).toBe(true);
      expect(BLOCKS.filter((b) => b.doc === doc && b.skip !== null).length, `${doc}: a marker above no block`).toBe(markers.length);
    }
  });

  it('include enough runnable blocks that the test cannot pass by running none', () => {
    const count = (doc: string, lang: string) => BLOCKS.filter((b) => b.doc === doc && b.lang === lang && runnable(b)).length;
    expect(count('docs/dumps.md', 'sql')).toBeGreaterThanOrEqual(6);
    expect(count('docs/dumps.md', 'sh') + count('docs/dumps.md', 'js')).toBeGreaterThanOrEqual(2);
    expect(count('docs/amounts.md', 'ts')).toBeGreaterThanOrEqual(2);
  });

  it.each(BLOCKS.filter((b) => b.lang === 'json').map((b) => [`${b.doc}:${b.line}`, b] as const))('%s is JSON', (_where, block) => {
    expect(() => JSON.parse(block.code)).not.toThrow();
  });

  it.each(BLOCKS.filter(runnable).map((b) => [`${b.doc}:${b.line} ${b.lang}`, b] as const))('%s runs against the demo release', async (_where, block) => {
    const code = prepared(block);
    if (block.lang === 'sql') {
      expect(await runSql(code), 'rows of the last statement').toBeGreaterThan(0);
      return;
    }
    const ran = await runScript(block, code);
    expect(ran.status, `${ran.stderr}\n${ran.stdout}`).toBe(0);
    expect(ran.stderr, 'nothing on standard error (a caught error warns there)').toBe('');
    if (block.lang !== 'ts') expect(ran.stdout.length, 'some output').toBeGreaterThan(0);
  }, 120_000);

  it('applied every substitution it declares', () => {
    expect([...applied].sort(), SUBSTITUTIONS.map((s) => `${s.doc}: ${s.from}`).join(', ')).toEqual(SUBSTITUTIONS.map((_s, i) => i));
  });
});

describe('docs/explorer.png, the README\'s picture of the page', () => {
  it('shows the demo release of the current sources (regenerate it with npm run docs:explorer)', () => {
    const shown = JSON.parse(readFileSync(join(REPO, 'docs', 'explorer.json'), 'utf8')) as { as_of_height: number; stats: Record<string, number> };
    const demo = JSON.parse(readFileSync(join(release, 'api', 'stats.json'), 'utf8')) as { as_of_height: number; stats: Record<string, number> };
    expect(shown).toEqual({ as_of_height: demo.as_of_height, stats: demo.stats });
  });
});
