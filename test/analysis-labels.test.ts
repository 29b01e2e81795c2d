import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importLabels, importSummary, type ImportOptions, type ImportResult } from '../src/analysis/labels.js';
import { MAX_ENTITY_CHARS, MAX_SOURCE_CHARS } from '../src/analysis/label-check.js';
import { LABEL_CATEGORY_NAMES } from '../src/domain/model.js';
import { NETWORKS } from '../src/domain/network.js';
import { Db } from '../src/store/db.js';

// Real regtest addresses from the recorded fixture (valid for sim and regtest).
const EXCHANGE = 'rltc1qrzeet95v2p4dlwx7t6w6d5mq6j9zcsxl6ty78w';
const MINER = 'rltc1qw4v2ym8cupwazjwhqhe95ldy7emh4zlhcvfyl6';
const MAINNET = 'ltc1q5kg4gaxaqzr33y8r099j0u5xp8fypn8jg6ht4e';
const HEADER = 'address,entity,category,confidence,source';
const ALLOWED_CONFIDENCE = 'write a plain decimal number from 0 to 1, such as 0.8';

const dir = mkdtempSync(join(tmpdir(), 'pegscope-labels-'));
let fileCount = 0;
function file(name: string, content: string): string {
  const path = join(dir, `${fileCount++}-${name}`);
  writeFileSync(path, content);
  return path;
}
const csvFile = (...rows: string[]): string => file('labels.csv', [HEADER, ...rows].join('\n'));
const jsonFile = (labels: unknown[]): string => file('labels.json', JSON.stringify({ labels }, null, 2));
const entry = (fields: Record<string, unknown>) => ({ address: EXCHANGE, entity: 'Big Exchange', category: 'exchange', confidence: 0.9, source: 'feed', ...fields });

let db: Db | undefined;
afterEach(() => { db?.close(); db = undefined; });

/** The checks are what these tests look at: the valid rows are imported beside the rejected ones (--skip-invalid). */
async function importFiles(...files: string[]): Promise<ImportResult> {
  return importWith({ skipInvalid: true }, ...files);
}
async function importWith(opts: ImportOptions, ...files: string[]): Promise<ImportResult> {
  db = await Db.open(':memory:');
  return importLabels(db, files, NETWORKS.sim, opts);
}
/** [line, reason] of each rejection. */
const reasons = (result: ImportResult): [number, string][] => result.rejected.map((r) => [r.line, r.reason]);

describe('importLabels', () => {
  it('keeps valid CSV rows and rejects the others with their line numbers', async () => {
    const csv = csvFile(
      `${EXCHANGE},"Big Exchange, Inc.",exchange,0.95,manual`,
      'EXAMPLE-address,Placeholder,exchange,1,docs',
      `${MAINNET},Wrong Network,exchange,0.5,manual`,
      `${MINER},Someone,wizard,0.5,manual`,
      `${MINER},Someone,other,1.5,manual`,
      '',
      `${MINER},Miner,pool,0.8,`,
    );
    const result = await importFiles(csv);
    expect(result.imported).toBe(2);
    expect(result.ignored).toBe(1);
    expect(result.rejected).toEqual([
      { file: csv, line: 4, reason: `address "${MAINNET}" is not a valid sim address`, cause: 'address' },
      { file: csv, line: 5, reason: `unknown category "wizard"; allowed: ${LABEL_CATEGORY_NAMES.join(', ')}`, cause: 'category' },
      { file: csv, line: 6, reason: `confidence 1.5 is outside 0..1; ${ALLOWED_CONFIDENCE}`, cause: 'confidence' },
    ]);
    expect(await db!.all('SELECT address, entity, category, confidence, source FROM labels ORDER BY address')).toEqual([
      { address: EXCHANGE, entity: 'Big Exchange, Inc.', category: 'exchange', confidence: 0.95, source: 'manual' },
      { address: MINER, entity: 'Miner', category: 'pool', confidence: 0.8, source: csv.split('/').at(-1) },
    ]);
  });

  it('counts rows that repeat an address and source as duplicates, keeping the last (200,000 repeats were reported as "1 imported")', async () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => `${EXCHANGE},Exchange ${i},exchange,0.9,feed`);
    const result = await importFiles(csvFile(...rows, `${MINER},Miner,pool,0.8,feed`, `${EXCHANGE},Exchange other source,exchange,0.5,other`));
    expect(result).toMatchObject({ imported: 3, duplicates: 1_999, rejected: [] });
    expect(importSummary(result)).toBe('labels: 3 imported, 0 replaced, 0 removed, 0 rejected, 0 skipped for another currency, '
      + '1999 duplicate rows (a label given again; the last row of each wins)');
    expect(await db!.all("SELECT entity FROM labels WHERE source = 'feed' AND address = $1", [EXCHANGE])).toEqual([{ entity: 'Exchange 1999' }]);
  });

  it('reads JSON labels with the line each entry starts on and replaces the labels of each source it names', async () => {
    db = await Db.open(':memory:');
    await importLabels(db, [csvFile(`${EXCHANGE},Old Name,exchange,0.5,feed`, `${MINER},Gone,pool,0.5,feed`, `${MINER},Kept,pool,0.5,another`)], NETWORKS.sim);
    const json = jsonFile([
      entry({ entity: 'New Name' }),
      entry({ address: 'not-an-address' }),
      entry({ address: MINER, category: 'mixer', confidence: -0.1 }),
    ]);
    const result = await importLabels(db, [json], NETWORKS.sim, { skipInvalid: true });
    expect(result).toMatchObject({ imported: 1, replaced: 1, removed: 1, written: true });
    expect(result.rejected.map((r) => [r.line, r.reason.split(' ')[0]])).toEqual([[10, 'address'], [17, 'confidence']]);
    expect(await db.all('SELECT entity, confidence, source FROM labels ORDER BY source')).toEqual([
      { entity: 'Kept', confidence: 0.5, source: 'another' }, { entity: 'New Name', confidence: 0.9, source: 'feed' },
    ]);
  });

  it('rejects a CSV file without the header, naming the required columns', async () => {
    const result = await importFiles(file('nohead.csv', `${EXCHANGE},X,exchange,0.5,manual\n`));
    expect(result.imported).toBe(0);
    expect(reasons(result)).toEqual([[1, expect.stringMatching(/header must name the columns address,entity,category,confidence,source/)]]);
  });
});

