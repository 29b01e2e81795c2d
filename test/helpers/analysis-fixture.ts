import type { Db } from '../../src/store/db.js';
import { LITOSHI_PER_COIN } from '../../src/domain/amount.js';

/** Hand-built base rows for analysis tests, inserted straight into the schema of src/store/schema.sql. */
export interface PeginRow { txid: string; vout?: number; height: number; amount: number; inputs: string[] }
export interface PegoutRow { txid: string; vout: number; height: number; amount: number; address: string }

/** One coin in litoshi, from the registry like every other constant the tests use. */
export const COIN = LITOSHI_PER_COIN;

/** A 64-hex id from a short name, so tests read as names. */
export function txid(name: string): string {
  return Buffer.from(name).toString('hex').padEnd(64, '0').slice(0, 64);
}

export async function insertChain(db: Db, tip: number, pegins: PeginRow[], pegouts: PegoutRow[]): Promise<void> {
  await db.exec(`INSERT INTO blocks SELECT range, 'h' || range, 'p' || range, 1700000000 + range * 150, 1, NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL FROM range(1, ${tip + 1})`);
  for (const p of pegins) {
    const share = Math.floor(p.amount / p.inputs.length);
    await db.exec('INSERT INTO pegins VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [p.txid, p.vout ?? 0, p.height, 1700000000 + p.height * 150, p.amount, 'k' + p.txid, p.inputs.length, p.inputs[0] ?? null]);
    for (const [n, address] of p.inputs.entries()) {
      await db.exec('INSERT INTO pegin_inputs VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [p.txid, n, p.height, txid(`prev-${p.txid}-${n}`), 0, address, share + 2_000]);
    }
  }
  for (const o of pegouts) {
    await db.exec('INSERT INTO pegouts VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [o.txid, o.vout, o.height, 1700000000 + o.height * 150, o.amount, o.address, '0014' + '00'.repeat(20)]);
  }
  await db.exec("INSERT OR REPLACE INTO meta VALUES ('cursor_height', $1), ('network', 'sim')", [String(tip)]);
}
