import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { analyze } from '../src/analysis/analyze.js';
import { Db } from '../src/store/db.js';
import { formatCoin } from '../src/domain/amount.js';
import { privacyOf, scoreOfSet } from '@pegscope/client';
import { buildAmountCounts } from '../src/api/amount-table-encode.js';
import { CHAIN_FACTS, DEFAULT_PARAMS as P, HIGH_CONFIDENCE, HIGH_RISK_SCORE, LABEL_CATEGORIES } from '../src/domain/model.js';
import { COIN, insertChain, txid } from './helpers/analysis-fixture.js';

const { output_bytes_min: bytesMin, output_bytes_max: bytesMax, pegin_kernel_fee: peginFee, pegout_kernel_fee: pegoutFee, hop_kernel_fee: hopFee } =
  Object.fromEntries(Object.entries(CHAIN_FACTS).map(([k, f]) => [k, f.value])) as Record<keyof typeof CHAIN_FACTS, number>;
const riskOf = (name: string): number => LABEL_CATEGORIES.find((c) => c.name === name)!.risk;

/** The link model of docs/methodology.md, written out independently of the SQL from the registry's values. */
function expectedWeight(diff: number, gap: number, horizon: number, candidates: number): number {
  const avgBytes = (bytesMin + bytesMax) / 2;
  const rate = (e: number) => (e < bytesMin ? 0 : (1 / P.rate_scale) / (1 + e / avgBytes / P.rate_scale) ** 2 / avgBytes);
  const priors = [P.hop_prior_0, P.hop_prior_1, P.hop_prior_2, P.hop_prior_3];
  const fee = (1 - P.fee_other) * priors.reduce((sum, q, hops) => sum + q * rate(diff - peginFee - pegoutFee - hops * hopFee), 0) + P.fee_other / P.tol;
  const gapDensity = 1 / ((gap + P.gap_g0) * Math.log((Math.max(horizon, gap) + P.gap_g0) / (1 + P.gap_g0)));
  return (P.prior * fee * gapDensity * P.tol * horizon) / candidates;
}
/** The none-of-these weight of the confidence's denominator. */
const NONE = 1 - P.prior;
/** Confidences are stored rounded to 4 decimals. */
const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

let db: Db | undefined;
afterEach(() => { db?.close(); db = undefined; });

async function fresh(): Promise<Db> {
  db = await Db.open(':memory:');
  return db;
}

