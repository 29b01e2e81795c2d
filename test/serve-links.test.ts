/**
 * The router answers `links` for any min_confidence and limit from the
 * release's top list (data/links.json, the first TOP_LINKS links in API
 * order): each answer must be what the full link list gives, byte for byte.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimSource } from '../src/chain/sim/index.js';
import { scanChain } from '../src/store/scan.js';
import { analyze } from '../src/analysis/analyze.js';
import { exportRelease } from '../src/export/export.js';
import { DUMPS, dumpGlob } from '../src/export/dumps.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import { TOP_LINKS, type LinkRecord } from '../src/api/links.js';
import { toJson } from '../src/api/json.js';
import { coinNumber, fromBigint } from '../src/domain/amount.js';
import { startServer, type RunningServer } from '../src/serve/server.js';
import { Db, sqlString } from '../src/store/db.js';
import { get } from './helpers/http.js';

let root: string;
let release: string;
let server: RunningServer;
/** Every reported link in API order, as /api/links shows each. */
let all: LinkRecord[];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'pegscope-serve-links-'));
  const outDir = join(root, 'out');
  const db = await Db.open(':memory:');
  try {
    // The demo chain has more links than the top list holds, so the router's list is cut.
    await scanChain(db, createSimSource({ preset: 'demo', seed: 1, worker: false }));
    await analyze(db);
    release = (await exportRelease(db, { outDir, hostBudget: NO_HOST_BUDGET })).dir;
    // The links dump holds every link (amounts in litoshi), partitioned by height: in API order (docs/api.md) again.
    const dump = join(release, dumpGlob(DUMPS.find((d) => d.name === 'links')!, 'parquet'));
    const rows = await db.all<Record<string, any>>(`SELECT * FROM read_parquet(${sqlString(dump)})
      ORDER BY confidence DESC, block_gap, pegout_txid, pegout_vout, pegin_txid, pegin_vout`);
    const number = (value: unknown): number | null => (value === null ? null : Number(value));
    all = rows.map((r) => ({
      pegout_txid: r.pegout_txid, pegout_vout: Number(r.pegout_vout), pegout_height: Number(r.pegout_height),
      pegout_amount: coinNumber(fromBigint(r.pegout_amount_litoshi)), pegout_address: r.pegout_address,
      pegout_entity: r.pegout_entity, pegout_category: r.pegout_category,
      pegin_txid: r.pegin_txid, pegin_vout: Number(r.pegin_vout), pegin_height: Number(r.pegin_height),
      pegin_amount: coinNumber(fromBigint(r.pegin_amount_litoshi)), confidence: Number(r.confidence), risk_score: number(r.risk_score),
      block_gap: Number(r.block_gap), candidate_count: Number(r.candidate_count), reasons: [...r.reasons],
    }));
  } finally {
    db.close();
  }
  server = await startServer({ sites: [{ network: 'sim', outDir }], host: '127.0.0.1', port: 0, rateLimit: 0 });
}, 300_000);

afterAll(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('links with any parameters', () => {
  it('are the full link list filtered at min_confidence and cut at limit, byte for byte', async () => {
    expect(all.length).toBeGreaterThan(TOP_LINKS);
    const top = JSON.parse(readFileSync(join(release, 'data/links.json'), 'utf8')) as { links: LinkRecord[] };
    expect(top.links).toHaveLength(TOP_LINKS);
    const { links: _links, min_confidence: _min, count: _count, ...envelope } = JSON.parse(readFileSync(join(release, 'api/links.json'), 'utf8'));
    // Distinct confidences spread over the list, those around where the top list is cut, a hair above and
    // below each, and the ends, as the router takes them (at most 12 decimals).
    const distinct = [...new Set(all.map((l) => l.confidence))];
    const confidences = [...distinct.filter((_, i) => i % Math.ceil(distinct.length / 25) === 0), ...all.slice(TOP_LINKS - 2, TOP_LINKS + 2).map((l) => l.confidence)];
    const thresholds = [...new Set(['0', '1', ...confidences.flatMap((c) => [String(c), (c + 1e-9).toFixed(10), (c - 1e-9).toFixed(10)])])]
      .filter((text) => /^\d(?:\.\d{1,12})?$/.test(text) && Number(text) <= 1);
    const limits = [1, 17, 100, 499, 500];
    for (const text of thresholds) {
      const minConfidence = Number(text);
      for (const limit of limits) {
        const links = all.filter((l) => l.confidence >= minConfidence).slice(0, limit);
        const res = await get(server.url, `/api/links?min_confidence=${text}&limit=${limit}`);
        expect(res.status).toBe(200);
        expect(res.text, `min_confidence=${minConfidence}&limit=${limit}`).toBe(toJson({ ...envelope, min_confidence: minConfidence, count: links.length, links }));
      }
    }
    expect(thresholds.length * limits.length).toBeGreaterThan(300);
  }, 300_000);
});
