/** The dashboard: headline figures, recommendations, the top links (sortable, CSV) and a way to a block. */
import type { LinkRecord } from '../api/links.js';
import { linksCsvOf } from '../api/csv-rows.js';
import { h, show } from './dom.js';
import { coin, count, isAmountStat, readableCoin, statLabel, statOrder, statValue } from './format.js';
import * as data from './data.js';
import { go } from './nav.js';
import { blockLink, confidenceBar, lookupLink } from './pegs-view.js';
import { pageHash, privacyHash } from './routes.js';
import { bestPeginAmounts, type AmountRow } from './popular.js';
import { downloadButton } from './download.js';
import { sortLinks, LINK_COLUMNS, type LinkSort } from './links-sort.js';

/** Rows shown before "Show all". */
const FIRST_ROWS = 25;

export async function render(main: HTMLElement): Promise<void> {
  const [stats, recommendations, links] = await Promise.all([data.stats(), data.recommendations(), data.links()]);
  const unit = stats.unit;
  const blockInput = h('input', { id: 'block-height', name: 'height', type: 'text', inputmode: 'numeric', pattern: '[0-9]{1,10}', required: true, autocomplete: 'off' });
  const r = recommendations.recommendations;
  show(main,
    h('h1', { tabindex: -1 }, 'Dashboard'),
    h('section', { 'aria-labelledby': 'stats-h' },
      h('h2', { id: 'stats-h' }, 'Headline figures'),
      h('dl', { class: 'stats' }, statOrder(Object.keys(stats.stats)).map((key) => h('div', { class: 'stat' },
        h('dt', {}, statLabel(key)),
        statFigure(key, stats.stats[key]!, unit))))),
    h('section', { 'aria-labelledby': 'rec-h' },
      h('h2', { id: 'rec-h' }, 'Recommendations'),
      h('div', { class: 'columns' },
        amountList('Best peg-in amounts now', bestPeginAmounts(r.best_pegin_amounts), 'pegin', unit),
        amountList('Common peg-out amounts', r.best_pegout_amounts, 'pegout', unit)),
      // The notes state the wait (recommended_wait_blocks, with the reason), so the page does not repeat it.
      h('ul', { class: 'notes' }, r.notes.map((note) => h('li', {}, note)))),
    linksSection(links.links, links.min_confidence, unit),
    h('section', { 'aria-labelledby': 'block-h' },
      h('h2', { id: 'block-h' }, 'Blocks'),
      h('form', {
        class: 'query', onsubmit: (event) => {
          event.preventDefault();
          go(pageHash('block', blockInput.value.trim()));
        },
      },
      h('label', { for: 'block-height' }, 'Block height'),
      h('div', { class: 'row' }, blockInput, h('button', { type: 'submit' }, 'Show block'))),
      links.links[0] ? h('p', {}, 'For example the block of the most confident link: ', blockLink(links.links[0].pegout_height), '.') : null),
  );
}

/** A headline figure: amounts rounded for reading, with every decimal in the tooltip. */
function statFigure(key: string, value: number, unit: string): HTMLElement {
  if (!isAmountStat(key)) return h('dd', { 'data-stat': key }, statValue(value));
  return h('dd', { 'data-stat': key, 'data-value': value, title: `${coin(value)} ${unit}` }, `${readableCoin(value)} ${unit}`);
}

function amountList(title: string, rows: readonly AmountRow[], side: 'pegin' | 'pegout', unit: string): HTMLElement {
  return h('div', {},
    h('h3', {}, title),
    rows.length ? h('ol', { class: 'amounts' }, rows.map((row) => h('li', {},
      h('a', { href: privacyHash(coin(row.amount).replace(/,/g, ''), side), 'aria-label': `Check ${coin(row.amount)} ${unit}` }, `${coin(row.amount)} ${unit}`),
      ` used ${count(row.anonymity_set)} times`))) : h('p', {}, 'None yet.'));
}

function linksSection(all: LinkRecord[], minConfidence: number, unit: string): HTMLElement {
  let sort: LinkSort = { column: 'confidence', descending: true };
  let expanded = false;
  const table = h('table', { class: 'links-table' });
  const more = h('button', { type: 'button', onclick: () => { expanded = true; draw(); } }, `Show all ${all.length}`);
  const draw = (): void => {
    const rows = sortLinks(all, sort);
    const shown = expanded ? rows : rows.slice(0, FIRST_ROWS);
    more.hidden = expanded || rows.length <= FIRST_ROWS;
    show(table,
      h('caption', {}, `Round-trip links with confidence ≥ ${minConfidence}, ${expanded ? 'all' : `first ${shown.length} of`} ${all.length}. Sort by a column heading.`),
      h('thead', {}, h('tr', {}, LINK_COLUMNS.map((c) => {
        const active = sort.column === c.key;
        return h('th', { scope: 'col', 'aria-sort': active ? (sort.descending ? 'descending' : 'ascending') : 'none' },
          h('button', {
            type: 'button', class: 'sort', 'data-sort': c.key, onclick: () => {
              sort = { column: c.key, descending: active ? !sort.descending : c.key === 'confidence' || c.key === 'risk_score' };
              draw();
            },
          }, c.label, h('span', { 'aria-hidden': 'true' }, active ? (sort.descending ? ' ▼' : ' ▲') : '')));
      }))),
      h('tbody', {}, shown.map((l) => h('tr', {},
        h('td', {}, confidenceBar(l.confidence)),
        h('td', { class: 'num' }, `${coin(l.pegin_amount)} ${unit}`, h('br'), lookupLink(l.pegin_txid)),
        h('td', { class: 'num' }, `${coin(l.pegout_amount)} ${unit}`, h('br'), lookupLink(l.pegout_txid)),
        h('td', { class: 'num' }, count(l.block_gap)),
        h('td', { class: 'num' }, count(l.candidate_count)),
        h('td', { class: 'num' }, l.risk_score ?? '—'),
        h('td', {}, l.pegout_entity ? `${l.pegout_entity} (${l.pegout_category ?? 'other'})` : '—')))));
  };
  draw();
  return h('section', { 'aria-labelledby': 'links-h' },
    h('h2', { id: 'links-h' }, 'Top links'),
    h('p', {}, 'Peg-outs whose amount and timing fit an earlier peg-in. Heuristic inferences, never proof. ',
      downloadButton('Download CSV', 'pegscope-links.csv', 'text/csv', () => linksCsvOf(sortLinks(all, sort)))),
    h('div', { class: 'scroll' }, table),
    more);
}
