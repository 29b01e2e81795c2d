import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../src/analysis/analyze.js';
import { exportRelease } from '../src/export/export.js';
import { atomFeed, feedLinks, feedsOf, jsonFeed } from '../src/export/feeds.js';
import { withDocumentConnection } from '../src/export/workspace.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';
import { finalChain, fixtureSource, loadRecording, orphanChain } from './helpers/fixture-source.js';
import { get } from './helpers/http.js';

/**
 * The public feeds of a release, on the regtest recording: the orphaned
 * peg-out's address is labelled sanctioned, so that peg-out is in the risk
 * feed until the reorg removes its block.
 */
const dir = mkdtempSync(join(tmpdir(), 'pegscope-feeds-'));
const outDir = join(dir, 'out');
const rec = loadRecording();
const ORPHANED = rec.truth.reorg.orphaned_pegouts[0];
const schema = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'jsonfeed-1.1.schema.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajvFormats.default(ajv);
const validJsonFeed = ajv.compile(schema);
const atom = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'entry' || name === 'link' });

interface AtomEntry { id: string; title: string; updated: string; link: { rel: string; href: string; type: string }[]; summary: string }
interface Release { dir: string; links: { atom: AtomEntry[]; json: { items: { id: string }[] } }; risk: { atom: AtomEntry[]; json: { items: { id: string }[] } } }

function readRelease(releaseDir: string): Release {
  const read = (name: string) => readFileSync(join(releaseDir, 'feeds', name), 'utf8');
  const feed = (name: 'links' | 'risk') => {
    const json = JSON.parse(read(`${name}.json`));
    expect(validJsonFeed(json), JSON.stringify(validJsonFeed.errors)).toBe(true);
    const parsed = atom.parse(read(`${name}.atom`), true);
    expect(parsed.feed.xmlns).toBe('http://www.w3.org/2005/Atom');
    expect(parsed.feed.id).toMatch(new RegExp(`^urn:pegscope:regtest:feed:${name}$`));
    expect(parsed.feed.author.name).toBe('pegscope');
    return { atom: (parsed.feed.entry ?? []) as AtomEntry[], json };
  };
  return { dir: releaseDir, links: feed('links'), risk: feed('risk') };
}

