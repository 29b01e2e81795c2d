/**
 * Fills the horizon's counts (01_w_horizon.sql) with box-count.ts: the
 * peg-ins and peg-outs come out of DuckDB as (id, height, amount) columns and
 * the counts go back through an appender.
 */
import type { Db } from '../store/db.js';
import { countInWindows, type Points, type Windows } from './box-count.js';

interface Pegs extends Points { id: Float64Array }

/** Which pegs a run counts for (heights; below the chain in a full run): peg-ins' anonymity sets and peg-outs' windows. */
export interface CountFrom { sets: number; windows: number }

/** The pegs of `table` at or above height `from`, in amount order (countInWindows ranks amounts by it). */
async function readPegs(db: Db, table: string, id: string, from: number): Promise<Pegs> {
  const [ids, heights, amounts] = await db.numberColumns(`SELECT ${id}, height, amount FROM ${table} WHERE height >= $1 ORDER BY amount`, [from]);
  return { id: ids!, height: Int32Array.from(heights!), amount: amounts! };
}

/** The pegs at or above height `from`. */
function pegsFrom(pegs: Pegs, from: number): Pegs {
  const keep = (_: number, i: number): boolean => pegs.height[i]! >= from;
  return { id: pegs.id.filter(keep), amount: pegs.amount.filter(keep), height: pegs.height.filter(keep) };
}

async function writeCounts(db: Db, table: string, columns: [string, string], ids: Float64Array, counts: Uint32Array): Promise<void> {
  const appender = await db.appender(table, [{ name: columns[0], type: 'integer' }, { name: columns[1], type: 'integer' }], 'temp');
  try {
    appender.appendColumns([ids, counts]);
  } finally {
    appender.close();
  }
}

/**
 * A peg-in's anonymity set: peg-ins within ±tolerance in the horizon's blocks
 * before it and its own (H + 1 blocks), the amount table of its height (03_a_amounts.sql).
 */
export function pegInSetWindows(pegins: Points, tolerance: number, horizon: number): { windows: Windows; length: number } {
  return {
    windows: { amountLow: pegins.amount.map((a) => a - tolerance), amountHigh: pegins.amount.map((a) => a + tolerance), top: pegins.height },
    length: horizon + 1,
  };
}

/** A peg-out's window: peg-ins in [A, A + tolerance] in the horizon's blocks before it. */
export function pegOutWindows(pegouts: Points, tolerance: number, horizon: number): { windows: Windows; length: number } {
  return {
    windows: { amountLow: pegouts.amount, amountHigh: pegouts.amount.map((a) => a + tolerance), top: pegouts.height.map((h) => h - 1) },
    length: horizon,
  };
}

/** Counts for the pegs `from` names, over the peg-ins their windows can reach (at most the horizon below a peg). */
export async function fillHorizonCounts(db: Db, tolerance: number, horizon: number, from: CountFrom): Promise<void> {
  const pegins = await readPegs(db, 'w_pegin_ids', 'id', Math.min(from.sets, from.windows) - horizon);
  const pegouts = await readPegs(db, 'w_pegout_ids', 'orid', from.windows);
  const counted = pegsFrom(pegins, from.sets);
  const sets = pegInSetWindows(counted, tolerance, horizon);
  const windows = pegOutWindows(pegouts, tolerance, horizon);
  await writeCounts(db, 'w_pegin_sets', ['id', 'anonymity_set'], counted.id, countInWindows(pegins, sets.windows, sets.length));
  await writeCounts(db, 'w_pegout_windows', ['orid', 'window_count'], pegouts.id, countInWindows(pegins, windows.windows, windows.length));
}
