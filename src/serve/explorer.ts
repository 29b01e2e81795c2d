/**
 * Routes of the explorer page: `/` and `/index.html`, `/assets/<name>`, and
 * the release documents the page reads by file name (api/stats.json,
 * api/series/<name>.json, …). Only these fixed or pattern-checked names
 * become release paths; anything else under /assets/ is a 404.
 */
import {
  ASSET_NAME, ASSETS_DIR, EXPLORER_DOCUMENTS, EXPLORER_HEADERS, EXPLORER_INDEX, EXPLORER_TYPES,
  explorerFileType,
} from '../api/explorer.js';
import { CONTENT_TYPES } from '../api/release-files.js';

export interface ExplorerFile {
  kind: 'explorer';
  /** Release-relative path, built only from validated parts. */
  rel: string;
  type: string;
  /** Extra headers (the page's CSP) besides the router's own. */
  headers: Record<string, string>;
  /** A content-hashed asset, cached for a year; else cached like analysis documents. */
  immutable: boolean;
}

const DOCUMENTS = new Set(EXPLORER_DOCUMENTS.map((rel) => `/${rel}`));

/** The page file a path names, a 404 for a malformed asset name, or null when the path is not the page's. */
export function explorerRoute(path: string): ExplorerFile | { kind: 'error'; status: 404; message: string } | null {
  if (path === '/' || path === `/${EXPLORER_INDEX}`) {
    return { kind: 'explorer', rel: EXPLORER_INDEX, type: EXPLORER_TYPES.html, headers: EXPLORER_HEADERS, immutable: false };
  }
  if (path.startsWith(`/${ASSETS_DIR}/`)) {
    const name = path.slice(ASSETS_DIR.length + 2);
    // An asset's .gz/.br sibling is a release file like any other, served by its name.
    const compressed = name.replace(/\.(?:gz|br)$/, '');
    if (compressed !== name && ASSET_NAME.test(compressed)) return null;
    if (!ASSET_NAME.test(name)) return { kind: 'error', status: 404, message: explorerMissing(path) };
    return { kind: 'explorer', rel: `${ASSETS_DIR}/${name}`, type: EXPLORER_TYPES[explorerFileType(name)], headers: EXPLORER_HEADERS, immutable: true };
  }
  if (DOCUMENTS.has(path)) return { kind: 'explorer', rel: path.slice(1), type: CONTENT_TYPES.json, headers: {}, immutable: false };
  return null;
}

/** The 404 message for a page path the release lacks. */
export function explorerMissing(path: string): string {
  if (path === `/${EXPLORER_INDEX}`) return 'this release has no explorer page (it was exported before `npm run build` built it); the API index is at /api';
  return `no such file ${JSON.stringify(path.slice(0, 120))} in this release; the explorer page is at /, the API index at /api`;
}
