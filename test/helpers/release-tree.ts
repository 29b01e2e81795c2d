/**
 * A small published release tree written by hand in the layout of
 * docs/architecture.md "Release tree", for the router tests and the serve
 * benchmark. Addresses are real sim (regtest-format) addresses with valid
 * checksums; the amount table is encoded with the real encodeAmountTable.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { ENDPOINTS } from '../../src/api/params.js';
import { coinNumber } from '../../src/domain/amount.js';
import { decodeScript } from '../../src/domain/address.js';
import { NETWORKS } from '../../src/domain/network.js';
import { buildAmountCounts, encodeAmountTable } from '../../src/api/amount-table-encode.js';
import { toCsv } from '../../src/api/csv.js';
import { writeHandManifest } from './manifest.js';

export const SECRET = 'TOP-SECRET-8f1c2e-never-served';

export interface HandTree {
  root: string;
  outDir: string;
  addresses: string[];
  pegoutTxids: string[];
  peginTxids: string[];
  blockHash: string;
  blockHeight: number;
  links: { confidence: number; block_gap: number; [k: string]: unknown }[];
}

/** A valid sim P2WPKH address from a 20-byte program. */
export function simAddress(seed: number): string {
  const program = Buffer.alloc(20, seed & 0xff);
  program.writeUInt32BE(seed, 0);
  return decodeScript(Buffer.concat([Buffer.from([0x00, 0x14]), program]), NETWORKS.sim).address!;
}

const hex64 = (seed: number): string => Buffer.alloc(32, seed).toString('hex');

/** Writes out/sim with one release (id `r1`, as_of_height 500) and secrets next to and inside it. */
export function buildHandTree(): HandTree {
  const root = mkdtempSync(join(tmpdir(), 'pegscope-serve-'));
  const outDir = join(root, 'out', 'sim');
  writeFileSync(join(root, 'SECRET.txt'), SECRET);
  writeFileSync(join(root, '.env'), SECRET);
  const tree: HandTree = {
    root, outDir,
    addresses: [1, 2, 3, 4, 5, 6].map(simAddress),
    peginTxids: [0x11, 0x12, 0x13].map(hex64),
    pegoutTxids: [0x21, 0x22].map(hex64),
    blockHash: hex64(0x31),
    blockHeight: 420,
    links: [],
  };
  writeRelease(tree, 'r1', 500, Math.floor(Date.now() / 1000) - 120);
  publish(tree, 'r1');
  return tree;
}

/** Points `current` at a release atomically (temp symlink, then rename). */
export function publish(tree: HandTree, id: string): void {
  const tmp = join(tree.outDir, `.current-${randomBytes(4).toString('hex')}`);
  symlinkSync(join('releases', id), tmp);
  renameSync(tmp, join(tree.outDir, 'current'));
}

