/**
 * A peg-in's anonymity set is the pool it entered (docs/methodology.md
 * "Peg-in privacy"): what the wallet client's `privacyOf` counts for its
 * amount in the amount table of the peg-in's own height, and it never
 * changes afterwards. Real pipeline on both sides: sim chain → scan →
 * analyze → the exporter's amount table → the client's parser and privacyOf.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAmountTable, privacyOf } from '@pegscope/client';
import { analyze } from '../src/analysis/analyze.js';
import { createSimSource } from '../src/chain/sim/index.js';
import { fromBigint } from '../src/domain/amount.js';
import { amountTableFile } from '../src/export/amounts.js';
import { Db } from '../src/store/db.js';
import { scanChain } from '../src/store/scan.js';

/** A short horizon over a dense chain, so windows keep meeting peg-ins at their edges (H blocks back, the same block). */
const HORIZON = 12;
/** 0.05 coin: the sim's round amounts 0.05, 0.1, 0.2 and 0.25 lie exactly one tolerance apart. */
const TOLERANCE = 5_000_000;
const SIM = { preset: 'tiny', seed: 11, worker: false, rates: { peginsPerBlock: 2 } } as const;
const TIP = 1_300;
const NOW = 1_800_000_000;

interface Pegin { txid: string; vout: number; height: number; amount: number; anonymity_set: number }

let work: string;
/** Every peg-in with its anonymity set as analysed at TIP, long after most of them. */
let pegins: Pegin[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-anonymity-'));
  const db = await Db.open(join(work, 'tip.duckdb'));
  const source = createSimSource(SIM);
  try {
    await scanChain(db, source, { to: TIP });
    await analyze(db, { now: NOW, horizon: HORIZON, tolerance: TOLERANCE });
    const rows = await db.all<{ txid: string; vout: number; height: number; amount: bigint; anonymity_set: bigint }>(`
      SELECT p.txid, p.vout, p.height, p.amount, s.anonymity_set
      FROM pegins p JOIN a_pegin_scores s USING (txid, vout) ORDER BY p.height, p.txid, p.vout`);
    pegins = rows.map((r) => ({ ...r, amount: fromBigint(r.amount), anonymity_set: Number(r.anonymity_set) }));
  } finally {
    db.close();
    await source.close();
  }
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a peg-in\'s anonymity set', () => {
  it('is what privacyOf counts for its amount in the amount table of its own height, however many blocks came after it', async () => {
    // The peg-ins whose windows meet another peg-in at an edge, in or just out: drawn as often as any peg-in.
    const meets = (p: Pegin, dh: number, inAmount: (d: number) => boolean) => pegins.some((o) => o !== p && o.height === p.height + dh && inAmount(Math.abs(o.amount - p.amount)));
    const within = (d: number) => d <= TOLERANCE;
    const edges = {
      sameBlock: pegins.filter((p) => meets(p, 0, within)),
      nextBlock: pegins.filter((p) => meets(p, 1, within)),
      horizonBack: pegins.filter((p) => meets(p, -HORIZON, within)),
      beyondHorizon: pegins.filter((p) => meets(p, -HORIZON - 1, within)),
      toleranceApart: pegins.filter((p) => [...Array(HORIZON + 1).keys()].some((back) => meets(p, -back, (d) => d === TOLERANCE))),
    };
    for (const [edge, pool] of Object.entries(edges)) expect(pool.length, edge).toBeGreaterThan(10);
    const anyOf = (pool: Pegin[]) => fc.constantFrom(...pool);

    let run = 0;
    await fc.assert(fc.asyncProperty(
      fc.uniqueArray(fc.oneof(anyOf(pegins), ...Object.values(edges).map(anyOf)), { minLength: 1, maxLength: 4 }),
      async (picks) => {
        const sample = [...picks].sort((a, b) => a.height - b.height);
        // The job's way up the chain: scan to each peg-in's height, analyse, export the amount table, score the amount as a wallet would.
        const db = await Db.open(join(work, `walk-${run++}.duckdb`));
        const source = createSimSource(SIM);
        try {
          for (const pegin of sample) {
            await scanChain(db, source, { to: pegin.height });
            const analysed = await analyze(db, { now: NOW, horizon: HORIZON, tolerance: TOLERANCE });
            expect(analysed.asOfHeight).toBe(pegin.height);
            const file = await amountTableFile(db, { network: 'sim', as_of_height: pegin.height, updated_at: NOW });
            const { table } = parseAmountTable(JSON.parse(JSON.stringify(file)), { network: 'sim', now: NOW });
            const privacy = privacyOf(table, pegin.amount, 'pegin');
            // The table of its own height already holds the peg-in, so its set is the window's count;
            // privacyOf's anonymity_set adds one for a wallet whose peg-in is not in the table yet.
            expect(pegin.anonymity_set, `${pegin.txid}:${pegin.vout} at ${pegin.height}`).toBe(privacy.window_set);
            expect(privacy.anonymity_set).toBe(privacy.window_set + 1);
          }
        } finally {
          db.close();
          await source.close();
        }
      }), { numRuns: 12 });
  }, 300_000);
});
