import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { Db } from '../src/store/db.js';
import type { SimSource } from '../src/chain/sim/index.js';
import { exportRelease, type ExportResult } from '../src/export/export.js';
import { schemaFiles } from '../src/api/schemas.js';
import { SCHEMA_BASE } from '../src/api/common-schema.js';
import { isValidAddress } from '../src/domain/address.js';
import { NETWORKS } from '../src/domain/network.js';
import { ENDPOINTS } from '../src/api/params.js';
import { truncateFollow, type Follow } from '../src/api/follow.js';
import { sliceLinks, TOP_LINKS, type LinksDocument, type LinksTop } from '../src/api/links.js';
import { sliceAmounts, TOP_AMOUNTS } from '../src/api/top-amounts.js';
import { WORK_TABLES, WORK_VIEWS } from '../src/export/sql.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import { keyHash, parseRange } from '@pegscope/client';
import { releaseDocuments } from './helpers/release-docs.js';
import { analysedDb, expectSameTree, insertHostileLabels, isComplete, scanAndAnalyze, treeFiles } from './helpers/export-pipeline.js';

const NOW = 1_800_000_000;
const H1 = 2_600;
const H2 = H1 + 100;

let work: string;
let db: Db;
let source: SimSource;
let first: ExportResult;
/** The same analysis in the one-file-per-query layout. */
let files: ExportResult;
const logs: string[] = [];

const read = (path: string): string => readFileSync(path, 'utf8');
const readJson = (path: string): any => JSON.parse(read(path));
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-export-'));
  ({ db, source } = await analysedDb(':memory:', 3, H1, NOW));
  // A peg-out to a string that is no address must never become a path.
  const hogex = await db.one<{ txid: string; height: number; block_time: bigint }>('SELECT txid, height, block_time FROM pegouts ORDER BY height DESC LIMIT 1');
  await db.exec("INSERT INTO pegouts VALUES ($1, 99, $2, $3, 123456, '../../escape', '00')", [hogex!.txid, hogex!.height, hogex!.block_time]);
  const destinations = await db.all<{ address: string }>('SELECT DISTINCT address FROM pegouts WHERE address LIKE \'rltc1%\' ORDER BY address LIMIT 4');
  await insertHostileLabels(db, destinations.map((r) => r.address));
  await scanAndAnalyze(db, source, H1, NOW);
  first = await exportRelease(db, { outDir: join(work, 'a') });
  files = await exportRelease(db, { outDir: join(work, 'files'), layout: 'files', hostBudget: NO_HOST_BUDGET, log: (line) => logs.push(line) });
}, 300_000);

