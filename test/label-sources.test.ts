import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { analyze } from '../src/analysis/analyze.js';
import { importLabels, importSummary } from '../src/analysis/labels.js';
import { OFAC_TERMS } from '../src/analysis/label-ofac.js';
import { GRAPHSENSE_CATEGORIES, GRAPHSENSE_CONFIDENCE } from '../src/analysis/label-tagpack.js';
import { createSimSource } from '../src/chain/sim/index.js';
import { NETWORKS } from '../src/domain/network.js';
import { exportRelease } from '../src/export/export.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';
import { expectSameTree, treeFiles } from './helpers/export-pipeline.js';

const FIXTURES = new URL('./fixtures/labels/', import.meta.url).pathname;
const fixture = (name: string): string => join(FIXTURES, name);
const work = mkdtempSync(join(tmpdir(), 'pegscope-label-sources-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let db: Db | undefined;
afterEach(() => { db?.close(); db = undefined; });
const LABEL_ROWS = 'SELECT address, entity, category, confidence, source, source_kind, terms, details FROM labels ORDER BY source_kind, address';

/** An SDN list in the classic sdn.xml shape, dated `date` (MM/DD/YYYY), one entry per LTC address. */
function sdnXml(date: string, entries: { name: string; address: string }[]): string {
  const entry = (e: { name: string; address: string }, i: number) => `<sdnEntry><uid>${i}</uid><lastName>${e.name}</lastName><sdnType>Entity</sdnType>
    <programList><program>CYBER2</program></programList>
    <idList><id><uid>${100 + i}</uid><idType>Digital Currency Address - LTC</idType><idNumber>${e.address}</idNumber></id></idList></sdnEntry>`;
  return `<?xml version="1.0"?><sdnList xmlns="http://tempuri.org/sdnList.xsd"><publshInformation><Publish_Date>${date}</Publish_Date>`
    + `<Record_Count>${entries.length}</Record_Count></publshInformation>${entries.map(entry).join('\n')}</sdnList>`;
}

describe('OFAC SDN list', () => {
  it('labels each LTC digital-currency address sanctioned, named by the entry, counts other currencies, keeps programs and the list date', async () => {
    db = await Db.open(':memory:');
    const result = await importLabels(db, [fixture('sdn.xml')], NETWORKS.mainnet, { now: 1_790_000_000 });
    expect(importSummary(result)).toBe('labels: 2 imported, 0 replaced, 0 removed, 0 rejected, 1 skipped for another currency');
    expect(await db.all(LABEL_ROWS)).toEqual([
      { address: 'LKKG9A9a8n7CeHK8Nk7RdNZiCuHZW2U789', entity: 'COINBARN EXCHANGE & CO LTD', category: 'sanctioned', confidence: 1, source: 'OFAC SDN 2026-11-20',
        source_kind: 'ofac', terms: OFAC_TERMS, details: 'programs: CYBER2, RUSSIA-EO14024' },
      { address: 'ltc1qqgpqyqszqgpqyqszqgpqyqszqgpqyqsz33r56h', entity: 'PETROV, Ivan', category: 'sanctioned', confidence: 1, source: 'OFAC SDN 2026-11-20',
        source_kind: 'ofac', terms: OFAC_TERMS, details: 'programs: CYBER2' },
    ]);
  });

  it('refuses a file that is not an SDN list, or one without a publish date, importing nothing', async () => {
    db = await Db.open(':memory:');
    const other = join(work, 'other.xml');
    writeFileSync(other, '<?xml version="1.0"?><rss><channel/></rss>');
    const undated = join(work, 'undated.xml');
    writeFileSync(undated, '<sdnList xmlns="http://tempuri.org/sdnList.xsd"><sdnEntry><lastName>X</lastName></sdnEntry></sdnList>');
    const broken = join(work, 'broken.xml');
    writeFileSync(broken, '<sdnList xmlns="http://tempuri.org/sdnList.xsd"><publshInformation><Publish_Date>11/20/2026</Publish_Date></publshInformation><sdnEntry></sdnList>');
    const result = await importLabels(db, [other, undated, broken], NETWORKS.mainnet);
    expect(result.rejected.map((r) => [r.cause, r.reason])).toEqual([
      ['file', 'the root element is <rss>, not <sdnList>: not an OFAC SDN list (sdn.xml)'],
      ['file', expect.stringMatching(/^publshInformation\/Publish_Date is missing/)],
      ['file', expect.stringMatching(/^not valid XML \(.*\); nothing from this file was imported$/)],
    ]);
    expect(result.written).toBe(false);
  });
});

describe('GraphSense TagPacks', () => {
  it('inherits header fields, maps categories and confidences, skips other currencies and rejects a bad address at its line', async () => {
    db = await Db.open(':memory:');
    const refused = await importLabels(db, [fixture('tagpack.yaml')], NETWORKS.mainnet);
    expect(refused.rejected).toEqual([{ file: fixture('tagpack.yaml'), line: 22, reason: 'address "ltc1qnotanaddress" is not a valid mainnet address', cause: 'address' }]);
    expect(importSummary(refused)).toBe('labels: 0 imported, 0 replaced, 0 removed, 1 rejected (1 address), 1 skipped for another currency; nothing was imported');
    expect(await db.all('SELECT * FROM labels')).toEqual([]);

    const result = await importLabels(db, [FIXTURES], NETWORKS.mainnet, { format: 'tagpack', skipInvalid: true });
    expect(result).toMatchObject({ imported: 3, written: true, skipped: { otherCurrency: 1, notPublic: 0 } });
    const source = { source: 'Pegscope test TagPack', source_kind: 'tagpack', terms: 'CC BY-SA 4.0' };
    expect(await db.all(LABEL_ROWS)).toEqual([
      { address: 'M8B5sGRdfNmF46qEpo2KJL7BTHe1jVH8tZ', entity: 'Tumbler One', category: 'mixer', confidence: 0.5, ...source,
        details: 'GraphSense category: mixing_service; confidence: forensic; source: https://reports.invalid/tumbler-one' },
      { address: 'ltc1q5kg4gaxaqzr33y8r099j0u5xp8fypn8jg6ht4e', entity: 'Coinbarn', category: 'exchange', confidence: 0.5, ...source,
        details: 'GraphSense category: exchange; confidence: service_data; source: https://coinbarn.invalid/deposit-addresses' },
      // An unmapped GraphSense category is `other`; hostile text is stored as it came.
      { address: 'ltc1qqszqgpqyqszqgpqyqszqgpqyqszqgpqys39sh2', entity: '=HYPERLINK("http://x","Extortion Crew")', category: 'other', confidence: 0.2, ...source,
        details: 'GraphSense category: sextortion; confidence: web_crawl; source: https://coinbarn.invalid/deposit-addresses' },
    ]);
  });

  it('skips tags not marked public and rejects an unknown confidence name', async () => {
    db = await Db.open(':memory:');
    const pack = join(work, 'private.yml');
    writeFileSync(pack, ['title: Private pack', 'creator: t', 'currency: LTC', 'tags:',
      '  - address: ltc1q5kg4gaxaqzr33y8r099j0u5xp8fypn8jg6ht4e', '    label: A',
      '  - address: M8B5sGRdfNmF46qEpo2KJL7BTHe1jVH8tZ', '    label: B', '    is_public: true', '    confidence: hearsay'].join('\n'));
    const result = await importLabels(db, [pack], NETWORKS.mainnet);
    expect(result.skipped.notPublic).toBe(1);
    expect(result.rejected.map((r) => [r.line, r.reason])).toEqual([[7, expect.stringMatching(/^unknown GraphSense confidence "hearsay"; known: override, ownership, /)]]);
  });
});

describe('docs/labels.md', () => {
  /** The rows of the table whose header starts with `first`: `| \`name\` | value |`. */
  const table = (first: string): [string, string][] => {
    const doc = readFileSync(new URL('../docs/labels.md', import.meta.url), 'utf8');
    const body = doc.split(`| ${first} |`)[1]!.split('\n\n')[0]!;
    return [...body.matchAll(/^\| `(\w+)` \| `?([\w.]+)`? \|$/gm)].map((m) => [m[1]!, m[2]!]);
  };

  it('shows the GraphSense mappings the import uses, row for row', () => {
    expect(table('GraphSense category')).toEqual(Object.entries(GRAPHSENSE_CATEGORIES));
    expect(table('GraphSense confidence')).toEqual(Object.entries(GRAPHSENSE_CONFIDENCE).map(([name, value]) => [name, String(value)]));
  });
});

describe('a failing import', () => {
  it('changes nothing: every file of one command is imported in one transaction, or none is', async () => {
    db = await Db.open(':memory:');
    await importLabels(db, [fixture('sdn.xml')], NETWORKS.mainnet);
    const before = await db.all(`${LABEL_ROWS.replace('details', 'details, imported_at')}`);
    const newer = join(work, 'sdn-newer.xml');
    writeFileSync(newer, sdnXml('12/01/2026', [{ name: 'ONLY ONE', address: 'LKKG9A9a8n7CeHK8Nk7RdNZiCuHZW2U789' }]));
    const result = await importLabels(db, [newer, fixture('tagpack.yaml')], NETWORKS.mainnet);
    expect(result).toMatchObject({ written: false, imported: 0, removed: 0 });
    expect(await db.all(`${LABEL_ROWS.replace('details', 'details, imported_at')}`)).toEqual(before);
  });
});

describe('mining-pool lists', () => {
  it('labels the payout addresses of blocks whose coinbase carries a pool\'s tag, and the listed addresses, named by the list', async () => {
    db = await Db.open(':memory:');
    const source = createSimSource({ preset: 'tiny', seed: 5, worker: false });
    try {
      await scanChain(db, source, { to: 600 });
    } finally {
      await source.close();
    }
    const result = await importLabels(db, [fixture('pools.json')], NETWORKS.sim);
    expect(importSummary(result)).toBe('labels: 1 imported, 0 replaced, 0 removed, 0 rejected, 0 skipped for another currency, 3 pool tags');
    await analyze(db, { now: 1_800_000_000 });
    const payout = async (tag: string) => (await db!.one<{ a: string }>('SELECT any_value(coinbase_address) AS a FROM blocks WHERE coinbase_tag = $1', [tag]))!.a;
    const [alpha, beta, gamma] = [await payout('/SimPool Alpha/'), await payout('/SimPool Beta/'), await payout('/SimPool Gamma/')];
    const labels = async (address: string) => db!.all('SELECT entity, category, source, source_kind, details FROM a_labels WHERE address = $1', [address]);
    expect(await labels(alpha)).toEqual([{ entity: 'SimPool Alpha', category: 'pool', source: 'pools.json', source_kind: 'pools', details: 'coinbase tag /SimPool Alpha/' }]);
    // Tags match case-insensitively.
    expect(await labels(beta)).toEqual([{ entity: 'Beta Mining', category: 'pool', source: 'pools.json', source_kind: 'pools', details: 'coinbase tag simpool beta' }]);
    // A pool no list names is still derived from its coinbase payouts.
    expect(await labels(gamma)).toEqual([{ entity: 'SimPool Gamma', category: 'pool', source: 'coinbase', source_kind: 'coinbase', details: 'derived from coinbase payouts' }]);
    expect(await labels('rltc1qrzeet95v2p4dlwx7t6w6d5mq6j9zcsxl6ty78w')).toEqual([
      { entity: 'Beta Mining', category: 'pool', source: 'pools.json', source_kind: 'pools', details: 'listed payout address' }]);
  }, 120_000);
});

describe('replacing a source', () => {
  it('removes a label gone from the source: after analyze and export the attribution is gone, and only the documents that show it changed', async () => {
    db = await Db.open(join(work, 'replace.duckdb'));
    const source = createSimSource({ preset: 'tiny', seed: 7, worker: false });
    const out = join(work, 'replace-out');
    const full = join(work, 'replace-full');
    const exportBoth = async () => {
      const logs: string[] = [];
      const options = { layout: 'files' as const, hostBudget: NO_HOST_BUDGET };
      const incremental = await exportRelease(db!, { ...options, outDir: out, log: (line) => logs.push(line) });
      const whole = await exportRelease(db!, { ...options, outDir: full, incremental: false });
      expectSameTree(incremental.dir, whole.dir);
      return incremental.dir;
    };
    try {
      await scanChain(db, source, { to: 1_200 });
    } finally {
      await source.close();
    }
    const [kept, removed] = (await db.all<{ address: string }>(
      'SELECT DISTINCT address FROM pegouts WHERE address IS NOT NULL ORDER BY address LIMIT 2')).map((r) => r.address);
    const sdn = join(work, 'sdn.xml');
    writeFileSync(sdn, sdnXml('11/20/2026', [{ name: 'KEPT', address: kept! }, { name: 'REMOVED', address: removed! }]));
    await importLabels(db, [sdn], NETWORKS.sim, { now: 1_800_000_000 });
    await analyze(db, { now: 1_800_000_100 });
    const first = await exportBoth();
    const addressDoc = (dir: string, address: string) => JSON.parse(readFileSync(join(dir, docPath(dir, 'address', address)), 'utf8'));
    expect(addressDoc(first, removed!).address.attribution).toMatchObject({ entity: 'REMOVED', category: 'sanctioned', via: 'direct', source: 'OFAC SDN 2026-11-20' });

    // The next list delists one address; its date names the source anew.
    writeFileSync(sdn, sdnXml('12/01/2026', [{ name: 'KEPT', address: kept! }]));
    const result = await importLabels(db, [sdn], NETWORKS.sim, { now: 1_800_000_200 });
    expect(result).toMatchObject({ imported: 1, replaced: 1, removed: 1, written: true });
    await analyze(db, { now: 1_800_000_300 });
    const second = await exportBoth();
    expect(addressDoc(second, removed!).address.attribution).toBeNull();
    expect(addressDoc(second, kept!).address.attribution).toMatchObject({ entity: 'KEPT', source: 'OFAC SDN 2026-12-01' });

    // Every document file that changed shows one of the two addresses, before or after.
    const docsBefore = documents(first);
    const changed = [...documents(second)].filter(([path, text]) => docsBefore.get(path) !== text);
    expect(changed.length).toBeGreaterThan(0);
    for (const [path, text] of changed) expect(text.includes(kept!) || text.includes(removed!) || (docsBefore.get(path) ?? '').includes(removed!), path).toBe(true);
    const labelsCsv = readdirSync(join(second, 'dumps')).filter((f) => f.startsWith('labels.'));
    expect(labelsCsv.sort()).toEqual(['labels.csv.gz', 'labels.parquet']);
  }, 300_000);
});

/** The documents of a files-layout release (trace, address, follow, block): path → text. */
function documents(dir: string): Map<string, string> {
  const docs = new Map<string, string>();
  for (const [rel, path] of treeFiles(dir)) {
    if (/^api\/(trace|address|follow|block)\//.test(rel)) docs.set(rel, readFileSync(path, 'utf8'));
  }
  return docs;
}

/** The file of one document of a files-layout release. */
function docPath(dir: string, kind: string, q: string): string {
  const match = [...treeFiles(dir).keys()].find((rel) => rel.startsWith(`api/${kind}/`) && rel.includes(q));
  if (!match) throw new Error(`no ${kind} document for ${q} in ${dir}`);
  return match;
}
