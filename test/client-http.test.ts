/**
 * The wallet client over real HTTP on 127.0.0.1, against an exported
 * release. RangeClient, from a plain static host (node:http, files from
 * disk): the network check, a layout that changes under a long-lived
 * client, a slow host and a body that is not the release's.
 * fetchAmountTable, from the router: its ETag and 304.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AmountTableError, fetchAmountTable, LookupError, parseRange, rangePath, rangePrefix, RangeClient, RANGE_KINDS, RANGES_INDEX_PATH,
  type RangeHeader, type RangeKind, type RangesIndex,
} from '@pegscope/client';
import { startServer } from '../src/serve/server.js';
import { encodeRange } from '../src/api/range-file.js';
import { exportTinyRelease, type TinyRelease } from './helpers/tiny-release.js';

let release: TinyRelease;
let server: Server;
let base: string;
/** What the host serves: a release directory, answers held back for `delayMs`, and paths answered with other bodies. */
const host = { root: '', delayMs: 0, bodies: new Map<string, string>(), asked: [] as string[] };

beforeAll(async () => {
  release = await exportTinyRelease();
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url!, 'http://host').pathname.slice(1));
    host.asked.push(path);
    const answer = () => {
      const body = host.bodies.get(path) ?? readOr404(join(host.root, path));
      res.writeHead(body === null ? 404 : 200, { 'content-type': 'application/json' }).end(body ?? '{"error":"not found"}');
    };
    if (host.delayMs > 0) setTimeout(answer, host.delayMs);
    else answer();
  });
  // Idle connections stay open across the tests' pauses: a socket the server closes just as fetch reuses it is ECONNRESET.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
}, 180_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(release.root, { recursive: true, force: true });
});

beforeEach(() => {
  Object.assign(host, { root: release.dir, delayMs: 0, asked: [] });
  host.bodies.clear();
});

