/**
 * What the page verifies (docs/verifying.md): the amount table and the range
 * files it reads, against the public keys the exporter put in index.html.
 * Without keys nothing is verified and the page says nothing about it.
 */
import { VerificationError, type Verified } from '@pegscope/client';
import { EXPLORER_PUBLIC_KEYS_META } from '../api/explorer.js';
import { h } from './dom.js';
import { count } from './format.js';

/** The keys of index.html's meta element; none: the release was exported without keys. */
export function pagePublicKeys(): string[] {
  const meta = document.querySelector<HTMLMetaElement>(`meta[name="${EXPLORER_PUBLIC_KEYS_META}"]`);
  return meta ? meta.content.split(/\s+/).filter(Boolean) : [];
}

/** The one line that says who signed what the page shows: "verified: signed by RWQ… at height N". */
export function verifiedLine(verified: Verified): HTMLElement {
  return h('p', { class: 'verified', 'data-verified-height': verified.as_of_height, title: `key ${verified.public_key} (id ${verified.key_id}), release ${verified.release}` },
    `verified: signed by ${verified.public_key.slice(0, 8)}… at height ${count(verified.as_of_height)}`);
}

/** The warning shown instead of a file that failed its check; null for any other error. */
export function verificationWarning(err: unknown, what: string): HTMLElement | null {
  if (!(err instanceof VerificationError)) return null;
  return h('div', { class: 'notice warning', role: 'alert', 'data-verification-failed': err.failure },
    h('strong', {}, `Not verified: ${what} is not the file the release ${err.failure === 'mismatch' ? 'asked for' : 'signed'}, so nothing from it is shown. `),
    'This mirror may serve altered data; use another mirror or the publisher\'s site.',
    h('br'), h('small', {}, err.message));
}
