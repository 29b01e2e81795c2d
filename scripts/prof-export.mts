import { copyFileSync, rmSync } from 'node:fs';
import { analyze } from '../src/analysis/analyze.js';
import { exportRelease } from '../src/export/export.js';
import { Db } from '../src/store/db.js';

const [base, next, out] = process.argv.slice(2) as [string, string, string];
rmSync(out, { recursive: true, force: true });
const run = async (file: string, label: string, now: number) => {
  const copy = `${out}-${label}.duckdb`;
  copyFileSync(file, copy);
  const db = await Db.open(copy);
  let t = performance.now();
  await analyze(db, { now });
  console.log(`${label} analyze ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  const start = t;
  await exportRelease(db, { outDir: out, log: (l) => console.log(`  ${label} log ${((performance.now() - start) / 1000).toFixed(1)} ${l.slice(0, 150)}`), onStep: (s) => {
    const n = performance.now();
    if (!s.includes(':') || s.split(':').length < 4) console.log(`  ${label} step ${s} +${((n - t) / 1000).toFixed(1)} s`);
    t = n;
  } });
  db.close();
  rmSync(copy);
};
await run(base, 'base', 1_900_000_000);
await run(next, 'next', 1_900_000_150);