describe('the horizon (docs/methodology.md)', () => {
  const H = 100;
  const amount = 50_000_000;

  it('links only peg-ins at most H blocks before the peg-out, and weighs the gap over H blocks', async () => {
    const d = await fresh();
    await insertChain(d, 400, [
      { txid: txid('old'), height: 100, amount: amount + 6_410, inputs: ['A1'] },
      { txid: txid('near'), height: 250, amount: amount + 6_500, inputs: ['A2'] },
    ], [{ txid: txid('out'), vout: 1, height: 300, amount, address: 'B1' }]);
    await analyze(d, { now: 1, horizon: H });
    const links = await d.all<{ pegin_txid: string; candidate_count: bigint; confidence: number }>('SELECT pegin_txid, candidate_count, confidence FROM a_links');
    const w = expectedWeight(6_500, 50, H, 1);
    expect(links).toEqual([{ pegin_txid: txid('near'), candidate_count: 1n, confidence: round4(w / (NONE + w)) }]);
    expect(await d.all('SELECT key, value FROM a_meta WHERE key = $1', ['horizon_blocks'])).toEqual([{ key: 'horizon_blocks', value: String(H) }]);
  });

  it('counts anonymity sets over the H blocks up to and including the peg-in\'s own, and the amount table over the last H blocks', async () => {
    const d = await fresh();
    // 200 and 300 are H apart (both edges in), 300 and 300 share a block, 260 is followed by pegs it must not count.
    const heights = [10, 200, 260, 300, 300, 390];
    await insertChain(d, 400, heights.map((height, i) => ({ txid: txid(`p${i}`), height, amount: amount + i, inputs: [`A${i}`] })), []);
    await analyze(d, { now: 1, horizon: H });
    const sets = await d.all<{ txid: string; anonymity_set: number }>('SELECT txid, anonymity_set::INTEGER AS anonymity_set FROM a_pegin_scores ORDER BY txid');
    const expected = heights.map((h, i) => ({ txid: txid(`p${i}`), anonymity_set: heights.filter((o) => o <= h && o >= h - H).length }));
    expect(expected.map((e) => e.anonymity_set)).toEqual([1, 1, 2, 4, 4, 3]);
    expect(sets).toEqual(expected.sort((a, b) => a.txid.localeCompare(b.txid)));
    const table = await d.all<{ count: bigint }>("SELECT count FROM a_amounts WHERE side = 'pegin'");
    expect(table).toHaveLength(heights.filter((h) => h >= 400 - H).length);
  });

  it('calls an amount common only when it repeats within H blocks of the peg-in', async () => {
    const d = await fresh();
    await insertChain(d, 500, [
      { txid: txid('twin-old'), height: 10, amount: amount + 6_410, inputs: ['A1'] },
      { txid: txid('twin'), height: 300, amount: amount + 6_410, inputs: ['A2'] },
    ], [{ txid: txid('out'), vout: 1, height: 340, amount, address: 'B1' }]);
    await analyze(d, { now: 1, horizon: H });
    expect(await d.all('SELECT pegin_txid FROM a_links')).toEqual([{ pegin_txid: txid('twin') }]);
    await analyze(d, { now: 1, horizon: 400 });
    expect(await d.all('SELECT pegin_txid FROM a_links')).toEqual([]);
  });
});

describe('candidate pairs across height buckets', () => {
  it('expand exactly the peg-ins in each window, wherever the horizon buckets cut (brute force, random chains)', async () => {
    const H = 7;
    const peg = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 3 }));
    await fc.assert(fc.asyncProperty(fc.array(peg, { maxLength: 30 }), fc.array(peg, { minLength: 1, maxLength: 12 }), async (pegins, pegouts) => {
      const d = await fresh();
      // Amount steps of tol / 2, so windows [A, A + tol] overlap neighbouring amounts.
      const amountOf = (step: number): number => 100_000_000 + (step * P.tol) / 2;
      await insertChain(d, 45,
        pegins.map(([height, step], i) => ({ txid: txid(`in-${i}`), height, amount: amountOf(step), inputs: [`A${i}`] })),
        pegouts.map(([height, step], i) => ({ txid: txid(`out-${i}`), vout: 1, height, amount: amountOf(step), address: `B${i}` })));
      const result = await analyze(d, { now: 1, horizon: H });
      const expected = pegouts.map(([h, step]) => pegins.filter(([ph, ps]) => ps >= step && ps <= step + 2 && ph < h && ph >= h - H).length)
        .filter((n) => n >= 1 && n <= P.max_join).reduce((sum, n) => sum + n, 0);
      expect(result.candidatePairs).toBe(expected);
      d.close();
      db = undefined;
    }), { numRuns: 25 });
  });
});

