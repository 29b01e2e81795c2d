/**
 * The privacy checker: an amount scored in this browser from the amount
 * table; the amount is never sent. `#/privacy/<amount>[/pegout]` opens a
 * check; the form goes to that address, so back returns to the last one.
 */
import { AmountError, formatCoin, parsePositiveCoinAmount, privacyOf, type AmountTable, type Privacy, type Side } from '@pegscope/client';
import { h, show } from './dom.js';
import { coin, count } from './format.js';
import * as data from './data.js';
import { go } from './nav.js';
import { privacyHash, privacyRoute } from './routes.js';
import { verificationWarning, verifiedLine } from './trust.js';
import { scoreBar } from './pegs-view.js';
import { nearestPopular } from './popular.js';

export async function render(main: HTMLElement, args: string[]): Promise<void> {
  const route = privacyRoute(args);
  const envelope = await data.envelope();
  let checked: data.CheckedAmounts;
  try {
    checked = await data.amounts();
  } catch (err) {
    const warning = verificationWarning(err, 'the amount table (api/amounts.json)');
    if (!warning) throw err;
    return show(main, h('h1', { tabindex: -1 }, 'Privacy check'), warning);
  }
  const { table, verified } = checked;
  const unit = envelope.unit;
  const amount = h('input', { id: 'privacy-amount', name: 'amount', type: 'text', inputmode: 'decimal', autocomplete: 'off', required: true, 'aria-describedby': 'privacy-help' });
  const sideInput = (value: Side, label: string) => h('label', { class: 'choice' },
    h('input', { type: 'radio', name: 'side', value, checked: value === route.side }), ` ${label}`);
  const result = h('section', { id: 'privacy-result', 'aria-live': 'polite' });
  const form: HTMLFormElement = h('form', {
    class: 'query', onsubmit: (event) => {
      event.preventDefault();
      // Spaces around what was typed or pasted are the form's to drop; the address itself is as strict as the router's `amount`.
      go(privacyHash(amount.value.trim(), selectedSide(form)));
    },
  },
  h('label', { for: 'privacy-amount' }, `Amount (${unit})`),
  h('div', { class: 'row' }, amount, h('button', { type: 'submit' }, 'Check')),
  h('fieldset', {}, h('legend', {}, 'Side'), sideInput('pegin', 'Peg-in (coins enter MWEB)'), sideInput('pegout', 'Peg-out (coins leave MWEB)')),
  h('p', { id: 'privacy-help', class: 'help' }, 'Up to 8 decimals, e.g. 1.5. Scored in this page from the release\'s amount table (api/amounts.json, the same for every visitor): the amount is never sent anywhere.'));
  show(main, h('h1', { tabindex: -1 }, 'Privacy check'), verified && verifiedLine(verified), form, result);
  if (route.amount !== null) amount.value = route.amount;
  if (route.error) show(result, h('p', { class: 'error', role: 'alert' }, `${route.error}.`));
  else if (route.amount !== null) check(table, route.amount, route.side, unit, result);
}

function selectedSide(form: HTMLFormElement): Side {
  return (new FormData(form).get('side') === 'pegout' ? 'pegout' : 'pegin');
}

function check(table: AmountTable, text: string, side: Side, unit: string, out: HTMLElement): void {
  let litoshi: number;
  try {
    litoshi = parsePositiveCoinAmount(text);
  } catch (err) {
    if (!(err instanceof AmountError)) throw err;
    return show(out, h('p', { class: 'error', role: 'alert' }, `${err.message}.`));
  }
  const privacy = privacyOf(table, litoshi, side);
  const popular = nearestPopular(table, litoshi, side);
  const others = side === 'pegin' ? 'peg-ins' : 'candidate peg-ins';
  show(out,
    h('h2', {}, `${coin(privacy.amount)} ${unit}: ${privacy.rating}`),
    scoreBar(privacy.privacy_score, 'privacy'),
    h('p', { class: 'advice', 'data-field': 'advice' }, privacy.advice),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Counted window'), h('dd', { 'data-field': 'window' },
        `${coin(privacy.window.low)} to ${coin(privacy.window.high)} ${unit} (the link tolerance, ±${coin(privacy.window.tolerance)}): ${count(privacy.window_set)} ${others}`),
      h('dt', {}, 'Anonymity set'), h('dd', { 'data-field': 'anonymity_set' }, `${count(privacy.anonymity_set)}${side === 'pegin' ? ' (your peg-in included)' : ''}`),
      h('dt', {}, 'Exactly this amount'), h('dd', { 'data-field': 'exact_set' }, `${count(privacy.exact_set)} ${privacy.exact_set === 1 ? 'time' : 'times'}`),
      h('dt', {}, 'Same rounding bucket'), h('dd', { 'data-field': 'rounded_set' },
        `${count(privacy.rounded_set)} in ${coin(privacy.rounded_low)} to ${coin(privacy.rounded_high)} (rounds to ${coin(privacy.rounded)})`)),
    popularTable(popular, side, unit),
    h('details', {}, h('summary', {}, 'The result as the API gives it'), h('pre', { 'data-privacy-json': '' }, JSON.stringify(privacy, null, 2))),
  );
}

function popularTable(popular: Privacy[], side: Side, unit: string): HTMLElement {
  if (popular.length === 0) return h('p', {}, 'No popular amount on this side yet.');
  return h('section', { class: 'popular' },
    h('h3', {}, 'Popular amounts nearby'),
    h('table', {},
      h('caption', {}, 'Amounts used most on this side, nearest to yours; pick one instead to blend in.'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, `Amount (${unit})`), h('th', { scope: 'col' }, 'Used'), h('th', { scope: 'col' }, 'Score'), h('th', { scope: 'col' }, 'Rating'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Action')))),
      h('tbody', {}, popular.map((p) => h('tr', {},
        h('td', { class: 'num' }, coin(p.amount)), h('td', { class: 'num' }, count(p.exact_set)), h('td', { class: 'num' }, p.privacy_score), h('td', {}, p.rating),
        h('td', {}, h('a', { href: privacyHash(formatCoin(p.amount_litoshi), side), 'aria-label': `Check ${coin(p.amount)}` }, 'Check')))))));
}
