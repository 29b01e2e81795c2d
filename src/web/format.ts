/** Number and text formats of the page. Pure, one locale (en-US) so every mirror shows the same text. */

const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A count with thousands separators: 12345 → "12,345". */
export function count(n: number): string {
  return GROUPED.format(n);
}

/** A JSON coin amount exactly (at most 8 decimals), grouped: 5561.55606851 → "5,561.55606851". */
export function coin(amount: number): string {
  const [whole, fraction] = amount.toFixed(8).replace(/\.?0+$/, '').split('.');
  const grouped = `${whole!.startsWith('-') ? '-' : ''}${GROUPED.format(Math.abs(Number(whole)))}`;
  return fraction ? `${grouped}.${fraction}` : grouped;
}

const CENTS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const SIGNIFICANT = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });

/**
 * A coin amount rounded for reading, where the exact one does not fit:
 * whole coins from 1,000, cents from 1, three significant digits below.
 * 49265.80371186 → "49,266", 12.345 → "12.35", 0.012345 → "0.0123".
 */
export function readableCoin(amount: number): string {
  const size = Math.abs(amount);
  return (size >= 1000 ? GROUPED : size >= 1 ? CENTS : SIGNIFICANT).format(amount);
}

/** A number with the precision it was published with: counts grouped, fractions as given. */
export function statValue(value: number): string {
  return Number.isInteger(value) ? count(value) : coin(value);
}

/** A confidence (0..1) as a percentage with one decimal: 0.9633 → "96.3%". */
export function percent(confidence: number): string {
  return `${(confidence * 100).toFixed(1)}%`;
}

/** An age in words: 42 → "42 s", 7300 → "2 h", 200000 → "2 days". */
export function age(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}

/** A unix time as "2022-01-04 12:34 UTC". */
export function utc(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A txid or hash cut for tables: the start and the end stay recognisable. */
export function short(hash: string): string {
  return hash.length > 20 ? `${hash.slice(0, 10)}…${hash.slice(-6)}` : hash;
}

const STAT_LABELS: Record<string, string> = {
  total_pegins: 'Peg-ins', total_pegouts: 'Peg-outs', total_pegin_amount: 'Pegged in', total_pegout_amount: 'Pegged out',
  linkable_pegouts: 'Peg-outs linked (confidence ≥ 0.5)', high_confidence_links: 'Links with confidence ≥ 0.9',
  reported_links: 'Links reported', reuse_links: 'Address reuse links', labeled_addresses: 'Labelled addresses',
  attributed_addresses: 'Attributed addresses', clustered_addresses: 'Clustered addresses',
  multi_address_clusters: 'Wallet clusters (2+ addresses)', avg_privacy_score: 'Average peg-in privacy score',
  high_risk_pegouts: 'High-risk peg-outs (risk ≥ 70)', distinct_pegin_amounts: 'Distinct peg-in amounts',
};

/** Stats keys in reading order: the known ones as labelled above, keys added later after them. */
export function statOrder(keys: readonly string[]): string[] {
  const known = Object.keys(STAT_LABELS);
  const rank = (key: string): number => (known.includes(key) ? known.indexOf(key) : known.length);
  return [...keys].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The label of a stats key; unknown keys (added later) read as words. */
export function statLabel(key: string): string {
  return STAT_LABELS[key] ?? key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

/** Stats keys that are coin amounts (shown with the unit). */
export const isAmountStat = (key: string): boolean => key.endsWith('_amount');
