/**
 * Moving between pages: every page and result is a hash (routes.ts), so
 * back and forward move between results and a result can be shared. The
 * fragment never leaves the browser, so a key or an amount in it stays on
 * this device.
 */

/** Opens `hash`, and shows it again when it is already open (a form submitted twice). */
export function go(hash: string): void {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
}

/** Shows `hash` in this page's place in the history (a lookup of a height is that block's page; back skips it). */
export function redirect(hash: string): void {
  location.replace(hash);
}