afterAll(() => {
  db?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a full export of an analysed chain', () => {
  it('publishes the release through the current symlink', () => {
    const current = join(work, 'a', 'current');
    expect(readlinkSync(current)).toBe(join('releases', first.releaseId));
    expect(first.written).toBe(first.files - first.reused);
    expect(first.files).toBeGreaterThan(100);
  });

  it('validates every kind of file against its JSON Schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajvFormats.default(ajv);
    for (const [name, schema] of Object.entries(schemaFiles())) if (name !== 'openapi.json') ajv.addSchema(schema);
    const tree = new Map([...treeFiles(first.dir)].concat([...treeFiles(files.dir)].map(([rel, path]) => [`files:${rel}`, path])));
    const kinds: [RegExp, string][] = [
      [/^(?:files:)?api\/(health|stats|recommendations|links|pegin_amounts|pegout_amounts|index|amounts|ranges)\.json$/, '$1'],
      [/^api\/range\/(?:trace|address|follow|block)\/[0-9a-f]+\.json$/, 'range'],
      [/^files:api\/(trace|address|follow|block)\/[^/]+\.json$/, '$1'],
      [/^files:data\/(follow)\/[^/]+\.json$/, '$1'],
      [/^(?:files:)?(manifest)\.json$/, '$1'],
    ];
    const checked = new Map<string, number>();
    const check = (rel: string, schemaName: string, body: unknown): void => {
      const validate = ajv.getSchema(`${SCHEMA_BASE}${schemaName}`);
      expect(validate, schemaName).toBeDefined();
      if (!validate!(body)) throw new Error(`${rel} does not match ${schemaName}: ${ajv.errorsText(validate!.errors)}`);
      checked.set(schemaName, (checked.get(schemaName) ?? 0) + 1);
    };
    for (const [rel, path] of tree) {
      const kind = kinds.find(([re]) => re.test(rel));
      if (kind) check(rel, `${rel.replace(kind[0], kind[1])}.json`, readJson(path));
    }
    // The router's top lists, as it answers from them (with its release's envelope) at the largest limit.
    const stamp = readJson(join(first.dir, 'api/links.json')) as LinksDocument;
    check('data/links.json', 'links.json', sliceLinks(stamp, readJson(join(first.dir, 'data/links.json')), 0, TOP_LINKS));
    for (const side of ['pegin', 'pegout'] as const) {
      check(`data/${side}_amounts.json`, `${side}_amounts.json`, sliceAmounts(stamp, readJson(join(first.dir, `data/${side}_amounts.json`)), side, TOP_AMOUNTS));
    }
    for (const name of ['health', 'stats', 'recommendations', 'links', 'pegin_amounts', 'pegout_amounts', 'index', 'amounts', 'trace', 'address', 'follow', 'block', 'manifest', 'ranges', 'range']) {
      expect(checked.get(`${name}.json`) ?? 0, name).toBeGreaterThan(0);
    }
  });

  it('lists every file in the manifest with its size and sha256, and the same files in its state\'s Parquet index', async () => {
    const root = join(work, 'a', 'current');
    const state = join(work, 'a', 'state', basename(readlinkSync(root)));
    const manifest = readJson(join(root, 'manifest.json'));
    const tree = treeFiles(root);
    tree.delete('manifest.json');
    expect(Object.keys(manifest.files)).toEqual([...tree.keys()].sort());
    for (const [rel, path] of tree) {
      const bytes = readFileSync(path);
      expect(manifest.files[rel]).toMatchObject({ size: bytes.length, sha256: sha256(bytes) });
    }
    // The release holds nothing of the exporter's own state.
    expect(Object.keys(manifest.files).filter((rel) => rel.endsWith('.parquet') && !rel.startsWith('dumps/'))).toEqual([]);
    // The index, beside the release, lists every file but changes.json (written after it, describing it), for the next export to join against.
    const index = await db.all<{ path: string; size: bigint; sha256: string }>(`SELECT path, size, sha256 FROM read_parquet('${join(state, 'files.parquet')}') ORDER BY path`);
    const listed = Object.entries(manifest.files as Record<string, { size: number; sha256: string }>).filter(([rel]) => rel !== 'changes.json');
    expect(index.map((f) => [f.path, { size: Number(f.size), sha256: f.sha256 }])).toEqual(listed.map(([rel, f]) => [rel, { size: f.size, sha256: f.sha256 }]));
  });

  it('has a trace, address and follow document for every address, a trace for every peg txid and a block document by height and hash', async () => {
    const docs = Object.fromEntries((['trace', 'address', 'follow', 'block'] as const).map((kind) => [kind, releaseDocuments(first.dir, kind)]));
    const addresses = await db.all<{ address: string }>("SELECT address FROM pegin_inputs WHERE address IS NOT NULL UNION SELECT address FROM pegouts WHERE address IS NOT NULL");
    for (const { address } of addresses) for (const kind of ['trace', 'address', 'follow'] as const) expect(docs[kind]!.documents.has(address), `${kind}/${address}`).toBe(true);
    const txids = await db.all<{ txid: string }>('SELECT DISTINCT txid FROM pegins UNION SELECT DISTINCT txid FROM pegouts');
    for (const { txid } of txids) expect(docs.trace!.documents.has(txid), txid).toBe(true);
    expect(docs.trace!.documents.size).toBe(addresses.length + txids.length);
    const blocks = await db.all<{ height: number; hash: string }>('SELECT height, hash FROM blocks WHERE pegin_count + pegout_count > 0');
    for (const { height, hash } of blocks) {
      expect(docs.block!.aliases.get(hash)).toBe(height);
      expect(JSON.parse(docs.block!.documents.get(String(height))!).block.hash).toBe(hash);
    }
    expect(docs.block!.documents.size).toBe(blocks.length);
  });

  it('packs every document into the range its key hashes to, with every prefix present and api/ranges.json counting them', () => {
    const index = readJson(join(first.dir, 'api', 'ranges.json'));
    for (const kind of ['trace', 'address', 'follow', 'block'] as const) {
      const { prefix_length: length, documents } = index.kinds[kind];
      const names = readdirSync(join(first.dir, 'api', 'range', kind)).sort();
      expect(names).toEqual(Array.from({ length: 16 ** length }, (_, i) => `${i.toString(16).padStart(length, '0')}.json`));
      let total = 0;
      for (const name of names) {
        const range = parseRange(read(join(first.dir, 'api', 'range', kind, name)));
        const prefix = name.slice(0, -5);
        expect(range.header.range.prefix).toBe(prefix);
        for (const key of [...range.documents.keys(), ...Object.keys(range.header.range.aliases ?? {})]) expect(keyHash(key).slice(0, length), key).toBe(prefix);
        expect([...range.documents.keys()]).toEqual([...range.documents.keys()].sort());
        total += range.documents.size;
      }
      expect(total, kind).toBe(documents);
    }
  });

  it('gives the same documents in both layouts, byte for byte', () => {
    for (const kind of ['trace', 'address', 'follow', 'block'] as const) {
      const ranges = releaseDocuments(first.dir, kind);
      const perQuery = releaseDocuments(files.dir, kind);
      expect(ranges.documents.size, kind).toBeGreaterThan(0);
      // The files layout skips the one key that is no valid address; the ranges keep it, under its sha256 only.
      for (const [key, text] of perQuery.documents) expect(ranges.documents.get(key), `${kind}/${key}`).toBe(text);
      expect(ranges.documents.size - perQuery.documents.size).toBeLessThanOrEqual(1);
      expect(ranges.chains).toEqual(perQuery.chains);
      expect(ranges.aliases).toEqual(perQuery.aliases);
    }
  });

  it('writes a trace, address and follow file for every address and a trace for every peg txid (files layout)', async () => {
    const root = files.dir;
    const addresses = await db.all<{ address: string }>("SELECT address FROM pegin_inputs WHERE address IS NOT NULL UNION SELECT address FROM pegouts WHERE address IS NOT NULL");
    const valid = addresses.map((r) => r.address).filter((a) => isValidAddress(a, NETWORKS.sim));
    expect(valid.length).toBe(addresses.length - 1);
    for (const a of valid) {
      for (const dir of ['trace', 'address', 'follow']) expect(existsSync(join(root, 'api', dir, `${a}.json`)), `${dir}/${a}`).toBe(true);
      expect(existsSync(join(root, 'api', 'trace', `${a}.csv`))).toBe(true);
    }
    const txids = await db.all<{ txid: string }>('SELECT DISTINCT txid FROM pegins UNION SELECT DISTINCT txid FROM pegouts');
    for (const { txid } of txids) expect(existsSync(join(root, 'api', 'trace', `${txid}.json`)), txid).toBe(true);
    const blocks = await db.all<{ height: number; hash: string }>('SELECT height, hash FROM blocks WHERE pegin_count + pegout_count > 0');
    expect(blocks.length).toBeGreaterThan(0);
    for (const { height, hash } of blocks) {
      const byHeight = join(root, 'api', 'block', `${height}.json`);
      expect(statSync(byHeight).ino).toBe(statSync(join(root, 'api', 'block', `${hash}.json`)).ino);
      expect(readJson(byHeight).block.hash).toBe(hash);
    }
  });

  it('never turns a string that is not an address or txid into a file name', () => {
    const names = [...treeFiles(files.dir).keys()].filter((rel) => /^(api|data)\/(trace|address|follow|block)\//.test(rel));
    for (const rel of names) {
      const q = rel.split('/')[2]!.replace(/\.(json|csv)(\.gz|\.br)?$/, '');
      expect(/^[0-9a-f]{64}$/.test(q) || /^\d+$/.test(q) || isValidAddress(q, NETWORKS.sim), rel).toBe(true);
    }
    expect(existsSync(join(work, 'escape.json'))).toBe(false);
    expect(logs.some((line) => /skipped 1 queries/.test(line))).toBe(true);
  });

  it('writes default documents equal to slicing the top lists with the default parameters', () => {
    const root = join(work, 'a', 'current');
    // The top lists hold no envelope: they change only when the top rows do. The documents carry the analysis's.
    const top = readJson(join(root, 'data', 'links.json')) as LinksTop;
    expect(Object.keys(top)).toEqual(['links']);
    expect(top.links.length).toBeGreaterThan(0);
    const links = readJson(join(root, 'api', 'links.json')) as LinksDocument;
    expect(links).toEqual(sliceLinks(links, top, 0.5, 100));
    expect(links.as_of_height).toBe(readJson(join(root, 'manifest.json')).as_of_height);
    const csv = read(join(root, 'api', 'links.csv')).trimEnd().split('\n');
    expect(csv[0]).toBe(ENDPOINTS.links.csvColumns!.join(','));
    expect(csv.length - 1).toBe(readJson(join(root, 'api', 'links.json')).count);
    const pegins = readJson(join(root, 'api', 'pegin_amounts.json'));
    expect(pegins.pegin_amounts).toEqual(readJson(join(root, 'data', 'pegin_amounts.json')).pegin_amounts.slice(0, 100));
  });

  it('publishes follow at depth 3, and beside it the whole chain of every address whose chain is longer', async () => {
    const follow = releaseDocuments(first.dir, 'follow');
    const chains = [...follow.chains.values()].map((text) => JSON.parse(text).follow as Follow);
    expect(chains.length).toBeGreaterThan(0);
    for (const chain of chains) {
      expect(chain.hops.length).toBeGreaterThan(3);
      expect(JSON.parse(follow.documents.get(chain.query)!).follow).toEqual(truncateFollow(chain, 3));
    }
    const longer = await db.all<{ start_address: string }>('SELECT start_address FROM a_follow GROUP BY ALL HAVING max(hop) > 3');
    expect([...follow.chains.keys()].sort()).toEqual(longer.map((r) => r.start_address).sort());
  });

  it('guards CSV cells against formula injection', () => {
    const root = files.dir;
    const traced = [...treeFiles(join(root, 'api', 'trace')).entries()].filter(([rel]) => rel.endsWith('.csv')).map(([, p]) => read(p));
    const hostile = traced.filter((text) => text.includes('HYPERLINK') || text.includes('SUM(1+1)'));
    expect(hostile.length).toBeGreaterThan(0);
    for (const text of hostile) {
      expect(text).not.toMatch(/(^|,)"?[=@]/m);
      expect(text).toMatch(/'=HYPERLINK|'@SUM/);
    }
  });

  it('keeps precompressed siblings of large files that decompress to the file', () => {
    const tree = treeFiles(join(work, 'a', 'current'));
    const gz = [...tree.keys()].filter((rel) => rel.endsWith('.gz') && !rel.startsWith('dumps/'));
    expect(gz.length).toBeGreaterThan(0);
    for (const rel of gz) expect(gunzipSync(readFileSync(tree.get(rel)!)).equals(readFileSync(tree.get(rel.slice(0, -3))!))).toBe(true);
  });

  it('writes dumps that DuckDB reads back with every row', async () => {
    const root = join(work, 'a', 'current', 'dumps');
    for (const [name, table] of [['pegins', 'pegins'], ['pegouts', 'pegouts'], ['links', 'a_links']] as const) {
      const want = Number((await db.one<{ n: bigint }>(`SELECT count(*) AS n FROM ${table}`))!.n);
      const parquet = await db.one<{ n: bigint }>(`SELECT count(*) AS n FROM read_parquet('${join(root, name, '*.parquet')}')`);
      const csv = await db.one<{ n: bigint }>(`SELECT count(*) AS n FROM read_csv('${join(root, name, '*.csv.gz')}', header = true)`);
      expect([Number(parquet!.n), Number(csv!.n)], name).toEqual([want, want]);
    }
  });
});

describe('the export\'s work tables', () => {
  it('are all dropped when an export ends, with the views over the analysed rows', async () => {
    const left = await db.all<{ name: string }>(
      'SELECT table_name AS name FROM duckdb_tables() WHERE temporary UNION ALL SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal');
    expect(left).toEqual([]);
  });

  it('are named once: every x_ table or view the export SQL and code mention is in WORK_TABLES or WORK_VIEWS, and every listed one is used', () => {
    const dir = join(import.meta.dirname, '..', 'src', 'export');
    const sources = [...readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'sql.ts'), ...readdirSync(join(dir, 'sql')).map((f) => join('sql', f))]
      .map((f) => read(join(dir, f)));
    const named = new Set(sources.flatMap((text) => text.match(/\bx_[a-z_]+\b/g) ?? []));
    expect([...named].sort()).toEqual([...WORK_TABLES, ...WORK_VIEWS].sort());
  });
});

