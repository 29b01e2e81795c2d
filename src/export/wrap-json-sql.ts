import { wrapJson } from '../api/envelope.js';
import type { NetworkName } from '../domain/network.js';
import { sqlString } from '../store/db.js';

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
  return [sqlString(beforeHeight), `CAST(${cols.height} AS VARCHAR)`, sqlString(beforeTime), `CAST(${cols.time} AS VARCHAR)`,
    sqlString(beforeBody), cols.body, sqlString(afterBody)].join(' || ');
}

function splitOnce(text: string, mark: string): [string, string] {
  const at = text.indexOf(mark);
  if (at < 0 || text.indexOf(mark, at + 1) >= 0) throw new Error(`wrapJsonSql: ${JSON.stringify(mark)} must occur once in ${JSON.stringify(text)}`);
  return [text.slice(0, at), text.slice(at + mark.length)];
}
