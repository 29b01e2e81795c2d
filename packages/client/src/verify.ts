/**
 * What a wallet fetches, checked against pinned minisign keys without the
 * release's manifest (docs/verifying.md, "The wallet's index"): the signed
 * index `api/signed.json` (`Ed`), one shard per range lookup, and the sha256
 * of each file they list.
 */
import { verifyEd25519 } from './ed25519.js';
import {
  SignatureError, VerificationError, globalSignedBytes, parsePublicKey, parseSignature, parseTrustedComment, type MinisignPublicKey,
} from './minisign.js';
import { isObject, nowSeconds } from './amount-table.js';
import { keyHash, type RangeKind } from './range.js';
import { otherNetwork } from './network.js';

/** Where the wallet's signed index lies in a release. @internal */
export const SIGNED_INDEX_PATH = 'api/signed.json';

export interface TrustOptions {
  /** minisign public keys (the key file or its `RW…` line); with any, every file read is checked against them. */
  publicKeys?: readonly string[];
  /** The newest `as_of_height` the wallet has verified before (`verified.as_of_height`): an older release is a rollback. */
  minHeight?: number;
  /** Refuses a release signed longer ago than this (a mirror frozen on an old release). */
  maxAgeSeconds?: number;
}

/** What the signature vouches for: store `as_of_height` and pass it as `minHeight` next time. */
export interface Verified {
  as_of_height: number;
  /** The release id (the trusted comment's). */
  release: string;
  /** Unix seconds of signing. */
  signed_at: number;
  /** The signing key's `RW…` line. */
  public_key: string;
  key_id: string;
}

/** `api/signed.json` (docs/verifying.md). @internal */
export interface SignedIndexBody {
  version: string;
  network: string;
  as_of_height: number;
  /** Path → sha256 hex of the small files a client reads. */
  files: Record<string, string>;
  ranges: Partial<Record<RangeKind, { prefix_length: number; shard_length: number; shards: Record<string, string> }>>;
}

/** A verified index: its body and what its signature says. @internal */
export interface VerifiedIndex {
  body: SignedIndexBody;
  verified: Verified;
}

/** GET a release path's text; null when it answers 404. @internal */
export type GetReleaseText = (path: string) => Promise<string | null>;

/** Hex sha256 of a file's text (UTF-8): the digest the signed index lists. @internal */
export const fileDigest: (text: string) => string = keyHash;

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The parsed `publicKeys`, or null when none are given (nothing is then
 * verified). A malformed key is a SignatureError at once, not at the first fetch.
 * @internal
 */
export function trustedKeys(options: TrustOptions): MinisignPublicKey[] | null {
  return options.publicKeys && options.publicKeys.length > 0 ? options.publicKeys.map(parsePublicKey) : null;
}

/** Checks a minisign `Ed` signature of `bytes` and its trusted comment; returns the key and the comment's fields. @internal */
export async function verifySignature(
  bytes: Uint8Array, signatureText: string, keys: readonly MinisignPublicKey[], what: string,
): Promise<{ key: MinisignPublicKey; fields: Record<string, string> }> {
  const sig = parseSignature(signatureText);
  if (sig.algorithm !== 'Ed') throw new SignatureError(`${what} is signed with minisign's prehashed "ED"; a wallet's index is signed with "Ed"`);
  const key = keys.find((k) => k.keyIdHex === sig.keyIdHex);
  if (!key) throw new SignatureError(`${what} is signed by key ${sig.keyIdHex}, which is not among the trusted keys (${keys.map((k) => k.keyIdHex).join(', ')})`);
  if (!(await verifyEd25519(sig.signature, bytes, key.key))) throw new SignatureError(`${what}: the signature by key ${sig.keyIdHex} does not match the file`);
  if (!(await verifyEd25519(sig.globalSignature, globalSignedBytes(sig.signature, sig.trustedComment), key.key))) {
    throw new SignatureError(`${what}: the trusted comment's signature by key ${sig.keyIdHex} does not verify`);
  }
  return { key, fields: parseTrustedComment(sig.trustedComment) };
}

/**
 * One mirror's signed index, verified and cached, with the shards read from
 * it. Rollback and freeze are checked at every fetch; a cached index is
 * used until it is older than maxAgeSeconds or a file does not match it.
 * @internal
 */
export class SignedIndex {
  private newest: number;
  private current: Promise<VerifiedIndex> | null = null;
  private readonly shards = new Map<string, { digest: string; ranges: Record<string, string> }>();

  constructor(
    private readonly keys: readonly MinisignPublicKey[],
    private readonly network: string,
    private readonly options: TrustOptions,
    private readonly get: GetReleaseText,
    private readonly now: () => number = nowSeconds,
  ) {
    this.newest = options.minHeight ?? 0;
  }

  /** The newest as_of_height verified (or minHeight). */
  get height(): number {
    return this.newest;
  }

  /** The cached index (or the one being fetched), fetched again when it has grown older than maxAgeSeconds. */
  async index(): Promise<VerifiedIndex> {
    const cached = await (this.current ?? this.fetchIndex());
    return this.expired(cached.verified) ? this.refresh(cached) : cached;
  }

