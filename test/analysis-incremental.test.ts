import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, DERIVED_TABLES, recomputedFrom, type AnalyzeOptions } from '../src/analysis/analyze.js';
import { createSimSource, type SimSource } from '../src/chain/sim/index.js';
import { scanChain } from '../src/store/scan.js';
import { Db } from '../src/store/db.js';
import { DEFAULT_PARAMS as P } from '../src/domain/model.js';
import { finalChain, fixtureSource, loadRecording, orphanChain } from './helpers/fixture-source.js';
import { insertChain, txid } from './helpers/analysis-fixture.js';

/**
 * The horizon (docs/methodology.md): an analysis that continues the published one (links and
 * anonymity sets of pegs far enough below the new blocks carried over) gives
 * every table that a full analysis of the same chain gives. Two databases
 * get the same history: one continues, the other recomputes every peg.
 */
const HORIZON = 150;
/** Peg-ins dense enough that windows near the recomputed boundary hold competing candidates. */
const DENSE = { peginsPerBlock: 2 };
let work: string;
beforeAll(() => { work = mkdtempSync(join(tmpdir(), 'pegscope-continue-')); });
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Tables = Record<string, unknown[]>;
async function tables(db: Db): Promise<Tables> {
  const all: Tables = {};
  for (const table of DERIVED_TABLES) all[table] = await db.all(`SELECT * FROM ${table} ORDER BY ALL`);
  return all;
}

describe('an analysis continuing the published one', () => {
  let continuing: Db;
  let full: Db;
  let sources: SimSource[];

  beforeAll(async () => {
    continuing = await Db.open(join(work, 'continuing.duckdb'));
    full = await Db.open(join(work, 'full.duckdb'));
    sources = [createSimSource({ preset: 'tiny', seed: 5, worker: false, rates: DENSE }), createSimSource({ preset: 'tiny', seed: 5, worker: false, rates: DENSE })];
  });
  afterAll(async () => {
    continuing.close();
    full.close();
    for (const s of sources) await s.close();
  });

  /** Both databases scanned to `to` and analysed at `now`; returns where the continuing one continued from. */
  async function advance(to: number, now: number, opts: AnalyzeOptions = {}): Promise<number | null> {
    await scanChain(continuing, sources[0]!, { to });
    await scanChain(full, sources[1]!, { to });
    const result = await analyze(continuing, { now, horizon: HORIZON, ...opts });
    await analyze(full, { now, horizon: HORIZON, ...opts, full: true });
    expect(await tables(continuing)).toEqual(await tables(full));
    return result.continuedFrom;
  }

  it('gives the full analysis\'s tables after +1 block, +100 blocks, a labels import and +300 blocks', async () => {
    const now = 1_800_000_000;
    expect(await advance(2_400, now)).toBeNull();
    // Links cross the boundary of what is recomputed, so carrying too much or too little shows.
    const boundary = recomputedFrom(2_401, HORIZON).links;
    const crossing = await continuing.one<{ n: bigint }>('SELECT count(*) AS n FROM a_links WHERE pegout_height BETWEEN $1 AND $2', [boundary - 5, boundary + 5]);
    expect(Number(crossing!.n)).toBeGreaterThan(0);

    expect(await advance(2_401, now + 150)).toBe(2_401);
    expect(await advance(2_501, now + 15_150)).toBe(2_402);
    for (const db of [continuing, full]) {
      const old = await db.all<{ address: string }>('SELECT DISTINCT address FROM pegouts WHERE height < 2000 AND address IS NOT NULL ORDER BY address LIMIT 3');
      for (const { address } of old) await db.exec("INSERT OR REPLACE INTO labels (address, entity, category, confidence, source_kind, source_key, source, imported_at) VALUES ($1, 'Coinbarn', 'exchange', 0.9, 'file', 'test', 'test', 0)", [address]);
    }
    expect(await advance(2_501, now + 15_300)).toBe(2_502);
    expect(await advance(2_800, now + 60_000)).toBe(2_502);
  }, 300_000);

  it('recomputes every peg when the model changed', async () => {
    expect(await advance(2_810, 1_800_100_000, { params: { max_reported_per_pegout: 2 } })).toBeNull();
    expect(await advance(2_811, 1_800_100_150, { params: { max_reported_per_pegout: 2 } })).toBe(2_811);
    expect(await advance(2_812, 1_800_100_300, { horizon: HORIZON + 1 })).toBeNull();
  }, 300_000);
});

