/**
 * The private lookup page: an address, txid, block height or hash, looked up
 * without telling the host (where ranges exist). `#/lookup/<q>` opens a
 * lookup; the form and every key in a result go to such an address.
 */
import type { TraceDocument } from '../api/trace.js';
import { traceCsv } from '../api/csv-rows.js';
import { h, show, type Child } from './dom.js';
import { coin, count } from './format.js';
import * as data from './data.js';
import { openLookup, parseQuery, type Found, type LookupSource, type Query } from './lookup.js';
import { go, redirect } from './nav.js';
import { lookupHash, pageHash } from './routes.js';
import { attributionText, followPath, pegLists } from './pegs-view.js';
import { downloadButton } from './download.js';
import { pagePublicKeys, verificationWarning, verifiedLine } from './trust.js';

let source: Promise<LookupSource> | null = null;

/** The lookup source of this mirror, decided once per page load. */
export function lookupSource(): Promise<LookupSource> {
  source ??= data.envelope().then((envelope) => openLookup(new URL('.', location.href).href, readWhole, envelope.network, pagePublicKeys()));
  return source;
}

/** fetch for the lookups, reading every body (an error's too) so no response is left open. */
async function readWhole(url: string): Promise<{ ok: boolean; status: number; text(): Promise<string> }> {
  const response = await fetch(url);
  const text = await response.text();
  if (response.status === 429) throw new Error(data.tooManyRequests(response.headers.get('retry-after')));
  return { ok: response.ok, status: response.status, text: async () => text };
}

/** Says how lookups travel: privately through ranges, or by key (visible, with the reason). */
export function lookupNotice(lookup: LookupSource): HTMLElement {
  if (!lookup.sendsKey) {
    return h('p', { class: 'notice private', 'data-lookup-mode': 'ranges' },
      'Private: the page fetches a range file shared by dozens of keys and finds your key in it here; the host never learns which one you looked up.');
  }
  return h('div', { class: 'notice warning', role: 'note', 'data-lookup-mode': 'query' },
    h('strong', {}, 'Not private on this mirror: '),
    'it publishes no range files yet, so a lookup sends the key itself to the host (',
    h('code', {}, lookup.describe), '), which may log it.',
    h('br'), h('small', {}, `Why: ${lookup.reason ?? 'no range index'}.`));
}

export async function render(main: HTMLElement, args: string[]): Promise<void> {
  const [q = null] = args;
  const envelope = await data.envelope();
  const lookup = await lookupSource();
  const input = h('input', { id: 'lookup-q', name: 'q', type: 'text', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': 'lookup-help' });
  const result = h('section', { id: 'lookup-result', 'aria-live': 'polite' });
  const form = h('form', {
    class: 'query', onsubmit: (event) => {
      event.preventDefault();
      go(lookupHash(input.value.trim()));
    },
  },
  h('label', { for: 'lookup-q' }, 'Address, transaction id, block height or block hash'),
  h('div', { class: 'row' }, input, h('button', { type: 'submit' }, lookup.sendsKey ? 'Look up (sends the key)' : 'Look up')),
  h('p', { id: 'lookup-help', class: 'help' }, `Checked here with the same checksum code as the API: ${envelope.network} addresses only.`));
  show(main, h('h1', { tabindex: -1 }, 'Private lookup'), lookupNotice(lookup), form, result);
  if (q !== null) {
    input.value = q;
    await lookUp(q, envelope.network, envelope.unit, lookup, result);
  }
}

async function lookUp(text: string, network: TraceDocument['network'], unit: string, lookup: LookupSource, out: HTMLElement): Promise<void> {
  const parsed = parseQuery(text, network);
  if (!parsed.ok) return show(out, h('p', { class: 'error', role: 'alert' }, parsed.error));
  show(out, h('p', { class: 'loading' }, 'Looking up…'));
  try {
    const children = await resultOf(parsed.query, unit, lookup);
    const verified = await lookup.verified();
    show(out, verified && verifiedLine(verified), ...children);
  } catch (err) {
    show(out, verificationWarning(err, 'a range file of this lookup') ?? h('p', { class: 'error', role: 'alert' }, `The lookup failed: ${(err as Error).message}`));
  }
}

async function resultOf(query: Query, unit: string, lookup: LookupSource): Promise<Child[]> {
  if (query.kind === 'height') {
    redirect(pageHash('block', query.value));
    return [];
  }
  const trace = await lookup.trace(query.value);
  if (trace && trace.value.trace.type !== 'not_found') return traceView(trace, unit, lookup);
  if (query.kind === 'hash') {
    const block = await lookup.block(query.value);
    if (block) {
      redirect(pageHash('block', String(block.value.block.height)));
      return [];
    }
  }
  return [h('p', { class: 'empty' }, `No peg-in or peg-out of ${query.value} in this release.`)];
}

const TITLES = { address: 'Address', pegin_tx: 'Peg-in transaction', pegout_tx: 'Peg-out transaction', not_found: 'Not found' } as const;

/** The address's wallet cluster in words: one of its own is no cluster of several. */
const clusterText = (size: number): string => (size <= 1
  ? 'It is a wallet cluster of its own: it was never spent together with another address.'
  : `It belongs to a wallet cluster of ${count(size)} addresses (inputs spent together).`);

async function traceView(found: Found<TraceDocument>, unit: string, lookup: LookupSource): Promise<Child[]> {
  const { trace } = found.value;
  const isAddress = trace.type === 'address';
  const [address, follow] = isAddress ? await Promise.all([lookup.address(trace.query), lookup.follow(trace.query)]) : [null, null];
  const name = `pegscope-trace-${trace.query}`;
  return [
    h('h2', {}, `${TITLES[trace.type]} `, h('code', { class: 'query' }, trace.query)),
    h('p', {}, `This ${isAddress ? 'address' : 'transaction'} is ${attributionText(trace.attribution)}.`,
      trace.cluster ? ` ${clusterText(trace.cluster.size)}` : null),
    address ? h('p', {}, `Received ${count(address.value.address.pegouts_received.count)} peg-out(s), ${coin(address.value.address.pegouts_received.total)} ${unit} in all; funded ${count(address.value.address.pegins_funded.count)} peg-in(s), ${coin(address.value.address.pegins_funded.total)} ${unit} in all.`) : null,
    h('p', { class: 'downloads' }, 'Download this trace: ',
      downloadButton('JSON', `${name}.json`, 'application/json', () => found.text), ' ',
      downloadButton('CSV', `${name}.csv`, 'text/csv', () => traceCsv(trace))),
    h('p', { class: 'disclaimer' }, 'Links are heuristic inferences from public amounts and times, never proof that the same person made both pegs.'),
    follow ? h('section', { class: 'follow' }, h('h3', {}, 'Follow chain'), followPath(follow.value.follow)) : null,
    ...pegLists(trace.pegins, trace.pegouts, unit),
  ];
}
