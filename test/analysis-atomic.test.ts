import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../src/analysis/analyze.js';
import { Db } from '../src/store/db.js';
import { insertChain, txid } from './helpers/analysis-fixture.js';

const CHILD = join(import.meta.dirname, 'helpers', 'analyze-child.ts');

/** Runs the child until it reports it is paused mid-analysis, then SIGKILLs it. */
function killMidAnalysis(dbPath: string, pauseAfter: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dbPath, pauseAfter], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('paused')) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve();
      else reject(new Error(`analysis child exited (${code}) before it was killed: ${stderr}`));
    });
  });
}

const snapshot = (db: Db) => Promise.all([
  db.all('SELECT pegout_txid, pegin_txid, confidence FROM a_links ORDER BY ALL'),
  db.all('SELECT * FROM a_meta ORDER BY key'),
  db.all('SELECT * FROM a_stats ORDER BY key'),
  db.all('SELECT * FROM a_amounts ORDER BY ALL'),
]);

describe('analysis atomicity', () => {
  it.each([
    ['while building the new tables', '08_a_attribution'],
    ['half-way through publishing them (inside the transaction)', 'publish:a_links'],
  ])('an analysis killed %s leaves the previous results intact', async (_when, pauseAfter) => {
    const path = join(mkdtempSync(join(tmpdir(), 'pegscope-atomic-')), 'atomic.duckdb');
    let db = await Db.open(path);
    await insertChain(db, 300, [{ txid: txid('first'), height: 110, amount: 123_456_789, inputs: ['A1'] }],
      [{ txid: txid('first-out'), vout: 1, height: 150, amount: 123_456_789 - 6_410, address: 'B1' }]);
    await analyze(db, { now: 1_000 });
    const before = await snapshot(db);
    expect(before[0]).toHaveLength(1);
    // New chain data: the old round trip disappears, another one arrives.
    await db.exec('DELETE FROM pegouts');
    await insertChain(db, 0, [{ txid: txid('second'), height: 200, amount: 987_654_321, inputs: ['C1'] }],
      [{ txid: txid('second-out'), vout: 1, height: 250, amount: 987_654_321 - 6_410, address: 'D1' }]);
    await db.setMeta('cursor_height', '300');
    // As the scanner would see it: blocks below the tip change only in a reorg, which replaces the tip too.
    await db.exec("UPDATE blocks SET hash = 'h300-reorged' WHERE height = 300");
    db.close();

    await killMidAnalysis(path, pauseAfter);

    db = await Db.open(path);
    expect(await snapshot(db)).toEqual(before);
    const rerun = await analyze(db, { now: 2_000 });
    expect(rerun.links).toBe(1);
    expect(await db.all('SELECT pegin_txid FROM a_links')).toEqual([{ pegin_txid: txid('second') }]);
    expect(await db.one('SELECT value FROM a_meta WHERE key = $1', ['updated_at'])).toEqual({ value: '2000' });
    db.close();
  });
});
