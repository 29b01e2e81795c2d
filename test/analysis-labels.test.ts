import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importLabels } from '../src/analysis/labels.js';
import { NETWORKS } from '../src/domain/network.js';
import { Db } from '../src/store/db.js';

// Real regtest addresses from the recorded fixture (valid for sim and regtest).
const EXCHANGE = 'rltc1qrzeet95v2p4dlwx7t6w6d5mq6j9zcsxl6ty78w';
const MINER = 'rltc1qw4v2ym8cupwazjwhqhe95ldy7emh4zlhcvfyl6';
const MAINNET = 'ltc1q5kg4gaxaqzr33y8r099j0u5xp8fypn8jg6ht4e';

const dir = mkdtempSync(join(tmpdir(), 'pegscope-labels-'));
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

let db: Db | undefined;
afterEach(() => { db?.close(); db = undefined; });

describe('importLabels', () => {
  it('keeps valid CSV rows and rejects the others with their line numbers', async () => {
    db = await Db.open(':memory:');
    const csv = file('labels.csv', [
      'address,entity,category,confidence,source',
      `${EXCHANGE},"Big Exchange, Inc.",exchange,0.95,manual`,
      'EXAMPLE-address,Placeholder,exchange,1,docs',
      `${MAINNET},Wrong Network,exchange,0.5,manual`,
      `${MINER},Someone,wizard,0.5,manual`,
      `${MINER},Someone,other,1.5,manual`,
      '',
      `${MINER},Miner,pool,0.8,`,
    ].join('\n'));
    const result = await importLabels(db, [csv], NETWORKS.sim);
    expect(result.imported).toBe(2);
    expect(result.ignored).toBe(1);
    expect(result.rejected).toEqual([
      { file: csv, line: 4, reason: `address "${MAINNET}" is not a valid sim address` },
      { file: csv, line: 5, reason: 'unknown category "wizard"; allowed: exchange, service, pool, mixer, gambling, merchant, sanctioned, other' },
      { file: csv, line: 6, reason: 'confidence "1.5" is not a number between 0 and 1' },
    ]);
    expect(await db.all('SELECT address, entity, category, confidence, source FROM labels ORDER BY address')).toEqual([
      { address: EXCHANGE, entity: 'Big Exchange, Inc.', category: 'exchange', confidence: 0.95, source: 'manual' },
      { address: MINER, entity: 'Miner', category: 'pool', confidence: 0.8, source: 'labels.csv' },
    ]);
  });

  it('reads JSON labels with the line each entry starts on and upserts by address and source', async () => {
    db = await Db.open(':memory:');
    await importLabels(db, [file('a.csv', `address,entity,category,confidence,source\n${EXCHANGE},Old Name,exchange,0.5,feed\n`)], NETWORKS.sim);
    const json = file('labels.json', JSON.stringify({
      labels: [
        { address: EXCHANGE, entity: 'New Name', category: 'exchange', confidence: 0.9, source: 'feed' },
        { address: 'not-an-address', entity: 'X', category: 'exchange', confidence: 0.9, source: 'feed' },
        { address: MINER, entity: 'Mixer', category: 'mixer', confidence: -0.1, source: 'feed' },
      ],
    }, null, 2));
    const result = await importLabels(db, [json], NETWORKS.sim);
    expect(result.imported).toBe(1);
    expect(result.rejected.map((r) => [r.line, r.reason.split(' ')[0]])).toEqual([[10, 'address'], [17, 'confidence']]);
    expect(await db.all('SELECT entity, confidence FROM labels')).toEqual([{ entity: 'New Name', confidence: 0.9 }]);
  });

  it('rejects a CSV file without the header, naming the required columns', async () => {
    db = await Db.open(':memory:');
    const csv = file('nohead.csv', `${EXCHANGE},X,exchange,0.5,manual\n`);
    const result = await importLabels(db, [csv], NETWORKS.sim);
    expect(result.imported).toBe(0);
    expect(result.rejected).toHaveLength(1);
    expect(result.rejected[0]!.reason).toMatch(/header must name the columns address,entity,category,confidence,source/);
  });
});
