/** The explorer page's pure parts, run in Node: addresses, query parsing, popular and best amounts, the links table's sort, number formats. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseQuery } from '../src/web/lookup.js';
import { bestPeginAmounts, nearestPopular } from '../src/web/popular.js';
import { sortLinks } from '../src/web/links-sort.js';
import { coin, count, readableCoin, statOrder } from '../src/web/format.js';
import { lookupHash, pageHash, privacyHash, privacyRoute, routeOf } from '../src/web/routes.js';
import { privacyOf } from '@pegscope/client';
import { buildAmountCounts } from '../src/api/amount-table-encode.js';
import { coinNumber } from '../src/domain/amount.js';
import type { LinkRecord } from '../src/api/links.js';
import { simAddress } from './helpers/release-tree.js';

describe('the page\'s addresses', () => {
  it('give back the page and its arguments, whatever they hold', () => {
    fc.assert(fc.property(fc.string({ minLength: 1 }), fc.array(fc.string()), (page, args) => {
      expect(routeOf(pageHash(page, ...args))).toEqual([page, args]);
    }));
    expect(lookupHash('rltc1qexample')).toBe('#/lookup/rltc1qexample');
    expect(routeOf('#/lookup/2935')).toEqual(['lookup', ['2935']]);
    expect(routeOf('#main')).toBeNull();
    expect(routeOf('#/lookup/%E0%A4%A')).toEqual(['?', []]);
  });

  it('open a privacy check of an amount on either side, and say what is wrong with a bad side', () => {
    expect(privacyHash('1.5')).toBe('#/privacy/1.5');
    expect(privacyHash('0.4999359', 'pegout')).toBe('#/privacy/0.4999359/pegout');
    expect(privacyRoute(routeOf(privacyHash('0.4999359', 'pegout'))![1])).toEqual({ amount: '0.4999359', side: 'pegout' });
    expect(privacyRoute([])).toEqual({ amount: null, side: 'pegin' });
    // The amount is the check's to judge (the router's rule, and its message); the side is judged here, as the router judges it.
    expect(privacyRoute(['1,5'])).toEqual({ amount: '1,5', side: 'pegin' });
    expect(privacyRoute(['1.5', 'sideways'])).toMatchObject({ error: 'side must be one of pegin, pegout; got "sideways"' });
    expect(privacyRoute(['1.5', 'pegout', 'x'])).toMatchObject({ error: expect.stringMatching(/#\/privacy\/<amount>\/pegout/) });
  });
});

describe('the lookup box', () => {
  it('takes heights, 64-hex keys and addresses of the release network only, like the router', () => {
    const address = simAddress(7);
    expect(parseQuery(` ${address} `, 'sim')).toEqual({ ok: true, query: { kind: 'address', value: address } });
    expect(parseQuery('2935', 'sim')).toEqual({ ok: true, query: { kind: 'height', value: '2935' } });
    expect(parseQuery('AB'.repeat(32), 'sim')).toEqual({ ok: true, query: { kind: 'hash', value: 'ab'.repeat(32) } });
    const broken = address.slice(0, -1) + (address.endsWith('q') ? 'p' : 'q');
    for (const bad of [broken, 'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9', '01', 'ab'.repeat(31), '', '../../manifest']) {
      const parsed = parseQuery(bad, 'sim');
      expect(parsed.ok, bad).toBe(false);
    }
    expect(parseQuery(broken, 'sim')).toMatchObject({ ok: false, error: expect.stringMatching(/not a sim address.*rltc1/) });
  });
});

describe('popular amounts near a checked amount', () => {
  const table = buildAmountCounts({
    pegin: [[100_000_000, 50], [150_000_000, 1], [149_990_000, 3], [50_000_000, 40], [200_000_000, 30], [1_000_000_000, 20], [1_234_567, 2]],
    pegout: [[99_990_000, 5]],
  });

  it('lists amounts used at least twice, nearest on a log scale, ascending, scored like the amount itself', () => {
    const near = nearestPopular(table, 150_000_000, 'pegin', 3);
    expect(near.map((p) => p.amount_litoshi)).toEqual([100_000_000, 149_990_000, 200_000_000]);
    for (const p of near) expect(p.exact_set).toBeGreaterThanOrEqual(2);
    expect(nearestPopular(table, 100_000_000, 'pegin').map((p) => p.amount_litoshi)).not.toContain(100_000_000);
    expect(nearestPopular(table, 100_000_000, 'pegout')).toEqual([expect.objectContaining({ amount_litoshi: 99_990_000, side: 'pegout' })]);
  });
});

describe('the best peg-in amounts', () => {
  it('are amounts a person would type, as every privacy suggestion is: at most 3 significant digits', () => {
    const rows = [1, 0.9999837, 10, 0.5, 4.9999837, 0.125, 0.1234].map((amount, i) => ({ amount, anonymity_set: 100 - i }));
    expect(bestPeginAmounts(rows).map((r) => r.amount)).toEqual([1, 10, 0.5, 0.125]);
    // The same rule as the suggestions: a suggested amount always passes it.
    const table = buildAmountCounts({ pegin: [[120_000_000, 40]], pegout: [] });
    const suggested = privacyOf(table, 111_111_111, 'pegin').suggested_amount!;
    expect(suggested).toBe(1.2);
    expect(bestPeginAmounts([{ amount: suggested, anonymity_set: 1 }])).toHaveLength(1);
  });
});

describe('the top links table', () => {
  const link = (i: number, confidence: number, gap: number, risk: number | null): LinkRecord => ({
    pegout_txid: `o${i}`, pegout_vout: 0, pegout_height: 100 + i, pegout_amount: 1 + i, pegout_address: null, pegout_entity: null, pegout_category: null,
    pegin_txid: `i${i}`, pegin_vout: 0, pegin_height: 90 + i, pegin_amount: 1.1 + i, confidence, risk_score: risk, block_gap: gap, candidate_count: 1, reasons: [],
  });
  const links = [link(0, 0.9, 5, 10), link(1, 0.9, 7, null), link(2, 0.6, 2, 30), link(3, 0.95, 9, 20)];

  it('sorts by a column either way, keeps the API order on ties and puts missing values last', () => {
    expect(sortLinks(links, { column: 'confidence', descending: true }).map((l) => l.pegout_txid)).toEqual(['o3', 'o0', 'o1', 'o2']);
    expect(sortLinks(links, { column: 'block_gap', descending: false }).map((l) => l.pegout_txid)).toEqual(['o2', 'o0', 'o1', 'o3']);
    expect(sortLinks(links, { column: 'risk_score', descending: true }).map((l) => l.pegout_txid)).toEqual(['o2', 'o3', 'o0', 'o1']);
    expect(sortLinks(links, { column: 'risk_score', descending: false }).map((l) => l.pegout_txid)).toEqual(['o0', 'o3', 'o2', 'o1']);
    expect(links.map((l) => l.pegout_txid)).toEqual(['o0', 'o1', 'o2', 'o3']);
  });
});

describe('number formats', () => {
  it('prints every JSON coin amount exactly, grouped', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 8_400_000_000_000_000 }), (litoshi) => {
      const amount = coinNumber(litoshi);
      expect(Number(coin(amount).replace(/,/g, ''))).toBe(amount);
    }));
    expect(coin(49265.80371186)).toBe('49,265.80371186');
    expect(coin(0.00000001)).toBe('0.00000001');
    expect(count(1234567)).toBe('1,234,567');
  });

  it('rounds headline amounts for reading: whole coins from 1,000, cents from 1, three significant digits below', () => {
    expect(readableCoin(49265.80371186)).toBe('49,266');
    expect(readableCoin(1000)).toBe('1,000');
    expect(readableCoin(12.345)).toBe('12.35');
    expect(readableCoin(0.012345)).toBe('0.0123');
    expect(readableCoin(0.00000001)).toBe('0.00000001');
    for (const amount of [49265.80371186, 37639.69052393, 5.5, 0.31415926]) expect(readableCoin(amount).length).toBeLessThanOrEqual(7);
  });

  it('orders headline figures peg-ins first, keys added later at the end', () => {
    expect(statOrder(['zeta', 'avg_privacy_score', 'total_pegouts', 'total_pegins'])).toEqual(['total_pegins', 'total_pegouts', 'avg_privacy_score', 'zeta']);
  });
});
