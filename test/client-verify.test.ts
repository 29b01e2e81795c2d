/**
 * The wallet client with pinned keys, against a real signed release (the
 * tiny preset, exported with a signing key) served by `python3 -m
 * http.server` from a copy the tests tamper with: the doctored amount table,
 * a swapped or edited range file, a missing or foreign signature, rollback
 * and freeze are refused with a VerificationError; a verified lookup
 * fetches the index, its signature, one shard and the range file, and a
 * warm one only the range file.
 */
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  fetchAmountTable, parseAmountTable, parseRange, privacyOf, RangeClient, SignatureError, VerificationError,
  type AmountTableFile, type Fetch, type RangeKind,
} from '@pegscope/client';
import { generateSecretKey, publicKeyFile, signBytes, type SecretKey } from '../src/trust/minisign.js';
import { buildAmountCounts, encodeAmountTable } from '../src/api/amount-table-encode.js';
import { exportTinyRelease, type TinyRelease } from './helpers/tiny-release.js';
import { startPlainServer, type PlainServer } from './helpers/plain-server.js';
import { startServer } from '../src/serve/server.js';

const key: SecretKey = generateSecretKey();
const publicKeys = [publicKeyFile(key)];
const otherKey = generateSecretKey();
const DOCTORED_AMOUNT = 123_456_789;

let release: TinyRelease;
/** The same chain 100 blocks on, signed with the same key. */
let newer: TinyRelease;
let served: string;
let server: PlainServer;
let height: number;
let signedAt: number;

beforeAll(async () => {
  release = await exportTinyRelease(1, 2_600, key);
  newer = await exportTinyRelease(1, 2_700, key);
  served = join(release.root, 'served');
  const signed = readFileSync(join(release.dir, 'api/signed.json.minisig'), 'utf8');
  height = Number(/as_of_height:(\d+)/.exec(signed)![1]);
  signedAt = Number(/timestamp:(\d+)/.exec(signed)![1]);
  cpSync(release.dir, served, { recursive: true });
  server = await startPlainServer(served);
}, 180_000);

afterAll(async () => {
  await server?.close();
  for (const tree of [release, newer]) if (tree) rmSync(tree.root, { recursive: true, force: true });
});

/** Serves a copy of `dir` (the server serves the directory by name). */
function serve(dir: string): void {
  rmSync(served, { recursive: true, force: true });
  cpSync(dir, served, { recursive: true });
}

beforeEach(() => serve(release.dir));

const servedPath = (path: string): string => join(served, path);

/** A real fetch that records the paths asked for. */
function recordingFetch(asked: string[]): Fetch {
  return async (url, init) => {
    asked.push(new URL(url).pathname.slice(1));
    return fetch(url, init as RequestInit);
  };
}

/** api/amounts.json with 5,000 peg-ins added at exactly 1.23456789: a hostile mirror's bait. */
function doctorTable(): void {
  const file = JSON.parse(readFileSync(servedPath('api/amounts.json'), 'utf8')) as AmountTableFile;
  const { table } = parseAmountTable(file, { network: file.network, now: file.updated_at });
  const counts = buildAmountCounts({ pegin: [...table.pegin, [DOCTORED_AMOUNT, 5_000]], pegout: table.pegout, tolerance: table.tolerance });
  const doctored = encodeAmountTable({ ...file, rounding_digits: file.rounding.digits }, counts);
  writeFileSync(servedPath('api/amounts.json'), JSON.stringify(doctored));
}

const network = (): 'sim' => 'sim';

/** Two range files of a kind, and a key each holds. */
function twoRanges(kind: RangeKind): { paths: [string, string]; keys: [string, string] } {
  const names = readdirSync(servedPath(`api/range/${kind}`)).filter((n) => n.endsWith('.json')).sort();
  const picked = names.slice(0, 2).map((n) => `api/range/${kind}/${n}`) as [string, string];
  const keys = picked.map((p) => parseRange(readFileSync(servedPath(p), 'utf8')).header.range.keys[0]!) as [string, string];
  return { paths: picked, keys };
}

async function refusal(promise: Promise<unknown>): Promise<VerificationError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(VerificationError);
  return err as VerificationError;
}