describe('feeds in every release', () => {
  let db: Db;
  let before: Release;
  let after: Release;
  let server: RunningServer;

  beforeAll(async () => {
    db = await Db.open(join(dir, 'feeds.duckdb'));
    await scanChain(db, fixtureSource(rec, orphanChain(rec)).source);
    await db.exec("INSERT OR REPLACE INTO labels (address, entity, category, confidence, source_kind, source_key, source, imported_at) VALUES ($1, 'Sanctioned example', 'sanctioned', 1.0, 'file', 'test', 'test', 0)", [ORPHANED.address]);
    await analyze(db, { now: 1_700_000_000, horizon: 40 });
    before = readRelease((await exportRelease(db, { outDir, hostBudget: NO_HOST_BUDGET })).dir);
    const scanned = await scanChain(db, fixtureSource(rec, finalChain(rec)).source);
    expect(scanned.reorgDepth).toBe(4);
    await analyze(db, { now: 1_700_000_100, horizon: 40 });
    after = readRelease((await exportRelease(db, { outDir, hostBudget: NO_HOST_BUDGET })).dir);
    server = await startServer({ sites: [{ network: 'regtest', outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    db?.close();
  });

  it('lists the newest links at confidence ≥ 0.9, newest first, each with the explorer page and the API document of its peg', async () => {
    const expected = await db.all<{ pegin_txid: string; pegin_vout: number; pegout_txid: string; pegout_vout: number; pegout_height: number }>(
      'SELECT pegin_txid, pegin_vout, pegout_txid, pegout_vout, pegout_height FROM a_links WHERE confidence >= 0.9 ORDER BY pegout_height DESC, pegout_txid, pegout_vout, pegin_txid, pegin_vout LIMIT 100');
    expect(expected.length).toBeGreaterThan(0);
    expect(after.links.atom.map((e) => e.id)).toEqual(expected.map((l) => `urn:pegscope:regtest:link:${l.pegin_txid}:${l.pegin_vout}:${l.pegout_txid}:${l.pegout_vout}`));
    expect(after.links.json.items.map((i) => i.id)).toEqual(after.links.atom.map((e) => e.id));
    const first = after.links.atom[0]!;
    expect(first.link).toEqual([
      { rel: 'alternate', type: 'text/html', href: `../index.html#/block/${expected[0]!.pegout_height}` },
      { rel: 'related', type: 'application/json', href: `../api/trace?q=${expected[0]!.pegout_txid}` },
    ]);
    expect(first.title).toMatch(/^Link 0\.\d\d: peg-in [0-9a-f]{12}… → peg-out [0-9a-f]{12}… \(\d+\.\d{8} rLTC\)$/);
  });

  it('keeps every entry\'s id and text from one release to the next; the reorg\'s retracted peg-out disappears', () => {
    const ids = (r: Release) => r.risk.atom.map((e) => e.id);
    const gone = ids(before).filter((id) => !ids(after).includes(id));
    expect(gone).toHaveLength(1);
    expect(gone[0]).toMatch(/^urn:pegscope:regtest:pegout:[0-9a-f]{64}:\d+$/);
    expect(before.risk.atom.find((e) => e.id === gone[0])!.title).toBe(`Peg-out risk 100: ${ORPHANED.amount.replace(/0+$/, '')} rLTC to ${ORPHANED.address}`);
    // Links not touched by the reorg read the same, byte for byte, in both releases.
    expect(readFileSync(join(after.dir, 'feeds', 'links.json'), 'utf8')).toBe(readFileSync(join(before.dir, 'feeds', 'links.json'), 'utf8'));
  });

  it('the router serves the feeds with their content types, and nginx and _headers say the same', async () => {
    const atomFile = await get(server.url, '/feeds/risk.atom');
    expect(atomFile.status).toBe(200);
    expect(atomFile.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    expect(atomFile.text).toBe(readFileSync(join(after.dir, 'feeds', 'risk.atom'), 'utf8'));
    const jsonFile = await get(server.url, '/feeds/links.json');
    expect(jsonFile.status).toBe(200);
    expect(jsonFile.headers['content-type']).toBe('application/feed+json; charset=utf-8');
    expect((await get(server.url, '/feeds/other.json')).status).toBe(404);
    const headers = readFileSync(join(after.dir, '_headers'), 'utf8');
    expect(headers).toContain('/*.atom\n  Content-Type: application/atom+xml; charset=utf-8');
    expect(headers).toContain('/feeds/*\n');
    const nginx = readFileSync(join(after.dir, 'nginx.conf'), 'utf8');
    expect(nginx).toContain('application/atom+xml atom;');
    expect(nginx).toContain('location ~ "^/feeds/(?:links|risk)\\.(?:atom|json)(?:\\.(?:gz|br))?$" {');
    expect(nginx).toContain('application/feed+json json;');
    const manifest = readFileSync(join(after.dir, 'manifest.json'), 'utf8');
    for (const name of ['links.atom', 'links.json', 'risk.atom', 'risk.json']) expect(manifest).toContain(`"feeds/${name}"`);
  });

  it('dates a feed without entries by the first analysed block, so analyses that leave it empty write the same bytes', async () => {
    const first = Number((await db.one<{ time: number }>('SELECT min(time) AS time FROM blocks'))!.time);
    await withDocumentConnection(db, async (conn) => {
      await conn.exec('BEGIN');
      try {
        await conn.exec('UPDATE a_pegout_scores SET risk_score = 0');
        const height = Number((await conn.one<{ value: string }>("SELECT value FROM a_meta WHERE key = 'as_of_height'"))!.value);
        const stamp = { as_of_height: height, updated_at: 1_700_000_100, network: 'regtest' as const };
        const [one, other] = [await feedsOf(conn, stamp), await feedsOf(conn, { ...stamp, updated_at: stamp.updated_at + 600 })];
        const risk = (feeds: typeof one) => feeds.find((feed) => feed.atom === 'risk.atom')!;
        expect(risk(one).entries).toEqual([]);
        expect(risk(one).updated).toBe(first);
        expect(atomFeed(risk(other))).toBe(atomFeed(risk(one)));
        expect(atom.parse(atomFeed(risk(one))).feed.updated).toBe(new Date(first * 1000).toISOString().replace('.000Z', 'Z'));
      } finally {
        await conn.exec('ROLLBACK');
      }
    });
  });

  it('with --site-url, both feeds\' links are absolute under it, feed_url and home_page_url included', async () => {
    const siteUrl = 'https://pegscope.example/mirror/';
    const height = Number((await db.one<{ value: string }>("SELECT value FROM a_meta WHERE key = 'as_of_height'"))!.value);
    const stamp = { as_of_height: height, updated_at: 1_700_000_100, network: 'regtest' as const };
    const feeds = await withDocumentConnection(db, (conn) => feedsOf(conn, stamp, feedLinks(siteUrl)));
    const links = feeds.find((f) => f.json === 'links.json')!;
    const json = JSON.parse(jsonFeed(links)) as { feed_url: string; home_page_url: string; items: { url: string; external_url: string }[] };
    expect(validJsonFeed(json), JSON.stringify(validJsonFeed.errors)).toBe(true);
    expect(json.feed_url).toBe('https://pegscope.example/mirror/feeds/links.json');
    expect(json.home_page_url).toBe('https://pegscope.example/mirror/');
    expect(json.items.length).toBeGreaterThan(0);
    for (const item of json.items) {
      expect(item.url).toMatch(/^https:\/\/pegscope\.example\/mirror\/index\.html#\/block\/\d+$/);
      expect(item.external_url).toMatch(/^https:\/\/pegscope\.example\/mirror\/api\/trace\?q=[0-9a-f]{64}$/);
    }
    const parsed = atom.parse(atomFeed(links), true);
    expect(parsed.feed.link.map((l: { href: string }) => l.href)).toEqual([
      'https://pegscope.example/mirror/feeds/links.atom', 'https://pegscope.example/mirror/feeds/links.json', 'https://pegscope.example/mirror/',
    ]);
    for (const entry of parsed.feed.entry as AtomEntry[]) for (const link of entry.link) expect(link.href).toMatch(/^https:\/\/pegscope\.example\/mirror\//);
  });
});
