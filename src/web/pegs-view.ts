/** Peg-ins, peg-outs, their links and the follow chain, as the lookup and block pages show them. */
import type { Attribution, PeginLink, PeginNode, PegoutLink, PegoutNode } from '../api/trace.js';
import type { Follow } from '../api/follow.js';
import { h, type Child } from './dom.js';
import { coin, count, percent, short, utc } from './format.js';
import { lookupHash, pageHash } from './routes.js';

/** A key the reader can look up next (an address or a txid): a link to its lookup's address. */
export function lookupLink(key: string, label = short(key)): HTMLAnchorElement {
  return h('a', { class: 'key', href: lookupHash(key), title: key, 'aria-label': `Look up ${key}` }, label);
}

export function blockLink(height: number): HTMLAnchorElement {
  return h('a', { href: pageHash('block', String(height)) }, `block ${count(height)}`);
}

/** Link confidence as a bar with its value in words. */
export function confidenceBar(confidence: number, label = 'confidence'): HTMLElement {
  return h('span', { class: 'bar' },
    h('meter', { min: 0, max: 1, value: confidence, 'aria-label': `${label} ${percent(confidence)}` }),
    h('span', {}, `${percent(confidence)} ${label}`));
}

/** A 0..100 score as a bar: privacy (higher is better) or risk (higher is worse). */
export function scoreBar(score: number, kind: 'privacy' | 'risk'): HTMLElement {
  const bounds = kind === 'privacy' ? { low: 40, high: 80, optimum: 100 } : { low: 40, high: 70, optimum: 0 };
  return h('span', { class: 'bar' },
    h('meter', { min: 0, max: 100, ...bounds, value: score, 'aria-label': `${kind} score ${score} of 100` }),
    h('span', {}, `${kind === 'privacy' ? 'Privacy' : 'Risk'} score ${score} / 100`));
}

export function attributionText(a: Attribution | null): string {
  if (!a) return 'not attributed to any known entity';
  const how = a.via === 'direct' ? 'labelled directly' : 'through its wallet cluster';
  // The source is a third party's text (a TagPack title, a label file's source): it reaches the page as text, never markup (h()).
  return `attributed to ${a.entity} (${a.category}), ${how}, confidence ${percent(a.confidence)}, source ${a.source}`;
}

const reasonsList = (reasons: readonly string[]): Child =>
  reasons.length ? h('ul', { class: 'reasons' }, reasons.map((r) => h('li', {}, r))) : null;

function peginLink(l: PeginLink, unit: string): HTMLElement {
  return h('li', { class: 'link' },
    confidenceBar(l.confidence),
    h('p', {}, 'Likely exit: peg-out of ', h('strong', {}, `${coin(l.pegout_amount)} ${unit}`), ' in ', lookupLink(l.pegout_txid),
      l.pegout_address ? [' to ', lookupLink(l.pegout_address)] : null,
      l.pegout_entity ? ` (${l.pegout_entity}, ${l.pegout_category ?? 'other'})` : null,
      `, ${count(l.block_gap)} blocks later; ${count(l.candidate_count)} candidate peg-in(s).`),
    reasonsList(l.reasons));
}

function pegoutLink(l: PegoutLink, unit: string): HTMLElement {
  return h('li', { class: 'link' },
    confidenceBar(l.confidence),
    h('p', {}, 'Likely source: peg-in of ', h('strong', {}, `${coin(l.pegin_amount)} ${unit}`), ' in ', lookupLink(l.pegin_txid),
      ' at ', blockLink(l.pegin_height), `, ${count(l.block_gap)} blocks earlier; ${count(l.candidate_count)} candidate peg-in(s).`),
    reasonsList(l.reasons));
}

export function peginCard(p: PeginNode, unit: string): HTMLElement {
  return h('article', { class: 'peg' },
    h('h4', {}, `Peg-in of ${coin(p.amount)} ${unit}`),
    h('p', { class: 'meta' }, lookupLink(p.txid), `:${p.vout} · `, blockLink(p.block_height), ` · ${utc(p.block_time)}`),
    h('p', {}, 'Funded by ', p.source_address ? lookupLink(p.source_address) : 'an address-less input',
      p.input_count > 1 ? ` and ${p.input_count - 1} more input(s)` : null, '.'),
    p.inputs.length > 1 ? h('details', {}, h('summary', {}, `${p.inputs.length} inputs`),
      h('ul', {}, p.inputs.map((i) => h('li', {}, i.address ? lookupLink(i.address) : 'no address', ` ${coin(i.value)} ${unit}, ${attributionText(i.attribution)}`)))) : null,
    p.score ? [scoreBar(p.score.privacy_score, 'privacy'), ` anonymity set ${count(p.score.anonymity_set)}`, reasonsList(p.score.reasons)] : null,
    p.links.length ? [h('h5', {}, `Links (${p.links.length})`), h('ul', { class: 'links' }, p.links.map((l) => peginLink(l, unit)))] : h('p', {}, 'No link to a peg-out is reported.'));
}

