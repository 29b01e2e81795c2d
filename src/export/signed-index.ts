/**
 * The wallet's signed index (docs/verifying.md): api/signed.json lists the
 * sha256 of the amount table, of api/ranges.json and of each shard file
 * api/signed/<kind>/<shard>.json, which lists the sha256 of its range files.
 * A wallet checks one range file with the index, its signature and one
 * shard, never the manifest. DuckDB groups the release's range files into
 * shards; a shard whose bytes the current release has is carried over.
 */
import { RANGE_KINDS, RANGES_INDEX_PATH, type RangeKind, type RangeLayout } from '@pegscope/client';
import type { AnalysisStamp } from '../api/envelope.js';
import { API_VERSION } from '../api/params.js';
import { AMOUNT_TABLE_PATH, SIGNED_INDEX_PATH, SIGNED_INDEX_SIGNATURE_PATH, shardLength, signedShardPath } from '../api/release-files.js';
import { signSmallFile, type ReleaseSigner } from './sign.js';
import { exportSql } from './sql.js';
import type { ReleaseWriter } from './writer.js';

const SHARDS = exportSql('signed-shards');
/** The small files a client reads whose sha256 the index lists. */
const INDEXED_FILES = [AMOUNT_TABLE_PATH, RANGES_INDEX_PATH].sort();
const INDEXED_HASHES = `SELECT path, sha256 FROM x_files WHERE path IN (${INDEXED_FILES.map((_, i) => `$${i + 1}`).join(', ')}) ORDER BY path`;

/** Compact JSON of an object whose members are given in order: JSON.stringify would put integer-like keys ("10") first. */
const orderedObject = (members: ReadonlyArray<readonly [string, string]>): string =>
  `{${members.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;

/**
 * Writes the shard files (range layout) and api/signed.json, and with a
 * signer api/signed.json.minisig; call it once every other file but
 * changes.json and the manifest is recorded. `layout` is null in the files
 * layout, whose index lists no ranges.
 */
export async function writeSignedIndex(writer: ReleaseWriter, stamp: AnalysisStamp, layout: Record<RangeKind, RangeLayout> | null, signer: ReleaseSigner | null): Promise<void> {
  const shards = new Map<string, [string, string][]>();
  if (layout) {
    for (const row of await writer.recorded<{ kind: string; shard: string; text: string }>(SHARDS)) {
      const file = writer.putBare(signedShardPath(row.kind, row.shard), Buffer.from(row.text));
      const list = shards.get(row.kind) ?? [];
      list.push([row.shard, JSON.stringify(file.sha256)]);
      shards.set(row.kind, list);
    }
  }
  const kinds = layout ? [...RANGE_KINDS].sort() : [];
  const ranges = kinds.map((kind): [string, string] => {
    const prefixLength = layout![kind].prefix_length;
    return [kind, `{"prefix_length":${prefixLength},"shard_length":${shardLength(prefixLength)},"shards":${orderedObject(shards.get(kind) ?? [])}}`];
  });
  const files = await writer.recorded<{ path: string; sha256: string }>(INDEXED_HASHES, INDEXED_FILES);
  const text = `{"version":${JSON.stringify(API_VERSION)},"network":${JSON.stringify(stamp.network)},"as_of_height":${stamp.as_of_height},`
    + `"files":${orderedObject(files.map((f) => [f.path, JSON.stringify(f.sha256)]))},"ranges":${orderedObject(ranges)}}`;
  writer.putPlain(SIGNED_INDEX_PATH, text);
  if (signer) writer.putPlain(SIGNED_INDEX_SIGNATURE_PATH, signSmallFile(Buffer.from(text), SIGNED_INDEX_PATH, stamp, signer));
}