describe('importLabels validates strictly (defect 3.6)', () => {
  it('accepts only a plain decimal confidence from 0 to 1: no hex, exponent, sign or percent', async () => {
    const result = await importFiles(csvFile(
      `${EXCHANGE},A,exchange,0x1,s1`,
      `${EXCHANGE},A,exchange,1e0,s2`,
      `${EXCHANGE},A,exchange,+0.5,s3`,
      `${EXCHANGE},A,exchange,50%,s4`,
      `${EXCHANGE},A,exchange,.5,s5`,
      `${EXCHANGE},A,exchange,,s6`,
      `${EXCHANGE},A,exchange,1,ok1`,
      `${EXCHANGE},A,exchange,0.25,ok2`,
      `${EXCHANGE},A,exchange,1.0,ok3`,
    ));
    const notPlain = (text: string) => `confidence "${text}" is not a plain decimal number (no sign, exponent, hex or percent); ${ALLOWED_CONFIDENCE}`;
    expect(reasons(result)).toEqual([
      [2, notPlain('0x1')], [3, notPlain('1e0')], [4, notPlain('+0.5')], [5, notPlain('50%')], [6, notPlain('.5')],
      [7, `confidence is missing; ${ALLOWED_CONFIDENCE}`],
    ]);
    expect(await db!.all('SELECT source, confidence FROM labels ORDER BY source')).toEqual([
      { source: 'ok1', confidence: 1 }, { source: 'ok2', confidence: 0.25 }, { source: 'ok3', confidence: 1 },
    ]);
  });

  it('takes a JSON confidence as a number in 0..1 or a plain decimal string, nothing else', async () => {
    const result = await importFiles(jsonFile([
      entry({ confidence: '0x1', source: 'a' }), entry({ confidence: true, source: 'b' }), entry({ confidence: [1], source: 'c' }),
      entry({ confidence: 1.5, source: 'd' }), entry({ confidence: 0.7, source: 'ok1' }), entry({ confidence: '0.6', source: 'ok2' }),
    ]));
    expect(result.rejected.map((r) => r.reason)).toEqual([
      `confidence "0x1" is not a plain decimal number (no sign, exponent, hex or percent); ${ALLOWED_CONFIDENCE}`,
      `confidence must be a number, got true; ${ALLOWED_CONFIDENCE}`,
      `confidence must be a number, got an array; ${ALLOWED_CONFIDENCE}`,
      `confidence 1.5 is outside 0..1; ${ALLOWED_CONFIDENCE}`,
    ]);
    expect(await db!.all('SELECT source, confidence FROM labels ORDER BY source')).toEqual([
      { source: 'ok1', confidence: 0.7 }, { source: 'ok2', confidence: 0.6 },
    ]);
  });

  it('rejects objects, arrays and numbers where text is expected instead of storing "[object Object]"', async () => {
    const result = await importFiles(jsonFile([
      entry({ entity: { name: 'Big' } }), entry({ entity: ['Big'] }), entry({ entity: 42 }),
      entry({ source: { feed: 1 } }), entry({ address: 12345 }), entry({ category: ['exchange'] }),
      entry({ extra: 'x' }), 'just a string', null,
    ]));
    expect(result.imported).toBe(0);
    expect(result.rejected.map((r) => r.reason)).toEqual([
      'entity must be text (a JSON string), got an object',
      'entity must be text (a JSON string), got an array',
      'entity must be text (a JSON string), got a number',
      'source must be text (a JSON string), got an object',
      'address must be text (a JSON string), got a number',
      'category must be text (a JSON string), got an array',
      'unknown field "extra"; allowed: address, entity, category, confidence, source, terms',
      'each entry of "labels" must be an object {address, entity, category, confidence, source}, got a string',
      'each entry of "labels" must be an object {address, entity, category, confidence, source}, got null',
    ]);
    expect(await db!.all('SELECT * FROM labels')).toEqual([]);
  });

  it(`limits entity to ${MAX_ENTITY_CHARS} and source to ${MAX_SOURCE_CHARS} characters, and quotes at most 100 of them back`, async () => {
    const huge = 'x'.repeat(1 << 20);
    const result = await importFiles(jsonFile([
      entry({ entity: huge, source: 'a' }),
      entry({ entity: 'é'.repeat(MAX_ENTITY_CHARS + 1), source: 'b' }),
      entry({ source: 's'.repeat(MAX_SOURCE_CHARS + 1) }),
      entry({ address: huge }),
      entry({ entity: '€'.repeat(MAX_ENTITY_CHARS), source: 's'.repeat(MAX_SOURCE_CHARS) }),
    ]));
    expect(result.rejected.map((r) => r.reason)).toEqual([
      `entity is ${1 << 20} characters long; at most ${MAX_ENTITY_CHARS} are allowed`,
      `entity is ${MAX_ENTITY_CHARS + 1} characters long; at most ${MAX_ENTITY_CHARS} are allowed`,
      `source is ${MAX_SOURCE_CHARS + 1} characters long; at most ${MAX_SOURCE_CHARS} are allowed`,
      `address "${'x'.repeat(100)}"… (${1 << 20} characters) is not a valid sim address`,
    ]);
    expect(result.imported).toBe(1);
  });

  it('rejects NUL, ESC and bidirectional overrides, naming the character, and never echoes them raw', async () => {
    const result = await importFiles(jsonFile([
      entry({ entity: 'Big\u0000Exchange', source: 'a' }),
      entry({ entity: '\u001b[31mRed', source: 'b' }),
      entry({ entity: 'Shop \u202Egnp.exe', source: 'c' }),
      entry({ source: 'feed\u2067x' }),
      entry({ entity: 'tab\there', source: 'd' }),
      entry({ category: 'exchange\u001b[0m', source: 'e' }),
    ]));
    expect(result.imported).toBe(0);
    expect(result.rejected.map((r) => r.reason)).toEqual([
      'entity contains the control character U+0000 (NUL) at character 4; only printable text on one line is allowed',
      'entity contains the control character U+001B (ESC) at character 1; only printable text on one line is allowed',
      'entity contains the bidirectional control character U+202E at character 6; it can make text display in a misleading order and is not allowed',
      'source contains the bidirectional control character U+2067 at character 5; it can make text display in a misleading order and is not allowed',
      'entity contains the control character U+0009 (tab) at character 4; only printable text on one line is allowed',
      `unknown category "exchange\\u001b[0m"; allowed: ${LABEL_CATEGORY_NAMES.join(', ')}`,
    ]);
    // eslint-disable-next-line no-control-regex -- the control characters are what must not be there
    for (const r of result.rejected) expect(r.reason).not.toMatch(/[\u0000-\u001f\u202a-\u202e\u2066-\u2069]/);
  });

  it('parses quoted newlines, commas and quotes as CSV: a newline is rejected as such, and later rows keep their lines', async () => {
    const result = await importFiles(csvFile(
      `${EXCHANGE},"Big\nExchange",exchange,0.9,multi`,
      `${EXCHANGE},"Shop ""One"", Ltd",merchant,0.7,quoted`,
      '# a comment line',
      `${MINER},"Pool, Inc.",pool,0.8,after`,
      `${MINER},Too,many,fields,0.5,x`,
    ));
    expect(reasons(result)).toEqual([
      [2, 'entity contains the control character U+000A (line feed) at character 4; only printable text on one line is allowed'],
      [7, 'the row has 6 fields but the header names 5 (address,entity,category,confidence,source); quote a field that contains a comma, e.g. "Shop, Inc."'],
    ]);
    expect(await db!.all('SELECT entity, source FROM labels ORDER BY source')).toEqual([
      { entity: 'Pool, Inc.', source: 'after' }, { entity: 'Shop "One", Ltd', source: 'quoted' },
    ]);
  });

  it('rejects a CSV file with broken quoting at its line, importing nothing from it', async () => {
    const unclosed = await importFiles(csvFile(`${EXCHANGE},Fine,exchange,0.9,a`, `${MINER},"never closed,pool,0.8,b`, `${MINER},X,pool,0.8,c`));
    expect(reasons(unclosed)).toEqual([[3, expect.stringMatching(/^a quoted field that starts after line 2 is never closed .*nothing from this file was imported$/)]]);
    expect(unclosed.imported).toBe(0);
    db?.close();
    const trailing = await importFiles(csvFile(`${EXCHANGE},Fine,exchange,0.9,a`, `${MINER},"Pool"x,pool,0.8,b`));
    expect(reasons(trailing)).toEqual([[3, expect.stringMatching(/^a quoted field has text after its closing quote; .*nothing from this file was imported$/)]]);
  });

  it('rejects unknown or repeated CSV columns instead of ignoring a misspelt one', async () => {
    const unknown = await importFiles(file('typo.csv', `${HEADER},sorce\n${EXCHANGE},A,exchange,0.9,x,y\n`));
    expect(reasons(unknown)).toEqual([[1, 'unknown column "sorce" in the header; allowed: address, entity, category, confidence, source, terms']]);
    db?.close();
    const twice = await importFiles(file('twice.csv', `${HEADER},entity\n`));
    expect(reasons(twice)).toEqual([[1, 'the header names the column entity twice']]);
  });
});

