/**
 * Page navigation by hash (`#/lookup`, `#/block/123`): the fragment never
 * leaves the browser. What a page is asked to show (a key to look up, an
 * amount to check) is handed over in memory, not in the URL, so it stays out
 * of the address bar and the history.
 */
import type { Side } from '@pegscope/client';

export interface Intent {
  lookup?: string;
  amount?: string;
  side?: Side;
}

let pending: Intent = {};

export function go(hash: string, intent: Intent = {}): void {
  pending = intent;
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
}

/** The intent of the navigation that opened this page, once. */
export function takeIntent(): Intent {
  const intent = pending;
  pending = {};
  return intent;
}

/** A link to a page that also hands it an intent. */
export function navLink(hash: string, intent: Intent, label: string, attrs: Record<string, string> = {}): HTMLAnchorElement {
  const a = document.createElement('a');
  a.href = hash;
  a.textContent = label;
  for (const [name, value] of Object.entries(attrs)) a.setAttribute(name, value);
  a.addEventListener('click', (event) => {
    event.preventDefault();
    go(hash, intent);
  });
  return a;
}