  /** The index fetched again, unless another call has already replaced `stale`. */
  refresh(stale: VerifiedIndex): Promise<VerifiedIndex> {
    if (this.current) {
      const pending = this.current;
      return pending.then((c) => (c === stale ? this.fetchIndex() : c), () => this.fetchIndex());
    }
    return this.fetchIndex();
  }

  /** The sha256 the index lists for `api/range/<kind>/<prefix>.json`, from its verified shard. */
  async rangeDigest(index: VerifiedIndex, kind: RangeKind, prefix: string): Promise<string | undefined> {
    const layout = index.body.ranges[kind];
    if (!layout) return undefined;
    const shard = prefix.slice(0, layout.shard_length);
    const digest = layout.shards[shard];
    if (digest === undefined) return undefined;
    const key = `${kind}/${shard}`;
    let cached = this.shards.get(key);
    if (cached?.digest !== digest) {
      const path = `api/signed/${key}.json`;
      const text = await this.get(path);
      if (text === null) throw new VerificationError(`${path} is missing, though ${SIGNED_INDEX_PATH} lists it`, 'digest');
      checkDigest(path, text, digest);
      const body = JSON.parse(text) as { kind?: unknown; shard?: unknown; ranges?: Record<string, string> };
      if (body.kind !== kind || body.shard !== shard || typeof body.ranges !== 'object' || body.ranges === null) {
        throw new VerificationError(`${path} is not the ${kind} shard ${shard}`, 'mismatch');
      }
      cached = { digest, ranges: body.ranges };
      this.shards.set(key, cached);
    }
    return cached.ranges[prefix];
  }

  private expired(verified: Verified): boolean {
    return this.options.maxAgeSeconds !== undefined && this.now() - verified.signed_at > this.options.maxAgeSeconds;
  }

  private fetchIndex(): Promise<VerifiedIndex> {
    const fetched = this.load();
    this.current = fetched;
    // A failed fetch is not cached: the next call tries again.
    fetched.catch(() => {
      if (this.current === fetched) this.current = null;
    });
    return fetched;
  }

  private async load(): Promise<VerifiedIndex> {
    const [text, signature] = await Promise.all([this.get(SIGNED_INDEX_PATH), this.get(`${SIGNED_INDEX_PATH}.minisig`)]);
    if (text === null || signature === null) {
      throw new SignatureError(`the release is not signed: ${text === null ? SIGNED_INDEX_PATH : `${SIGNED_INDEX_PATH}.minisig`} answered 404`);
    }
    const { key, fields } = await verifySignature(new TextEncoder().encode(text), signature, this.keys, SIGNED_INDEX_PATH);
    const verified: Verified = {
      as_of_height: Number(fields.as_of_height), release: fields.release ?? '', signed_at: Number(fields.timestamp), public_key: key.line, key_id: key.keyIdHex,
    };
    let body: SignedIndexBody;
    try {
      body = JSON.parse(text) as SignedIndexBody;
    } catch (err) {
      throw new VerificationError(`${SIGNED_INDEX_PATH} is signed but is not JSON`, 'mismatch', { cause: err });
    }
    const signedFor = `network ${fields.network}, height ${fields.as_of_height}, file ${fields.file}`;
    if (fields.file !== SIGNED_INDEX_PATH || fields.network !== body.network || Number(body.as_of_height) !== verified.as_of_height
      || !Number.isSafeInteger(verified.as_of_height) || !Number.isSafeInteger(verified.signed_at) || !isIndexBody(body)) {
      throw new VerificationError(`${SIGNED_INDEX_PATH} is not an index of the release its trusted comment names (${signedFor})`, 'mismatch');
    }
    if (body.network !== this.network) throw new VerificationError(otherNetwork(SIGNED_INDEX_PATH, body.network, this.network), 'mismatch');
    if (verified.as_of_height < this.newest) {
      throw new VerificationError(`rollback: the release is at height ${verified.as_of_height}, older than height ${this.newest} already verified`, 'rollback');
    }
    if (this.expired(verified)) {
      throw new VerificationError(`the release was signed ${this.now() - verified.signed_at} s ago, more than the ${this.options.maxAgeSeconds} s allowed (a frozen mirror?)`, 'freeze');
    }
    this.newest = verified.as_of_height;
    return { body, verified };
  }
}

/** The members a client reads, of the types it reads them as. */
function isIndexBody(body: unknown): body is SignedIndexBody {
  return isObject(body) && isObject(body.files) && isObject(body.ranges) && Object.values(body.ranges).every((layout) => isObject(layout)
    && Number.isInteger(layout.prefix_length) && Number.isInteger(layout.shard_length) && isObject(layout.shards));
}

/** VerificationError unless `text`'s sha256 is `digest`. @internal */
export function checkDigest(path: string, text: string, digest: string | undefined): void {
  if (digest === undefined || !HEX64.test(digest)) throw new VerificationError(`${SIGNED_INDEX_PATH} lists no sha256 of ${path}`, 'digest');
  const actual = fileDigest(text);
  if (actual !== digest) throw new VerificationError(`${path} has sha256 ${actual}, but the signed index lists ${digest}`, 'digest');
}
