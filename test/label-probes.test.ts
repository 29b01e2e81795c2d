/**
 * Label sources as an attacker or a careless operator feeds them
 * (docs/labels.md "What the importers refuse"): upper-case bech32, characters
 * XML cannot hold, YAML alias bombs, oversized TagPacks, SDN lists in a
 * foreign namespace or with an impossible date, and TagPacks as the public
 * graphsense-tagpacks repository has them.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { importLabels, importSummary } from '../src/analysis/labels.js';
import { main } from '../src/cli.js';
import { NETWORKS } from '../src/domain/network.js';
import { atomFeed, feedLinks, type Feed } from '../src/export/feeds.js';
import { addWatch, listWatches, removeWatches } from '../src/notify/watchlist.js';
import { Db } from '../src/store/db.js';

const work = mkdtempSync(join(tmpdir(), 'pegscope-label-probes-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let db: Db | undefined;
afterEach(() => { db?.close(); db = undefined; });
const mainnet = NETWORKS.mainnet;
const write = (name: string, text: string): string => {
  const path = join(work, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
};
const addresses = async (): Promise<string[]> => (await db!.all<{ address: string }>('SELECT address FROM labels ORDER BY address')).map((r) => r.address);

const BECH32 = 'ltc1q5kg4gaxaqzr33y8r099j0u5xp8fypn8jg6ht4e';
const BECH32_UPPER = BECH32.toUpperCase();
const BASE58 = 'M8B5sGRdfNmF46qEpo2KJL7BTHe1jVH8tZ';
const SDN_NS = 'http://tempuri.org/sdnList.xsd';

function sdnXml(date: string, address: string, root = `<sdnList xmlns="${SDN_NS}">`, close = '</sdnList>'): string {
  return `<?xml version="1.0"?>${root}<publshInformation><Publish_Date>${date}</Publish_Date></publshInformation>`
    + `<sdnEntry><uid>1</uid><lastName>PETROV</lastName><idList><id><uid>2</uid><idType>Digital Currency Address - LTC</idType><idNumber>${address}</idNumber></id></idList></sdnEntry>${close}`;
}

describe('probe: an upper-case bech32 label', () => {
  it('is stored lower-case, as the chain has it, by every importer; base58 as given', async () => {
    db = await Db.open(':memory:');
    const sources = [
      write('upper.csv', `address,entity,category,confidence,source\n${BECH32_UPPER},Coinbarn,exchange,0.9,csv\n${BASE58},Tumbler,mixer,0.5,csv\n`),
      write('upper.json', JSON.stringify({ labels: [{ address: BECH32_UPPER, entity: 'Coinbarn', category: 'exchange', confidence: 0.9, source: 'json' }] })),
      write('upper-sdn.xml', sdnXml('11/20/2026', BECH32_UPPER)),
      write('upper.yaml', `title: Upper pack\nis_public: true\ncurrency: LTC\nlabel: Coinbarn\ntags:\n  - address: ${BECH32_UPPER}\n`),
      write('upper-pools.json', JSON.stringify([{ name: 'Upper Pool', tags: [], addresses: [BECH32_UPPER] }])),
    ];
    const result = await importLabels(db, sources, mainnet);
    expect(result).toMatchObject({ imported: 6, rejected: [], written: true });
    expect(await db.all('SELECT DISTINCT source_kind, address FROM labels ORDER BY source_kind, address')).toEqual([
      { source_kind: 'file', address: BASE58 }, { source_kind: 'file', address: BECH32 }, { source_kind: 'ofac', address: BECH32 },
      { source_kind: 'pools', address: BECH32 }, { source_kind: 'tagpack', address: BECH32 },
    ]);
  });

  it('that only differs in case from another row of the same source is a duplicate', async () => {
    db = await Db.open(':memory:');
    const csv = write('twice.csv', `address,entity,category,confidence,source\n${BECH32},A,exchange,0.9,s\n${BECH32_UPPER},B,exchange,0.9,s\n`);
    const result = await importLabels(db, [csv], mainnet);
    expect(result).toMatchObject({ imported: 1, duplicates: 1, written: true });
    expect(await db.all('SELECT address, entity FROM labels')).toEqual([{ address: BECH32, entity: 'B' }]);
  });

  it('in a newer SDN list replaces the lower-case label of the same address instead of removing it', async () => {
    db = await Db.open(':memory:');
    await importLabels(db, [write('sdn-lower.xml', sdnXml('11/20/2026', BECH32))], mainnet);
    const result = await importLabels(db, [write('sdn-upper.xml', sdnXml('12/01/2026', BECH32_UPPER))], mainnet);
    expect(importSummary(result)).toBe('labels: 1 imported, 1 replaced, 0 removed, 0 rejected, 0 skipped for another currency');
    expect(await db.all('SELECT address, source FROM labels')).toEqual([{ address: BECH32, source: 'OFAC SDN 2026-12-01' }]);
  });

  it('is watched lower-case, and `watch remove` finds it in either case', async () => {
    db = await Db.open(':memory:');
    await addWatch(db, mainnet, { address: BECH32_UPPER, url: 'http://127.0.0.1:9/hook', allowPrivate: true }, 0);
    expect((await listWatches(db)).map((w) => w.address)).toEqual([BECH32]);
    expect(await removeWatches(db, BECH32_UPPER)).toHaveLength(1);
  });
});

describe('probe: characters outside XML 1.0 in a label', () => {
  it.each([['U+FFFE', '\uFFFE'], ['U+FFFF', '\uFFFF'], ['a lone surrogate', '\uD800']])('%s in an entity, a source or terms is rejected at its row', async (_name, ch) => {
    db = await Db.open(':memory:');
    const json = write('xml-chars.json', JSON.stringify({ labels: [
      { address: BECH32, entity: `Bad${ch}Name`, category: 'exchange', confidence: 0.9, source: 's' },
      { address: BASE58, entity: 'Fine', category: 'exchange', confidence: 0.9, source: `s${ch}` },
      { address: BASE58, entity: 'Fine', category: 'exchange', confidence: 0.9, source: 't', terms: `CC${ch}` },
    ] }));
    const result = await importLabels(db, [json], mainnet);
    expect(result.rejected.map((r) => [r.cause, r.reason])).toEqual([
      ['entity', expect.stringMatching(/^entity contains U\+[0-9A-F]{4} at character 4, which is not a character/)],
      ['source', expect.stringMatching(/^source contains U\+[0-9A-F]{4} at character 2/)],
      ['terms', expect.stringMatching(/^terms contains U\+[0-9A-F]{4} at character 3/)],
    ]);
    expect(result.written).toBe(false);
  });

  it('that reached a feed anyway (an older import) still gives well-formed Atom: the writer replaces it', () => {
    const hostile = 'Sanctioned \uFFFE\uFFFF\uD800 crew \u0001\u001B[31m <b>&amp;</b> "q"';
    const feed: Feed = {
      id: 'urn:pegscope:mainnet:feed:risk', title: `risk ${hostile}`, description: 'd', atom: 'risk.atom', json: 'risk.json', updated: 1_790_000_000, links: feedLinks(null),
      entries: [{ id: 'urn:x:1', title: hostile, text: `Peg-out to ${hostile}`, time: 1_790_000_000, page: '../index.html#/block/1', document: `../api/trace?q=${hostile}` }],
    };
    const xml = atomFeed(feed);
    const errors: string[] = [];
    const parser = new SaxesParser({ xmlns: true });
    let text = '';
    parser.on('error', (err) => { errors.push(err.message); });
    parser.on('text', (chunk) => { text += chunk; });
    parser.write(xml).close();
    expect(errors).toEqual([]);
    expect(text).toContain('Sanctioned \uFFFD\uFFFD\uFFFD crew \uFFFD\uFFFD[31m <b>&amp;</b> "q"');
  });
});

/** A TagPack whose header expands aliases far beyond any pack's needs (a "billion laughs"). */
const ALIAS_BOMB = ['title: Alias bomb', 'currency: LTC', 'is_public: true',
  'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]',
  'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
  'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
  'tags:', `  - address: ${BECH32}`, '    label: Bomb'].join('\n');
