/**
 * `api/amounts.json` (docs/amounts.md): the a_amounts rows in the wallet
 * client's format (packages/client/src/amount-table.ts; the encoder is
 * src/api/amount-table-encode.ts), in the common
 * envelope, with the tolerance and horizon the analysis ran with.
 */
import { DEFAULT_TOLERANCE, ROUNDING_SIGNIFICANT_DIGITS, type AmountTableFile, type Litoshi } from '@pegscope/client';
import { buildAmountCounts, encodeAmountTable } from '../api/amount-table-encode.js';
import type { AnalysisStamp } from '../api/envelope.js';
import { fromBigint } from '../domain/amount.js';
import type { Queryable } from '../store/db.js';

export { AMOUNT_TABLE_PATH } from '../api/release-files.js';

/** The a_meta keys the table states (written by analyze; an older analysis lacks them). */
interface BuildMeta {
  tolerance: Litoshi;
  horizon_blocks: number | null;
}

/** a_meta's `tolerance` (litoshi) and `horizon_blocks` as integer strings; DEFAULT_TOLERANCE and null when absent. */
export function buildMetaOf(rows: readonly { key: string; value: string }[]): BuildMeta {
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  const integer = (key: string): number | null => {
    const text = meta.get(key);
    if (text === undefined) return null;
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value <= 0) throw new Error(`a_meta ${key} is ${JSON.stringify(text)}, not a positive integer; re-run \`pegscope analyze\``);
    return value;
  };
  return { tolerance: integer('tolerance') ?? DEFAULT_TOLERANCE, horizon_blocks: integer('horizon_blocks') };
}

export async function amountTableFile(db: Queryable, stamp: AnalysisStamp): Promise<AmountTableFile> {
  const meta = buildMetaOf(await db.all<{ key: string; value: string }>("SELECT key, value FROM a_meta WHERE key IN ('tolerance', 'horizon_blocks')"));
  const rows = await db.all<{ side: string; amount: bigint; count: bigint }>('SELECT side, amount, count FROM a_amounts ORDER BY side, amount');
  const side = (name: string) => rows.filter((r) => r.side === name).map((r) => [fromBigint(r.amount), Number(r.count)] as const);
  return encodeAmountTable(
    { network: stamp.network, as_of_height: stamp.as_of_height, updated_at: stamp.updated_at, horizon_blocks: meta.horizon_blocks, rounding_digits: ROUNDING_SIGNIFICANT_DIGITS },
    buildAmountCounts({ pegin: side('pegin'), pegout: side('pegout'), tolerance: meta.tolerance }),
  );
}
