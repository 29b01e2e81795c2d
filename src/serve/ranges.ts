/**
 * Per-query documents of a release in the range layout (docs/static-hosting.md): a lookup
 * reads the one range file its key hashes to, indexes its lines once
 * (api/range-file.ts), and answers with the document's bytes as they are in
 * the file (byte for byte what the files layout holds). Range files are not
 * kept whole in memory: only their index, whose slices share one buffer per file.
 */
import { rangePath, rangePrefix, type RangeKind, type RangesIndexBody } from '@pegscope/client';

/** The release-relative path of the range that holds `key`, under the release's layout. */
export function rangeFileOf(layout: RangesIndexBody, kind: RangeKind, key: string): string {
  return rangePath(kind, rangePrefix(key, layout.kinds[kind].prefix_length));
}