function readOr404(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

const indexOf = (dir: string): RangesIndex => JSON.parse(readFileSync(join(dir, RANGES_INDEX_PATH), 'utf8')) as RangesIndex;

/** Every document of `kind` in a release, by key, and its follow chains and block aliases. */
function documentsOf(dir: string, kind: RangeKind) {
  const documents = new Map<string, string>();
  const chains = new Map<string, string>();
  const aliases = new Map<string, number>();
  for (const file of readdirSync(join(dir, 'api', 'range', kind))) {
    const range = parseRange(readFileSync(join(dir, 'api', 'range', kind, file), 'utf8'));
    for (const [key, text] of range.documents) documents.set(key, text);
    for (const [key, text] of range.chains) chains.set(key, text);
    for (const [hash, height] of Object.entries(range.header.range.aliases ?? {})) aliases.set(hash, height);
  }
  return { documents, chains, aliases };
}

/**
 * The release as the next export would publish it once `kind` has grown a
 * longer prefix: the same documents, one block later, that kind's ranges
 * regrouped by `prefixLength` hex digits and the ranges of the old length
 * gone (as the exporter writes a layout: docs/api.md, "Private lookups for wallets").
 */
function grownRelease(dir: string, to: string, kind: RangeKind, prefixLength: number): void {
  rmSync(to, { recursive: true, force: true });
  cpSync(dir, to, { recursive: true });
  const index = indexOf(dir);
  const asOf = index.as_of_height + 1;
  for (const each of RANGE_KINDS) {
    const length = each === kind ? prefixLength : index.kinds[each].prefix_length;
    const { documents, chains, aliases } = documentsOf(dir, each);
    const prefixes = new Set([...documents.keys(), ...aliases.keys()].map((key) => rangePrefix(key, length)));
    rmSync(join(to, 'api', 'range', each), { recursive: true });
    mkdirSync(join(to, 'api', 'range', each));
    for (const prefix of prefixes) {
      const keys = [...documents.keys()].filter((key) => rangePrefix(key, length) === prefix).sort();
      const chainKeys = keys.filter((key) => chains.has(key));
      const ownAliases = Object.fromEntries([...aliases].filter(([hash]) => rangePrefix(hash, length) === prefix));
      const header: RangeHeader = {
        version: index.version, network: index.network, unit: index.unit, as_of_height: asOf, updated_at: index.updated_at,
        range: { kind: each, prefix, hash: 'sha256', keys, ...(each === 'follow' ? { chains: chainKeys } : {}), ...(each === 'block' ? { aliases: ownAliases } : {}) },
      };
      const texts = [...keys.map((key) => documents.get(key)!), ...chainKeys.map((key) => chains.get(key)!)];
      writeFileSync(join(to, rangePath(each, prefix)), encodeRange(header, texts));
    }
  }
  const kinds = { ...index.kinds, [kind]: { ...index.kinds[kind], prefix_length: prefixLength } };
  writeFileSync(join(to, RANGES_INDEX_PATH), JSON.stringify({ ...index, as_of_height: asOf, kinds }));
}

describe('RangeClient over HTTP', () => {
  it('finds a document of its own network, and refuses a release of another network', async () => {
    const [key, text] = [...documentsOf(release.dir, 'trace').documents][0]!;
    const found = await new RangeClient({ base, network: 'sim' }).document('trace', key);
    expect(found?.text).toBe(text);
    const wrong = new RangeClient({ base, network: 'mainnet' }).document('trace', key);
    await expect(wrong).rejects.toThrow(LookupError);
    await expect(wrong).rejects.toThrow(`${base}${RANGES_INDEX_PATH} is of the sim release, but mainnet was asked for`);
  });

  it('refuses a range of another network even when the index says the right one', async () => {
    const [key] = [...documentsOf(release.dir, 'trace').documents.keys()];
    const path = rangePath('trace', rangePrefix(key!, indexOf(release.dir).kinds.trace.prefix_length));
    host.bodies.set(path, readFileSync(join(release.dir, path), 'utf8').replace('"network":"sim"', '"network":"testnet"'));
    await expect(new RangeClient({ base, network: 'sim' }).document('trace', key!)).rejects.toThrow(`${base}${path} is of the testnet release, but sim was asked for`);
  });

  it('a long-lived client follows a prefix length that grew: the old range is gone (404), it fetches the index again', async () => {
    const client = new RangeClient({ base, network: 'sim' });
    const traces = documentsOf(release.dir, 'trace').documents;
    const [first, second] = [...traces.keys()];
    expect((await client.document('trace', first!))?.text).toBe(traces.get(first!));
    const grown = join(release.root, 'grown');
    grownRelease(release.dir, grown, 'trace', 2);
    host.root = grown;
    host.asked = [];
    const found = await client.document('trace', second!);
    expect(found?.text).toBe(traces.get(second!));
    expect(found?.path).toBe(rangePath('trace', rangePrefix(second!, 2)));
    expect(host.asked).toEqual([rangePath('trace', rangePrefix(second!, 1)), RANGES_INDEX_PATH, found!.path]);
  });

  it('fetches the index again when a range comes from a newer release, before an old range misleads it', async () => {
    const client = new RangeClient({ base, network: 'sim' });
    const addresses = documentsOf(release.dir, 'address').documents;
    const traces = documentsOf(release.dir, 'trace').documents;
    const [address] = [...addresses.keys()];
    const [trace] = [...traces.keys()];
    expect((await client.document('address', address!))?.text).toBe(addresses.get(address!));
    // A mirror that syncs without deleting: the new release, with the old trace ranges still there.
    const grown = join(release.root, 'grown-kept');
    grownRelease(release.dir, grown, 'trace', 2);
    cpSync(join(release.dir, 'api', 'range', 'trace'), join(grown, 'api', 'range', 'trace'), { recursive: true });
    host.root = grown;
    host.asked = [];
    await client.document('address', address!);
    expect(host.asked).toEqual([rangePath('address', rangePrefix(address!, 1)), RANGES_INDEX_PATH]);
    const found = await client.document('trace', trace!);
    expect(found?.path).toBe(rangePath('trace', rangePrefix(trace!, 2)));
    expect(found?.text).toBe(traces.get(trace!));
  });

  it('a timeoutMs aborts a slow host with a LookupError; the next lookup works', async () => {
    const [key, text] = [...documentsOf(release.dir, 'trace').documents][0]!;
    const client = new RangeClient({ base, network: 'sim', timeoutMs: 200 });
    host.delayMs = 5_000;
    const started = Date.now();
    await expect(client.document('trace', key)).rejects.toThrow(`GET ${base}${RANGES_INDEX_PATH} took longer than 200 ms`);
    expect(Date.now() - started).toBeLessThan(2_000);
    host.delayMs = 0;
    expect((await client.document('trace', key))?.text).toBe(text);
  });

  it.each([
    ['an index', RANGES_INDEX_PATH, '<!doctype html><title>Welcome</title>'],
    ['a range', 'range', '{"version":"1","truncated'],
  ])('%s whose body is not JSON is a LookupError', async (_name, which, body) => {
    const [key] = [...documentsOf(release.dir, 'trace').documents.keys()];
    const path = which === 'range' ? rangePath('trace', rangePrefix(key!, indexOf(release.dir).kinds.trace.prefix_length)) : which;
    host.bodies.set(path, body);
    const lookup = new RangeClient({ base, network: 'sim' }).document('trace', key!);
    await expect(lookup).rejects.toThrow(LookupError);
    await expect(lookup).rejects.toThrow(`${base}${path} is not a pegscope release file`);
  });
});

describe('fetchAmountTable from the router', () => {
  let router: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    router = await startServer({ sites: [{ network: 'sim', outDir: release.outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  });
  afterAll(() => router.close());

  it('fetches the table with its ETag, then gets a 304 without a body while it is unchanged', async () => {
    const now = 1_800_000_600;
    const first = await fetchAmountTable({ base: router.url, network: 'sim', now });
    expect(first.notModified).toBe(false);
    expect(first.table?.pegin.length).toBeGreaterThan(0);
    expect(first.ageSeconds).toBe(600);
    expect(first.etag).toMatch(/^"[^"]+"$/);
    const expected = JSON.parse(readFileSync(join(release.dir, 'api', 'amounts.json'), 'utf8')) as { pegin: { counts: number[] } };
    expect(first.table!.pegin.map(([, count]) => count)).toEqual(expected.pegin.counts);
    expect(await fetchAmountTable({ base: `${router.url}/`, network: 'sim', etag: first.etag })).toEqual({ notModified: true, table: null, ageSeconds: null, etag: first.etag });
    // Another ETag (an older table): the whole table again.
    expect((await fetchAmountTable({ base: router.url, network: 'sim', etag: '"older"' })).notModified).toBe(false);
  });

  it('refuses a table of another network, and a request that fails or is aborted, with AmountTableError', async () => {
    await expect(fetchAmountTable({ base: router.url, network: 'mainnet' })).rejects.toThrow('not a usable amount table: it is the sim table, but mainnet was asked for');
    await expect(fetchAmountTable({ base: `${router.url}/nothing-here`, network: 'sim' })).rejects.toThrow(AmountTableError);
    await expect(fetchAmountTable({ base: router.url, network: 'sim', signal: AbortSignal.abort() })).rejects.toThrow(AmountTableError);
  });
});