describe('round-trip links', () => {
  it('links a unique round trip with the confidence of the model and its reasons', async () => {
    const d = await fresh();
    await insertChain(d, 300, [{ txid: txid('unique'), height: 110, amount: 123_456_789, inputs: ['A1'] }],
      [{ txid: txid('hog150'), vout: 1, height: 150, amount: 123_456_789 - 6_410, address: 'B1' }]);
    const result = await analyze(d, { now: 1_700_000_000 });
    expect(result.links).toBe(1);
    const links = await d.all('SELECT * FROM a_links');
    const w = expectedWeight(6_410, 40, 150 - 110 + 1, 1);
    expect(links).toEqual([expect.objectContaining({
      pegout_txid: txid('hog150'), pegout_vout: 1, pegin_txid: txid('unique'), pegin_vout: 0,
      amount_diff: 6410n, block_gap: 40, candidate_count: 1n, competitor_count: 0n,
      confidence: round4(w / (NONE + w)),
    })]);
    expect(links[0]!.confidence).toBeGreaterThan(HIGH_CONFIDENCE);
    const reasons = links[0]!.reasons as string[];
    expect(reasons[0]).toBe(`amount difference 6410 litoshi: fits a direct round trip (peg-in kernel ${peginFee} + peg-out kernel ${pegoutFee} + fee rate × ${bytesMin}..${bytesMax} bytes)`);
    const pegout = 123_456_789 - 6_410;
    expect(reasons[1]).toBe(`1 candidate peg-in(s) in the window [${formatCoin(pegout)}, ${formatCoin(pegout + P.tol)}]`);
    expect(reasons[3]).toBe(`block gap 40 (about ${(40 * CHAIN_FACTS.block_seconds.value / 3600).toFixed(1)} hours)`);
    expect(await d.all('SELECT key, value FROM a_meta ORDER BY key')).toEqual([
      { key: 'as_of_height', value: '300' }, { key: 'horizon_blocks', value: String(P.horizon_blocks) },
      { key: 'model_digest', value: expect.stringMatching(/^\d+$/) }, { key: 'network', value: 'sim' },
      { key: 'tip_hash', value: 'h300' }, { key: 'tolerance', value: String(P.tol) }, { key: 'updated_at', value: '1700000000' },
    ]);
  });

  it('splits confidence between two candidates, and a fee-shaped difference beats an odd one', async () => {
    const d = await fresh();
    await insertChain(d, 300, [
      { txid: txid('fits'), height: 120, amount: 55_000_000 + 6_410, inputs: ['F1'] },
      { txid: txid('odd'), height: 121, amount: 55_000_000 + 150_000, inputs: ['F2'] },
    ], [{ txid: txid('hog'), vout: 1, height: 160, amount: 55_000_000, address: 'B1' }]);
    await analyze(d);
    const links = await d.all<{ pegin_txid: string; candidate_count: bigint; confidence: number }>(
      'SELECT pegin_txid, candidate_count, confidence FROM a_links ORDER BY confidence DESC');
    // The odd candidate's share is below the min_reported floor, so only the fee-shaped one is listed.
    expect(links.map((l) => [l.pegin_txid, l.candidate_count])).toEqual([[txid('fits'), 2n]]);
    const h = 160 - 120 + 1;
    const wFit = expectedWeight(6_410, 40, h, 2), wOdd = expectedWeight(150_000, 39, h, 2);
    expect(wOdd / (NONE + wFit + wOdd)).toBeLessThan(P.min_reported);
    expect(links[0]!.confidence).toBeCloseTo(wFit / (NONE + (wFit + wOdd) + wFit - wFit), 4);
  });

  it('never reports a common amount', async () => {
    const d = await fresh();
    await insertChain(d, 300, [1, 2, 3].map((n) => ({ txid: txid(`round${n}`), height: 100 + n, amount: COIN, inputs: [`R${n}`] })),
      [{ txid: txid('hog'), vout: 1, height: 160, amount: COIN - 6_410, address: 'B2' }]);
    const result = await analyze(d);
    expect(result.candidatePairs).toBe(3);
    expect(result.links).toBe(0);
  });

  it('does not expand 100,000 peg-ins of 1.0 against 100,000 peg-outs just below into pairs', async () => {
    const d = await fresh();
    await d.exec(`INSERT INTO pegins SELECT 'in' || range, 0, 100 + range // 100, 0, ${COIN}, 'k', 1, 'a' || range FROM range(100000)`);
    await d.exec(`INSERT INTO pegouts SELECT 'out' || range, 1, 1200 + range // 100, 0, ${COIN - 6_410}, 'b' || range, '00' FROM range(100000)`);
    await d.exec(`INSERT INTO pegins VALUES ('lonely', 0, 1500, 0, 777777777, 'k', 1, 'L1')`);
    await d.exec(`INSERT INTO pegouts VALUES ('lonely-out', 1, 1600, 0, ${777777777 - 6_410}, 'L2', '00')`);
    await d.setMeta('cursor_height', '3000');
    const result = await analyze(d);
    expect(result.candidatePairs).toBe(1);
    expect(result.links).toBe(1);
    const stats = Object.fromEntries((await d.all<{ key: string; value: string }>('SELECT * FROM a_stats')).map((r) => [r.key, r.value]));
    expect(stats.total_pegins).toBe('100001');
    expect(stats.linkable_pegouts).toBe('1');
  });
});

