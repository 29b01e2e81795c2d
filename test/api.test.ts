import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FORMULA_START, guardCell, toCsv } from '../src/api/csv.js';
import { document, wrapJson, type AnalysisStamp } from '../src/api/envelope.js';
import { wrapJsonSql } from '../src/export/wrap-json-sql.js';
import { NETWORKS, type NetworkName } from '../src/domain/network.js';
import { Db } from '../src/store/db.js';
import { sliceLinks, type LinkRecord } from '../src/api/links.js';
import { truncateFollow, type Follow } from '../src/api/follow.js';
import { sliceAmounts, amountsDocument } from '../src/api/top-amounts.js';
import { traceCsvRows, type Trace } from '../src/api/trace.js';
import { indexDocument } from '../src/api/index.js';
import { schemaFiles, schemaText } from '../src/api/schemas.js';
import { ENDPOINTS } from '../src/api/params.js';
import { plainNumber, toJson } from '../src/api/json.js';

/** RFC 4180 reader for the round-trip check: quoted cells may hold commas, quotes ("") and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [], cell = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (ch === '"') quoted = false; else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(cell); cell = ''; }
    else if (ch === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; }
    else cell += ch;
  }
  return rows;
}

const stamp: AnalysisStamp = { network: 'mainnet', as_of_height: 2_900_000, updated_at: 1_800_000_000 };

describe('CSV', () => {
  it('quotes commas, quotes and line breaks so the cells read back unchanged', () => {
    const rows = [['a,b', 'say "hi"', 'line\nbreak', 'plain', 1.5, null]];
    const text = toCsv(['c1', 'c2', 'c3', 'c4', 'c5', 'c6'], rows);
    expect(text).toBe('c1,c2,c3,c4,c5,c6\n"a,b","say ""hi""","line\nbreak",plain,1.5,\n');
  });

  it.each(['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('prefixes %j with a quote against formula injection', (cell) => {
    expect(guardCell(cell)).toBe(`'${cell}`);
    const [, row] = toCsv(['c'], [[cell]]).split(/\n(?=.)/);
    expect(row!.replace(/^"|"\n?$/g, '').startsWith("'")).toBe(true);
  });

  /** Starts a spreadsheet trims or reads as = + - @ (full-width and small forms, the minus sign) before it parses a formula. */
  const LOOKALIKE_STARTS = [' =1+2', '\u00a0=1+2', '\u3000=1+2', '\u2003@SUM(A1)', '\ufeff=1', '\u200b=1', '\n=1', '\u000b=1',
    '\uff1d1+2', '\uff0b1', '\uff0d1', '\uff20SUM(A1)', '\ufe661', '\ufe621', '\ufe631', '\ufe6bSUM(A1)', '\u22121'];

  it.each(LOOKALIKE_STARTS)('probe: prefixes %j (a space, a non-breaking space or a full-width or lookalike formula start) with a quote', (cell) => {
    expect(guardCell(cell)).toBe(`'${cell}`);
  });

  it('probe: the CSV dumps\' SQL guard (DuckDB\'s regular expressions) guards exactly the cells guardCell does', async () => {
    const db = await Db.open(':memory:');
    try {
      const cells = [...LOOKALIKE_STARTS, '=1', '-1', 'Coinbarn', 'a = b', '1.5', '', '\uff21'];
      const rows = await db.all<{ i: number; guarded: boolean }>(
        `SELECT i, regexp_matches(cell, $1) AS guarded FROM (VALUES ${cells.map((_, i) => `(${i}, $${i + 2}::VARCHAR)`).join(', ')}) t(i, cell) ORDER BY i`,
        [FORMULA_START.source, ...cells]);
      expect(rows.map((r) => r.guarded)).toEqual(cells.map((c) => guardCell(c) !== c));
    } finally {
      db.close();
    }
  });

  it('leaves ordinary cells alone and reads back any text exactly (after the guard)', () => {
    fc.assert(fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (cells) => {
      const text = toCsv(cells.map((_, i) => `c${i}`), [cells]);
      const [, back] = parseCsv(text);
      expect(back).toEqual(cells.map(guardCell));
    }));
  });
});

