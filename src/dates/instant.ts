/**
 * An instant as a sync client sends it (docs/contract.md §8): an RFC 3339 / ISO 8601 date-time that
 * names its offset, `2026-01-01T09:30:00Z`, `2026-01-01T10:30:00+01:00` (also `+01`, `+0100`, a
 * lower-case `t`/`z`, a space for the `T`, fractions of a second), read as the OpenAPI `date-time`
 * format reads it. Returns the UTC storage form `YYYY-MM-DD HH:MM:SS`, or undefined for anything
 * else: a date alone, a wall time without an offset, a phrase (`yesterday`), a day or time that does
 * not exist. Stored times have whole seconds, so a fraction is dropped (bounds stay consistent: the
 * `modified_before` of one sync window and the `modified_after` of the next split the records in two).
 * A leap second (`23:59:60Z`) counts as the second before it.
 */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The earliest and latest stored forms: an instant beyond them compares like them. */
const FIRST = '0000-01-01 00:00:00';
const LAST = '9999-12-31 23:59:59';

export function parseInstantUtc(input: unknown): string | undefined {
  if (typeof input !== 'string') return undefined;
  const m = INSTANT.exec(input);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  if (hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const wall = new Date(0);
  wall.setUTCFullYear(year, month - 1, day);
  // A month or a day out of range (month 13, day 0, 30 February) rolls over into another month.
  if (wall.getUTCMonth() !== month - 1) return undefined;
  wall.setUTCHours(hour, minute, Math.min(second, 59));
  const sign = m[8] === '-' ? -1 : 1;
  const utc = new Date(wall.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  const utcYear = utc.getUTCFullYear();
  if (utcYear < 0) return FIRST;
  if (utcYear > 9999) return LAST;
  return `${pad(utcYear, 4)}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())} ${pad(utc.getUTCHours())}:${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())}`;
}
