/**
 * npm run bench:amounts [-- --presets mainnet,x10 --seed 7]
 *
 * The size of api/amounts.json as a wallet downloads it (gzip and brotli, as
 * the release's .gz/.br siblings and the router send it) on the simulated
 * presets, in the published format (delta-encoded amounts, counts) next to
 * the previous one ([amount, count] pairs) of the same rows. Target: under
 * 100 KB gzipped at mainnet.
 *
 * The rows are a_amounts' query (src/analysis/03_a_amounts.sql: every
 * distinct amount per side with its count) over the scanned pegs, for all
 * time (the table of an analysis without a horizon; checked against
 * a_amounts when the database was analysed) and for the last H blocks of a
 * few horizons (docs/methodology.md: the table counts the last H blocks).
 * The scanned databases are cached under .bench/ (scripts/lib/sim-cache.ts).
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { parseAmountTable, type AmountCounts } from '@pegscope/client';
import { buildAmountCounts, encodeAmountTable } from '../src/api/amount-table-encode.js';
import type { SimPresetName } from '../src/chain/sim/index.js';
import { fromBigint } from '../src/domain/amount.js';
import type { Db } from '../src/store/db.js';
import { benchFlags, simPresets } from './lib/bench.js';
import { cachedSimDb } from './lib/sim-cache.js';

const TARGET_GZIP = 100_000;
const DAY_BLOCKS = 576;
/** Horizons within the 30 to 90 days docs/methodology.md allows, and all time. */
const HORIZONS: (number | null)[] = [null, 90 * DAY_BLOCKS, 60 * DAY_BLOCKS, 30 * DAY_BLOCKS];

interface Sizes { json: number; gzip: number; brotli: number }

const sizes = (text: string): Sizes => ({
  json: Buffer.byteLength(text),
  gzip: gzipSync(text, { level: 9 }).length,
  brotli: brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
});

async function countsOf(db: Db, fromHeight: number): Promise<AmountCounts> {
  const rows = await db.all<{ side: string; amount: bigint; count: bigint }>(`
    SELECT 'pegin' AS side, amount, count(*) AS count FROM pegins WHERE height >= $1 GROUP BY amount
    UNION ALL
    SELECT 'pegout' AS side, amount, count(*) AS count FROM pegouts WHERE height >= $1 GROUP BY amount`, [fromHeight]);
  const side = (name: string) => rows.filter((r) => r.side === name).map((r) => [fromBigint(r.amount), Number(r.count)] as const);
  return buildAmountCounts({ pegin: side('pegin'), pegout: side('pegout') });
}

/** The distinct amounts a_amounts holds, when the database was analysed (null otherwise). */
async function analysedRows(db: Db): Promise<number | null> {
  const row = await db.one<{ n: bigint }>('SELECT count(*) AS n FROM a_amounts').catch(() => undefined);
  return row ? Number(row.n) : null;
}

const kb = (bytes: number): string => `${(bytes / 1000).toFixed(1)} KB`;

async function benchPreset(preset: SimPresetName, seed: number): Promise<boolean> {
  const { db } = await cachedSimDb(preset, seed);
  let ok = true;
  try {
    const tip = Number((await db.one<{ h: number | bigint }>('SELECT max(height) AS h FROM blocks'))?.h ?? 0);
    const analysed = await analysedRows(db);
    console.log(`\n${preset} (seed ${seed}), tip ${tip}`);
    console.log('horizon        pegs    distinct  | pairs (old): json    gzip     br    | deltas (published): json    gzip     br   | gzip ratio');
    for (const horizon of HORIZONS) {
      const counts = await countsOf(db, horizon === null ? 0 : tip - horizon + 1);
      const distinct = counts.pegin.length + counts.pegout.length;
      if (horizon === null && analysed !== null && analysed !== distinct) throw new Error(`the all-time rows (${distinct}) differ from a_amounts (${analysed})`);
      const pegs = [...counts.pegin, ...counts.pegout].reduce((sum, [, n]) => sum + n, 0);
      const facts = { network: 'sim' as const, as_of_height: tip, updated_at: 1_800_000_000, horizon_blocks: horizon, rounding_digits: 2 };
      const published = JSON.stringify(encodeAmountTable(facts, counts));
      // The same rows as the previous format wrote them.
      const pairs = JSON.stringify({ version: 1, tolerance: counts.tolerance, rounding: { rule: 'significant-digits', digits: 2 }, pegin: counts.pegin, pegout: counts.pegout });
      // The published text decodes back to the same rows (a wallet's view).
      const decoded = parseAmountTable(published, { network: 'sim' }).table;
      if (decoded.pegin.length !== counts.pegin.length || decoded.pegout.length !== counts.pegout.length) throw new Error('the published table does not decode to its rows');
      const old = sizes(pairs);
      const now = sizes(published);
      const label = horizon === null ? 'all time' : `${horizon / DAY_BLOCKS} days`;
      console.log(`${label.padEnd(12)} ${String(pegs).padStart(7)} ${String(distinct).padStart(9)}   | ${kb(old.json).padStart(20)} ${kb(old.gzip).padStart(8)} ${kb(old.brotli).padStart(8)} | ${kb(now.json).padStart(25)} ${kb(now.gzip).padStart(8)} ${kb(now.brotli).padStart(8)} | ${(now.gzip / old.gzip).toFixed(2)}`);
      if (preset === 'mainnet' && horizon !== null && now.gzip >= TARGET_GZIP) ok = false;
    }
  } finally {
    db.close();
  }
  return ok;
}

async function main(): Promise<void> {
  const flags = benchFlags('bench:amounts', 'Size of api/amounts.json (gzip, brotli) on simulated presets, next to the previous format.', {
    presets: { type: 'string', default: 'mainnet,x10', help: 'comma-separated sim presets' },
    seed: { type: 'integer', default: 7, help: 'sim seed' },
  });
  const presets = simPresets('bench:amounts', flags.presets);
  const { seed } = flags;
  let ok = true;
  for (const preset of presets) ok = (await benchPreset(preset, seed)) && ok;
  console.log(`\ntarget: under ${kb(TARGET_GZIP)} gzipped at mainnet for a horizon of 30 to 90 days: ${ok ? 'met' : 'MISSED'}`);
  if (!ok) process.exitCode = 1;
}

await main();