export function writeRelease(tree: HandTree, id: string, asOfHeight: number, updatedAt: number): string {
  const dir = join(tree.outDir, 'releases', id);
  const envelope = { version: '1', network: 'sim', unit: 'rLTC', as_of_height: asOfHeight, updated_at: updatedAt };
  const put = (rel: string, body: string | Buffer, compress = false): void => {
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
    if (compress) {
      writeFileSync(`${path}.gz`, gzipSync(body));
      writeFileSync(`${path}.br`, brotliCompressSync(body));
    }
  };
  const json = (rel: string, doc: object, compress = false): void => put(rel, JSON.stringify(doc), compress);
  const [a1, a2, a3, a4, a5] = tree.addresses as [string, string, string, string, string];
  const [in1] = tree.peginTxids as [string];
  const [out1] = tree.pegoutTxids as [string];

  const peginRows: [number, number][] = [];
  for (let i = 0; i < 300; i++) peginRows.push([100_000_000 + (i % 40) * 1_000_000, 1 + (i % 7)]);
  peginRows.push([123_456_789, 1], [50_000_000, 250]);
  const pegoutRows: [number, number][] = [[99_996_100, 3], [49_990_000, 40], [123_450_000, 1]];
  json('api/amounts.json', encodeAmountTable(
    { network: 'sim', as_of_height: asOfHeight, updated_at: updatedAt, horizon_blocks: null, rounding_digits: 2 },
    buildAmountCounts({ pegin: peginRows, pegout: pegoutRows }),
  ));

  json('api/health.json', { ...envelope, health: { ok: true, last_scanned_block: asOfHeight, analysis_updated: updatedAt, analysis_age_seconds: 0, pegins: 1200, pegouts: 700 } });
  json('api/stats.json', { ...envelope, stats: { total_pegins: 1200, total_pegouts: 700, linkable_pegouts: 40, high_confidence_links: 9, labeled_addresses: 3, avg_privacy_score: 61.5, high_risk_pegouts: 2 } });
  json('api/recommendations.json', { ...envelope, recommendations: { best_pegin_amounts: [{ amount: 0.5, anonymity_set: 250 }], best_pegout_amounts: [{ amount: 0.4999, anonymity_set: 40 }], recommended_wait_blocks: 1008, recommended_wait_hours: 42, notes: ['Peg in a common amount.'] } });
  json('api/index.json', {
    ...envelope, service: 'pegscope',
    endpoints: Object.fromEntries(Object.values(ENDPOINTS).map((e) => [e.name, `GET /api/${e.name} ${e.params.map((p) => p.name).join(' ')} — ${e.purpose}`])),
    disclaimer: 'Links are heuristic inferences, never proof.', license: 'data CC BY 4.0, code AGPL-3.0', attribution: 'Data from pegscope',
  }, true);

  tree.links = [];
  for (let i = 0; i < 500; i++) {
    tree.links.push({
      pegout_txid: hex64(0x40 + (i % 100)), pegout_vout: i % 3, pegout_height: 300 + i, pegout_amount: coinNumber(10_000_000 + i * 1_000),
      pegout_address: i === 0 ? '=cmd|calc' : simAddress(1000 + i), pegout_entity: i % 50 === 0 ? 'Exchange X' : null, pegout_category: i % 50 === 0 ? 'exchange' : null,
      pegin_txid: hex64(0x80 + (i % 100)), pegin_vout: 0, pegin_height: 200 + i, pegin_amount: coinNumber(10_006_100 + i * 1_000),
      confidence: Math.round((1 - i / 500) * 1000) / 1000, risk_score: i % 100, block_gap: 100 + (i % 17), candidate_count: 1 + (i % 4),
      reasons: ['unique amount', `gap ${100 + (i % 17)} blocks`],
    });
  }
  const linksBody = (min: number, limit: number) => {
    const links = tree.links.filter((l) => l.confidence >= min).slice(0, limit);
    return { ...envelope, min_confidence: min, count: links.length, links };
  };
  json('api/links.json', linksBody(0.5, 100), true);
  put('api/links.csv', toCsv(ENDPOINTS.links.csvColumns!, linksBody(0.5, 100).links.map((l) => ENDPOINTS.links.csvColumns!.map((c) => l[c] as string))));
  json('data/links.json', { links: linksBody(0, 500).links });

  for (const side of ['pegin', 'pegout'] as const) {
    const rows = Array.from({ length: 500 }, (_, i) => ({ amount: coinNumber(1_000_000 * (i + 1)), count: 1000 - i }));
    json(`api/${side}_amounts.json`, { ...envelope, count: 100, [`${side}_amounts`]: rows.slice(0, 100) });
    put(`api/${side}_amounts.csv`, toCsv(['amount', 'count'], rows.slice(0, 100).map((r) => [r.amount, r.count])));
    json(`data/${side}_amounts.json`, { [`${side}_amounts`]: rows });
  }

  const pegin = { txid: in1, vout: 0, block_height: 410, block_time: 1_700_000_000, amount: 1.2345, source_address: a1, input_count: 1, inputs: [{ address: a1, value: 1.2346, attribution: null }], links: [], score: { privacy_score: 20, anonymity_set: 2, max_link_confidence: 0.9, reasons: ['rare amount'] } };
  const pegout = { txid: out1, vout: 1, block_height: tree.blockHeight, block_time: 1_700_001_500, amount: 1.2344, address: a2, attribution: null, links: [], score: { risk_score: 10, dest_category: null, traceability: 0.9, reasons: [] } };
  const trace = (q: string, type: string) => ({ ...envelope, trace: { query: q, type, attribution: null, cluster: null, pegins: [pegin], pegouts: [pegout] } });
  const traceCsv = toCsv(ENDPOINTS.trace.csvColumns!, [['pegin', in1, 1.2345, out1, 1.2344, a2, '', 0.9]]);
  for (const [q, type] of [[a1, 'address'], [in1, 'pegin_tx'], [out1, 'pegout_tx']] as const) {
    json(`api/trace/${q}.json`, trace(q, type), q === a1);
    put(`api/trace/${q}.csv`, traceCsv);
  }
  json(`api/address/${a1}.json`, { ...envelope, address: { address: a1, attribution: { entity: 'Exchange X', category: 'exchange', via: 'direct', confidence: 0.9, cluster_id: a1 }, pegouts_received: { count: 0, total: 0 }, pegins_funded: { count: 1, total: 1.2345 } } });

  const chain = [a1, a2, a3, a4, a5, simAddress(7), simAddress(8)];
  let cumulative = 1;
  const hops = chain.slice(0, -1).map((from, i) => {
    const confidence = 0.9 - i * 0.05;
    cumulative *= confidence;
    return { from, pegin: { txid: hex64(0x90 + i), vout: 0 }, pegout: { txid: hex64(0xa0 + i), vout: 1 }, to: chain[i + 1], to_attribution: null, confidence, cumulative_confidence: Math.round(cumulative * 1e6) / 1e6 };
  });
  const followDoc = (depth: number) => {
    const cut = hops.slice(0, depth);
    return { ...envelope, follow: { query: a1, depth, hops: cut, total_confidence: cut[cut.length - 1]?.cumulative_confidence ?? 0 } };
  };
  json(`api/follow/${a1}.json`, followDoc(3));
  json(`data/follow/${a1}.json`, followDoc(10));

  const block = { ...envelope, block: { height: tree.blockHeight, hash: tree.blockHash, time: 1_700_001_500, supply: 1234.5, pegins: [], pegouts: [pegout] } };
  json(`api/block/${tree.blockHeight}.json`, block);
  json(`api/block/${tree.blockHash}.json`, block);

  put('dumps/pegins/pegins-00000000-00019999.csv.gz', gzipSync('txid,vout,amount\n'));
  put('.secret', SECRET);
  resign(tree, id);
  return dir;
}

/** Lists the files of release `id` in its manifest again, as an export would have, after a test changed them. */
export function resign(tree: HandTree, id: string): void {
  const dir = join(tree.outDir, 'releases', id);
  const head = JSON.parse(readFileSync(join(dir, 'api', 'health.json'), 'utf8')) as { as_of_height: number; updated_at: number };
  writeHandManifest(dir, { network: 'sim', as_of_height: head.as_of_height, updated_at: head.updated_at }, ['.secret']);
}
