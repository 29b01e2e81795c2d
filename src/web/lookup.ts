/**
 * What the lookup box accepts, and where documents come from. With range
 * files (api/ranges.json) a lookup fetches a range shared by dozens of keys
 * and picks its document here, so the host never learns the key; a release
 * without them is asked by key (`api/trace?q=…`), which the page says.
 */
import { isValidAddress } from '../domain/address.js';
import { NETWORKS, type NetworkName } from '../domain/network.js';
import { RangeClient, type Fetch, type Verified } from '@pegscope/client';
import type { TraceDocument } from '../api/trace.js';
import type { AddressDocument } from '../api/address.js';
import type { FollowDocument } from '../api/follow.js';
import type { BlockDocument } from '../api/block.js';

export type Query =
  | { kind: 'address'; value: string }
  /** 64 hex: a peg-in or peg-out txid, or a block hash. */
  | { kind: 'hash'; value: string }
  | { kind: 'height'; value: string };

/** Classifies the text typed into the lookup box with the router's checks (same address checksum code). */
export function parseQuery(text: string, network: NetworkName): { ok: true; query: Query } | { ok: false; error: string } {
  const value = text.trim();
  if (value === '') return { ok: false, error: 'Type an address, a transaction id, a block height or a block hash.' };
  if (/^(?:0|[1-9]\d{0,9})$/.test(value)) return { ok: true, query: { kind: 'height', value } };
  if (/^[0-9a-fA-F]{64}$/.test(value)) return { ok: true, query: { kind: 'hash', value: value.toLowerCase() } };
  if (isValidAddress(value, NETWORKS[network])) return { ok: true, query: { kind: 'address', value } };
  const hrp = NETWORKS[network].bech32Hrp;
  return {
    ok: false,
    error: `"${value.length > 100 ? `${value.slice(0, 100)}…` : value}" is not a ${network} address (its checksum or prefix is wrong: ${hrp}1… or base58), a 64-hex transaction id or block hash, or a block height.`,
  };
}

/** A document as the API answers it: its exact text (for the JSON download) and its value. */
export interface Found<T> {
  text: string;
  value: T;
}

export interface LookupSource {
  /** Whether the host learns the key (false: it sees only a range prefix). */
  readonly sendsKey: boolean;
  /** Why the page fell back to asking by key, for the notice. */
  readonly reason?: string;
  /** The paths this source fetches, for the page's explanation. */
  readonly describe: string;
  trace(q: string): Promise<Found<TraceDocument> | null>;
  address(q: string): Promise<Found<AddressDocument> | null>;
  /** The longest follow chain the release has for an address. */
  follow(q: string): Promise<Found<FollowDocument> | null>;
  block(q: string): Promise<Found<BlockDocument> | null>;
  /** What the signature of the release's index says, when the lookups are verified; else null. */
  verified(): Promise<Verified | null>;
}

class RangeSource implements LookupSource {
  readonly sendsKey = false;
  readonly describe = 'api/ranges.json, then one api/range/<kind>/<prefix>.json per lookup';

  constructor(private readonly client: RangeClient) {}

  trace(q: string): Promise<Found<TraceDocument> | null> {
    return this.client.document('trace', q);
  }

  address(q: string): Promise<Found<AddressDocument> | null> {
    return this.client.document('address', q);
  }

  follow(q: string): Promise<Found<FollowDocument> | null> {
    return this.client.followChain(q);
  }

  block(q: string): Promise<Found<BlockDocument> | null> {
    return this.client.document('block', q);
  }

  verified(): Promise<Verified | null> {
    return this.client.verified();
  }
}

/** Asks the router by key: `?q=` goes to the host (and its logs). */
class QuerySource implements LookupSource {
  readonly sendsKey = true;
  readonly describe = 'api/trace?q=…, api/address?q=…, api/follow?q=…, api/block?q=… (the key is in the URL)';

  constructor(private readonly fetch: Fetch, readonly reason: string) {}

  trace(q: string): Promise<Found<TraceDocument> | null> {
    return this.get('trace', q);
  }

  address(q: string): Promise<Found<AddressDocument> | null> {
    return this.get('address', q);
  }

  follow(q: string): Promise<Found<FollowDocument> | null> {
    return this.get('follow', q, '&depth=10');
  }

  block(q: string): Promise<Found<BlockDocument> | null> {
    return this.get('block', q);
  }

  async verified(): Promise<null> {
    return null;
  }

  /** The document, or null for a 404 (a block without pegs); other failures throw with the server's message. */
  private async get<T>(endpoint: string, q: string, extra = ''): Promise<Found<T> | null> {
    const path = `api/${endpoint}?q=${encodeURIComponent(q)}${extra}`;
    const response = await this.fetch(path);
    const text = await response.text();
    if (response.status === 404 && endpoint === 'block') return null;
    if (!response.ok) {
      throw new Error(`${path.split('?')[0]} answered ${response.status}: ${errorOf(text)} This mirror cannot answer lookups: it has neither range files nor a router.`);
    }
    return { text, value: JSON.parse(text) as T };
  }
}

function errorOf(text: string): string {
  try {
    return `${(JSON.parse(text) as { error?: string }).error ?? 'no message'}.`;
  } catch {
    return 'not the API.';
  }
}

/** Range files when the release has them (verified against `publicKeys` when there are any), else lookups by key. */
export async function openLookup(base: string, fetch: Fetch, network: NetworkName, publicKeys: readonly string[] = []): Promise<LookupSource> {
  const client = new RangeClient({ base, network, fetch, publicKeys });
  try {
    await client.layout();
    return new RangeSource(client);
  } catch (err) {
    return new QuerySource((path) => fetch(new URL(path, base).href), (err as Error).message);
  }
}
