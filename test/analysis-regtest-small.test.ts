/**
 * The whole pipeline (recorded regtest chain → scan → analyze) against the
 * recording's ground truth (test/fixtures/regtest-small/truth.json).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../src/analysis/analyze.js';
import { LINKABLE_CONFIDENCE } from '../src/domain/model.js';
import { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';
import { finalChain, fixtureSource, loadRecording } from './helpers/fixture-source.js';

interface Link { pegout: string; pegin: string; confidence: number; pegout_address: string }

describe('analysis of the regtest-small recording', () => {
  const rec = loadRecording();
  const truth = rec.truth as {
    round_trips: { pegin: string; pegout: string; user: string }[];
    pegouts: { pegout?: string; txid?: string; address: string; source_pegins: string[] }[];
    address_reuse: { address: string; funded_pegins: string[]; pegout: string }[];
    clusters: { addresses: string[] }[];
  };
  let db: Db;
  let links: Link[];

  beforeAll(async () => {
    db = await Db.open(':memory:');
    await scanChain(db, fixtureSource(rec, finalChain(rec)).source);
    await analyze(db);
    links = await db.all<Link>(`SELECT pegout_txid || ':' || pegout_vout AS pegout, pegin_txid || ':' || pegin_vout AS pegin, confidence, pegout_address FROM a_links`);
  });
  afterAll(() => db.close());

  it('every linkable link (confidence >= linkable_confidence) is a true round trip', () => {
    const trueTrips = new Set(truth.round_trips.map((t) => `${t.pegout}>${t.pegin}`));
    const confident = links.filter((l) => l.confidence >= LINKABLE_CONFIDENCE);
    expect(confident.length).toBeGreaterThan(0);
    for (const l of confident) expect(trueTrips, `${l.pegout} ← ${l.pegin} (${l.confidence})`).toContain(`${l.pegout}>${l.pegin}`);
  });

  it('finds the round trips of unique amounts', () => {
    const found = new Set(links.filter((l) => l.confidence >= LINKABLE_CONFIDENCE).map((l) => `${l.pegout}>${l.pegin}`));
    const counts = new Map<number, number>();
    const amountOf = (id: string) => (rec.truth.pegins as { id: string; amount_sat: number }[]).find((p) => p.id === id)!.amount_sat;
    for (const p of rec.truth.pegins as { amount_sat: number }[]) counts.set(p.amount_sat, (counts.get(p.amount_sat) ?? 0) + 1);
    const unique = truth.round_trips.filter((t) => counts.get(amountOf(t.pegin)) === 1);
    expect(unique.length).toBeGreaterThan(3);
    expect(unique.filter((t) => found.has(`${t.pegout}>${t.pegin}`)).map((t) => t.user)).toEqual(unique.map((t) => t.user));
  });

  it('finds the address reuse and the two-address clusters of the truth', async () => {
    const reuse = await db.all<{ address: string }>('SELECT DISTINCT address FROM a_reuse ORDER BY address');
    expect(reuse.map((r) => r.address)).toEqual(truth.address_reuse.map((r) => r.address).sort());
    for (const cluster of truth.clusters) {
      const list = cluster.addresses.map((a) => `'${a.replace(/[^a-z0-9]/g, '')}'`).join(', ');
      const ids = await db.all<{ cluster_id: string }>(`SELECT DISTINCT cluster_id FROM a_clusters WHERE address IN (${list})`);
      expect(ids).toEqual([{ cluster_id: [...cluster.addresses].sort()[0] }]);
    }
  });
});