describe('an analysis after a reorg', () => {
  it('recomputes every peg when the block it was made at is gone, and gives the full analysis\'s tables', async () => {
    const rec = loadRecording();
    const db = await Db.open(join(work, 'reorg.duckdb'));
    try {
      await scanChain(db, fixtureSource(rec, orphanChain(rec)).source);
      await analyze(db, { now: 1_700_000_000, horizon: 40 });
      expect((await scanChain(db, fixtureSource(rec, finalChain(rec)).source)).reorgDepth).toBe(4);
      const after = await analyze(db, { now: 1_700_000_100, horizon: 40 });
      expect(after.continuedFrom).toBeNull();
      const next = await analyze(db, { now: 1_700_000_100, horizon: 40 });
      expect(next.continuedFrom).toBe(after.asOfHeight + 1);
      const continued = await tables(db);
      await analyze(db, { now: 1_700_000_100, horizon: 40, full: true });
      expect(continued).toEqual(await tables(db));
    } finally {
      db.close();
    }
  }, 300_000);
});

describe('wallet clusters of an analysis continuing the published one', () => {
  it('are the full analysis\'s: new peg-ins grow and merge old clusters under the ids a full run gives (random co-spends)', async () => {
    const TIP = 20;
    // Few addresses, several inputs each: new peg-ins often join and merge clusters of older blocks.
    const pegin = fc.tuple(fc.noBias(fc.integer({ min: 1, max: TIP })), fc.uniqueArray(fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'), { minLength: 1, maxLength: 3 }));
    let run = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(pegin, { minLength: 4, maxLength: 16 }), fc.noBias(fc.integer({ min: 1, max: TIP - 1 })), fc.integer({ min: 1, max: 6 }),
      async (pegins, first, more) => {
        const db = await Db.open(join(work, `clusters-${run++}.duckdb`));
        try {
          await insertChain(db, TIP, pegins.map(([height, inputs], i) => ({ txid: txid(`c-${i}`), height, amount: 100_000_000 + i * 7_919, inputs })), []);
          const cursor = (height: number) => db.exec("INSERT OR REPLACE INTO meta VALUES ('cursor_height', $1)", [String(height)]);
          const clusters = () => db.all('SELECT * FROM a_clusters ORDER BY ALL');
          await cursor(first);
          await analyze(db, { now: 1 });
          await cursor(Math.min(TIP, first + more));
          expect((await analyze(db, { now: 2 })).continuedFrom).toBe(first + 1);
          const continued = await clusters();
          await analyze(db, { now: 2, full: true });
          expect(continued).toEqual(await clusters());
        } finally {
          db.close();
        }
      }), {
      numRuns: 15,
      examples: [
        // H's cluster (first at 3) joins A's (first at 2) at 6: A's id, first height 2; then a new address joins them.
        [[[2, ['B', 'A']], [3, ['H', 'G']], [6, ['G', 'B']], [7, ['C', 'H']]], 4, 4],
      ],
    });
  }, 300_000);
});

