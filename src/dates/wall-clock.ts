import type { Zone } from 'luxon';

/**
 * Local wall-clock times ('YYYY-MM-DD HH:MM:SS') as plain arithmetic: the occurrences of a series are
 * computed and shifted in naive time, then placed in the event's zone (RFC 5545 §3.3.5).
 */

/**
 * A stored local time as milliseconds of a naive (zone-less) clock, and back. Series expand to
 * hundreds of occurrences per write; luxon's parsing costs about 0.1 ms per call, this arithmetic
 * almost nothing.
 */
export function naiveMs(local: string): number {
  return Date.UTC(+local.slice(0, 4), +local.slice(5, 7) - 1, +local.slice(8, 10), +local.slice(11, 13), +local.slice(14, 16), +local.slice(17, 19));
}

export function naiveText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** `local` moved by the wall-clock difference between two local times (`to - from`), as naive dates. */
export function shiftLocal(local: string, from: string, to: string): string {
  return naiveText(naiveMs(local) + naiveMs(to) - naiveMs(from));
}

/**
 * A local wall-clock time in a zone as stored: its local form and UTC, as RFC 5545 §3.3.5 reads a
 * DATE-TIME with a TZID. A time that occurs twice (clocks going back) is the first of the two; a time
 * in a gap (clocks going forward) takes the offset before the gap, so it moves forward by the gap
 * (as every other event time does: luxon's rule for gaps is the same).
 */
export function inZone(local: string, zone: Zone): { local: string; utc: string } {
  const naive = naiveMs(local);
  // The offsets around: at most one change within half a day either side.
  const before = zone.offset(naive - 43_200_000);
  const after = zone.offset(naive + 43_200_000);
  let utc: number | undefined;
  for (const offset of before >= after ? [before, after] : [after, before]) {
    const candidate = naive - offset * 60_000;
    if (zone.offset(candidate) === offset) {
      utc = candidate;
      break;
    }
  }
  utc ??= naive - before * 60_000;
  return { local: naiveText(utc + zone.offset(utc) * 60_000), utc: naiveText(utc) };
}
