/**
 * Fills the horizon's box counts (01_w_horizon.sql) with box-count.ts: the
 * peg-ins and peg-outs come out of DuckDB as (id, height, amount) columns and
 * the counts go back through an appender.
 */
import type { Db } from '../store/db.js';
import { countInBoxes, type Boxes, type Points } from './box-count.js';

interface Pegs { amount: Float64Array; height: Int32Array }

/** Ids are 0..n-1 (01_w_horizon.sql), so a peg's id is its index. */
async function readPegs(db: Db, table: string, id: string): Promise<Pegs> {
  const n = Number((await db.one<{ n: bigint }>(`SELECT count(*) AS n FROM ${table}`))!.n);
  const pegs: Pegs = { amount: new Float64Array(n), height: new Int32Array(n) };
  for await (const rows of db.stream(`SELECT ${id}, height, amount FROM ${table}`)) {
    for (const [i, height, amount] of rows) {
      pegs.height[Number(i)] = Number(height);
      pegs.amount[Number(i)] = Number(amount);
    }
  }
  return pegs;
}

async function writeCounts(db: Db, table: string, columns: [string, string], counts: Uint32Array): Promise<void> {
  const appender = await db.appender(table, [{ name: columns[0], type: 'integer' }, { name: columns[1], type: 'integer' }], 'temp');
  try {
    appender.appendColumns([Uint32Array.from(counts.keys()), counts]);
  } finally {
    appender.close();
  }
}

/** A peg-in's anonymity set: peg-ins within ±tolerance and within the horizon on either side. */
export function pegInSetBoxes(pegins: Pegs, tolerance: number, horizon: number): Boxes {
  return {
    amountLow: pegins.amount.map((a) => a - tolerance), amountHigh: pegins.amount.map((a) => a + tolerance),
    heightLow: pegins.height.map((h) => h - horizon), heightHigh: pegins.height.map((h) => h + horizon),
  };
}

/** A peg-out's window: peg-ins in [A, A + tolerance] in the horizon's blocks before it. */
export function pegOutWindowBoxes(pegouts: Pegs, tolerance: number, horizon: number): Boxes {
  return {
    amountLow: pegouts.amount, amountHigh: pegouts.amount.map((a) => a + tolerance),
    heightLow: pegouts.height.map((h) => h - horizon), heightHigh: pegouts.height.map((h) => h - 1),
  };
}

export async function fillHorizonCounts(db: Db, tolerance: number, horizon: number): Promise<void> {
  const pegins: Points = await readPegs(db, 'w_pegin_ids', 'id');
  const pegouts = await readPegs(db, 'w_pegout_ids', 'orid');
  await writeCounts(db, 'w_pegin_sets', ['id', 'anonymity_set'], countInBoxes(pegins, pegInSetBoxes(pegins, tolerance, horizon)));
  await writeCounts(db, 'w_pegout_windows', ['orid', 'window_count'], countInBoxes(pegins, pegOutWindowBoxes(pegouts, tolerance, horizon)));
}
