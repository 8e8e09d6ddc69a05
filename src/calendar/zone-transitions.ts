import { LRUCache } from 'lru-cache';
import type { Zone } from 'luxon';
import { loopTurn } from '../core/loop-turns.js';

/**
 * The offset changes of a time zone, from the tz database the process's Intl (ICU) carries: the
 * same data luxon converts event times with, so a VTIMEZONE agrees with the stored UTC times
 * (docs/contract.md §11). Intl has no list of a zone's transitions, so they are found by probing
 * the offset once a day and bisecting to the second where it changed; the work is cut in whole UTC
 * years, each remembered (docs/limits.md "Time-zone blocks in iCalendar feeds").
 */

/** An offset change: its instant (epoch ms) and the offsets before and after (seconds east of UTC). */
export interface Transition {
  at: number;
  from: number;
  to: number;
}

const DAY_MS = 86_400_000;

/**
 * One formatter per zone name: `longOffset` names the offset alone (`GMT+01:00`, `GMT+00:53:28`),
 * which is about six times cheaper to ask than luxon's `Zone.offset` (it formats every field).
 * Names are the zones events are stored with; a bound keeps case variants (`europe/paris`) from
 * piling up.
 */
const formatters = new LRUCache<string, Intl.DateTimeFormat>({ max: 1_000 });

function formatterOf(zoneName: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zoneName);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: zoneName, timeZoneName: 'longOffset' });
    formatters.set(zoneName, formatter);
  }
  return formatter;
}

/** `…, GMT+05:45` / `GMT-03:30` / `GMT+00:53:28` / `GMT` (UTC) → seconds east of UTC. */
function offsetOfText(text: string): number {
  const at = text.lastIndexOf('GMT') + 3;
  if (at === text.length) return 0;
  const sign = text[at] === '-' ? -1 : 1;
  const [hours = 0, minutes = 0, seconds = 0] = text
    .slice(at + 1)
    .split(':')
    .map(Number);
  return sign * (hours * 3600 + minutes * 60 + seconds);
}

/** The zone's offset at an instant, in seconds east of UTC. */
export function offsetSeconds(zone: Zone, ms: number): number {
  if (zone.isUniversal) return Math.round(zone.offset(ms) * 60);
  return offsetOfText(formatterOf(zone.name).format(ms));
}

/**
 * The changes in (fromMs, toMs], probed once a day and narrowed to the second. A change undone
 * within the same day is not seen. Coarser steps are not safe: Asia/Gaza has a summer time of six
 * days in 2040, America/Boa_Vista one of seven days in 2000 (a weekly step misses both).
 */
export function transitionsBetween(zone: Zone, fromMs: number, toMs: number): Transition[] {
  const found: Transition[] = [];
  if (zone.isUniversal) return found;
  let previous = offsetSeconds(zone, fromMs);
  for (let t = fromMs; t < toMs;) {
    const next = Math.min(t + DAY_MS, toMs);
    if (offsetSeconds(zone, next) === previous) {
      t = next;
      continue;
    }
    let low = t;
    let high = next;
    while (high - low > 1000) {
      const mid = low + Math.floor((high - low) / 2000) * 1000;
      if (offsetSeconds(zone, mid) === previous) low = mid;
      else high = mid;
    }
    const to = offsetSeconds(zone, high);
    found.push({ at: high, from: previous, to });
    previous = to;
    // Another change may follow within the same day: go on from this one.
    t = high;
  }
  return found;
}

/**
 * Years already walked, per zone as ICU names it (aliases and case variants share their rules),
 * bounded by an estimate of their bytes: a zone's year holds two changes or none, rarely more.
 */
const BYTES_PER_YEAR = 100;
const BYTES_PER_TRANSITION = 60;
const MAX_CACHE_BYTES = 2_000_000;
const years = new LRUCache<string, Transition[]>({
  maxSize: MAX_CACHE_BYTES,
  sizeCalculation: (changes) => BYTES_PER_YEAR + BYTES_PER_TRANSITION * changes.length,
});

/** The changes within one UTC year: after its first instant, up to and including the next year's first. */
export function yearTransitions(zone: Zone, year: number): Transition[] {
  if (zone.isUniversal) return [];
  const key = `${formatterOf(zone.name).resolvedOptions().timeZone}\n${year}`;
  let changes = years.get(key);
  if (!changes) {
    changes = transitionsBetween(zone, Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1));
    years.set(key, changes);
  }
  return changes;
}

/**
 * The changes within the UTC years `fromYear`..`toYear` (none when `toYear < fromYear`). A year not
 * walked before costs ~365 probes (a third of a millisecond), so a long span gives the event loop
 * turns (loop-turns.ts): however many years a feed needs, no request holds the loop for long.
 */
export async function transitionsOfYears(zone: Zone, fromYear: number, toYear: number): Promise<Transition[]> {
  const changes: Transition[] = [];
  for (let year = fromYear; year <= toYear; year++) {
    changes.push(...yearTransitions(zone, year));
    await loopTurn();
  }
  return changes;
}
