/**
 * Impossible calendar dates and clock times in date input text (`2027-02-30`, `2027-13-01`,
 * `24:30`). PHP's strtotime, and the port of it this service uses for relative phrases, rolls them
 * over (`2027-02-30` becomes 2 March); this service refuses them instead, so a typo never becomes
 * a different day (a deliberate difference from the plugin, docs/api-guide.md "Deliberate differences from the plugin").
 */

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const MONTH_NAME = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';

/** Days in a month; without a year, the most the month can have (29 for February). */
function daysIn(month: number, year: number | undefined): number {
  if (month === 2) return year === undefined || (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function badDay(year: number | undefined, month: number, day: number): boolean {
  return month < 1 || month > 12 || day < 1 || day > daysIn(month, year);
}

/** Numeric dates in the orders PHP reads them: `Y-m-d`, `Y/m/d`, `m/d/Y`, `d-m-Y`, `d.m.Y`. */
const NUMERIC_DATES: Array<[RegExp, (m: RegExpExecArray) => [number, number, number]]> = [
  [/(?<!\d)(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?!\d)/g, (m) => [Number(m[1]), Number(m[2]), Number(m[3])]],
  [/(?<![\d/])(\d{1,2})\/(\d{1,2})\/(\d{4})(?!\d)/g, (m) => [Number(m[3]), Number(m[1]), Number(m[2])]],
  [/(?<![\d-])(\d{1,2})[-.](\d{1,2})[-.](\d{4})(?!\d)/g, (m) => [Number(m[3]), Number(m[2]), Number(m[1])]],
];

/** `February 30 2027`, `Feb 30`, `30 February 2027`, `30-Feb-2027`. */
const NAMED_DATES: Array<[RegExp, (m: RegExpExecArray) => [number | undefined, number, number]]> = [
  [
    new RegExp(`\\b${MONTH_NAME}\\.?[ -]?(\\d{1,2})(?:st|nd|rd|th)?(?!\\d|:)(?:,?[ -](\\d{4}))?(?!\\d)`, 'gi'),
    (m) => [m[3] ? Number(m[3]) : undefined, MONTHS[m[1].slice(0, 3).toLowerCase()], Number(m[2])],
  ],
  [
    new RegExp(`(?<![\\d:])(\\d{1,2})(?:st|nd|rd|th)?[ -]${MONTH_NAME}\\b\\.?(?:,?[ -](\\d{4}))?(?!\\d)`, 'gi'),
    (m) => [m[3] ? Number(m[3]) : undefined, MONTHS[m[2].slice(0, 3).toLowerCase()], Number(m[1])],
  ],
];

/**
 * Clock times `H:MM`, `HH:MM:SS` (hours 0-23, or 1-12 before am/pm) and `9am`. A time right after
 * `+`/`-` is an offset (`-05:00`), not a time of day, and is left to the parser.
 */
const CLOCK = /(?<![\d+\-:])(\d{1,2}):(\d{2})(?::(\d{2}))?(?:[.,]\d+)?(?!\d)(\s*[ap]\.?m\b\.?)?/gi;
const MERIDIEM_HOUR = /(?<![\d:.])(\d{1,2})\s*[ap]\.?m\b/gi;

/**
 * True when the text names a day or a time of day that does not exist: a month outside 1-12, a day
 * past the month's end (`2027-02-29`, `April 31`), an hour past 23 (`24:30`), minutes or seconds past
 * 59. A day named without a year (`Feb 29`) is read in `currentYear`, as strtotime reads it, or
 * against the longest such month when that is not given. Text without such parts (relative
 * phrases, timestamps) is never refused here.
 */
export function namesImpossibleDate(text: string, currentYear?: number): boolean {
  for (const [pattern, read] of NUMERIC_DATES) {
    for (const m of text.matchAll(pattern)) {
      const [year, month, day] = read(m);
      if (badDay(year, month, day)) return true;
    }
  }
  for (const [pattern, read] of NAMED_DATES) {
    for (const m of text.matchAll(pattern)) {
      const [year, month, day] = read(m);
      if (badDay(year ?? currentYear, month, day)) return true;
    }
  }
  for (const m of text.matchAll(CLOCK)) {
    const hour = Number(m[1]);
    const meridiem = m[4] !== undefined;
    if (meridiem ? hour < 1 || hour > 12 : hour > 23) return true;
    // Without seconds, Number(undefined) is NaN, never > 59.
    if (Number(m[2]) > 59 || Number(m[3]) > 59) return true;
  }
  for (const m of text.matchAll(MERIDIEM_HOUR)) {
    const hour = Number(m[1]);
    if (hour < 1 || hour > 12) return true;
  }
  return false;
}