export function pegoutCard(p: PegoutNode, unit: string): HTMLElement {
  return h('article', { class: 'peg' },
    h('h4', {}, `Peg-out of ${coin(p.amount)} ${unit}`),
    h('p', { class: 'meta' }, lookupLink(p.txid), `:${p.vout} · `, blockLink(p.block_height), ` · ${utc(p.block_time)}`),
    h('p', {}, 'Paid to ', p.address ? lookupLink(p.address) : 'a script without address', `, ${attributionText(p.attribution)}.`),
    p.score ? [scoreBar(p.score.risk_score, 'risk'), reasonsList(p.score.reasons)] : null,
    p.links.length ? [h('h5', {}, `Links (${p.links.length})`), h('ul', { class: 'links' }, p.links.map((l) => pegoutLink(l, unit)))] : h('p', {}, 'No link to a peg-in is reported.'));
}

/** Pegs shown before "Show all": an exchange's deposit address can have thousands. */
const FIRST_PEGS = 20;

/** Linked pegs first (most confident link first), then the others in chain order. */
function linkedFirst<T extends { links: { confidence: number }[] }>(pegs: readonly T[]): T[] {
  const best = (p: T): number => Math.max(-1, ...p.links.map((l) => l.confidence));
  return pegs.map((p, i) => ({ p, i })).sort((a, b) => best(b.p) - best(a.p) || a.i - b.i).map(({ p }) => p);
}

function pegSection<T extends { links: { confidence: number }[] }>(title: string, pegs: readonly T[], card: (p: T) => HTMLElement): HTMLElement {
  const ordered = linkedFirst(pegs);
  const list = h('div', {}, ordered.slice(0, FIRST_PEGS).map(card));
  const more = ordered.length > FIRST_PEGS ? h('button', {
    type: 'button', onclick: () => {
      list.replaceChildren(...ordered.map(card));
      more?.remove();
    },
  }, `Show all ${ordered.length}`) : null;
  return h('section', { class: 'pegs' }, h('h3', {}, `${title} (${pegs.length})`), pegs.length ? [list, more] : h('p', {}, 'None.'));
}

/** Peg-ins and peg-outs under their headings. */
export function pegLists(pegins: readonly PeginNode[], pegouts: readonly PegoutNode[], unit: string): Child[] {
  return [
    pegSection('Peg-ins', pegins, (p) => peginCard(p, unit)),
    pegSection('Peg-outs', pegouts, (p) => pegoutCard(p, unit)),
  ];
}

/** The follow chain as a path: each hop's confidence, and the confidence of the whole chain up to it. */
export function followPath(follow: Follow): HTMLElement {
  if (follow.hops.length === 0) return h('p', {}, 'No chain: this address funded no peg-in with a reported exit.');
  const steps: Child[] = [h('li', { class: 'node' }, 'Start: ', lookupLink(follow.query, follow.query))];
  for (const [i, hop] of follow.hops.entries()) {
    steps.push(h('li', { class: 'hop' },
      h('p', {}, `Hop ${i + 1}: peg-in `, lookupLink(hop.pegin.txid), ' → peg-out ', lookupLink(hop.pegout.txid)),
      confidenceBar(hop.confidence, 'this hop'),
      confidenceBar(hop.cumulative_confidence, 'whole path so far')));
    steps.push(h('li', { class: 'node' }, hop.to ? lookupLink(hop.to, hop.to) : 'a script without address',
      hop.to_attribution ? `, ${attributionText(hop.to_attribution)}` : null));
  }
  return h('div', {},
    h('ol', { class: 'path', 'aria-label': 'Follow chain' }, steps),
    h('p', {}, `The whole chain holds with confidence ${percent(follow.total_confidence)}: the product of its ${follow.hops.length} hop(s).`));
}
