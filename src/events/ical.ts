import { DateTime } from 'luxon';
import { calendar, type CalendarEvent, type CalendarTime } from '../calendar/ical.js';
import { zoneOf } from '../dates/parse.js';
import { htmlToText } from '../text/html.js';
import type { EventRecord } from './mapper.js';
import type { EventRow } from './repository.js';

/**
 * Events as iCalendar (docs/contract.md §11): a pure function of the rows and of the records the
 * caller may see (services/records.ts built them, masking protected text), so a feed shows exactly
 * what the JSON records show.
 */

/** `uid=id` (the default): `{id}@{host}`; `uid=plugin`: the plugin's `{id}-{start}-{end}@{host}`, in unix seconds. */
export type UidForm = 'id' | 'plugin';

export interface FeedOptions {
  host: string;
  uid: UidForm;
  /** The calendar's name (X-WR-CALNAME, NAME). */
  name: string;
  description?: string;
  url?: string;
}

type LinkedValue = Record<string, unknown>;

function unixSeconds(utc: string): number {
  return Math.floor(Date.parse(`${utc.replace(' ', 'T')}Z`) / 1000);
}

function text(value: unknown): string {
  return typeof value === 'string' ? htmlToText(value) : '';
}

/** The first venue of a record (one venue is an object, several an array, none `[]`). */
function firstVenue(record: EventRecord): LinkedValue | undefined {
  const venue = record.venue as unknown;
  if (Array.isArray(venue)) return venue[0] as LinkedValue | undefined;
  return venue && typeof venue === 'object' ? (venue as LinkedValue) : undefined;
}

function location(venue: LinkedValue | undefined): string | undefined {
  if (!venue) return undefined;
  const region = venue.stateprovince || venue.state || venue.province;
  const parts = [venue.venue, venue.address, venue.city, region, venue.zip, venue.country].map(text).filter((part) => part !== '');
  return parts.length ? parts.join(', ') : undefined;
}

function nextDay(date: string): string {
  return DateTime.fromISO(date, { zone: 'utc' }).plus({ days: 1 }).toISODate() ?? date;
}

/** The event's times: whole days for an all-day event (DTEND the day after the last day), otherwise wall-clock times in its zone. */
function times(row: EventRow, record: EventRecord): [CalendarTime, CalendarTime] {
  if (record.all_day === true) {
    return [
      { kind: 'date', date: row.startLocal.slice(0, 10) },
      { kind: 'date', date: nextDay(row.endLocal.slice(0, 10)) },
    ];
  }
  // A zone the tz database does not know (not written by this service) is shown in UTC.
  if (!zoneOf(row.timezone)) {
    return [
      { kind: 'local', local: row.startUtc, zoneName: 'UTC' },
      { kind: 'local', local: row.endUtc, zoneName: 'UTC' },
    ];
  }
  return [
    { kind: 'local', local: row.startLocal, zoneName: row.timezone },
    { kind: 'local', local: row.endLocal, zoneName: row.timezone },
  ];
}

/** One VEVENT's content. A record masked for the caller (`description` emptied, no venue...) gives only its title and times. */
export function calendarEvent(row: EventRow, record: EventRecord, options: Pick<FeedOptions, 'host' | 'uid'>): CalendarEvent {
  const [start, end] = times(row, record);
  const venue = firstVenue(record);
  const organizer = (record.organizer as unknown as LinkedValue[])[0];
  const image = record.image as unknown;
  const lat = venue?.geo_lat;
  const lng = venue?.geo_lng;
  return {
    uid: options.uid === 'plugin' ? `${row.id}-${unixSeconds(row.startUtc)}-${unixSeconds(row.endUtc)}@${options.host}` : `${row.id}@${options.host}`,
    // The last change, not the time of the request: the same data gives the same feed (and ETag).
    stamp: row.modifiedUtc,
    start,
    end,
    summary: text(record.title),
    description: text(record.description) || undefined,
    location: location(venue),
    geo: typeof lat === 'number' && typeof lng === 'number' ? { lat, lng } : undefined,
    url: record.url,
    categories: record.categories.map((category) => text(category.name)).filter((name) => name !== ''),
    organizer: organizer && text(organizer.organizer) ? { name: text(organizer.organizer), email: text(organizer.email) || undefined } : undefined,
    lastModified: row.modifiedUtc,
    sequence: row.version,
    status: row.status === 'publish' ? 'CONFIRMED' : 'TENTATIVE',
    attach: image && typeof image === 'object' && typeof (image as { url?: unknown }).url === 'string' ? (image as { url: string }).url : undefined,
    spanUtc: [row.startUtc, row.endUtc],
  };
}

/** The feed: one calendar with the events, in the order given. */
export function eventsCalendar(rows: EventRow[], records: EventRecord[], options: FeedOptions): string {
  return calendar(
    { prodId: '-//The Events Calendar REST service//tribe/events/v1//EN', name: options.name, description: options.description, url: options.url },
    rows.map((row, index) => calendarEvent(row, records[index], options)),
    zoneOf,
  );
}
