/**
 * The explorer page in every release: index.html and the content-hashed
 * assets that `npm run build` bundles from src/web/ into dist/explorer/
 * (scripts/build-web.ts), copied into the release root, plus the lines the
 * host configs need to serve them with the page's headers.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePublicKey } from '@pegscope/client';
import {
  ASSET_CACHE_CONTROL, ASSET_NAME, ASSET_NAME_NGINX, ASSETS_DIR, CONTENT_SECURITY_POLICY, EXPLORER_INDEX, EXPLORER_PUBLIC_KEYS_META, REFERRER_POLICY,
} from '../api/explorer.js';
import { analysisCacheControl, DEFAULT_CACHE_SECONDS } from '../api/caching.js';
import type { ReleaseWriter } from './writer.js';

/** Where the build puts the page: dist/explorer/ of the package (the same path from src/export and dist/export). */
export const EXPLORER_BUILD_DIR = fileURLToPath(new URL('../../dist/explorer/', import.meta.url));

/**
 * Copies the built page into the release (assets ≥ 4 KB get their .gz/.br
 * siblings like every file), with the public keys it verifies the amount
 * table and range files against in index.html. Returns false, writing
 * nothing, when the page is not built: the API must not wait on it.
 */
export async function writeExplorer(writer: ReleaseWriter, dir = EXPLORER_BUILD_DIR, publicKeys: readonly string[] = []): Promise<boolean> {
  if (!existsSync(join(dir, EXPLORER_INDEX))) return false;
  const assets = readdirSync(join(dir, ASSETS_DIR)).filter((name) => ASSET_NAME.test(name)).sort();
  await Promise.all([
    writer.put(EXPLORER_INDEX, withPublicKeys(readFileSync(join(dir, EXPLORER_INDEX)), publicKeys)),
    ...assets.map((name) => `${ASSETS_DIR}/${name}`).map((rel) => writer.put(rel, readFileSync(join(dir, rel)))),
  ]);
  return true;
}

/** index.html naming `publicKeys` in its meta element; unchanged without keys. A key is base64 (parsePublicKey checks it): nothing to escape. */
function withPublicKeys(html: Buffer, publicKeys: readonly string[]): Buffer {
  if (publicKeys.length === 0) return html;
  const meta = `<meta name="${EXPLORER_PUBLIC_KEYS_META}" content="${publicKeys.map((key) => parsePublicKey(key).line).join(' ')}">\n`;
  return Buffer.from(html.toString('utf8').replace('</head>', `${meta}</head>`));
}

/** sha256 of the built page's index.html, which names every content-hashed asset; null when the page is not built. */
export function explorerDigest(dir = EXPLORER_BUILD_DIR): string | null {
  const index = join(dir, EXPLORER_INDEX);
  return existsSync(index) ? createHash('sha256').update(readFileSync(index)).digest('hex') : null;
}

export const EXPLORER_MISSING = `the explorer page is not built (${EXPLORER_BUILD_DIR}${EXPLORER_INDEX} is missing), so this release has none; run \`npm run build\``;

/** `_headers` rules for the page (Netlify, Cloudflare Pages). */
export function explorerHeaders(): string[] {
  const page = [`  Content-Security-Policy: ${CONTENT_SECURITY_POLICY}`, `  Referrer-Policy: ${REFERRER_POLICY}`];
  return ['/', ...page, `/${EXPLORER_INDEX}`, ...page, `/${ASSETS_DIR}/*`, ...page, `  Cache-Control: ${ASSET_CACHE_CONTROL}`];
}

/**
 * nginx locations for the page. A location with its own add_header loses
 * the server's, so each repeats `common` (the snippet's headers, whose
 * Cache-Control is the $pegscope_cache each location sets).
 */
export function explorerNginx(common: string): string {
  const headers = (cacheControl: string): string => `    set $pegscope_cache "${cacheControl}";
    add_header Content-Security-Policy "${CONTENT_SECURITY_POLICY}" always;
    add_header Referrer-Policy ${REFERRER_POLICY} always;
${common}`;
  const page = headers(analysisCacheControl(DEFAULT_CACHE_SECONDS));
  return `# The explorer page: index.html and its content-hashed assets (their .gz/.br by name too, for mirrors).
location = / {
${page}
    try_files /${EXPLORER_INDEX} =404;
}

location = /${EXPLORER_INDEX} {
${page}
    try_files $uri =404;
}

location ~ "^/${ASSETS_DIR}/${ASSET_NAME_NGINX}(?:\\.(?:gz|br))?$" {
${headers(ASSET_CACHE_CONTROL)}
    try_files $uri =404;
}
`;
}
