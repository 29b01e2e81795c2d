/**
 * Fills the horizon's box counts (01_w_horizon.sql) with box-count.ts: the
 * peg-ins and peg-outs come out of DuckDB as (id, height, amount) columns and
 * the counts go back through an appender.
 */
import type { Db } from '../store/db.js';
import { countInBoxes, type Boxes, type Points } from './box-count.js';

interface Pegs extends Points { id: Int32Array }

/** Which pegs a run counts for (heights; below the chain in a full run): peg-ins' anonymity sets and peg-outs' windows. */
export interface CountFrom { sets: number; windows: number }

/** The pegs of `table` at or above height `from`. */
async function readPegs(db: Db, table: string, id: string, from: number): Promise<Pegs> {
  const n = Number((await db.one<{ n: bigint }>(`SELECT count(*) AS n FROM ${table} WHERE height >= $1`, [from]))!.n);
  const pegs: Pegs = { id: new Int32Array(n), amount: new Float64Array(n), height: new Int32Array(n) };
  let i = 0;
  for await (const rows of db.stream(`SELECT ${id}, height, amount FROM ${table} WHERE height >= $1`, [from])) {
    for (const [pegId, height, amount] of rows) {
      pegs.id[i] = Number(pegId);
      pegs.height[i] = Number(height);
      pegs.amount[i] = Number(amount);
      i++;
    }
  }
  return pegs;
}

/** The pegs at or above height `from`. */
function pegsFrom(pegs: Pegs, from: number): Pegs {
  const keep = (_: number, i: number): boolean => pegs.height[i]! >= from;
  return { id: pegs.id.filter(keep), amount: pegs.amount.filter(keep), height: pegs.height.filter(keep) };
}

async function writeCounts(db: Db, table: string, columns: [string, string], ids: Int32Array, counts: Uint32Array): Promise<void> {
  const appender = await db.appender(table, [{ name: columns[0], type: 'integer' }, { name: columns[1], type: 'integer' }], 'temp');
  try {
    appender.appendColumns([ids, counts]);
  } finally {
    appender.close();
  }
}

/**
 * A peg-in's anonymity set: peg-ins within ±tolerance in the horizon's blocks
 * up to and including its own, the amount table of its height (03_a_amounts.sql).
 */
export function pegInSetBoxes(pegins: Points, tolerance: number, horizon: number): Boxes {
  return {
    amountLow: pegins.amount.map((a) => a - tolerance), amountHigh: pegins.amount.map((a) => a + tolerance),
    heightLow: pegins.height.map((h) => h - horizon), heightHigh: pegins.height,
  };
}

/** A peg-out's window: peg-ins in [A, A + tolerance] in the horizon's blocks before it. */
export function pegOutWindowBoxes(pegouts: Points, tolerance: number, horizon: number): Boxes {
  return {
    amountLow: pegouts.amount, amountHigh: pegouts.amount.map((a) => a + tolerance),
    heightLow: pegouts.height.map((h) => h - horizon), heightHigh: pegouts.height.map((h) => h - 1),
  };
}

/** Counts for the pegs `from` names, over the peg-ins their boxes can reach (a box spans at most the horizon below its peg). */
export async function fillHorizonCounts(db: Db, tolerance: number, horizon: number, from: CountFrom): Promise<void> {
  const pegins = await readPegs(db, 'w_pegin_ids', 'id', Math.min(from.sets, from.windows) - horizon);
  const pegouts = await readPegs(db, 'w_pegout_ids', 'orid', from.windows);
  const counted = pegsFrom(pegins, from.sets);
  await writeCounts(db, 'w_pegin_sets', ['id', 'anonymity_set'], counted.id, countInBoxes(pegins, pegInSetBoxes(counted, tolerance, horizon)));
  await writeCounts(db, 'w_pegout_windows', ['orid', 'window_count'], pegouts.id, countInBoxes(pegins, pegOutWindowBoxes(pegouts, tolerance, horizon)));
}