describe('the heights an analysis recomputes', () => {
  it('are exactly enough: continuing at any height gives the full analysis (brute force, random chains, H = 7, windows expanded up to 1, 2 or max_join peg-ins)', async () => {
    const H = 7;
    const TIP = 24;
    const peg = fc.tuple(fc.noBias(fc.integer({ min: 1, max: TIP })), fc.noBias(fc.integer({ min: 0, max: 3 })));
    let run = 0;
    // Dense: pegs at the very heights where what is recomputed starts.
    await fc.assert(fc.asyncProperty(
      fc.array(peg, { minLength: 15, maxLength: 40 }), fc.array(peg, { minLength: 10, maxLength: 30 }), fc.noBias(fc.integer({ min: 1, max: TIP - 1 })), fc.integer({ min: 1, max: 4 }),
      // A small max_join makes the window counts decide which peg-outs have candidates.
      fc.constantFrom(1, 2, P.max_join),
      async (pegins, pegouts, first, more, maxJoin) => {
        const db = await Db.open(join(work, `brute-${run++}.duckdb`));
        try {
          // Amount steps of tol / 2, so windows overlap neighbours; peg-outs a round-trip fee below, so they link.
          const amountOf = (step: number): number => 100_000_000 + (step * P.tol) / 2;
          await insertChain(db, TIP,
            pegins.map(([height, step], i) => ({ txid: txid(`in-${i}`), height, amount: amountOf(step), inputs: [`A${i}`] })),
            pegouts.map(([height, step], i) => ({ txid: txid(`out-${i}`), vout: 1, height, amount: amountOf(step) - 6_410, address: `B${i}` })));
          const cursor = (height: number) => db.exec("INSERT OR REPLACE INTO meta VALUES ('cursor_height', $1)", [String(height)]);
          const params = { max_join: maxJoin };
          await cursor(first);
          await analyze(db, { now: 1, horizon: H, params });
          await cursor(Math.min(TIP, first + more));
          expect((await analyze(db, { now: 2, horizon: H, params })).continuedFrom).toBe(first + 1);
          const continued = await tables(db);
          await analyze(db, { now: 2, horizon: H, params, full: true });
          expect(continued).toEqual(await tables(db));
        } finally {
          db.close();
        }
      }), {
      numRuns: 20,
      examples: [
        // The lowest peg-out recomputed (12 = C − H + 1 for new blocks from C = 18) shares its candidate with a new one.
        [[[11, 0]], [[12, 0], [18, 0]], 17, 1, P.max_join],
        // Its candidate at 5 (C − 2H) has another exit at 6, whose window must be counted again.
        [[[5, 0]], [[12, 0], [6, 0]], 17, 1, P.max_join],
        // New blocks from C = 20: the exit at 8 (C − 2H + 2) of the candidate at 7 of the peg-out at 14 has a window
        // reaching down to 1 (C − 3H + 2), whose peg-in must be counted: two peg-ins, over max_join = 1, so no pairs.
        [[[1, 1], [7, 0]], [[8, 0], [14, 0]], 19, 1, 1],
      ],
    });
  }, 300_000);
});