describe('fetchAmountTable with pinned keys', () => {
  it('verifies the table, returns the signed height and key, and answers notModified for the same sha256', async () => {
    const got = await fetchAmountTable({ base: server.url, network: network(), publicKeys });
    expect(got.notModified).toBe(false);
    expect(got.verified).toMatchObject({ as_of_height: height, signed_at: signedAt, key_id: key.keyIdHex, public_key: publicKeys[0]!.split('\n')[1] });
    expect(got.table?.as_of_height).toBe(height);
    const again = await fetchAmountTable({ base: server.url, network: network(), publicKeys, sha256: got.verified!.sha256, minHeight: got.verified!.as_of_height });
    expect(again).toMatchObject({ notModified: true, table: null, verified: { as_of_height: height } });
  });

  it('the doctored table: rated "Excellent" without keys, refused with them', async () => {
    doctorTable();
    const unchecked = await fetchAmountTable({ base: server.url, network: network(), now: signedAt });
    expect(privacyOf(unchecked.table!, DOCTORED_AMOUNT, 'pegin').rating).toBe('Excellent');
    const err = await refusal(fetchAmountTable({ base: server.url, network: network(), publicKeys }));
    expect(err.failure).toBe('digest');
    expect(err.message).toMatch(/^api\/amounts\.json has sha256 [0-9a-f]{64}, but the signed index lists [0-9a-f]{64}$/);
  });

  it('the doctored table with the index rewritten to match: the signature no longer verifies', async () => {
    const before = readFileSync(servedPath('api/amounts.json'), 'utf8');
    doctorTable();
    const { createHash } = await import('node:crypto');
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    const index = readFileSync(servedPath('api/signed.json'), 'utf8');
    writeFileSync(servedPath('api/signed.json'), index.replace(sha(before), sha(readFileSync(servedPath('api/amounts.json'), 'utf8'))));
    const err = await refusal(fetchAmountTable({ base: server.url, network: network(), publicKeys }));
    expect(err).toBeInstanceOf(SignatureError);
    expect(err.message).toContain('does not match the file');
  });

  it('refuses a missing signature, a foreign key, and accepts the key among rotated ones', async () => {
    await expect(fetchAmountTable({ base: server.url, network: network(), publicKeys: [publicKeyFile(otherKey)] })).rejects.toThrow(`signed by key ${key.keyIdHex}, which is not among the trusted keys`);
    const rotated = await fetchAmountTable({ base: server.url, network: network(), publicKeys: [publicKeyFile(otherKey), publicKeys[0]!] });
    expect(rotated.verified?.key_id).toBe(key.keyIdHex);
    rmSync(servedPath('api/signed.json.minisig'));
    const err = await refusal(fetchAmountTable({ base: server.url, network: network(), publicKeys }));
    expect(err).toBeInstanceOf(SignatureError);
    expect(err.message).toBe('the release is not signed: api/signed.json.minisig answered 404');
  });

  it('refuses a rollback below minHeight and a signature older than maxAgeSeconds', async () => {
    const rollback = await refusal(fetchAmountTable({ base: server.url, network: network(), publicKeys, minHeight: height + 1 }));
    expect(rollback.failure).toBe('rollback');
    expect(rollback.message).toBe(`rollback: the release is at height ${height}, older than height ${height + 1} already verified`);
    const frozen = await refusal(fetchAmountTable({ base: server.url, network: network(), publicKeys, maxAgeSeconds: 3_600, now: signedAt + 3_601 }));
    expect(frozen.failure).toBe('freeze');
    await expect(fetchAmountTable({ base: server.url, network: network(), publicKeys, maxAgeSeconds: 3_600, now: signedAt + 3_600 })).resolves.toMatchObject({ notModified: false });
  });

  it('refuses a signature whose trusted comment names another file (the shard or manifest signature moved over)', async () => {
    const index = readFileSync(servedPath('api/signed.json'));
    const comment = readFileSync(servedPath('api/signed.json.minisig'), 'utf8').split('\n')[2]!.slice('trusted comment: '.length);
    writeFileSync(servedPath('api/signed.json.minisig'), signBytes(index, key, comment.replace('file:api/signed.json', 'file:api/other.json'), 'Ed'));
    const err = await refusal(fetchAmountTable({ base: server.url, network: network(), publicKeys }));
    expect(err.failure).toBe('mismatch');
  });
});

