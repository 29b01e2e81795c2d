/**
 * The per-query documents of a published release, whatever its layout:
 * range files (the default) or one file per query (--layout files). Tests
 * read documents through here instead of assuming paths.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRange, RANGES_INDEX_PATH, type RangeKind } from '@pegscope/client';

export interface ReleaseDocuments {
  /** Default documents by key. */
  documents: Map<string, string>;
  /** follow: chains longer than the default depth, by key. */
  chains: Map<string, string>;
  /** block: height of each block hash. */
  aliases: Map<string, number>;
}

export const isRangeRelease = (dir: string): boolean => existsSync(join(dir, RANGES_INDEX_PATH));

export function releaseDocuments(dir: string, kind: RangeKind): ReleaseDocuments {
  const out: ReleaseDocuments = { documents: new Map(), chains: new Map(), aliases: new Map() };
  if (isRangeRelease(dir)) {
    const rangeDir = join(dir, 'api', 'range', kind);
    for (const name of readdirSync(rangeDir).sort()) {
      const range = parseRange(readFileSync(join(rangeDir, name), 'utf8'));
      for (const [key, text] of range.documents) out.documents.set(key, text);
      for (const [key, text] of range.chains) out.chains.set(key, text);
      for (const [hash, height] of Object.entries(range.header.range.aliases ?? {})) out.aliases.set(hash, height);
    }
    return out;
  }
  const read = (rel: string): string => readFileSync(join(dir, rel), 'utf8');
  for (const name of readdirSync(join(dir, 'api', kind)).sort()) {
    if (!name.endsWith('.json')) continue;
    const key = name.slice(0, -'.json'.length);
    const text = read(`api/${kind}/${name}`);
    if (kind === 'block' && /^[0-9a-f]{64}$/.test(key)) out.aliases.set(key, (JSON.parse(text) as { block: { height: number } }).block.height);
    else out.documents.set(key, text);
  }
  if (kind === 'follow' && existsSync(join(dir, 'data', 'follow'))) {
    for (const name of readdirSync(join(dir, 'data', 'follow'))) out.chains.set(name.slice(0, -'.json'.length), read(`data/follow/${name}`));
  }
  return out;
}
