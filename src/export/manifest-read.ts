/**
 * Reading a release's manifest.json line by line, every part checked against
 * schemas/manifest.json and every path checked to stay inside the release:
 * for `pegscope verify` and `pegscope mirror`. Kept apart from verify.ts so a
 * mirror loads no more than this (it never loads DuckDB: docs/architecture.md).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { MANIFEST_SCHEMA } from '../api/schemas.js';

export interface ManifestEntry { path: string; size: number; sha256: string }

/** A manifest.json line that is not what the exporter writes. */
export class ManifestError extends Error {}

export interface ManifestHead { version: string; network: string; as_of_height: number; updated_at: number }

const ajv = new Ajv2020({ strict: false }).addSchema(MANIFEST_SCHEMA);
/** The head is checked with an empty `files`, each line's entry with the schema's entry part. */
const validateHead = ajv.compile<ManifestHead>({ $ref: String(MANIFEST_SCHEMA.$id) });
const validateEntry = ajv.compile<Omit<ManifestEntry, 'path'>>({ $ref: `${String(MANIFEST_SCHEMA.$id)}#/properties/files/additionalProperties` });

/**
 * The manifest's files in order, read line by line: the exporter writes
 * `{…head…,"files":{` on the first line, then one `"path":{…},` per line in
 * path order, then `}}` (src/export/manifest.ts). Each part is checked
 * against schemas/manifest.json.
 */
export async function* readManifest(path: string, onHead: (head: ManifestHead) => void, onEntry?: (entry: ManifestEntry) => void): AsyncGenerator<ManifestEntry> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  const fail = (n: number, why: string): Error =>
    new ManifestError(`manifest.json line ${n}: ${why}; it is not a manifest written by pegscope export (fetch it again, or re-export)`);
  let n = 0;
  let previous = '';
  let closed = false;
  for await (const line of lines) {
    n++;
    if (n === 1) {
      if (!line.endsWith('"files":{')) throw fail(n, 'the first line must end with "files":{');
      const head = parseObject(`${line}}}`, () => fail(n, 'not JSON'));
      if (!validateHead(head)) throw fail(n, ajv.errorsText(validateHead.errors, { dataVar: 'manifest' }));
      onHead(head);
      continue;
    }
    if (closed) throw fail(n, 'text after the closing }}');
    if (line === '}}') { closed = true; continue; }
    const notMember = () => fail(n, 'not one "path":{size,sha256} member');
    const members = Object.entries(parseObject(`{${line.endsWith(',') ? line.slice(0, -1) : line}}`, notMember));
    if (members.length !== 1) throw notMember();
    const [file, value] = members[0]!;
    if (!validateEntry(value)) throw fail(n, `${file}: ${ajv.errorsText(validateEntry.errors, { dataVar: 'entry' })}`);
    const unsafe = unsafePath(file);
    if (unsafe) throw fail(n, `${JSON.stringify(file)} ${unsafe}`);
    if (file <= previous) throw fail(n, `${file} is not in path order after ${previous}`);
    previous = file;
    const entry = { path: file, size: value.size, sha256: value.sha256 };
    onEntry?.(entry);
    yield entry;
  }
  if (!closed) throw fail(n, 'the manifest ends before its closing }} (truncated?)');
}

/** Why a manifest path must not be followed, or null: only plain relative paths inside the release. */
function unsafePath(path: string): string | null {
  if (path.startsWith('/')) return 'is absolute';
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) return 'has an empty, . or .. segment';
  if (path.includes('\0') || path.includes('\\')) return 'has a NUL or backslash';
  return null;
}

/** JSON text that starts with `{`: an object once it parses. */
function parseObject(text: string, fail: () => Error): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw fail();
  }
}

/** Files up to this size are hashed from one read; larger ones are streamed. */
const READ_WHOLE_MAX = 1 << 20;

/** The hex sha256 of a file the manifest lists (`verify` and `mirror` check bytes with it); `size` when known. */
export async function sha256OfFile(path: string, size = Infinity): Promise<string> {
  const hash = createHash('sha256');
  if (size <= READ_WHOLE_MAX) hash.update(await readFile(path));
  else await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}
