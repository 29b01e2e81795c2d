/**
 * The router's cache bounds, apart from the router itself so the CLI can show
 * the defaults in its help without loading the server.
 */
import type { LruLimits } from '../lru.js';

/** Every cache of the router, bounded by entries and bytes (src/lru.ts). */
export interface CacheLimits {
  /** Answers by release and URL. */
  answers: LruLimits;
  /** Release files in memory with their .gz/.br siblings. */
  files: LruLimits;
  /** Files larger than this (with siblings) are read per request instead of cached. */
  maxFileBytes: number;
  /** ETags of streamed files (dumps, manifest). */
  digests: LruLimits;
  /** Range files indexed for lookups, sized by the file. */
  ranges: LruLimits;
  /** Release files whose sha256 was checked against the manifest (a file read again is not hashed again). */
  verified: LruLimits;
  /** Parsed data files per release, by their JSON text (the objects take a few times that). */
  data: LruLimits;
}

export const DEFAULT_CACHE_LIMITS: CacheLimits = {
  answers: { maxEntries: 10_000, maxBytes: 32 * 1024 * 1024 },
  files: { maxEntries: 20_000, maxBytes: 64 * 1024 * 1024 },
  maxFileBytes: 1024 * 1024,
  digests: { maxEntries: 1_000 },
  ranges: { maxEntries: 20_000, maxBytes: 128 * 1024 * 1024 },
  verified: { maxEntries: 100_000 },
  data: { maxEntries: 1_000, maxBytes: 8 * 1024 * 1024 },
};
