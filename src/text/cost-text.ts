/**
 * The event cost as shown (docs/plugin-behaviour.md §5.8): written numbers and the formatted `cost`.
 * A leaf, so that the plain form a write stores of it (text/plain-forms.ts) and the migration that
 * fills it use the same rule as the record; parsing stays with the domain (domain/events/cost.ts).
 */

/**
 * A written number with digits and a `.` decimal point only (`1,000` → `1000`, `12,50` → `12.50`):
 * with two different separators the last one is the decimal one; a single separator followed by
 * exactly three digits is a thousands separator (the site locale is English); otherwise it is the
 * decimal separator.
 */
export function plainNumber(text: string): string {
  const separators = [...text.matchAll(/[.,]/g)].map((m) => m[0]);
  const last = separators[separators.length - 1];
  const lastIndex = text.lastIndexOf(last);
  const distinct = new Set(separators);
  const decimal = distinct.size > 1 || (separators.length === 1 && text.length - lastIndex - 1 !== 3) ? last : undefined;
  return decimal ? text.slice(0, lastIndex).replace(/[.,]/g, '') + '.' + text.slice(lastIndex + 1) : text.replace(/[.,]/g, '');
}

/** A written number as a value (see plainNumber). */
export function numericValue(text: string): number {
  return Number(plainNumber(text));
}

/**
 * The formatted `cost`: the minimum and the maximum, each `Free` when zero or with the currency
 * symbol (the stored one, else `$`) at its position (stored, else prefix); equal → one value,
 * otherwise `min – max` with an en dash. Only labels (`Donation`) → the text as written; none → `""`.
 */
export function formatCost(raw: string[], values: string[], symbol: string, position: string): string {
  // Labels are slugs of text without ASCII digits, so a digit means a number.
  const numbers = values.filter((value) => /\d/.test(value));
  if (numbers.length === 0) return raw.join(', ');
  const sign = symbol || '$';
  const show = (value: string) => (numericValue(value) === 0 ? 'Free' : position === 'postfix' ? `${value}${sign}` : `${sign}${value}`);
  const low = numbers[0];
  const high = numbers[numbers.length - 1];
  return numericValue(low) === numericValue(high) ? show(low) : `${show(low)} – ${show(high)}`;
}
