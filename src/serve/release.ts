/**
 * A site is one network's `out/<network>`; its `current` symlink names the
 * published release. The symlink is resolved once per request and everything
 * that request reads comes from that one release directory, so a response
 * never mixes two releases and a new release is picked up without restart.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, join, resolve } from 'node:path';
import type { NetworkParams } from '../domain/network.js';
import type { Envelope } from '../api/envelope.js';
import type { HealthDocument } from '../api/health.js';
import type { AmountTable } from '../domain/privacy.js';

/** A file of the release with its precompressed siblings, as written by the export. */
export interface CachedFile {
  identity: Buffer;
  gzip: Buffer | null;
  br: Buffer | null;
  /** Strong validator: a digest of the bytes, so an unchanged file keeps its ETag across releases. */
  etag: string;
  /** A computed body: gzip/br are made on first demand. */
  compressible?: boolean;
}

export interface Release {
  id: string;
  dir: string;
  envelope: Envelope;
  /** api/health.json as published; analysis_age_seconds is recomputed per request. */
  health: HealthDocument;
  /** api/amounts.json, the table privacy is computed from. */
  amounts: AmountTable;
  /** Parsed data files reused by every request of this release (top lists). */
  parsed: Map<string, unknown>;
}

export class ReleaseUnavailable extends Error {}

export class Site {
  private release: Release | null = null;

  constructor(
    readonly network: NetworkParams,
    readonly outDir: string,
    readonly hostnames: readonly string[],
    private readonly files: FileCache,
  ) {}

  /** The release `current` points at now; loads its in-memory state when it changed. */
  current(): Release {
    let target: string;
    try {
      target = resolve(this.outDir, readlinkSync(join(this.outDir, 'current')));
    } catch {
      throw new ReleaseUnavailable(`no release published yet for ${this.network.name}; run \`pegscope export\` (or \`pegscope job\`)`);
    }
    if (this.release?.dir === target) return this.release;
    this.release = this.load(target);
    return this.release;
  }

  private load(dir: string): Release {
    try {
      const health = JSON.parse(this.files.read(join(dir, 'api', 'health.json'))?.identity.toString('utf8') ?? 'null') as HealthDocument | null;
      const amountsFile = this.files.read(join(dir, 'api', 'amounts.json'));
      if (!health?.health || !amountsFile) throw new Error('api/health.json or api/amounts.json is missing');
      const envelope = {
        version: health.version,
        network: health.network,
        unit: health.unit,
        as_of_height: Number(health.as_of_height),
        updated_at: Number(health.updated_at),
      } as Envelope;
      if (envelope.network !== this.network.name) {
        throw new Error(`it is a ${envelope.network} release but this site serves ${this.network.name}`);
      }
      const amounts = JSON.parse(amountsFile.identity.toString('utf8')) as AmountTable;
      if (!Array.isArray(amounts.pegin) || !Array.isArray(amounts.pegout)) throw new Error('api/amounts.json is not an amount table');
      return { id: basename(dir), dir, envelope, health, amounts, parsed: new Map() };
    } catch (err) {
      // The message goes to clients: the release id, not the server's paths.
      const reason = err instanceof SyntaxError ? 'a document is not valid JSON' : (err as Error).message;
      throw new ReleaseUnavailable(`the published release ${basename(dir)} cannot be read (${reason}); re-run \`pegscope export\``);
    }
  }

  /** A file of the release, or null when it does not exist. `rel` is built from validated parts only. */
  file(release: Release, rel: string): CachedFile | null {
    return this.files.read(join(release.dir, rel));
  }

  /** A JSON data file parsed once per release. */
  data<T>(release: Release, rel: string): T | null {
    if (release.parsed.has(rel)) return release.parsed.get(rel) as T;
    const file = this.file(release, rel);
    let value: T | null = null;
    try {
      if (file) value = JSON.parse(file.identity.toString('utf8')) as T;
    } catch {
      throw new ReleaseUnavailable(`${rel} of release ${release.id} is not valid JSON; re-run \`pegscope export\``);
    }
    release.parsed.set(rel, value);
    return value;
  }
}

/**
 * LRU of release files by absolute path. Releases are immutable, so an entry
 * never goes stale; the byte budget bounds memory, and files above
 * `maxFileBytes` are read each time instead of evicting everything else.
 */
export class FileCache {
  private readonly entries = new Map<string, CachedFile>();
  private bytes = 0;

  constructor(private readonly budgetBytes = 64 * 1024 * 1024, private readonly maxFileBytes = 1024 * 1024) {}

  read(path: string): CachedFile | null {
    const hit = this.entries.get(path);
    if (hit) {
      this.entries.delete(path);
      this.entries.set(path, hit);
      return hit;
    }
    const identity = readOptional(path);
    if (!identity) return null;
    const file: CachedFile = {
      identity,
      gzip: readOptional(`${path}.gz`),
      br: readOptional(`${path}.br`),
      etag: `"${createHash('sha1').update(identity).digest('base64url')}"`,
    };
    const size = sizeOf(file);
    if (size <= this.maxFileBytes) {
      this.entries.set(path, file);
      this.bytes += size;
      this.evict();
    }
    return file;
  }

  private evict(): void {
    for (const [path, file] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(path);
      this.bytes -= sizeOf(file);
    }
  }
}

function sizeOf(file: CachedFile): number {
  return file.identity.length + (file.gzip?.length ?? 0) + (file.br?.length ?? 0);
}

function readOptional(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw new ReleaseUnavailable(`a file of the published release cannot be read (${code ?? 'error'}); check the permissions of the out directory`);
  }
}
