/**
 * JSON text of API bodies. Amounts are coin numbers with up to 8 decimals,
 * and JSON.stringify prints numbers below 1e-6 in exponent form ("1e-8" for
 * one litoshi); every body pegscope writes prints them as plain decimals.
 */

/** A number as JSON.stringify prints it, but in plain decimal notation: 1e-8 → "0.00000001", 1e+21 → "1000000000000000000000". */
export function plainNumber(value: number): string {
  const text = String(value);
  const exponent = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!exponent) return text;
  const [, sign, lead, fraction = '', power] = exponent;
  const digits = lead! + fraction;
  // The decimal point goes after this many digits.
  const point = 1 + Number(power);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** An exponent as JSON.stringify writes one: a digit, `e`, a sign, a digit. */
const HAS_EXPONENT = /\de[+-]\d/;
/** A whole string token (skipped as is) or a number in exponent form. */
const STRING_OR_EXPONENT_NUMBER = /"(?:[^"\\]|\\.)*"|-?\d(?:\.\d+)?e[+-]\d+/g;

/**
 * JSON text identical to JSON.stringify(value) except that every number
 * prints in plain decimal notation (plainNumber). Strings are never touched.
 */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined || !HAS_EXPONENT.test(text)) return text;
  return text.replace(STRING_OR_EXPONENT_NUMBER, (token) => (token.startsWith('"') ? token : plainNumber(Number(token))));
}