describe('reuse, attribution, scores and follow chains of an analysis continuing the published one', () => {
  it('are the full analysis\'s: few addresses that fund peg-ins and receive peg-outs, labels imported and removed between runs (random chains, H = 7)', async () => {
    const H = 7;
    const TIP = 24;
    const address = fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F');
    const height = fc.noBias(fc.integer({ min: 1, max: TIP }));
    const step = fc.noBias(fc.integer({ min: 0, max: 3 }));
    const pegin = fc.tuple(height, step, fc.uniqueArray(address, { minLength: 1, maxLength: 2 }));
    const pegout = fc.tuple(height, step, address);
    const label = fc.tuple(address, fc.constantFrom('exchange', 'sanctioned', 'mixer'));
    let run = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(pegin, { minLength: 8, maxLength: 30 }), fc.array(pegout, { minLength: 8, maxLength: 30 }),
      fc.array(label, { maxLength: 2 }), fc.array(label, { maxLength: 2 }), fc.array(address, { maxLength: 1 }),
      fc.noBias(fc.integer({ min: 1, max: TIP - 1 })), fc.integer({ min: 1, max: 4 }),
      async (pegins, pegouts, labelled, imported, removed, first, more) => {
        const db = await Db.open(join(work, `carried-${run++}.duckdb`));
        try {
          // Amount steps of tol / 2 and peg-outs a round-trip fee below, as above: they link.
          const amountOf = (n: number): number => 100_000_000 + (n * P.tol) / 2;
          await insertChain(db, TIP,
            pegins.map(([h, n, inputs], i) => ({ txid: txid(`in-${i}`), height: h, amount: amountOf(n), inputs })),
            pegouts.map(([h, n, to], i) => ({ txid: txid(`out-${i}`), vout: 1, height: h, amount: amountOf(n) - 6_410, address: to })));
          const label = (labels: [string, string][], at: number) => Promise.all(labels.map(([to, category]) => db.exec(
            "INSERT OR REPLACE INTO labels (address, entity, category, confidence, source_kind, source_key, source, imported_at) VALUES ($1, $2, $3, 0.9, 'file', 'test', 'test', $4)",
            [to, `${category} ${at}`, category, at])));
          const cursor = (h: number) => db.exec("INSERT OR REPLACE INTO meta VALUES ('cursor_height', $1)", [String(h)]);
          await label(labelled, 1);
          await cursor(first);
          await analyze(db, { now: 1, horizon: H });
          await label(imported, 2);
          for (const gone of removed) await db.exec('DELETE FROM labels WHERE address = $1', [gone]);
          await cursor(Math.min(TIP, first + more));
          expect((await analyze(db, { now: 2, horizon: H })).continuedFrom).toBe(first + 1);
          const continued = await tables(db);
          await analyze(db, { now: 2, horizon: H, full: true });
          expect(continued).toEqual(await tables(db));
        } finally {
          db.close();
        }
      }), {
      numRuns: 25,
      examples: [
        // A new peg-out (in the first new block) pays the address that funded a peg-in far below the relinked ones:
        // a reuse row, and that peg-in is now reused.
        [[[3, 0, ['A']]], [[18, 2, 'A']], [], [], [], 17, 1],
        // An old peg-in and peg-out of one address, which is labelled between the runs: both scores change.
        [[[3, 0, ['A']]], [[5, 2, 'A']], [], [['A', 'sanctioned']], [], 17, 1],
        // A link kept (its peg-out below C − H + 1 = 12) whose peg-in's funding address is labelled between the runs:
        // the peg-out's funding risk changes.
        [[[3, 0, ['A']]], [[5, 0, 'B']], [], [['A', 'sanctioned']], [], 17, 1],
        // X → Y is an old chain; Y's peg-in gets its first link in the new blocks, so X's chain goes on to Z.
        [[[2, 0, ['X']], [14, 1, ['Y']]], [[4, 0, 'Y'], [18, 1, 'Z']], [], [], [], 17, 2],
        // A → B → C is an old chain; C's peg-in gets its first link, so A's chain is followed again, over B's kept step.
        [[[1, 0, ['A']], [4, 1, ['B']], [14, 3, ['C']]], [[3, 0, 'B'], [6, 1, 'C'], [18, 3, 'D']], [], [], [], 17, 2],
        // A new peg-out competes for the candidate of a relinked older one (14 ≥ C − H + 1 = 12): its traceability changes.
        [[[12, 0, ['A']]], [[14, 0, 'B'], [18, 0, 'C']], [], [], [], 17, 1],
        // A new peg-in of the same amount makes the one at 12 common: its link to the peg-out at 14 is gone, and so is A's step.
        [[[12, 0, ['A']], [18, 0, ['E']]], [[14, 0, 'B']], [], [], [], 17, 1],
        // A's label is removed between the runs: its old peg-in and peg-out lose their attribution.
        [[[3, 0, ['A']]], [[5, 2, 'A']], [['A', 'sanctioned']], [], ['A'], 17, 1],
      ],
    });
  }, 300_000);
});
