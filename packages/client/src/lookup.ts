/**
 * Private lookups against any mirror of a release: the router, nginx, a CDN
 * or a plain directory server. The host sees a request for a range (a hash
 * prefix shared by dozens of keys), never the address or txid itself; the
 * document is picked out of the range here. Needs only `fetch` (inject one
 * for tests, proxies or React Native).
 */
import type { Envelope, FollowDocument, RangeDocuments } from './documents.js';
import { isNetworkName, notANetwork, otherNetwork, type NetworkName } from './network.js';
import { VerificationError } from './minisign.js';
import { addressRequirement, isValidAddress } from './address.js';
import {
  canonicalKey, parseRange, rangePath, rangePrefix, RANGES_INDEX_PATH,
  type ParsedRange, type RangeKind, type RangesIndexBody,
} from './range.js';
import { checkDigest, SignedIndex, trustedKeys, type TrustOptions, type Verified, type VerifiedIndex } from './verify.js';

// The platform's AbortSignal from whichever types the project has (DOM, @types/node,
// React Native's); a project typed with none of them passes no signal and still compiles.
export type FetchSignal = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : never;

/** The subset of the Fetch API the client uses: a browser's, Node's or React Native's fetch fits. */
export type Fetch = (url: string, init?: { headers?: Record<string, string>; signal?: FetchSignal }) => Promise<{
  ok: boolean; status: number; text(): Promise<string>;
}>;

/** With `publicKeys`, every range is checked against the signed index (docs/verifying.md); a refused one is a VerificationError. */
export interface RangeClientOptions extends TrustOptions {
  /** The mirror's base URL: the directory holding `api/` (https://mirror.example/). */
  base: string;
  /** The network the wallet is on: a release of another network is refused. */
  network: NetworkName;
  fetch?: Fetch;
  /** Aborts a request that has not been answered, body included, after this many milliseconds (default: no limit). */
  timeoutMs?: number;
}

/** The release's range index: `api/ranges.json` (common envelope + layout). */
export type RangesIndex = RangesIndexBody & Envelope;

/** One found document: its exact bytes as the router answers them, and the parsed value (typed, not checked). */
export interface FoundDocument<T = unknown> {
  key: string;
  text: string;
  value: T;
  /** The range it came from (the only path the host saw). */
  path: string;
}

/** A lookup that could not be answered (RangeClient). */
export class LookupError extends Error {
  // Set in index.ts, on the prototype (an Error subclass inherits the name 'Error').
  declare readonly name: 'LookupError';
}

/** `base` with a trailing slash: the directory holding `api/`. @internal */
export const directory = (base: string): string => (base.endsWith('/') ? base : `${base}/`);

/** The platform's fetch; without one, a `Refusal` says so. @internal */
export function platformFetch<F>(Refusal: new (message: string) => Error): F {
  // A browser's fetch must be called on globalThis ("Illegal invocation" otherwise).
  if (typeof globalThis.fetch === 'function') return globalThis.fetch.bind(globalThis) as unknown as F;
  throw new Refusal('no fetch available: pass one in the options');
}

/** A fetched path that answered 404: the layout that named it may be out of date. @internal */
export class NotFound extends LookupError {}

/** The prefix and path of the range that holds `key`, in a layout of `kind` (the plain or the signed index's). */
function locate(layout: { prefix_length: number } | undefined, kind: RangeKind, key: string): { prefix: string; path: string } {
  if (!layout) throw new LookupError(`the release has no ${kind} ranges`);
  const prefix = rangePrefix(key, layout.prefix_length);
  return { prefix, path: rangePath(kind, prefix) };
}

/** Private lookups by range (docs/api.md, "Private lookups for wallets"). */
export class RangeClient {
  private readonly base: string;
  private readonly network: NetworkName;
  private readonly fetch: Fetch;
  private readonly timeoutMs: number | undefined;
  private index: Promise<RangesIndex> | null = null;
  private readonly signed: SignedIndex | null;

