import { API_VERSION } from './params.js';
import type { NetworkName } from '../domain/network.js';
import { NETWORKS } from '../domain/network.js';
import { toJson } from './json.js';

/** The fields every JSON body starts with (docs/api.md). */
export interface Envelope {
  version: typeof API_VERSION;
  network: NetworkName;
  unit: 'LTC' | 'tLTC' | 'rLTC';
  as_of_height: number;
  updated_at: number;
}

/** The analysis a document was computed from. */
export interface AnalysisStamp {
  network: NetworkName;
  as_of_height: number;
  updated_at: number;
}

export function envelopeOf(stamp: AnalysisStamp): Envelope {
  return {
    version: API_VERSION,
    network: stamp.network,
    unit: NETWORKS[stamp.network].unit,
    as_of_height: stamp.as_of_height,
    updated_at: stamp.updated_at,
  };
}

/** A full document: the envelope followed by the endpoint's fields. */
export function document<T extends object>(stamp: AnalysisStamp, fields: T): Envelope & T {
  return { ...envelopeOf(stamp), ...fields };
}

/**
 * The same document as text, for a body that DuckDB already rendered as JSON:
 * `{<envelope>, "<key>": <bodyJson>}`. Byte-identical to
 * `toJson(document(stamp, {[key]: JSON.parse(bodyJson)}))` as long as the
 * body is compact JSON with plain-decimal numbers.
 */
export function wrapJson(stamp: AnalysisStamp, key: string, bodyJson: string): string {
  const head = toJson(envelopeOf(stamp));
  return `${head.slice(0, -1)},${toJson(key)}:${bodyJson}}`;
}