describe('reuse, clusters and attribution', () => {
  async function scenario(d: Db) {
    await insertChain(d, 400, [
      { txid: txid('sanct'), height: 110, amount: 300_000_000, inputs: ['S1', 'S2'] },
      { txid: txid('exch'), height: 111, amount: 400_000_000, inputs: ['X1', 'X2'] },
      { txid: txid('exch2'), height: 112, amount: 410_000_000, inputs: ['X2', 'X3'] },
      { txid: txid('reuse'), height: 120, amount: 777_000_000, inputs: ['C1'] },
    ], [
      { txid: txid('hog-reuse'), vout: 1, height: 170, amount: 250_000_000, address: 'C1' },
      { txid: txid('hog-sanct'), vout: 1, height: 180, amount: 300_000_000 - 6_410, address: 'D1' },
    ]);
    await d.exec(`INSERT INTO labels (address, entity, category, confidence, source_kind, source_key, source, imported_at)
      VALUES ('S1', 'Bad Actor', 'sanctioned', 1.0, 'file', 'test', 'test', 0), ('X1', 'BigExchange', 'exchange', 0.9, 'file', 'test', 'test', 0)`);
  }

  it('records a peg-out to an address that funded a peg-in', async () => {
    const d = await fresh();
    await scenario(d);
    await analyze(d);
    expect(await d.all('SELECT * FROM a_reuse')).toEqual([
      { address: 'C1', pegin_txid: txid('reuse'), pegin_vout: 0, pegout_txid: txid('hog-reuse'), pegout_vout: 1 },
    ]);
    const score = await d.one<{ privacy_score: number; reasons: string[] }>('SELECT * FROM a_pegin_scores WHERE txid = $1', [txid('reuse')]);
    expect(score?.reasons).toContain(`a funding address also received a peg-out (address reuse): −${P.reuse_penalty}`);
  });

  it('names one peg-in of several funded by the address in one block: the greatest txid, whatever the row order; penalises every one', async () => {
    const d = await fresh();
    const sameBlock = Array.from({ length: 40 }, (_, i) => ({ txid: txid(`same-block-${(i * 17) % 40}`), height: 150, amount: 100_000_000 + i, inputs: ['R1'] }));
    await insertChain(d, 400, sameBlock, [{ txid: txid('hog-r1'), vout: 1, height: 300, amount: 50_000_000, address: 'R1' }]);
    const greatest = sameBlock.map((p) => p.txid).sort().at(-1);
    for (let run = 0; run < 3; run++) {
      await analyze(d);
      expect(await d.all('SELECT pegin_txid FROM a_reuse')).toEqual([{ pegin_txid: greatest }]);
    }
    // The address reuse is every one's, not only the peg-in a_reuse names.
    const penalised = await d.one<{ n: bigint }>('SELECT count(*) AS n FROM a_pegin_scores WHERE list_contains(reasons, $1)',
      [`a funding address also received a peg-out (address reuse): −${P.reuse_penalty}`]);
    expect(penalised?.n).toBe(BigInt(sameBlock.length));
  });

  it('clusters co-spent addresses transitively under their first address', async () => {
    const d = await fresh();
    await scenario(d);
    const result = await analyze(d);
    expect(await d.all('SELECT address, cluster_id, cluster_size, first_height FROM a_clusters ORDER BY address')).toEqual([
      { address: 'C1', cluster_id: 'C1', cluster_size: 1n, first_height: 120 },
      { address: 'S1', cluster_id: 'S1', cluster_size: 2n, first_height: 110 },
      { address: 'S2', cluster_id: 'S1', cluster_size: 2n, first_height: 110 },
      { address: 'X1', cluster_id: 'X1', cluster_size: 3n, first_height: 111 },
      { address: 'X2', cluster_id: 'X1', cluster_size: 3n, first_height: 111 },
      { address: 'X3', cluster_id: 'X1', cluster_size: 3n, first_height: 111 },
    ]);
    expect(result.clusterIterations).toBeGreaterThan(0);
  });

  it('keeps a cluster\'s id as it grows, and the older id when two clusters merge', async () => {
    const d = await fresh();
    const grown = [
      { txid: txid('m-first'), height: 110, amount: 100_000_000, inputs: ['M5', 'M6'] },
      // An address that sorts first joins later: the id stays the first address's.
      { txid: txid('m-grow'), height: 130, amount: 110_000_000, inputs: ['M6', 'M1'] },
      { txid: txid('n-first'), height: 120, amount: 120_000_000, inputs: ['M2', 'M3'] },
    ];
    await insertChain(d, 400, grown, []);
    await analyze(d);
    expect(await d.all('SELECT address, cluster_id, first_height FROM a_clusters ORDER BY address')).toEqual([
      { address: 'M1', cluster_id: 'M5', first_height: 110 },
      { address: 'M2', cluster_id: 'M2', first_height: 120 },
      { address: 'M3', cluster_id: 'M2', first_height: 120 },
      { address: 'M5', cluster_id: 'M5', first_height: 110 },
      { address: 'M6', cluster_id: 'M5', first_height: 110 },
    ]);
    // A later peg-in merges the younger cluster into the older: it takes the older's id and first height.
    await d.exec(`INSERT INTO pegins VALUES ($1, 0, 140, 1700021000, 130000000, 'kmerge', 2, 'M3')`, [txid('merge')]);
    await d.exec(`INSERT INTO pegin_inputs VALUES ($1, 0, 140, $2, 0, 'M3', 65000000), ($1, 1, 140, $3, 0, 'M1', 65000000)`, [txid('merge'), txid('pm0'), txid('pm1')]);
    // Below the analysed tip, so not a continuation.
    await analyze(d, { full: true });
    expect(await d.all('SELECT DISTINCT cluster_id, cluster_size, first_height FROM a_clusters')).toEqual([
      { cluster_id: 'M5', cluster_size: 5n, first_height: 110 },
    ]);
  });

  it('propagates an exchange label across its cluster but never a sanctioned one', async () => {
    const d = await fresh();
    await scenario(d);
    await analyze(d);
    expect(await d.all('SELECT address, entity, category, via, confidence, cluster_id FROM a_attribution ORDER BY address')).toEqual([
      { address: 'S1', entity: 'Bad Actor', category: 'sanctioned', via: 'direct', confidence: 1, cluster_id: 'S1' },
      { address: 'X1', entity: 'BigExchange', category: 'exchange', via: 'direct', confidence: 0.9, cluster_id: 'X1' },
      { address: 'X2', entity: 'BigExchange', category: 'exchange', via: 'cluster', confidence: round4(0.9 * P.cluster_decay), cluster_id: 'X1' },
      { address: 'X3', entity: 'BigExchange', category: 'exchange', via: 'cluster', confidence: round4(0.9 * P.cluster_decay), cluster_id: 'X1' },
    ]);
  });

  it('carries sanctioned funding risk through a confident link into the peg-out risk score', async () => {
    const d = await fresh();
    await scenario(d);
    await analyze(d);
    const link = await d.one<{ confidence: number }>('SELECT confidence FROM a_links WHERE pegout_txid = $1', [txid('hog-sanct')]);
    const score = await d.one<{ risk_score: number; traceability: number }>('SELECT * FROM a_pegout_scores WHERE txid = $1', [txid('hog-sanct')]);
    expect(score?.traceability).toBe(link?.confidence);
    expect(score?.risk_score).toBe(Math.min(100, Math.round(riskOf('sanctioned') * link!.confidence + P.traceability_weight * link!.confidence)));
    expect(score!.risk_score).toBeGreaterThanOrEqual(HIGH_RISK_SCORE);
    const stats = await d.one<{ value: string }>("SELECT value FROM a_stats WHERE key = 'high_risk_pegouts'");
    expect(stats?.value).toBe('1');
    expect(await d.all('SELECT from_entity, from_category, to_entity, to_category, links, expected_links, amount FROM a_entity_flows')).toEqual([
      { from_entity: 'Bad Actor', from_category: 'sanctioned', to_entity: 'unattributed', to_category: null, links: 1n, expected_links: link!.confidence, amount: 300_000_000n - 6_410n },
    ]);
  });

  it('recommends the common amounts and never a wait below min_wait_blocks (1.75 days)', async () => {
    const d = await fresh();
    await scenario(d);
    await d.exec(`INSERT INTO pegins VALUES ('r1', 0, 130, 0, ${COIN}, 'k', 1, 'Q1'), ('r2', 0, 131, 0, ${COIN}, 'k', 1, 'Q2')`);
    await analyze(d);
    const doc = JSON.parse((await d.one<{ doc: string }>('SELECT doc FROM a_recommendations'))!.doc);
    expect(doc.best_pegin_amounts).toEqual([{ amount: 1, anonymity_set: 2 }]);
    expect(doc.best_pegout_amounts).toEqual([]);
    expect(doc.recommended_wait_blocks).toBe(P.min_wait_blocks);
    expect(doc.recommended_wait_hours).toBe(Math.round(P.min_wait_blocks * CHAIN_FACTS.block_seconds.value / 360) / 10);
    expect(doc.notes.length).toBeGreaterThan(2);
    // The wait is stated once, in the figure of its fields (the dashboard shows the notes as they are).
    const waits = (doc.notes as string[]).filter((note) => /\bwait/i.test(note));
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatch(new RegExp(`^Wait at least ${doc.recommended_wait_blocks} blocks \\(about ${doc.recommended_wait_hours} hours\\) before pegging out; `));
    expect(waits[0]!.match(/\d+ (?:blocks|hours)/g)).toEqual([`${doc.recommended_wait_blocks} blocks`, `${doc.recommended_wait_hours} hours`]);
  });

  it('labels coinbase payout addresses as mining pools by their tag', async () => {
    const d = await fresh();
    await insertChain(d, 10, [], []);
    await d.exec("UPDATE blocks SET coinbase_address = 'M1', coinbase_tag = '/ViaBTC/Mined by x/' WHERE height <= 4");
    await d.exec("UPDATE blocks SET coinbase_address = 'M2', coinbase_tag = NULL WHERE height IN (5, 6, 7)");
    await d.exec("UPDATE blocks SET coinbase_address = 'M3' WHERE height = 8");
    await analyze(d);
    expect(await d.all('SELECT address, entity, category, confidence, source FROM a_labels ORDER BY address')).toEqual([
      { address: 'M1', entity: 'ViaBTC', category: 'pool', confidence: P.pool_tagged_confidence, source: 'coinbase' },
      { address: 'M2', entity: 'unnamed pool', category: 'pool', confidence: P.pool_untagged_confidence, source: 'coinbase' },
    ]);
  });
});

