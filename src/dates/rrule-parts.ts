/**
 * The checks RFC 5545 §3.3.10 makes of an RRULE's parts, before anything iterates it
 * (docs/contract.md §14, docs/limits.md "Recurrence rules"): the syntax and range of every value,
 * and which parts may go together. ical.js 2.2.1 checks only some ranges and loops for ever on some
 * values it lets through (`BYMONTHDAY=0`, `BYDAY=1MO` in a DAILY rule), so every value is checked
 * here. Pure: returns why a rule is refused, or undefined.
 */

const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const FREQUENCIES = ['SECONDLY', 'MINUTELY', 'HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'];

/** A whole number in a list part: an optional sign and up to three digits (no `1.5`, no `1e3`). */
const NUMBER = /^[+-]?[0-9]{1,3}$/;

/**
 * The numeric BYxxx parts: the values RFC 5545 allows (`signed`: also their negatives, counted from
 * the end; zero never). BYSECOND stops at 59: the leap second 60 never occurs in the wall-clock
 * times this service stores, and ical.js rolls it into the next minute.
 */
const NUMERIC_PARTS: Record<string, { max: number; signed: boolean; min: number }> = {
  BYSECOND: { min: 0, max: 59, signed: false },
  BYMINUTE: { min: 0, max: 59, signed: false },
  BYHOUR: { min: 0, max: 23, signed: false },
  BYMONTHDAY: { min: 1, max: 31, signed: true },
  BYYEARDAY: { min: 1, max: 366, signed: true },
  BYWEEKNO: { min: 1, max: 53, signed: true },
  BYMONTH: { min: 1, max: 12, signed: false },
  BYSETPOS: { min: 1, max: 366, signed: true },
};

/**
 * ical.js 2.2.1 reads one digit of a BYDAY ordinal (`20MO` is every Monday): a yearly ordinal is
 * accepted up to 9, not RFC 5545's 53.
 */
const MAX_YEARLY_ORDINAL = 9;
/** A month has at most five of each weekday. */
const MAX_MONTHLY_ORDINAL = 5;

function rangeText(name: string): string {
  const { min, max, signed } = NUMERIC_PARTS[name];
  return signed ? `${min} to ${max} or -${max} to -${min}` : `${min} to ${max}`;
}

/** Why the parts (names upper-cased, values as sent) are not a rule RFC 5545 allows, or undefined. */
export function ruleProblem(parts: Map<string, string>): string | undefined {
  const freq = parts.get('FREQ')!.toUpperCase();
  if (!FREQUENCIES.includes(freq)) return `FREQ must be one of ${FREQUENCIES.join(', ')}.`;
  const wkst = parts.get('WKST');
  if (wkst !== undefined && !WEEKDAYS.includes(wkst.toUpperCase())) return `WKST must be one of ${WEEKDAYS.join(', ')}.`;

  for (const [name, range] of Object.entries(NUMERIC_PARTS)) {
    const value = parts.get(name);
    if (value === undefined) continue;
    for (const item of value.split(',')) {
      const n = Number(item);
      const ok = NUMBER.test(item) && ((n >= range.min && n <= range.max) || (range.signed && n <= -range.min && n >= -range.max));
      if (!ok) return `${name} takes whole numbers from ${rangeText(name)}; "${item}" is not one.`;
    }
  }

  const byday = parts.get('BYDAY');
  if (byday !== undefined) {
    const ordinalMax = freq === 'MONTHLY' || parts.has('BYMONTH') ? MAX_MONTHLY_ORDINAL : MAX_YEARLY_ORDINAL;
    for (const item of byday.split(',')) {
      const match = /^([+-]?)([0-9]{1,2})?([A-Z]{2})$/i.exec(item);
      if (!match || !WEEKDAYS.includes(match[3].toUpperCase())) return `BYDAY takes weekdays (MO to SU), each with an optional ordinal (1MO, -1FR); "${item}" is not one.`;
      if (match[2] === undefined) {
        if (match[1]) return `BYDAY "${item}": a sign needs an ordinal.`;
        continue;
      }
      const ordinal = Number(match[2]);
      if (freq !== 'MONTHLY' && freq !== 'YEARLY') return `BYDAY "${item}": an ordinal weekday needs FREQ=MONTHLY or FREQ=YEARLY.`;
      if (freq === 'YEARLY' && parts.has('BYWEEKNO')) return `BYDAY "${item}": an ordinal weekday does not go with BYWEEKNO.`;
      if (ordinal < 1 || ordinal > ordinalMax)
        return `BYDAY "${item}": the ordinal must be 1 to ${ordinalMax} (or -1 to -${ordinalMax})${ordinalMax === MAX_MONTHLY_ORDINAL ? ' within a month' : ', as ical.js reads it'}.`;
    }
  }

  if (parts.has('BYMONTHDAY') && freq === 'WEEKLY') return 'BYMONTHDAY does not go with FREQ=WEEKLY.';
  if (parts.has('BYYEARDAY') && ['DAILY', 'WEEKLY', 'MONTHLY'].includes(freq)) return `BYYEARDAY does not go with FREQ=${freq}.`;
  if (parts.has('BYWEEKNO') && freq !== 'YEARLY') return 'BYWEEKNO needs FREQ=YEARLY.';
  if (parts.has('BYSETPOS') && ![...parts.keys()].some((name) => name.startsWith('BY') && name !== 'BYSETPOS')) return 'BYSETPOS needs another BYxxx part to select from.';
  return undefined;
}
