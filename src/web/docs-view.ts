/** The methodology and API pages: docs/*.md rendered to HTML at build time (assets/<name>-<hash>.html). */
import { h, show } from './dom.js';
import { getText } from './data.js';

export type DocName = keyof typeof __EXPLORER_DOCS__;

export async function render(main: HTMLElement, name: DocName): Promise<void> {
  const html = await getText(__EXPLORER_DOCS__[name]);
  const article = h('article', { class: 'doc' });
  // Our own docs, rendered by the build from the repository's markdown; the CSP still forbids any script in them.
  article.innerHTML = html;
  const title = article.querySelector('h1');
  title?.setAttribute('tabindex', '-1');
  show(main, article);
}
