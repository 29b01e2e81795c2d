/**
 * The explorer page's files as a release serves them: index.html and
 * content-hashed assets/, with a strict Content-Security-Policy. Declared
 * once for the build (scripts/build-web.ts), the export, the router and the
 * generated host configs.
 */
import { SERIES_NAMES, seriesPath } from './series.js';

export const EXPLORER_INDEX = 'index.html';
/** The meta element of index.html naming the keys the page verifies against (docs/verifying.md): `content` is their `RW…` lines, space-separated. */
export const EXPLORER_PUBLIC_KEYS_META = 'pegscope-public-keys';
export const ASSETS_DIR = 'assets';

/** Every asset name the build writes (<name>-<hash>.<ext>); no other name under assets/ reaches the file system. */
export const ASSET_NAME = /^[A-Za-z0-9_-]{1,100}\.(?:js|css|html)$/;
export const ASSET_NAME_NGINX = '[A-Za-z0-9_-]{1,100}\\.(?:js|css|html)';

export type ExplorerFileType = 'html' | 'js' | 'css';
export const EXPLORER_TYPES: Record<ExplorerFileType, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

export function explorerFileType(name: string): ExplorerFileType {
  const ext = name.slice(name.lastIndexOf('.') + 1);
  if (ext === 'html' || ext === 'js' || ext === 'css') return ext;
  throw new Error(`${name} is not an explorer file (html, js or css)`);
}

/** Assets never change under their content-hashed names. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * Only the page's own files: no inline script or style, no third-party
 * request; `data:` images for the empty favicon that spares a request.
 */
const CSP_DIRECTIVES = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "object-src 'none'", "base-uri 'none'", "form-action 'none'",
];
export const CONTENT_SECURITY_POLICY = [...CSP_DIRECTIVES, "frame-ancestors 'none'"].join('; ');
/** The same policy in index.html's <meta>, for hosts that send no headers; frame-ancestors only works as a header. */
export const CSP_META = CSP_DIRECTIVES.join('; ');
/** Pages and lookups never tell another site where the reader came from. */
export const REFERRER_POLICY = 'no-referrer';

/** Headers of the page's own files (HTML, JS, CSS), wherever they are served. */
export const EXPLORER_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Referrer-Policy': REFERRER_POLICY,
};

/**
 * Release documents the page reads by their file names (so that it works on
 * a plain directory server); the router answers these names too.
 */
export const EXPLORER_DOCUMENTS: readonly string[] = [
  'api/stats.json', 'api/recommendations.json', 'api/links.json', ...SERIES_NAMES.map(seriesPath),
];