describe('pegscope labels import', () => {
  it('exits 1 and imports nothing when any row was rejected; --skip-invalid imports the valid rows', async () => {
    const dbPath = join(dir, 'cli.duckdb');
    (await Db.open(dbPath)).close();
    const csv = csvFile(`${EXCHANGE},Good,exchange,0.9,cli`, `${MINER},Bad,exchange,0x1,cli`);
    const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/bin.ts', 'labels', 'import', '--network', 'sim', '--db', dbPath, ...args], { encoding: 'utf8' });
    const run = cli(csv);
    expect(run.stderr).toContain(`rejected ${csv}:3: confidence "0x1" is not a plain decimal number`);
    expect(run.stderr).toContain('labels: 0 imported, 0 replaced, 0 removed, 1 rejected (1 confidence), 0 skipped for another currency; nothing was imported');
    expect(run.stderr).toContain('pass --skip-invalid to import the valid ones');
    expect(run.status).toBe(1);
    const stored = async () => { const db = await Db.open(dbPath); try { return await db.all('SELECT entity FROM labels'); } finally { db.close(); } };
    expect(await stored()).toEqual([]);
    const skipping = cli('--skip-invalid', csv);
    expect(skipping.stderr).toContain('labels: 1 imported, 0 replaced, 0 removed, 1 rejected (1 confidence), 0 skipped for another currency');
    expect(skipping.status).toBe(0);
    expect(await stored()).toEqual([{ entity: 'Good' }]);
  });

  it('tells the format by extension or first bytes, and refuses a file it cannot tell without --format', async () => {
    const ambiguous = file('labels.txt', `${HEADER}\n${EXCHANGE},A,exchange,0.5,x\n`);
    await expect(importWith({}, ambiguous)).rejects.toThrow(/cannot tell the format of .*labels\.txt: name it with --format csv\|json\|ofac\|tagpack\|pools/);
    expect(await db!.all('SELECT * FROM labels')).toEqual([]);
    db?.close();
    expect(await importWith({ format: 'csv' }, ambiguous)).toMatchObject({ imported: 1, written: true });
  });
});
