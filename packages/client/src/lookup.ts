/**
 * Private lookups against any mirror of a release: the router, nginx, a CDN
 * or a plain directory server. The host sees a request for a range (a hash
 * prefix shared by dozens of keys), never the address or txid itself; the
 * document is picked out of the range here. Needs only `fetch` (inject one
 * for tests, proxies or React Native).
 */
import {
  canonicalKey, parseRange, rangePath, rangePrefix, RANGES_INDEX_PATH,
  type ParsedRange, type RangeKind, type RangesIndexBody,
} from './range.js';

export type Fetch = (url: string, init?: { headers?: Record<string, string> }) => Promise<{
  ok: boolean; status: number; text(): Promise<string>;
}>;

export interface RangeClientOptions {
  /** The mirror's base URL: the directory holding `api/` (e.g. https://mirror.example/ or http://127.0.0.1:8080). */
  base: string;
  fetch?: Fetch;
}

/** The release's range index: `api/ranges.json` (common envelope + layout). */
export type RangesIndex = RangesIndexBody & { version: string; network: string; unit: string; as_of_height: number; updated_at: number };

/** One found document: its exact bytes as the router answers them, and the parsed value. */
export interface FoundDocument<T = unknown> {
  key: string;
  text: string;
  value: T;
  /** The range it came from (the only path the host saw). */
  path: string;
}

/** A lookup that could not be answered (RangeClient). `name` says which error it is (an Error subclass inherits 'Error'). */
export class LookupError extends Error {
  override readonly name = 'LookupError';
}

export class RangeClient {
  private readonly base: string;
  private readonly fetch: Fetch;
  private index: Promise<RangesIndex> | null = null;

  constructor(opts: RangeClientOptions) {
    this.base = opts.base.endsWith('/') ? opts.base : `${opts.base}/`;
    // A browser's fetch must be called on globalThis ("Illegal invocation" otherwise).
    const fetch = opts.fetch ?? (typeof globalThis.fetch === 'function' ? (globalThis.fetch.bind(globalThis) as unknown as Fetch) : undefined);
    if (!fetch) throw new LookupError('no fetch available: pass one in the options');
    this.fetch = fetch;
  }

  /** The layout (prefix length per kind), fetched once per client. */
  layout(): Promise<RangesIndex> {
    this.index ??= this.getText(RANGES_INDEX_PATH).then((text) => {
      const index = JSON.parse(text) as RangesIndex;
      if (index.layout !== 'ranges' || typeof index.kinds !== 'object') throw new LookupError(`${RANGES_INDEX_PATH} does not describe a range layout`);
      return index;
    }).catch((err: unknown) => {
      this.index = null;
      throw err;
    });
    return this.index;
  }

  /** The range that holds `key` of `kind`, parsed. */
  async range(kind: RangeKind, key: string): Promise<{ path: string; range: ParsedRange }> {
    const layout = (await this.layout()).kinds[kind];
    if (!layout) throw new LookupError(`the release has no ${kind} ranges`);
    const path = rangePath(kind, rangePrefix(key, layout.prefix_length));
    return { path, range: parseRange(await this.getText(path)) };
  }

  /**
   * The default document of `q` (address, txid, block height or hash), or
   * null when the release has none. A block hash costs a second range: the
   * first one maps it to its height.
   */
  async document<T = unknown>(kind: RangeKind, q: string | number): Promise<FoundDocument<T> | null> {
    let key = canonicalKey(q);
    let found = await this.range(kind, key);
    if (kind === 'block' && !/^\d+$/.test(key)) {
      const height = found.range.header.range.aliases?.[key];
      if (height === undefined) return null;
      key = String(height);
      found = await this.range(kind, key);
    }
    const text = found.range.documents.get(key);
    return text === undefined ? null : { key, text, value: JSON.parse(text) as T, path: found.path };
  }

  /** follow's full-depth chain of an address when it is longer than the default depth, else its default document. */
  async followChain<T = unknown>(q: string): Promise<FoundDocument<T> | null> {
    const key = canonicalKey(q);
    const { path, range } = await this.range('follow', key);
    const text = range.chains.get(key) ?? range.documents.get(key);
    return text === undefined ? null : { key, text, value: JSON.parse(text) as T, path };
  }

  private async getText(path: string): Promise<string> {
    const url = `${this.base}${path}`;
    const response = await this.fetch(url);
    // The body is read either way, so the connection is free again.
    const text = await response.text();
    if (!response.ok) throw new LookupError(`GET ${url} answered ${response.status}`);
    return text;
  }
}