describe('multi-hop follow', () => {
  it('follows three round trips with the product of their confidences and never revisits an address', async () => {
    const d = await fresh();
    const amounts = [311_111_111, 322_222_222, 333_333_333, 344_444_444];
    const addresses = ['H1', 'H2', 'H3', 'H4', 'H2'];
    await insertChain(d, 600,
      amounts.map((amount, i) => ({ txid: txid(`hop${i}`), height: 100 + i * 100, amount, inputs: [addresses[i]!] })),
      amounts.map((amount, i) => ({ txid: txid(`hog${i}`), vout: 1, height: 150 + i * 100, amount: amount - 6_410, address: addresses[i + 1]! })));
    await analyze(d);
    const chain = await d.all<{ hop: number; from_address: string; to_address: string; confidence: number; cumulative_confidence: number }>(
      "SELECT hop, from_address, to_address, confidence, cumulative_confidence FROM a_follow WHERE start_address = 'H1' ORDER BY hop");
    expect(chain.map((h) => [h.hop, h.from_address, h.to_address])).toEqual([[1, 'H1', 'H2'], [2, 'H2', 'H3'], [3, 'H3', 'H4']]);
    const product = chain[0]!.confidence * chain[1]!.confidence * chain[2]!.confidence;
    expect(chain[2]!.cumulative_confidence).toBeCloseTo(product, 6);
    expect(chain[1]!.cumulative_confidence).toBeCloseTo(chain[0]!.confidence * chain[1]!.confidence, 6);
    expect(product).toBeGreaterThan(0.7);
  });
});