describe('RangeClient with pinned keys', () => {
  it('a cold lookup fetches the index, its signature, one shard and the range; a warm one only the range', async () => {
    const asked: string[] = [];
    const client = new RangeClient({ base: server.url, network: network(), publicKeys, fetch: recordingFetch(asked) });
    const { paths, keys } = twoRanges('trace');
    const found = await client.document('trace', keys[0]);
    expect(found?.path).toBe(paths[0]);
    const index = JSON.parse(readFileSync(servedPath('api/signed.json'), 'utf8')) as { ranges: { trace: { shard_length: number } } };
    const shard = paths[0].split('/')[3]!.slice(0, index.ranges.trace.shard_length);
    expect(asked.sort()).toEqual(['api/signed.json', 'api/signed.json.minisig', `api/signed/trace/${shard}.json`, paths[0]].sort());
    expect(client.verifiedHeight).toBe(height);
    expect(await client.verified()).toMatchObject({ as_of_height: height, key_id: key.keyIdHex });
    asked.length = 0;
    expect((await client.document('trace', keys[0]))?.key).toBe(keys[0]);
    expect(asked).toEqual([paths[0]]);
  });

  it('a swapped range file is refused, with keys and without (without, today it answered "no document")', async () => {
    const { paths, keys } = twoRanges('trace');
    const [a, b] = paths.map((p) => readFileSync(servedPath(p), 'utf8'));
    writeFileSync(servedPath(paths[0]), b!);
    writeFileSync(servedPath(paths[1]), a!);
    const plain = await refusal(new RangeClient({ base: server.url, network: network() }).document('trace', keys[0]));
    expect(plain.failure).toBe('mismatch');
    expect(plain.message).toContain(`holds the trace range ${paths[1].split('/')[3]!.replace('.json', '')}, not the trace range ${paths[0].split('/')[3]!.replace('.json', '')} asked for`);
    const signed = await refusal(new RangeClient({ base: server.url, network: network(), publicKeys }).document('trace', keys[0]));
    expect(signed.failure).toBe('digest');
  });

  it('an edited range file is refused with keys, after one fetch of the index again', async () => {
    const { paths, keys } = twoRanges('address');
    const text = readFileSync(servedPath(paths[0]), 'utf8');
    const lines = text.split('\n');
    lines[1] = lines[1]!.replace(/\d/, (digit) => String((Number(digit) + 1) % 10));
    writeFileSync(servedPath(paths[0]), lines.join('\n'));
    const asked: string[] = [];
    const err = await refusal(new RangeClient({ base: server.url, network: network(), publicKeys, fetch: recordingFetch(asked) }).document('address', keys[0]));
    expect(err.failure).toBe('digest');
    expect(asked.filter((p) => p === 'api/signed.json')).toHaveLength(2);
  });

  it('follows the mirror to a new release when a range is not the cached index\'s, then refuses to go back (rollback)', async () => {
    const asked: string[] = [];
    const client = new RangeClient({ base: server.url, network: network(), publicKeys, fetch: recordingFetch(asked) });
    const changed = readdirSync(join(newer.dir, 'api/range/trace')).map((n) => `api/range/trace/${n}`)
      .find((p) => { try { return readFileSync(join(release.dir, p), 'utf8') !== readFileSync(join(newer.dir, p), 'utf8'); } catch { return false; } })!;
    const traceKey = parseRange(readFileSync(join(newer.dir, changed), 'utf8')).header.range.keys[0]!;
    await client.document('trace', twoRanges('trace').keys[0]);
    expect(client.verifiedHeight).toBe(height);
    serve(newer.dir);
    asked.length = 0;
    expect((await client.document('trace', traceKey))?.path).toBe(changed);
    const newHeight = (await client.verified())!.as_of_height;
    expect(newHeight).toBeGreaterThan(height);
    expect(client.verifiedHeight).toBe(newHeight);
    expect(asked.filter((p) => p === 'api/signed.json')).toHaveLength(1);
    serve(release.dir);
    const err = await refusal(client.document('trace', traceKey));
    expect(err.failure).toBe('rollback');
    expect(err.message).toBe(`rollback: the release is at height ${height}, older than height ${newHeight} already verified`);
  });

  it('refuses a rollback when the mirror goes back to an older release', async () => {
    const client = new RangeClient({ base: server.url, network: network(), publicKeys, minHeight: height + 1 });
    const err = await refusal(client.document('trace', twoRanges('trace').keys[0]));
    expect(err.failure).toBe('rollback');
  });
});

describe('through the router (pegscope serve)', () => {
  it('a verified table and a verified lookup: the router answers the signed index, its shards and the very range bytes', async () => {
    const router = await startServer({ sites: [{ network: 'sim', outDir: release.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
    try {
      const base = `${router.url}/`;
      const table = await fetchAmountTable({ base, network: network(), publicKeys });
      expect(table.verified?.as_of_height).toBe(height);
      const { paths, keys } = twoRanges('follow');
      const client = new RangeClient({ base, network: network(), publicKeys });
      expect((await client.document('follow', keys[0]))?.path).toBe(paths[0]);
      expect(client.verifiedHeight).toBe(height);
    } finally {
      await router.close();
    }
  });
});