  constructor(opts: RangeClientOptions) {
    if (!isNetworkName(opts.network)) throw new LookupError(notANetwork(opts.network));
    this.base = directory(opts.base);
    this.network = opts.network;
    this.timeoutMs = opts.timeoutMs;
    this.fetch = opts.fetch ?? platformFetch(LookupError);
    const keys = trustedKeys(opts);
    this.signed = keys && new SignedIndex(keys, opts.network, opts, (path) => this.getText(path).catch((err: unknown) => {
      if (err instanceof NotFound) return null;
      throw err;
    }));
  }

  /** With publicKeys: the newest release height verified so far (store it; pass it as minHeight next time), else null. */
  get verifiedHeight(): number | null {
    return this.signed && this.signed.height;
  }

  /** With publicKeys: what the signature of the index last used says, else null. */
  async verified(): Promise<Verified | null> {
    return this.signed && (await this.signed.index()).verified;
  }

  /** The layout (prefix length per kind), fetched once and again when a lookup finds it out of date. */
  layout(): Promise<RangesIndex> {
    this.index ??= this.getText(RANGES_INDEX_PATH).then((text) => {
      const index = this.parsed<RangesIndex>(RANGES_INDEX_PATH, text, JSON.parse);
      if (index === null || typeof index !== 'object' || index.layout !== 'ranges' || typeof index.kinds !== 'object' || index.kinds === null) {
        throw new LookupError(`${RANGES_INDEX_PATH} does not describe a range layout`);
      }
      this.checkNetwork(RANGES_INDEX_PATH, index.network);
      return index;
    }).catch((err: unknown) => {
      this.index = null;
      throw err;
    });
    return this.index;
  }

  /** The range that holds `key` of `kind`, parsed, after one refresh of the layout when it was out of date. */
  async range(kind: RangeKind, key: string): Promise<{ path: string; range: ParsedRange }> {
    // The index is kept for the client's life, but a release's layout changes: when a kind's
    // documents grow, its prefix length does, and the ranges of the old length are gone. A
    // missing range (404), or one from a newer release than the index, means a new layout.
    if (this.signed) return this.verifiedRange(this.signed, kind, key);
    const index = await this.layout();
    let found: { path: string; range: ParsedRange };
    try {
      found = await this.rangeOf(index, kind, key);
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
      return this.rangeOf(await this.refreshed(index), kind, key);
    }
    if (found.range.header.as_of_height <= index.as_of_height) return found;
    const newer = await this.refreshed(index);
    return newer.kinds[kind]?.prefix_length === index.kinds[kind]?.prefix_length ? found : this.rangeOf(newer, kind, key);
  }

  /**
   * The default document of `q` (address, txid, block height or hash), or
   * null when the release has none.
   * @remarks A block hash costs a second range: the first one maps it to its height.
   */
  async document<K extends RangeKind>(kind: K, q: string | number): Promise<FoundDocument<RangeDocuments[K]> | null> {
    if (kind !== 'block') this.checkQuery(kind, String(q));
    let key = canonicalKey(q);
    let found = await this.range(kind, key);
    if (kind === 'block' && !/^\d+$/.test(key)) {
      const height = found.range.header.range.aliases?.[key];
      if (height === undefined) return null;
      key = String(height);
      found = await this.range(kind, key);
    }
    const text = found.range.documents.get(key);
    return text === undefined ? null : this.found<RangeDocuments[K]>(key, text, found.path);
  }

  /** follow's full-depth chain of an address when it is longer than the default depth, else its default document. */
  async followChain(q: string): Promise<FoundDocument<FollowDocument> | null> {
    this.checkQuery('follow', q);
    const key = canonicalKey(q);
    const { path, range } = await this.range('follow', key);
    const text = range.chains.get(key) ?? range.documents.get(key);
    return text === undefined ? null : this.found<FollowDocument>(key, text, path);
  }

  private async rangeOf(index: RangesIndex, kind: RangeKind, key: string): Promise<{ path: string; range: ParsedRange }> {
    const { prefix, path } = locate(index.kinds[kind], kind, key);
    return { path, range: this.checkedRange(path, await this.getText(path), kind, prefix) };
  }

