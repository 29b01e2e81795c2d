/**
 * The explorer page: a static single page over a pegscope release, served
 * from the release itself by any host. Pages and results are hash routes
 * (routes.ts); everything a reader types (an amount, an address) stays in
 * this browser unless the page says otherwise.
 */
import type { Envelope } from '../api/envelope.js';
import { byId, h, show } from './dom.js';
import { age, count } from './format.js';
import * as data from './data.js';
import * as dashboard from './dashboard.js';
import * as privacy from './privacy-view.js';
import * as lookup from './lookup-view.js';
import * as block from './block-view.js';
import * as docs from './docs-view.js';
import { routeOf } from './routes.js';

type Render = (main: HTMLElement, args: string[]) => Promise<void>;

const PAGES: Record<string, { title: string; render: Render }> = {
  '': { title: 'Dashboard', render: dashboard.render },
  privacy: { title: 'Privacy check', render: privacy.render },
  lookup: { title: 'Private lookup', render: lookup.render },
  block: { title: 'Block', render: block.render },
  // uPlot is loaded with the charts page only, to keep the first load small.
  charts: { title: 'Charts', render: async (main) => (await import('./charts-view.js')).render(main) },
  methodology: { title: 'Methodology', render: (main) => docs.render(main, 'methodology') },
  api: { title: 'API', render: (main) => docs.render(main, 'api') },
};

let rendering = 0;

async function navigate(first: boolean): Promise<void> {
  const route = routeOf(location.hash);
  if (!route) return;
  const [name, args] = route;
  const page = PAGES[name];
  const main = byId('main');
  const mine = ++rendering;
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (link.getAttribute('href') === `#/${name}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!page) {
    show(main, h('h1', { tabindex: -1 }, 'Not found'), h('p', {}, 'This page does not exist. ', h('a', { href: '#/' }, 'Back to the dashboard'), '.'));
    return;
  }
  document.title = `${page.title} · pegscope explorer`;
  show(main, h('p', { class: 'loading' }, 'Loading…'));
  try {
    await page.render(main, args);
  } catch (err) {
    if (mine !== rendering) return;
    show(main, h('h1', { tabindex: -1 }, page.title), h('p', { class: 'error', role: 'alert' }, `This page could not load: ${(err as Error).message}`));
  }
  // Screen readers and keyboards start at the new page's heading, except on the first load.
  if (!first && mine === rendering) main.querySelector<HTMLElement>('h1')?.focus();
}

/** The network and the data's age, always in the header; a banner on simulated data. */
function showStatus(envelope: Envelope): void {
  const status = byId('status');
  const update = (): void => {
    const seconds = Date.now() / 1000 - envelope.updated_at;
    show(status,
      h('span', { class: `network network-${envelope.network}`, 'data-network': envelope.network }, envelope.network),
      ` · height ${count(envelope.as_of_height)} · analysed `,
      h('time', { datetime: new Date(envelope.updated_at * 1000).toISOString(), 'data-updated-at': envelope.updated_at }, `${age(seconds)} ago`));
  };
  update();
  setInterval(update, 30_000);
  if (envelope.network === 'sim') {
    const banner = byId('banner');
    show(banner, h('strong', {}, 'Simulated data. '), 'This release describes pegscope\'s built-in simulated chain, not Litecoin: no figure here is about real coins or people.');
    banner.hidden = false;
  }
}

function start(): void {
  window.addEventListener('hashchange', () => void navigate(false));
  data.envelope().then(showStatus, (err: unknown) => {
    show(byId('status'), h('span', { class: 'error' }, `No release data: ${(err as Error).message}`));
  });
  void navigate(true);
}

start();
