/**
 * Storing a batch: its rows appended to the base tables (declared by column
 * name), the peg-ins' source addresses set, and the cursor moved, in one
 * transaction.
 */
import type { Litoshi } from '../domain/amount.js';
import type { Batch } from './batch.js';
import { readSql, type AppendColumn, type Cell, type ColumnType, type Db } from './db.js';

const PEGIN_SOURCES = readSql(import.meta.url, 'scan-pegin-sources.sql');

const cols = (spec: string): AppendColumn[] => spec.split(/\s*,\s*/).map((c) => {
  const [name, type] = c.split(' ');
  return { name: name!, type: type as ColumnType };
});
/** The base tables' columns in schema.sql order; the appender checks them against the database. */
const BLOCK_COLUMNS = cols('height integer, hash varchar, prev_hash varchar, time bigint, tx_count integer, supply bigint, hogex_txid varchar, '
  + 'pegin_count integer, pegout_count integer, pegin_total bigint, pegout_total bigint, mweb_num_txos bigint, mweb_num_kernels integer, '
  + 'coinbase_address varchar, coinbase_tag varchar');
const PEGIN_COLUMNS = cols('txid varchar, vout integer, height integer, block_time bigint, amount bigint, kernel_id varchar, input_count integer, source_address varchar');
const INPUT_COLUMNS = cols('pegin_txid varchar, n integer, height integer, prev_txid varchar, prev_vout integer, address varchar, value bigint');
const PEGOUT_COLUMNS = cols('txid varchar, vout integer, height integer, block_time bigint, amount bigint, address varchar, script_hex varchar');

/** Sum of the amounts, without an intermediate array per block. */
function sumAmounts(items: readonly { amount: Litoshi }[]): Litoshi {
  let total = 0;
  for (const item of items) total += item.amount;
  return total;
}

/** One transaction: the batch's rows, the peg-in sources, the cursor. */
export async function storeBatch(db: Db, batch: Batch): Promise<void> {
  const heightOf = new Map<string, number>();
  const blockRows: Cell[][] = [], peginRows: Cell[][] = [], pegoutRows: Cell[][] = [];
  const inputCount = new Map<string, number>();
  for (const { block } of batch.blocks) for (const p of block.pegins) inputCount.set(p.txid, p.inputs.length);
  for (const { height, block: b } of batch.blocks) {
    blockRows.push([height, b.hash, b.prevHash, b.time, b.txCount, b.supply, b.hogexTxid, b.pegins.length, b.pegouts.length,
      sumAmounts(b.pegins), sumAmounts(b.pegouts), b.mweb?.numTxos ?? null, b.mweb?.numKernels ?? null,
      b.coinbase.address, b.coinbase.tag]);
    for (const p of b.pegins) {
      heightOf.set(p.txid, height);
      peginRows.push([p.txid, p.vout, height, b.time, p.amount, p.kernelId, inputCount.get(p.txid)!, null]);
    }
    for (const p of b.pegouts) pegoutRows.push([p.txid, p.vout, height, b.time, p.amount, p.address, p.scriptHex]);
  }
  const inputRows: Cell[][] = batch.inputs.map((i) => [i.peginTxid, i.n, heightOf.get(i.peginTxid)!, i.prevTxid, i.prevVout, i.address, i.value]);

  await db.transaction(async () => {
    await append(db, 'blocks', BLOCK_COLUMNS, blockRows);
    await append(db, 'pegins', PEGIN_COLUMNS, peginRows);
    await append(db, 'pegin_inputs', INPUT_COLUMNS, inputRows);
    await append(db, 'pegouts', PEGOUT_COLUMNS, pegoutRows);
    if (peginRows.length > 0) await db.exec(PEGIN_SOURCES, [batch.from, batch.to]);
    await db.setMeta('cursor_height', String(batch.to));
  });
}

async function append(db: Db, table: string, columns: AppendColumn[], rows: Cell[][]): Promise<void> {
  if (rows.length === 0) return;
  const appender = await db.appender(table, columns);
  try {
    for (const row of rows) appender.append(row);
  } finally {
    appender.close();
  }
}
