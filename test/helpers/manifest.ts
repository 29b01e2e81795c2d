/**
 * manifest.json for a release written by hand, in the exporter's format
 * (docs/static-hosting.md "What is in a release"): a head line, then one
 * `"path":{"size","sha256"}` line per file in byte order of the path.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Lists every regular file under `dir` but manifest.json and the names `unlisted` keeps out (secrets the router must never serve). */
export function writeHandManifest(dir: string, head: { network: string; as_of_height: number; updated_at: number }, unlisted: readonly string[] = []): void {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((rel) => rel !== 'manifest.json' && !unlisted.includes(rel))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = files.map((rel, i) => {
    const bytes = readFileSync(join(dir, rel));
    const entry = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    return `${JSON.stringify(rel)}:${JSON.stringify(entry)}${i < files.length - 1 ? ',' : ''}`;
  });
  const top = JSON.stringify({ version: '1', ...head, stamps: [[head.as_of_height, head.updated_at]] }).slice(0, -1);
  writeFileSync(join(dir, 'manifest.json'), [`${top},"files":{`, ...lines, '}}'].join('\n'));
}