  /**
   * The range of `key` as the signed index lists it. A warm lookup fetches
   * only the range file; when its sha256 is not the cached index's (a new
   * release, or a file missing from this mirror), the index and the shard
   * are fetched again, once.
   */
  private async verifiedRange(signed: SignedIndex, kind: RangeKind, key: string): Promise<{ path: string; range: ParsedRange }> {
    let index: VerifiedIndex = await signed.index();
    for (let attempt = 0; ; attempt++) {
      const { prefix, path } = locate(index.body.ranges[kind], kind, key);
      try {
        const [digest, text] = await Promise.all([signed.rangeDigest(index, kind, prefix), this.getText(path)]);
        checkDigest(path, text, digest);
        return { path, range: this.checkedRange(path, text, kind, prefix) };
      } catch (err) {
        if (attempt > 0 || !(err instanceof NotFound || (err instanceof VerificationError && err.failure === 'digest'))) throw err;
      }
      index = await signed.refresh(index);
    }
  }

  /** The range file parsed, refused unless it is the asked kind and prefix of this network (a swapped file is no answer). */
  private checkedRange(path: string, text: string, kind: RangeKind, prefix: string): ParsedRange {
    const range = this.parsed(path, text, parseRange);
    const { kind: actualKind, prefix: actualPrefix } = range.header.range;
    if (actualKind !== kind || actualPrefix !== prefix) {
      throw new VerificationError(`${this.base}${path} holds the ${actualKind} range ${actualPrefix}, not the ${kind} range ${prefix} asked for`, 'mismatch');
    }
    this.checkNetwork(path, range.header.network);
    return range;
  }

  /** The index fetched again, unless another lookup has already replaced `stale`. */
  private async refreshed(stale: RangesIndex): Promise<RangesIndex> {
    const current = await this.layout();
    if (current !== stale) return current;
    this.index = null;
    return this.layout();
  }

  private found<T>(key: string, text: string, path: string): FoundDocument<T> {
    return { key, text, value: this.parsed<T>(path, text, JSON.parse), path };
  }

  /** `parse(text)`; a body that is not what `path` should hold (an HTML error page, a truncated file) is a LookupError. */
  private parsed<T>(path: string, text: string, parse: (text: string) => T): T {
    try {
      return parse(text);
    } catch (err) {
      throw new LookupError(`${this.base}${path} is not a pegscope release file (${(err as Error).message})`, { cause: err });
    }
  }

  /** Refuses a q the router refuses (an address with a bad checksum, a txid where only addresses go), with the router's 400 message. */
  private checkQuery(kind: Exclude<RangeKind, 'block'>, q: string): void {
    if (isValidAddress(this.network, q) || (kind === 'trace' && /^[0-9a-fA-F]{64}$/.test(q))) return;
    const shown = JSON.stringify(q.length > 80 ? `${q.slice(0, 80)}…` : q);
    throw new LookupError(`q must be ${addressRequirement(this.network)}${kind === 'trace' ? ' or a 64-hex txid' : ''}; got ${shown}`);
  }

  private checkNetwork(path: string, network: string): void {
    if (network !== this.network) throw new LookupError(otherNetwork(`${this.base}${path}`, network, this.network));
  }

  private async getText(path: string): Promise<string> {
    const url = `${this.base}${path}`;
    const controller = this.timeoutMs === undefined ? null : new AbortController();
    const timer = controller ? setTimeout(() => controller.abort(), this.timeoutMs) : undefined;
    try {
      const response = await this.fetch(url, controller ? { signal: controller.signal } : undefined);
      // The body is read either way, so the connection is free again.
      const text = await response.text();
      if (response.status === 404) throw new NotFound(`GET ${url} answered 404`);
      if (!response.ok) throw new LookupError(`GET ${url} answered ${response.status}`);
      return text;
    } catch (err) {
      if (err instanceof LookupError) throw err;
      if (controller?.signal.aborted) throw new LookupError(`GET ${url} took longer than ${this.timeoutMs} ms`, { cause: err });
      throw new LookupError(`GET ${url} failed: ${(err as Error).message}`, { cause: err });
    } finally {
      // Only with a timeout: a JavaScript engine without timers can use the client without one.
      if (timer !== undefined) clearTimeout(timer);
    }
  }
}
