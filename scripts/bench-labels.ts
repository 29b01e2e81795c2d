/**
 * npm run bench:labels [-- --megabytes 4 --oversized 100]
 *
 * Wall time and peak RSS of `labels import` of one GraphSense TagPack in the
 * shape of graphsense-tagpacks' packs (each tag its own currency, one in 20
 * Litecoin): a pack of the size the importer reads at most
 * (MAX_TAGPACK_BYTES, docs/labels.md), and an oversized one, which must be
 * refused in under a second. Targets: a pack at the limit under 1 GB RSS;
 * the oversized one refused within 1 s. The same-run baseline is a pack of
 * 1 MB: the ratio shows how time and memory grow with the pack. Each import
 * runs in its own child process, so each peak RSS is that import's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importLabels } from '../src/analysis/labels.js';
import { MAX_TAGPACK_BYTES } from '../src/analysis/label-tagpack.js';
import { decodeScript } from '../src/domain/address.js';
import { NETWORKS } from '../src/domain/network.js';
import { Db } from '../src/store/db.js';
import { benchFlags, peakRssMb, secondsSince } from './lib/bench.js';

interface Measurement { seconds: number; maxRssMb: number; imported: number; otherCurrency: number; refused: string | null }

const MB = 1_000_000;
const TARGET_RSS_MB = 1024;
const TARGET_REFUSAL_SECONDS = 1;
/** One tag in this many is a Litecoin tag, as in a pack mostly of other currencies. */
const LITECOIN_EVERY = 20;

/** A mainnet P2PKH address of a 20-byte hash made from `n`. */
function litecoinAddress(n: number): string {
  const hash = new Uint8Array(20);
  new DataView(hash.buffer).setUint32(0, n + 1);
  return decodeScript(Uint8Array.from([0x76, 0xa9, 0x14, ...hash, 0x88, 0xac]), NETWORKS.mainnet).address!;
}

/** A TagPack of at most `bytes` bytes, filled with tags. */
function writePack(path: string, bytes: number): void {
  const parts = ['title: Bench pack\ncreator: bench:labels\nlabel: Bench Exchange\ncategory: exchange\nconfidence: service_data\nsource: https://bench.invalid/\ntags:\n'];
  let size = parts[0]!.length;
  for (let i = 0; ; i++) {
    const tag = i % LITECOIN_EVERY === 0
      ? `- address: ${litecoinAddress(i)}\n  currency: LTC\n`
      : `- address: '1Bench${String(i).padStart(28, '0')}'\n  currency: BTC\n`;
    if (size + tag.length > bytes) break;
    parts.push(tag);
    size += tag.length;
  }
  writeFileSync(path, parts.join(''));
}

/** Child mode: import one pack into a new in-memory database and print the measurement as JSON. */
async function child(pack: string): Promise<void> {
  const started = performance.now();
  const db = await Db.open(':memory:');
  const result = await importLabels(db, [pack], NETWORKS.mainnet, { format: 'tagpack', public: true });
  const seconds = secondsSince(started);
  db.close();
  const refused = result.rejected.find((r) => r.cause === 'file')?.reason ?? null;
  const measurement: Measurement = { seconds, maxRssMb: peakRssMb(), imported: result.imported, otherCurrency: result.skipped.otherCurrency, refused };
  process.stdout.write(`${JSON.stringify(measurement)}\n`);
}

function measure(pack: string): Measurement {
  const run = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', pack], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`bench:labels child failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as Measurement;
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--child') return child(argv[1]!);
  const flags = benchFlags('bench:labels', 'Wall time and peak RSS of importing one TagPack at the size limit, and of refusing an oversized one.', {
    megabytes: { type: 'optional-integer', help: 'size of the pack that is read, in MB (default: MAX_TAGPACK_BYTES, the most that is read)' },
    oversized: { type: 'integer', default: 100, help: 'size of the pack that must be refused (MB)' },
  }, argv);
  const limitBytes = Math.min(flags.megabytes === undefined ? MAX_TAGPACK_BYTES : flags.megabytes * MB, MAX_TAGPACK_BYTES);
  const dir = mkdtempSync(join(tmpdir(), 'pegscope-bench-labels-'));
  try {
    const packs = { baseline: join(dir, 'baseline.yaml'), limit: join(dir, 'limit.yaml'), oversized: join(dir, 'oversized.yaml') };
    writePack(packs.baseline, MB);
    writePack(packs.limit, limitBytes);
    writePack(packs.oversized, flags.oversized * MB);
    const baseline = measure(packs.baseline);
    const limit = measure(packs.limit);
    const oversized = measure(packs.oversized);
    const line = (name: string, mb: number, m: Measurement) => console.log(`  ${name} (${mb.toFixed(1)} MB): ${m.seconds.toFixed(2)} s wall, peak RSS ${m.maxRssMb.toFixed(0)} MB, `
      + (m.refused ? `refused: ${m.refused}` : `${m.imported} labels imported, ${m.otherCurrency} tags of other currencies`));
    console.log(`TagPack import (limit MAX_TAGPACK_BYTES = ${(MAX_TAGPACK_BYTES / MB).toFixed(1)} MB)`);
    line('baseline', 1, baseline);
    line('at the limit', limitBytes / MB, limit);
    line('oversized', flags.oversized, oversized);
    console.log(`  ratio at the limit / baseline: ×${(limit.seconds / baseline.seconds).toFixed(1)} time, ×${(limit.maxRssMb / baseline.maxRssMb).toFixed(1)} RSS`);
    console.log(`  targets: at the limit < ${TARGET_RSS_MB} MB RSS (${limit.maxRssMb < TARGET_RSS_MB && !limit.refused ? 'met' : 'MISSED'}), `
      + `oversized refused < ${TARGET_REFUSAL_SECONDS} s (${oversized.refused && oversized.seconds < TARGET_REFUSAL_SECONDS ? 'met' : 'MISSED'})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main(process.argv.slice(2));