describe('incremental export', () => {
  // The files layout: one file per query, hard-linked or kept in place when unchanged.
  const FILES = { layout: 'files', hostBudget: NO_HOST_BUDGET } as const;

  it('reuses unchanged files and gives the same tree as rewriting every file', async () => {
    // A second site gets the same first release, then both export the next analysis.
    await exportRelease(db, { outDir: join(work, 'b'), ...FILES });
    await scanAndAnalyze(db, source, H2, NOW + 15_000);
    const incremental = await exportRelease(db, { outDir: join(work, 'files'), ...FILES });
    const full = await exportRelease(db, { outDir: join(work, 'b'), incremental: false, ...FILES });
    expect(incremental.reused).toBeGreaterThan(0);
    expect(full.reused).toBe(0);
    expect(incremental.written).toBeLessThan(full.written);

    expectSameTree(incremental.dir, full.dir);

    // Linking never wrote through a shared inode: the previous release still matches its manifest.
    const before = readJson(join(files.dir, 'manifest.json'));
    for (const [rel, path] of treeFiles(files.dir)) {
      if (rel !== 'manifest.json') expect(sha256(readFileSync(path)), rel).toBe(before.files[rel].sha256);
    }

    const health = readJson(join(incremental.dir, 'api', 'health.json'));
    expect(health.as_of_height).toBe(H2);
    // Reused files are the previous release's inodes.
    const manifest = readJson(join(incremental.dir, 'manifest.json'));
    const reusedTrace = Object.keys(manifest.files).find((rel: string) => rel.startsWith('api/trace/') && manifest.files[rel].stamp !== undefined && manifest.stamps[manifest.files[rel].stamp][0] === H1);
    expect(reusedTrace).toBeDefined();
    expect(statSync(join(incremental.dir, reusedTrace!)).nlink).toBeGreaterThan(1);
  }, 300_000);

  it.each([
    ['files layout', FILES],
    // Range files in batches of a few prefixes: each batch removes and keeps only its own ranges of the recycled release.
    ['range layout, a few documents rendered at once', { hostBudget: NO_HOST_BUDGET, renderBatchDocs: 5 }],
  ] as const)('recycles the oldest release into the next one (%s): unchanged files stay, the tree equals rewriting every file, other releases are untouched', async (name, options) => {
    // Site c recycles (keep 2); site d gets the same history, every file rewritten.
    const site = join(work, `c ${name}`);
    const both = async (log?: (line: string) => void) => [
      await exportRelease(db, { outDir: site, keep: 2, ...options, ...(log ? { log } : {}) }),
      await exportRelease(db, { outDir: join(work, `d ${name}`), incremental: false, ...options }),
    ] as const;
    const [oldest] = await both();
    await scanAndAnalyze(db, source, H2 + 100, NOW + 30_000);
    const [second] = await both();
    await scanAndAnalyze(db, source, H2 + 200, NOW + 45_000);
    const recycledLogs: string[] = [];
    const [recycled, full] = await both((line) => recycledLogs.push(line));
    expect(recycledLogs.join('\n')).toContain(`recycling release ${oldest!.releaseId}`);
    expect(recycled.kept).toBeGreaterThan(0);
    expect(recycled.written).toBeLessThan(full.written);
    expect(recycled.files).toBe(full.files);

    expectSameTree(recycled.dir, full.dir);

    // The release the new one shares inodes with still matches its manifest.
    expect(isComplete(second!.dir)).toBe(true);
    expect(readdirSync(join(site, 'releases')).sort()).toEqual([second!.releaseId, recycled.releaseId].sort());
  }, 300_000);

  it('never recycles or prunes current, also with keep 1 and a relative out dir', async () => {
    const site = relative(process.cwd(), join(work, 'e'));
    const first = await exportRelease(db, { outDir: site, keep: 1, ...FILES });
    // An operator's rollback: current points at the older of two releases.
    const second = await exportRelease(db, { outDir: site, keep: 2, ...FILES });
    symlinkSync(join('releases', first.releaseId), join(site, 'current-rollback'));
    renameSync(join(site, 'current-rollback'), join(site, 'current'));
    const lines: string[] = [];
    const third = await exportRelease(db, { outDir: site, keep: 1, ...FILES, log: (line) => lines.push(line) });
    expect(lines[0]).toContain(`recycling release ${second.releaseId}`);
    // The documents index describes the release rolled back from: nothing of it is trusted.
    expect(lines).toContainEqual(`the documents index ${join(site, 'state', 'docs.duckdb')} describes release ${second.releaseId}, not the current release ${first.releaseId}: every document is rendered`);
    expect(readdirSync(join(site, 'releases'))).toEqual([third.releaseId]);
    expect(existsSync(second.dir)).toBe(false);
    const fourth = await exportRelease(db, { outDir: site, keep: 1, ...FILES });
    expect(fourth.kept).toBe(0);
    expect(readdirSync(join(site, 'releases'))).toEqual([fourth.releaseId]);
  }, 300_000);

  it('writes every file anew after releases without their state, giving the same tree', async () => {
    const site = join(work, 'f');
    const older = [await exportRelease(db, { outDir: site, ...FILES }), await exportRelease(db, { outDir: site, ...FILES })];
    for (const release of older) rmSync(release.stateDir, { recursive: true });
    // Neither linked from current nor recycled from the oldest release: both lack their state.
    const next = await exportRelease(db, { outDir: site, keep: 2, ...FILES });
    expect([next.reused, next.kept, next.written]).toEqual([0, 0, next.files]);
    expect(readdirSync(join(site, 'releases')).sort()).toEqual([older[1]!.releaseId, next.releaseId]);
    const rewritten = await exportRelease(db, { outDir: join(work, 'g'), incremental: false, ...FILES });
    // Site g has no earlier release, so its changes.json adds everything.
    expectSameTree(next.dir, rewritten.dir, ['changes.json', 'manifest.json']);
  }, 300_000);

  it('gives range files byte-identical to rewriting every file, after more blocks and a new analysis', async () => {
    // Site h is a copy of site a, so unchanged documents keep the same stamps in both.
    cpSync(join(work, 'a'), join(work, 'h'), { recursive: true, verbatimSymlinks: true });
    await scanAndAnalyze(db, source, H2 + 300, NOW + 60_000);
    const incremental = await exportRelease(db, { outDir: join(work, 'a') });
    const full = await exportRelease(db, { outDir: join(work, 'h'), incremental: false });
    expectSameTree(incremental.dir, full.dir);
  }, 300_000);

  it('keeps only the last releases and never the current one', async () => {
    for (let i = 0; i < 3; i++) await exportRelease(db, { outDir: join(work, 'a'), keep: 2 });
    const current = readlinkSync(join(work, 'a', 'current'));
    const releases = treeFiles(join(work, 'a', 'releases'));
    const ids = new Set([...releases.keys()].map((rel) => rel.split('/')[0]));
    expect(ids.size).toBe(2);
    expect(ids.has(current.split('/')[1])).toBe(true);
  }, 300_000);
});
