/** The top links table's columns and sort, pure. */
import type { LinkRecord } from '../api/links.js';

export type LinkColumn = 'confidence' | 'pegin_amount' | 'pegout_amount' | 'block_gap' | 'candidate_count' | 'risk_score' | 'pegout_entity';
export interface LinkSort { column: LinkColumn; descending: boolean }

export const LINK_COLUMNS: readonly { key: LinkColumn; label: string }[] = [
  { key: 'confidence', label: 'Confidence' }, { key: 'pegin_amount', label: 'Peg-in' }, { key: 'pegout_amount', label: 'Peg-out' },
  { key: 'block_gap', label: 'Blocks between' }, { key: 'candidate_count', label: 'Candidates' }, { key: 'risk_score', label: 'Risk' },
  { key: 'pegout_entity', label: 'Paid to' },
];

/** Sorted by one column; ties keep the API's order (confidence desc, block gap asc), and missing values go last. */
export function sortLinks(links: readonly LinkRecord[], sort: LinkSort): LinkRecord[] {
  const sign = sort.descending ? -1 : 1;
  return links.map((link, i) => ({ link, i })).sort((a, b) => {
    const x = a.link[sort.column];
    const y = b.link[sort.column];
    if (x === null && y !== null) return 1;
    if (y === null && x !== null) return -1;
    const order = x === null || y === null || x === y ? 0 : (x < y ? -1 : 1) * sign;
    return order || a.i - b.i;
  }).map(({ link }) => link);
}