/** The text outside JSON strings: where a number in exponent form would show. */
const outsideStrings = (json: string): string => json.replace(/"(?:[^"\\]|\\.)*"/g, '""');

describe('JSON numbers', () => {
  it.each([
    [1e-8, '0.00000001'], [5e-8, '0.00000005'], [1.2e-7, '0.00000012'], [9.9e-7, '0.00000099'], [1e-6, '0.000001'],
    [-1e-8, '-0.00000001'], [1.5, '1.5'], [0, '0'], [-0, '0'], [84_000_000.12345678, '84000000.12345678'],
    [1e21, '1000000000000000000000'], [1.5e21, '1500000000000000000000'], [5e-324, `0.${'0'.repeat(323)}5`],
  ])('plainNumber(%d) is %s', (value, text) => {
    expect(plainNumber(value)).toBe(text);
    expect(Number(text)).toBe(value === 0 ? 0 : value);
  });

  it('an amount of 1 litoshi prints as 0.00000001, never in exponent form', () => {
    const doc = amountsDocument(stamp, 'pegin', [{ amount: 1e-8, count: 3 }]);
    expect(JSON.stringify(doc)).toContain('"amount":1e-8');
    const text = toJson(doc);
    expect(text).toContain('"amount":0.00000001');
    expect(outsideStrings(text)).not.toMatch(/\de/i);
  });

  it('is JSON.stringify with plain-decimal numbers: the same text where no number has an exponent, the same value always', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const native = JSON.stringify(value);
      const text = toJson(value);
      expect(JSON.parse(text)).toEqual(JSON.parse(native));
      expect(outsideStrings(text)).not.toMatch(/\de/i);
      if (!/\de[+-]\d/.test(outsideStrings(native))) expect(text).toBe(native);
    }), { numRuns: 2000 });
  });

  it('leaves strings that look like exponent numbers alone', () => {
    const value = { note: 'fee 1e-8 "quoted" 2e+21', amount: 2e-8, nested: ['1e-7', 1e-7] };
    expect(toJson(value)).toBe('{"note":"fee 1e-8 \\"quoted\\" 2e+21","amount":0.00000002,"nested":["1e-7",0.0000001]}');
  });
});

describe('documents', () => {
  it('wrapJson gives the same bytes as stringifying the document', () => {
    const body = { query: 'x', hops: [{ confidence: 0.5 }], total_confidence: 0.5 };
    expect(wrapJson(stamp, 'follow', JSON.stringify(body))).toBe(JSON.stringify(document(stamp, { follow: body })));
  });

  it('wrapJsonSql renders in DuckDB the same bytes as wrapJson', async () => {
    const db = await Db.open(':memory:');
    try {
      const bodies = [JSON.stringify({ q: "it's \"quoted\" ☃", n: [1, 2.5] }), '[]', '{}'];
      for (const network of Object.keys(NETWORKS) as NetworkName[]) {
        for (const [height, time] of [[0, 0], [600000, 1800000000], [2147483647, 9007199254740991]] as const) {
          for (const body of bodies) {
            const expr = wrapJsonSql(network, 'trace', { height: '$1::INTEGER', time: '$2::BIGINT', body: '$3::VARCHAR' });
            const row = await db.one<{ text: string }>(`SELECT ${expr} AS text`, [height, BigInt(time), body]);
            expect(row!.text).toBe(wrapJson({ network, as_of_height: height, updated_at: time }, 'trace', body));
          }
        }
      }
    } finally {
      db.close();
    }
  });

  it('the index names every endpoint with its parameters, the amount table, range files, the OpenAPI document, the disclaimer, licences and attribution', () => {
    const index = indexDocument(stamp);
    expect(Object.keys(index.endpoints)).toEqual([...Object.keys(ENDPOINTS), 'amounts', 'range', 'openapi']);
    expect(index.endpoints.amounts).toMatch(/^GET \/api\/amounts\.json — /);
    expect(index.endpoints.range).toMatch(/^GET \/api\/range\/<kind>\/<prefix> — every trace, address, follow, block document .*\/api\/ranges\.json/);
    expect(index.endpoints.openapi).toMatch(/^GET \/api\/openapi\.json — .*OpenAPI 3\.1/);
    expect(index.endpoints.links).toBe('GET /api/links?min_confidence?&limit?&format? — round-trip links ordered by confidence');
    expect(index.endpoints.trace).toMatch(/^GET \/api\/trace\?q&format\? — /);
    expect(index.disclaimer).toMatch(/heuristic inference.*never proof/);
    expect(index.license).toEqual({ data: 'CC BY 4.0', code: 'AGPL-3.0' });
    expect(index.attribution.text).toBe('Data from pegscope');
  });
});

