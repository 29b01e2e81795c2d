/**
 * pegscope/client — wallet-side privacy scoring, zero dependencies.
 *
 * Fetch `{base}/api/amounts.json` (or the release's `api/amounts.json`) once,
 * cache it, and score amounts locally: the router's `privacy` endpoint runs
 * this same code on the same table, so the objects are identical and no
 * amount or address has to leave the device.
 *
 *   const table = await (await fetch(`${base}/api/amounts.json`)).json();
 *   const privacy = privacyOf(table, parseCoinAmount('1.5'), 'pegin');
 */
export {
  privacyOf, roundingBucket, windowOf, scoreOfSet, ratingOf, countInRange,
  DEFAULT_TOLERANCE, ROUNDING_SIGNIFICANT_DIGITS, FULL_SCORE_SET,
  type AmountTable, type AmountCount, type Privacy, type Rating, type Side,
} from '../domain/privacy.js';
export { parseCoinAmount, formatCoin, coinNumber, AmountError, LITOSHI_PER_COIN, type Litoshi } from '../domain/amount.js';
// Private lookups against any mirror: a range of dozens of keys is fetched, never the key (docs/api.md).
export { RangeClient, LookupError, type RangeClientOptions, type RangesIndex, type FoundDocument, type Fetch } from './lookup.js';
export { canonicalKey, rangePrefix, rangePath, RANGE_KINDS, type RangeKind } from './range.js';