describe('peg-in privacy scores', () => {
  it('use the wallet client\'s curve and window: the score of an unlinked peg-in is scoreOfSet of the peg-ins within ±tolerance up to its block', async () => {
    const d = await fresh();
    const amounts = [10_000_000, 10_050_000, 10_150_000, 10_150_000, 10_390_000, 50_000_000, 50_200_000, 50_200_001];
    await insertChain(d, 200, amounts.map((amount, i) => ({ txid: txid(`p${i}`), height: 100 + i, amount, inputs: [`I${i}`] })), []);
    await analyze(d);
    const rows = await d.all<{ txid: string; privacy_score: number; anonymity_set: bigint }>('SELECT txid, privacy_score, anonymity_set FROM a_pegin_scores');
    for (const [i, amount] of amounts.entries()) {
      const row = rows.find((r) => r.txid === txid(`p${i}`))!;
      const upToItsBlock = amounts.slice(0, i + 1);
      const expectedSet = upToItsBlock.filter((a) => Math.abs(a - amount) <= P.tol).length;
      expect(Number(row.anonymity_set)).toBe(expectedSet);
      expect(row.privacy_score).toBe(scoreOfSet(expectedSet));
      // The amount table of its height holds the peg-in itself; privacyOf's anonymity_set would count it once more.
      const table = buildAmountCounts({ pegin: upToItsBlock.map((a) => [a, 1] as const), pegout: [] });
      expect(privacyOf(table, amount, 'pegin').window_set).toBe(expectedSet);
    }
  });

  it('agree with the wallet client under the horizon: a peg-in at the tip scores what privacyOf gives its amount from the exported amount table', async () => {
    const d = await fresh();
    const H = 50;
    const tip = 300;
    // Amounts around 0.1 coin, at heights inside and outside the last H blocks.
    const pegins = [[10_000_000, 200], [10_050_000, 260], [10_100_000, 249], [10_150_000, 250], [10_150_000, 300], [10_000_000, 300], [10_390_000, 299], [50_000_000, 300]] as const;
    await insertChain(d, tip, pegins.map(([amount, height], i) => ({ txid: txid(`h${i}`), height, amount, inputs: [`H${i}`] })), []);
    await analyze(d, { horizon: H });
    const exported = await d.all<{ side: 'pegin' | 'pegout'; amount: bigint; count: bigint }>('SELECT side, amount, count FROM a_amounts');
    const table = buildAmountCounts({
      pegin: exported.filter((r) => r.side === 'pegin').map((r) => [Number(r.amount), Number(r.count)] as const), pegout: [],
    });
    const rows = await d.all<{ txid: string; privacy_score: number; anonymity_set: bigint }>('SELECT txid, privacy_score, anonymity_set FROM a_pegin_scores');
    for (const [i, [amount, height]] of pegins.entries()) {
      if (height !== tip) continue;
      const row = rows.find((r) => r.txid === txid(`h${i}`))!;
      const expectedSet = pegins.filter(([a, h]) => Math.abs(a - amount) <= P.tol && h >= tip - H).length;
      expect(Number(row.anonymity_set)).toBe(expectedSet);
      expect(privacyOf(table, amount, 'pegin').window_set).toBe(expectedSet);
      expect(row.privacy_score).toBe(scoreOfSet(expectedSet));
    }
  });
});