const GOOD_PACK = `title: Good pack\nis_public: true\ncurrency: LTC\nlabel: Good\ntags:\n  - address: ${BASE58}\n`;

describe('probe: a TagPack with YAML aliases', () => {
  it('is one rejected file, at the line of its first alias; under --skip-invalid the other packs import', async () => {
    db = await Db.open(':memory:');
    const dir = join(work, 'alias-packs');
    const bomb = write('alias-packs/bomb.yaml', ALIAS_BOMB);
    write('alias-packs/good.yaml', GOOD_PACK);
    const refused = await importLabels(db, [dir], mainnet);
    expect(refused.rejected).toEqual([{ file: bomb, line: 5, cause: 'file', reason: expect.stringMatching(/^its YAML aliases expand too far \(.*\); nothing from this file was imported$/) }]);
    expect(refused.written).toBe(false);
    const skipped = await importLabels(db, [dir], mainnet, { skipInvalid: true });
    expect(skipped).toMatchObject({ imported: 1, written: true });
    expect(await addresses()).toEqual([BASE58]);
  });
});

describe('probe: a TagPack larger than the documented limit', () => {
  it('is refused before it is read, naming the limit; the other packs import under --skip-invalid', async () => {
    db = await Db.open(':memory:');
    const dir = join(work, 'large-packs');
    const large = write('large-packs/large.yaml', GOOD_PACK);
    truncateSync(large, 100 * 1024 * 1024);
    write('large-packs/small.yaml', GOOD_PACK.replace('Good pack', 'Small pack'));
    const result = await importLabels(db, [dir], mainnet, { skipInvalid: true });
    expect(result.rejected).toEqual([{ file: large, line: 0, cause: 'file',
      reason: 'the TagPack is 100.0 MiB; TagPacks of at most 8.0 MiB are read (docs/labels.md): split it into several packs; nothing from this file was imported' }]);
    expect(result).toMatchObject({ imported: 1, written: true });
  });

  it('a FIFO named like a pack is refused without blocking the import', async () => {
    db = await Db.open(':memory:');
    const dir = join(work, 'fifo-packs');
    write('fifo-packs/good.yaml', GOOD_PACK);
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    const result = await importLabels(db, [dir], mainnet, { skipInvalid: true });
    expect(result.rejected).toEqual([{ file: join(dir, 'fifo.yaml'), line: 0, cause: 'file', reason: 'not a regular file; nothing from this file was imported' }]);
    expect(result).toMatchObject({ imported: 1, written: true });
  });
});

