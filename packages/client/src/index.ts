/**
 * @pegscope/client — wallet-side privacy scoring and private lookups for
 * pegscope releases. Zero dependencies; runs in Node (ESM and CJS), browsers
 * and React Native-style bundlers.
 *
 * Fetch `{base}/api/amounts.json` once, check it, cache it, and score amounts
 * locally: the router's `privacy` endpoint runs this same code on the same
 * table, so the objects are identical and no amount has to leave the device.
 *
 *   const { table, ageSeconds } = parseAmountTable(await (await fetch(`${base}/api/amounts.json`)).json(), { network: 'mainnet' });
 *   const privacy = privacyOf(table, parseCoinAmount('1.5'), 'pegin');
 */
import { AmountTableError } from './amount-table.js';
import { AmountError } from './amount.js';
import { LookupError, NotFound } from './lookup.js';
import { SignatureError, VerificationError } from './minisign.js';
import { RangeFormatError } from './range.js';

export {
  privacyOf, suggestAmount, isSuggestable, roundingBucket, windowOf, scoreOfSet, ratingOf, countInRange, plural,
  ROUNDING_SIGNIFICANT_DIGITS, FULL_SCORE_SET, SUGGESTION_MAX_DIGITS, SUGGESTION_SPAN,
  type Privacy, type Rating, type Side, type Suggestion,
} from './privacy.js';
export {
  parseAmountTable, AmountTableError, DEFAULT_TOLERANCE, AMOUNT_TABLE_VERSION,
  type AmountTable, type AmountTableFile, type AmountCount, type AmountCounts,
  type EncodedAmounts, type ParseAmountTableOptions, type ParsedAmountTable,
} from './amount-table.js';
export {
  parseCoinAmount, parsePositiveCoinAmount, formatCoin, coinNumber, assertLitoshi, significantDigits, AmountError, LITOSHI_PER_COIN, type Litoshi,
} from './amount.js';
export { isValidAddress, addressRequirement } from './address.js';
export type {
  TraceDocument, AddressDocument, FollowDocument, BlockDocument, RangeDocuments, Envelope,
  Attribution, Category, PeginNode, PeginLink, PegoutNode, PegoutLink,
} from './documents.js';
export {
  fetchAmountTable, type FetchAmountTableOptions, type FetchedAmountTable, type FetchWithHeaders, type VerifiedTable,
} from './fetch-amounts.js';
export { NETWORK_BASICS, NETWORK_NAMES, isNetworkName, type NetworkBasics, type NetworkName, type Unit } from './network.js';
export {
  RangeClient, LookupError, type Fetch, type FetchSignal, type FoundDocument, type RangeClientOptions, type RangesIndex,
} from './lookup.js';
// The pipeline hashes blocks with these too (src/chain).
export { sha256, sha256d, sha256Into, sha256dInto } from './sha256.js';
export {
  canonicalKey, keyHash, rangePrefix, rangePath, parseRange, parseRangeHeader, isRangeKind,
  RangeFormatError, RANGE_KINDS, RANGE_HASH, RANGES_INDEX_PATH, RANGE_DOCUMENTS_OPEN, RANGE_END,
  type ParsedRange, type RangeHeader, type RangeKind, type RangeLayout, type RangesIndexBody,
} from './range.js';
export {
  parsePublicKey, parseSignature, parseTrustedComment, globalSignedBytes, keyIdHex, base64Decode, SignatureError, VerificationError,
  type MinisignPublicKey, type MinisignSignature, type SignatureAlgorithm, type VerificationFailure,
} from './minisign.js';
export type { TrustOptions, Verified } from './verify.js';

// The error classes are named here, class and prototype: the build minifies identifiers, classes'
// too, and Node prints an error by its class's name (`AmountError: …`, not `Ce [AmountError]: …`).
for (const [name, error] of Object.entries({ AmountTableError, AmountError, LookupError, RangeFormatError, SignatureError, VerificationError })) {
  Object.defineProperty(error, 'name', { value: name });
  (error.prototype as Error).name = name;
}
// A 404 that escapes a lookup prints as the LookupError it is.
Object.defineProperty(NotFound, 'name', { value: 'LookupError' });
