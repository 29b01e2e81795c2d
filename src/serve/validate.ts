/**
 * Request parameter validation against the declarations in src/api/params.ts
 * (docs/api.md): every problem is a 400 naming the parameter and what is allowed;
 * nothing is clamped or guessed.
 */
import { ENDPOINTS, type EndpointName, type ParamSpec } from '../api/params.js';
import { addressRequirement, AmountError, parsePositiveCoinAmount, type Litoshi } from '@pegscope/client';
import { isValidAddress } from '../domain/address.js';
import type { NetworkParams } from '../domain/network.js';

export type Query =
  | { kind: 'address'; value: string }
  | { kind: 'txid'; value: string }
  | { kind: 'height'; value: number }
  | { kind: 'blockhash'; value: string };

export type ParamValue = number | string | Query;

export interface ValidRequest {
  endpoint: EndpointName;
  /** Every declared parameter with a value (given or default); `amount` is litoshi. */
  values: Record<string, ParamValue>;
  /** Names of the parameters the client actually sent. */
  given: ReadonlySet<string>;
}

export type Validation = { ok: true; request: ValidRequest } | { ok: false; error: string };

const HEX64 = /^[0-9a-fA-F]{64}$/;
const DIGITS = /^\d{1,10}$/;
const DECIMAL = /^(?:\d{1,6})(?:\.\d{1,12})?$|^\.\d{1,12}$/;
const MAX_ECHO = 80;

/** Quotes client input in an error message, bounded so a huge value is not echoed back. */
export function echo(text: string): string {
  return JSON.stringify(text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text);
}

export function isEndpointName(name: string): name is EndpointName {
  return Object.hasOwn(ENDPOINTS, name);
}

/**
 * Validates the query string of one endpoint. `reserved` are names the route
 * itself consumed (the `endpoint` parameter of the `/api?endpoint=` form).
 */
export function validateParams(
  endpoint: EndpointName,
  search: URLSearchParams,
  network: NetworkParams,
  reserved: readonly string[] = [],
): Validation {
  const spec = ENDPOINTS[endpoint];
  const allowed = spec.params.map((p) => p.name);
  const seen = new Set<string>();
  for (const name of search.keys()) {
    if (seen.has(name)) return fail(`parameter ${echo(name)} is given more than once; give it once`);
    seen.add(name);
    if (reserved.includes(name)) continue;
    if (name === 'format' && !spec.csvColumns) {
      return fail(`format is not accepted by ${endpoint}: it answers JSON only; CSV is offered by ${csvEndpoints().join(', ')}`);
    }
    if (!allowed.includes(name)) {
      const list = allowed.length ? `allowed: ${allowed.join(', ')}` : 'it takes no parameters';
      return fail(`unknown parameter ${echo(name)} for ${endpoint}; ${list}`);
    }
  }
  const values: Record<string, ParamValue> = {};
  const given = new Set<string>();
  for (const param of spec.params) {
    const raw = search.get(param.name);
    if (raw === null) {
      if ('required' in param && param.required) return fail(`${param.name} is required: ${param.doc}`);
      if ('default' in param && param.default !== undefined) values[param.name] = param.default;
      continue;
    }
    given.add(param.name);
    const parsed = parseParam(param, raw, network);
    if (typeof parsed === 'string') return fail(parsed);
    values[param.name] = parsed.value;
  }
  return { ok: true, request: { endpoint, values, given } };
}

export function csvEndpoints(): EndpointName[] {
  return Object.values(ENDPOINTS).filter((e) => e.csvColumns).map((e) => e.name);
}

function fail(error: string): Validation {
  return { ok: false, error };
}

/** One parameter: its value, or an error message. */
function parseParam(param: ParamSpec, raw: string, network: NetworkParams): { value: ParamValue } | string {
  switch (param.kind) {
    case 'int': {
      const n = DIGITS.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(n) || n < param.min || n > param.max) {
        return `${param.name} must be an integer from ${param.min} to ${param.max}; got ${echo(raw)}`;
      }
      return { value: n };
    }
    case 'number': {
      const n = DECIMAL.test(raw) ? Number(raw) : NaN;
      if (!Number.isFinite(n) || n < param.min || n > param.max) {
        return `${param.name} must be a number from ${param.min} to ${param.max}; got ${echo(raw)}`;
      }
      return { value: n };
    }
    case 'amount':
      return parseAmountParam(param.name, raw);
    case 'enum': {
      if (!param.values.includes(raw)) return `${param.name} must be one of ${param.values.join(', ')}; got ${echo(raw)}`;
      return { value: raw };
    }
    case 'query': {
      const query = parseQuery(raw, param.accepts, network);
      if (!query) return `${param.name} must be ${describeAccepts(param.accepts, network)}; got ${echo(raw)}`;
      return { value: query };
    }
  }
}

/** The amount parameter is the wallet client's parsePositiveCoinAmount: same texts accepted, same message otherwise. */
function parseAmountParam(name: string, raw: string): { value: Litoshi } | string {
  try {
    return { value: parsePositiveCoinAmount(raw) };
  } catch (err) {
    if (err instanceof AmountError) return `${name}: ${err.message}`;
    throw err;
  }
}

/**
 * Recognises q. Hex ids and bech32 addresses are case-insensitive and
 * normalised to lower case, the form the release's file names use.
 */
export function parseQuery(raw: string, accepts: readonly Query['kind'][] | readonly string[], network: NetworkParams): Query | null {
  const has = (kind: string): boolean => (accepts as readonly string[]).includes(kind);
  if (HEX64.test(raw)) {
    if (has('txid')) return { kind: 'txid', value: raw.toLowerCase() };
    if (has('blockhash')) return { kind: 'blockhash', value: raw.toLowerCase() };
    return null;
  }
  if (has('height') && DIGITS.test(raw)) {
    const height = Number(raw);
    return Number.isSafeInteger(height) && height <= 0x7fffffff ? { kind: 'height', value: height } : null;
  }
  if (has('address') && isValidAddress(raw, network)) {
    const isBech32 = raw.toLowerCase().startsWith(`${network.bech32Hrp}1`);
    return { kind: 'address', value: isBech32 ? raw.toLowerCase() : raw };
  }
  return null;
}

function describeAccepts(accepts: readonly string[], network: NetworkParams): string {
  const words: Record<string, string> = {
    // The wallet client's RangeClient refuses with the same words.
    address: addressRequirement(network.name),
    txid: 'a 64-hex txid',
    height: 'a block height (digits)',
    blockhash: 'a 64-hex block hash',
  };
  return accepts.map((a) => words[a] ?? a).join(' or ');
}