describe('probe: an SDN list in a foreign namespace or with an impossible date', () => {
  it.each([
    ['a foreign namespace', sdnXml('11/20/2026', BECH32, '<sdnList xmlns="http://evil.example/sdn">'),
      'the root element <sdnList> is in the namespace "http://evil.example/sdn", not in one the Treasury publishes SDN.XML in'],
    ['no namespace', sdnXml('11/20/2026', BECH32, '<sdnList>'), 'the root element <sdnList> is in no namespace'],
    ['month 13, day 45', sdnXml('13/45/2026', BECH32), 'publshInformation/Publish_Date is "13/45/2026", not a date that exists'],
    ['February 30th', sdnXml('02/30/2026', BECH32), 'publshInformation/Publish_Date is "02/30/2026", not a date that exists'],
    ['February 29th of a common year', sdnXml('02/29/2026', BECH32), 'publshInformation/Publish_Date is "02/29/2026", not a date that exists'],
  ])('is refused whole: %s', async (_what, xml, reason) => {
    db = await Db.open(':memory:');
    const result = await importLabels(db, [write('refused-sdn.xml', xml)], mainnet);
    expect(result.rejected).toEqual([expect.objectContaining({ cause: 'file', reason: expect.stringContaining(reason) })]);
    expect(result.written).toBe(false);
  });

  it.each([
    ['the Sanctions List Service\'s namespace', '<sdnList xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/XML">', '</sdnList>', '02/29/2024'],
    ['the classic namespace with a prefix', `<s:sdnList xmlns:s="${SDN_NS}">`, '</s:sdnList>', '1/2/2026'],
  ])('is read in %s', async (_what, root, close, date) => {
    db = await Db.open(':memory:');
    const result = await importLabels(db, [write('read-sdn.xml', sdnXml(date, BECH32, root, close))], mainnet);
    expect(result).toMatchObject({ imported: 1, rejected: [], written: true });
  });
});

