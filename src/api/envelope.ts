import { API_VERSION } from './params.js';
import type { NetworkName } from '../domain/network.js';
import { NETWORKS } from '../domain/network.js';

/** The fields every JSON body starts with (SPEC §3). */
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
 * `JSON.stringify(document(stamp, {[key]: JSON.parse(bodyJson)}))` as long as
 * the body is compact JSON.
 */
export function wrapJson(stamp: AnalysisStamp, key: string, bodyJson: string): string {
  const head = JSON.stringify(envelopeOf(stamp));
  return `${head.slice(0, -1)},${JSON.stringify(key)}:${bodyJson}}`;
}

/** Column names (or other DuckDB expressions) for the parts of a wrapped document. */
export interface WrapColumns {
  height: string;
  time: string;
  body: string;
}

const HEIGHT_MARK = -101;
const TIME_MARK = -202;
const BODY_MARK = '\u0000';

/**
 * `wrapJson` as a DuckDB string expression, for documents DuckDB renders in
 * bulk: the stamp's height and time and the body come from columns. Built by
 * cutting wrapJson's own output at marked values, so both give the same bytes.
 */
export function wrapJsonSql(network: NetworkName, key: string, cols: WrapColumns): string {
  const text = wrapJson({ network, as_of_height: HEIGHT_MARK, updated_at: TIME_MARK }, key, BODY_MARK);
  const [beforeHeight, rest] = splitOnce(text, String(HEIGHT_MARK));
  const [beforeTime, rest2] = splitOnce(rest, String(TIME_MARK));
  const [beforeBody, afterBody] = splitOnce(rest2, BODY_MARK);
  const literal = (s: string): string => `'${s.replaceAll("'", "''")}'`;
  return [literal(beforeHeight), `CAST(${cols.height} AS VARCHAR)`, literal(beforeTime), `CAST(${cols.time} AS VARCHAR)`,
    literal(beforeBody), cols.body, literal(afterBody)].join(' || ');
}

function splitOnce(text: string, mark: string): [string, string] {
  const at = text.indexOf(mark);
  if (at < 0 || text.indexOf(mark, at + 1) >= 0) throw new Error(`wrapJsonSql: ${JSON.stringify(mark)} must occur once in ${JSON.stringify(text)}`);
  return [text.slice(0, at), text.slice(at + mark.length)];
}

/** The error body (SPEC §3): a message naming the parameter and the allowed range. */
export interface ErrorBody {
  error: string;
  version: typeof API_VERSION;
}

export function errorBody(message: string): ErrorBody {
  return { error: message, version: API_VERSION };
}
