/** A block's page: its peg-ins, peg-outs and the MWEB supply after it. */
import { append, h, show } from './dom.js';
import { coin, count, utc } from './format.js';
import * as data from './data.js';
import { lookupNotice, lookupSource } from './lookup-view.js';
import { pegLists } from './pegs-view.js';

export async function render(main: HTMLElement, args: string[]): Promise<void> {
  const height = args[0] ?? '';
  const envelope = await data.envelope();
  const lookup = await lookupSource();
  if (!/^(?:0|[1-9]\d{0,9})$/.test(height)) {
    return show(main, h('h1', { tabindex: -1 }, 'Block'), h('p', { class: 'error', role: 'alert' }, `"${height.slice(0, 20)}" is not a block height.`));
  }
  show(main, h('h1', { tabindex: -1 }, `Block ${count(Number(height))}`), lookupNotice(lookup), h('p', { class: 'loading' }, 'Loading…'));
  const found = await lookup.block(height);
  main.lastElementChild?.remove();
  if (!found) {
    main.append(h('p', { class: 'empty' }, `Block ${height} has no peg-in or peg-out in this release (analysed up to height ${count(envelope.as_of_height)}).`));
    return;
  }
  const { block } = found.value;
  append(main, [
    h('dl', { class: 'facts' },
      h('dt', {}, 'Hash'), h('dd', {}, h('code', {}, block.hash)),
      h('dt', {}, 'Time'), h('dd', {}, utc(block.time)),
      h('dt', {}, 'MWEB supply after this block'), h('dd', { 'data-supply': block.supply ?? '' }, block.supply === null ? 'unknown' : `${coin(block.supply)} ${envelope.unit}`)),
    pegLists(block.pegins, block.pegouts, envelope.unit),
  ]);
}
