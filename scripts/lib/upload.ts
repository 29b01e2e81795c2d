/**
 * What a mirror uploads after an incremental export (the files changes.json
 * lists as added or changed), and the bound it must stay within after 1 and
 * after 100 new blocks (docs/static-hosting.md, docs/performance.md).
 */

type FileChanges = Record<string, { size: number }>;

/** The parts of changes.json the upload is read from. */
export interface ChangesBody {
  added: FileChanges;
  changed: FileChanges;
}

export interface Upload {
  files: number;
  bytes: number;
  /** Bytes by group: range files by kind, dump partitions by table, any other file by itself. */
  groups: Map<string, number>;
}

/** Where a file's bytes are counted in the upload. */
export const uploadGroup = (path: string): string => /^(api\/range\/[^/]+\/|dumps\/[^/]+\/)/.exec(path)?.[1] ?? path;

/** Files added or changed since the previous release, and their bytes by group. */
export function uploadOf(changes: ChangesBody): Upload {
  const entries = [...Object.entries(changes.added), ...Object.entries(changes.changed)];
  const groups = new Map<string, number>();
  for (const [path, { size }] of entries) {
    const group = uploadGroup(path);
    groups.set(group, (groups.get(group) ?? 0) + size);
  }
  return { files: entries.length, bytes: [...groups.values()].reduce((sum, bytes) => sum + bytes, 0), groups };
}

/** Largest share of the release's files and bytes a mirror may upload after this many new blocks; null: not bounded. */
export interface UploadBound { files: number | null; bytes: number }

/** The bounds the job is held to: after 1 block ≤ 0.3% of bytes, after 100 blocks ≤ 3% of files and of bytes. */
export const UPLOAD_BOUNDS: Record<1 | 100, UploadBound> = {
  1: { files: null, bytes: 0.003 },
  100: { files: 0.03, bytes: 0.03 },
};

/** The release an upload is a share of. */
export interface ReleaseTotals { files: number; bytes: number }

/** An upload against its bound: both shares, and every way it breaks the bound (empty when it holds). */
export interface UploadVerdict {
  fileShare: number;
  byteShare: number;
  problems: string[];
}

const percent = (share: number, digits = 2): string => `${(share * 100).toFixed(digits)}%`;

export function uploadVerdict(upload: Pick<Upload, 'files' | 'bytes'>, release: ReleaseTotals, bound: UploadBound): UploadVerdict {
  const fileShare = upload.files / release.files;
  const byteShare = upload.bytes / release.bytes;
  const problems: string[] = [];
  if (bound.files !== null && fileShare > bound.files) problems.push(`${upload.files} of ${release.files} files is ${percent(fileShare)} (at most ${percent(bound.files, 1)})`);
  if (byteShare > bound.bytes) problems.push(`${upload.bytes} of ${release.bytes} bytes is ${percent(byteShare)} (at most ${percent(bound.bytes, 1)})`);
  return { fileShare, byteShare, problems };
}

/** A 100-block window of a sim preset: the chain of `seed` from height `to` − 100 to `to`. */
export interface UploadWindow { seed: number; to: number }

/**
 * `--windows`: comma-separated SEED@HEIGHT, HEIGHT a block height or `tip`
 * (the preset's last block); each window needs 101 blocks below it after
 * MWEB activation (its base release is exported at HEIGHT − 101).
 */
export function parseWindows(text: string, tip: number, firstHeight: number): UploadWindow[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const match = /^(\d+)@(tip|\d+)$/.exec(part.trim());
    if (!match) throw new RangeError(`"${part}" is not SEED@HEIGHT (a height or "tip"), e.g. 1@tip or 7@599998`);
    const to = match[2] === 'tip' ? tip : Number(match[2]);
    if (to > tip || to - 101 < firstHeight) throw new RangeError(`"${part}": a window ends at a height from ${firstHeight + 101} to ${tip} (the preset's tip)`);
    return { seed: Number(match[1]), to };
  });
}
