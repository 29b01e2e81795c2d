import { stringify } from 'csv-stringify/sync';
import { plainNumber } from './json.js';

export type CsvCell = string | number | null | undefined;

/**
 * Cells starting with these open a formula in spreadsheets (docs/api.md "CSV"): = + - @, their full-width
 * and small forms and the minus sign (some spreadsheets read them as the ASCII ones), and any control,
 * format or space character (spreadsheets trim some of them before they look for a formula). The CSV
 * dumps guard their text with the same pattern in DuckDB (RE2 reads this syntax too).
 */
export const FORMULA_START = /^[=+\-@\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}＝＋－＠﹦﹢﹣﹫−]/u;

/** Prefixes `'` to a cell a spreadsheet would read as a formula. */
export function guardCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

function cellText(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  return guardCell(typeof value === 'number' ? plainNumber(value) : value);
}

/** CSV text with a header row, RFC 4180 quoting and the formula-injection guard. */
export function toCsv(columns: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  const records = rows.map((row) => columns.map((_, i) => cellText(row[i])));
  return stringify([columns.map(guardCell), ...records], { record_delimiter: '\n' });
}
