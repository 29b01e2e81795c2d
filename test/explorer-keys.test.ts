// The keys the explorer page verifies against (docs/verifying.md): export
// --explorer-public-key puts them in index.html, --sign-key's public half is
// the default, none leaves the page as built, and a bad key stops the
// command before any work.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/cli.js';
import { EXPLORER_PUBLIC_KEYS_META } from '../src/api/explorer.js';
import { EXPLORER_BUILD_DIR } from '../src/export/explorer.js';
import { encodeSecretKey, generateSecretKey, publicKeyFile } from '../src/trust/minisign.js';
import type { Db } from '../src/store/db.js';
import type { SimSource } from '../src/chain/sim/index.js';
import { analysedDb } from './helpers/export-pipeline.js';

let work: string;
let dbPath: string;
const [signing, rotated] = [generateSecretKey(), generateSecretKey()];
const lineOf = (key: typeof signing): string => publicKeyFile(key).split('\n')[1]!;

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => { stderr += String(chunk); return true; });
  try {
    return { code: await main(args), stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = undefined;
  }
}

const metaOf = (outDir: string): string | null => {
  const html = readFileSync(join(outDir, 'current', 'index.html'), 'utf8');
  return new RegExp(`<meta name="${EXPLORER_PUBLIC_KEYS_META}" content="([^"]*)">`).exec(html)?.[1] ?? null;
};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-explorer-keys-'));
  dbPath = join(work, 'tiny.duckdb');
  let opened: { db: Db; source: SimSource } | undefined;
  try {
    opened = await analysedDb(dbPath, 2, 1_500, 1_800_000_000);
  } finally {
    opened?.db.close();
    await opened?.source.close();
  }
  writeFileSync(join(work, 'signing.key'), encodeSecretKey(signing), { mode: 0o600 });
  writeFileSync(join(work, 'rotated.pub'), publicKeyFile(rotated));
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('export --explorer-public-key', () => {
  it('puts the given keys (a key, a key file, repeated or comma-separated; duplicates once) in index.html', async () => {
    const out = join(work, 'given');
    const ran = await run(['export', '--db', dbPath, '--out', out, '--explorer-public-key', lineOf(signing), '--explorer-public-key', `${join(work, 'rotated.pub')},${lineOf(signing)}`]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(metaOf(out)).toBe(`${lineOf(signing)} ${lineOf(rotated)}`);
  });

  it('defaults to the public half of --sign-key; without either the page is the one built', async () => {
    const signed = join(work, 'signed');
    expect((await run(['export', '--db', dbPath, '--out', signed, '--sign-key', join(work, 'signing.key')])).code).toBe(0);
    expect(metaOf(signed)).toBe(lineOf(signing));
    const plain = join(work, 'plain');
    expect((await run(['export', '--db', dbPath, '--out', plain])).code).toBe(0);
    expect(readFileSync(join(plain, 'current', 'index.html'))).toEqual(readFileSync(join(EXPLORER_BUILD_DIR, 'index.html')));
  });

  it('refuses a key that is neither a key nor a key file before any work (exit 2)', async () => {
    const out = join(work, 'bad');
    const ran = await run(['export', '--db', dbPath, '--out', out, '--explorer-public-key', 'RWQnot-a-key']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('--explorer-public-key RWQnot-a-key');
    expect(existsSync(join(out, 'current'))).toBe(false);
  });
});
