import type { AnalysisStamp } from '../api/envelope.js';
import type { NetworkName } from '../domain/network.js';

/** One file of a release. `stamp` indexes Manifest.stamps for documents stamped with the analysis they were computed in. */
export interface ManifestEntry {
  size: number;
  sha256: string;
  stamp?: number;
}

/**
 * manifest.json: every file of the release (itself excepted) with size and
 * sha256. Per-query documents keep the stamp (as_of_height, updated_at) of
 * the analysis that last changed them; `stamps` lists those analyses.
 */
export interface Manifest {
  version: '1';
  network: NetworkName;
  as_of_height: number;
  updated_at: number;
  stamps: [number, number][];
  files: Record<string, ManifestEntry>;
}

export const MANIFEST_FILE = 'manifest.json';

export function stampOf(manifest: Manifest, entry: ManifestEntry): AnalysisStamp | null {
  if (entry.stamp === undefined) return null;
  const pair = manifest.stamps[entry.stamp];
  return pair ? { network: manifest.network, as_of_height: pair[0], updated_at: pair[1] } : null;
}

export function parseManifest(text: string): Manifest {
  const manifest = JSON.parse(text) as Manifest;
  if (manifest.version !== '1' || typeof manifest.files !== 'object' || !Array.isArray(manifest.stamps)) {
    throw new Error('not a pegscope manifest (version "1" with files and stamps)');
  }
  return manifest;
}