async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => { stderr += String(chunk); return true; });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    return { code: await main(args), stderr };
  } finally {
    err.mockRestore();
    out.mockRestore();
    process.exitCode = undefined;
  }
}

describe('probe: GraphSense TagPacks as graphsense-tagpacks has them: no is_public, mixed currencies (`labels import --public`)', () => {
  const packs = new URL('./fixtures/graphsense-packs/', import.meta.url).pathname;
  const dbPath = join(work, 'graphsense.duckdb');

  it('imports nothing without --public, says why and which flag changes it, names each pack without Litecoin tags once, and exits 0', async () => {
    (await Db.open(dbPath)).close();
    const { code, stderr } = await cli(['labels', 'import', '--network', 'mainnet', '--db', dbPath, packs]);
    expect(code).toBe(0);
    expect(stderr.match(/no Litecoin tags/g)).toHaveLength(1);
    expect(stderr).toContain(`labels: pack ${join(packs, 'ransomware-shape.yaml')}: no Litecoin tags\n`);
    expect(stderr).toMatch(/labels: no label imported: 3 Litecoin tags skipped: their TagPacks do not set is_public: true, .*; pass --public to import packs from a public source/);
    expect(stderr).toContain('labels: 0 imported, 0 replaced, 0 removed, 0 rejected, 5 skipped for another currency, 3 skipped as not public\n');
  });

  it('with --public imports the Litecoin tags, each inheriting the header', async () => {
    const { code, stderr } = await cli(['labels', 'import', '--network', 'mainnet', '--db', dbPath, '--public', packs]);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('labels: 3 imported, 0 replaced, 0 removed, 0 rejected, 5 skipped for another currency\n');
    db = await Db.open(dbPath);
    const source = { source: 'Shape test exchange wallets', category: 'exchange' };
    expect(await db.all('SELECT address, entity, category, confidence, source FROM labels ORDER BY address')).toEqual([
      { address: 'LPi4JYVCiTc9F95dyp1WULXDwwP72LMyP4', entity: 'Shape Exchange', confidence: 0.5, ...source },
      { address: 'LPoNBVKwmaUHdchcBR8dph2AwdJPMghgHh', entity: 'Shape Exchange cold wallet', confidence: 1, ...source },
      { address: 'ltc1qg9q5zs2pg9q5zs2pg9q5zs2pg9q5zs2ppnfgnj', entity: 'Shape Exchange', confidence: 0.5, ...source },
    ]);
  });

  it('keeps a pack that says is_public: false private even with --public', async () => {
    db = await Db.open(':memory:');
    const pack = write('private-pack.yaml', GOOD_PACK.replace('is_public: true', 'is_public: false'));
    const result = await importLabels(db, [pack], mainnet, { public: true });
    expect(result).toMatchObject({ imported: 0, skipped: { notPublic: 1 } });
  });
});