const link = (confidence: number, block_gap: number): LinkRecord => ({
  pegout_txid: 'a'.repeat(64), pegout_vout: 0, pegout_height: 10, pegout_amount: 1, pegout_address: null, pegout_entity: null,
  pegout_category: null, pegin_txid: 'b'.repeat(64), pegin_vout: 0, pegin_height: 5, pegin_amount: 1.0001, confidence,
  risk_score: 0, block_gap, candidate_count: 1, reasons: [],
});

describe('slicing precomputed lists', () => {
  it('links at or above min_confidence are a prefix of the top list', () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(1000)), { maxLength: 60 }),
      fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 500 }),
      (pairs, min, limit) => {
        const top = pairs.map(([c, g]) => link(c, g)).sort((a, b) => b.confidence - a.confidence || a.block_gap - b.block_gap);
        const doc = sliceLinks(stamp, { links: top }, min, limit);
        const want = top.filter((l) => l.confidence >= min).slice(0, limit);
        expect(doc.links).toEqual(want);
        expect(doc.count).toBe(want.length);
        expect(doc.min_confidence).toBe(min);
      }));
  });

  it('follow cut to a depth keeps the first hops and their cumulative confidence', () => {
    const hop = (c: number, cum: number) => ({ from: 'a', pegin: { txid: 'p', vout: 0 }, pegout: { txid: 'o', vout: 0 }, to: 'b', to_attribution: null, confidence: c, cumulative_confidence: cum });
    const full: Follow = { query: 'a', depth: 10, hops: [hop(0.9, 0.9), hop(0.5, 0.45), hop(0.5, 0.225), hop(0.8, 0.18)], total_confidence: 0.18 };
    expect(truncateFollow(full, 2)).toEqual({ query: 'a', depth: 2, hops: full.hops.slice(0, 2), total_confidence: 0.45 });
    expect(truncateFollow(full, 10)).toEqual(full);
    expect(truncateFollow({ ...full, hops: [] }, 3).total_confidence).toBe(0);
  });

  it('amount lists slice to the limit and count what they hold', () => {
    const top = { pegout_amounts: [{ amount: 1, count: 9 }, { amount: 0.5, count: 3 }] };
    expect(sliceAmounts(stamp, top, 'pegout', 1)).toEqual(amountsDocument(stamp, 'pegout', [{ amount: 1, count: 9 }]));
  });
});

describe('trace CSV rows', () => {
  it('gives one row per link from its side and one row for a peg without links', () => {
    const trace = {
      query: 'q', type: 'address', attribution: null, cluster: null,
      pegins: [{ txid: 'i1', vout: 0, amount: 2, links: [{ pegout_txid: 'o1', pegout_amount: 1.9999, pegout_address: 'x', pegout_entity: '=bad', confidence: 0.9 }] }],
      pegouts: [{ txid: 'o2', vout: 1, amount: 3, address: 'y', attribution: { entity: 'Ex' }, links: [] }],
    } as unknown as Trace;
    expect(traceCsvRows(trace)).toEqual([
      ['pegin', 'i1', 2, 'o1', 1.9999, 'x', '=bad', 0.9],
      ['pegout', null, null, 'o2', 3, 'y', 'Ex', null],
    ]);
  });
});

describe('schemas/', () => {
  it('holds exactly what the declarations generate, byte for byte and no other file (run npx tsx scripts/gen-schemas.ts after changing them)', () => {
    const dir = join(import.meta.dirname, '..', 'schemas');
    const files = schemaFiles();
    expect(readdirSync(dir).sort()).toEqual(Object.keys(files).sort());
    for (const [name, schema] of Object.entries(files)) expect(readFileSync(join(dir, name), 'utf8'), name).toBe(schemaText(schema));
  });
});
