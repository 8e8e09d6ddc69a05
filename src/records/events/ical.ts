import { calendar, zoneNeeds, type CalendarEvent, type CalendarTime, type ZoneNeed } from '../../calendar/ical.js';
import { zoneOf } from '../../dates/parse.js';
import { calendarLines } from '../../dates/recurrence-rewrites.js';
import { storedPlain } from '../../text/plain-forms.js';
import { NO_TEXT, type RenderedForms } from '../../text/rendered-forms.js';
import { isEmail } from '../../text/fields.js';
import { mapInTurns } from '../../core/loop-turns.js';
import type { Urls } from '../../core/urls.js';
import { CATEGORIES } from '../../repositories/taxonomies.js';
import type { EmbeddedLinked, EventRelations } from './mapper.js';
import type { EventRow } from '../../repositories/events.js';

/**
 * Events as iCalendar (docs/contract.md §11): a pure function of the rows and of what the caller
 * may see of them (records/records.ts loads the relations and decides the masking as for the JSON
 * records), so a feed shows no more than the JSON records show.
 */

/** `uid=id` (the default): `{id}@{host}`; `uid=plugin`: the plugin's `{id}-{start}-{end}@{host}`, in unix seconds. */
type UidForm = 'id' | 'plugin';

interface FeedOptions {
  host: string;
  uid: UidForm;
  /** The calendar's name (X-WR-CALNAME, NAME). */
  name: string;
  description?: string;
  url?: string;
}

/**
 * What the feed shows of one event, with the caller's masking decided as for its JSON record
 * (records/records.ts `eventFeedEntries`): a masked event keeps its title and times only; a masked
 * venue or organizer its name only.
 */
export interface FeedEntry {
  row: EventRow;
  masked: boolean;
  venue: EmbeddedLinked | undefined;
  organizer: EmbeddedLinked | undefined;
  /** Category names as plain text (stored when written: text/plain-forms.ts), in the record's order. */
  categories: string[];
  imageUrl: string | undefined;
  /** The forms of the description (stored when written: db/rendered-texts.ts); its `text` is read when the VEVENT is built. */
  description: RenderedForms;
  /** A series' master: the end (UTC) of its last stored occurrence, so its zone's VTIMEZONE covers every occurrence. */
  seriesEndUtc?: string;
  /** Its place among its series' VEVENTs (records/events/feeds.ts `FeedRow`): none, a VEVENT of its own. */
  part?: 'master' | 'override';
  /** A master: RECURRENCE-IDs written as EXDATEs (exceptions the caller may not read). */
  excluded?: string[];
}

/** A feed entry from the loaded relations (those the caller may see: records/records.ts). */
export function feedEntry(row: EventRow, related: EventRelations, masked: boolean): FeedEntry {
  if (masked) return { row, masked, venue: undefined, organizer: undefined, categories: [], imageUrl: undefined, description: NO_TEXT };
  const categories = (related.terms.get(row.id) ?? [])
    .filter((term) => term.taxonomy === CATEGORIES.name)
    .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id)
    .map((term) => storedPlain(term.namePlain, term.name));
  const image = row.imageId === null ? undefined : related.images.get(row.imageId);
  return {
    row,
    masked,
    venue: related.venues.get(row.id)?.[0],
    organizer: related.organizers.get(row.id)?.[0],
    categories,
    imageUrl: image && typeof image.url === 'string' ? image.url : undefined,
    description: related.texts.of('description', row.descriptionHash, row.description),
  };
}

function unixSeconds(utc: string): number {
  return Math.floor(Date.parse(`${utc.replace(' ', 'T')}Z`) / 1000);
}

function location(venue: EmbeddedLinked | undefined): string | undefined {
  if (!venue) return undefined;
  const name = storedPlain(venue.row.titlePlain, venue.row.title);
  if (venue.masked) return name || undefined;
  const f = venue.row.fields;
  const region = f.stateprovince ? 'stateprovince' : f.state ? 'state' : 'province';
  // The plain forms stored when written (text/plain-forms.ts).
  const parts = [name, ...['address', 'city', region, 'zip', 'country'].map((field) => storedPlain(venue.row.plainFields[field] ?? null, f[field] ?? ''))].filter(
    (part) => part !== '',
  );
  return parts.length ? parts.join(', ') : undefined;
}

function nextDay(date: string): string {
  // Date.UTC carries a day past the month's last into the next month (and year). An event's dates
  // lie within a century of today (dates/event-times.ts), never in the years 0-99 it reads as 19xx.
  const [year, month, day] = date.split('-').map(Number);
  return new Date(Date.UTC(year!, month! - 1, day! + 1)).toISOString().slice(0, 10);
}

/** The event's times: whole days for an all-day event (DTEND the day after the last day), otherwise wall-clock times in its zone. */
function times(row: EventRow, masked: boolean): [CalendarTime, CalendarTime] {
  // A masked record hides `all_day` (docs/contract.md §5): its stored times are shown instead.
  if (row.allDay && !masked) {
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

/** One VEVENT's content. A masked event gives only its title, times, UID, URL, stamps, sequence and status. */
function calendarEvent(
  { row, masked, venue, organizer, categories, imageUrl, description, seriesEndUtc, part, excluded }: FeedEntry,
  urls: Urls,
  options: Pick<FeedOptions, 'host' | 'uid'>,
): CalendarEvent {
  const [start, end] = times(row, masked);
  const series = seriesParts(row, start, part, excluded ?? []);
  const organizerName = organizer ? storedPlain(organizer.row.titlePlain, organizer.row.title) : '';
  // Organizer e-mail is free text (the plugin does not check it): only an address makes a `mailto:`.
  const email = organizer && !organizer.masked && isEmail(organizer.row.fields.email) ? organizer.row.fields.email : '';
  const geo = venue && !venue.masked && venue.row.geoLat !== null && venue.row.geoLng !== null ? { lat: venue.row.geoLat, lng: venue.row.geoLng } : undefined;
  return {
    // Every VEVENT of a series shares the series' UID, whatever `uid` asks; an occurrence written on its own has its own (docs/contract.md §14).
    uid:
      part !== undefined && row.seriesId !== null
        ? `${row.seriesId}@${options.host}`
        : options.uid === 'plugin'
          ? `${row.id}-${unixSeconds(row.startUtc)}-${unixSeconds(row.endUtc)}@${options.host}`
          : `${row.id}@${options.host}`,
    // The last change, not the time of the request: the same data gives the same feed (and ETag).
    stamp: row.modifiedUtc,
    start,
    end,
    summary: storedPlain(row.titlePlain, row.title),
    description: masked ? undefined : description.text || undefined,
    location: location(venue),
    geo,
    url: urls.permalink('event', row.slug),
    categories: categories.filter((name) => name !== ''),
    organizer: organizerName ? { name: organizerName, email: email || undefined } : undefined,
    lastModified: row.modifiedUtc,
    sequence: row.version,
    status: row.status === 'publish' ? 'CONFIRMED' : 'TENTATIVE',
    attach: imageUrl,
    spanUtc: [row.startUtc, seriesEndUtc && seriesEndUtc > row.endUtc ? seriesEndUtc : row.endUtc],
    ...series,
  };
}

/**
 * A series' place in the calendar (docs/contract.md §14): its first event is the master, with the
 * rules and an EXDATE for each exception the caller may not read; an override carries RECURRENCE-ID,
 * the start the rules give it, in the form of the master's DTSTART. An occurrence written on its own
 * has neither: it is an event of its own.
 */
function seriesParts(row: EventRow, start: CalendarTime, part: FeedEntry['part'], excluded: string[]): Pick<CalendarEvent, 'recurrence' | 'recurrenceId'> {
  if (row.seriesId === null || row.recurrenceStart === null || part === undefined) return {};
  const allDay = start.kind === 'date';
  if (part === 'master') {
    const exdates = excluded.map((local) =>
      allDay ? `EXDATE;VALUE=DATE:${local.slice(0, 10).replace(/-/g, '')}` : `EXDATE;TZID=${row.timezone}:${local.replace(/[-:]/g, '').replace(' ', 'T')}`,
    );
    return { recurrence: [...calendarLines(row.recurrence ?? [], row.timezone, row.startLocal, allDay), ...exdates] };
  }
  if (allDay) return { recurrenceId: { kind: 'date', date: row.recurrenceStart.slice(0, 10) } };
  return { recurrenceId: { kind: 'local', local: row.recurrenceStart, zoneName: start.kind === 'local' ? start.zoneName : row.timezone } };
}

/**
 * The feed: one calendar with the events, in the order given, as UTF-8 bytes. The events are built
 * in turns (loop-turns.ts): each one's description is turned into text, which can take milliseconds.
 */
export async function eventsCalendar(entries: FeedEntry[], urls: Urls, options: FeedOptions): Promise<Buffer> {
  const header = { prodId: '-//The Events Calendar REST service//tribe/events/v1//EN', name: options.name, description: options.description, url: options.url };
  if (entries.length <= EVENTS_PER_CHUNK) return calendar(header, await mapInTurns(entries, (entry) => calendarEvent(entry, urls, options)), zoneOf);
  // A long feed: its events made and written EVENTS_PER_CHUNK at a time (only one chunk's texts live at once).
  async function* chunks(): AsyncGenerator<CalendarEvent[]> {
    for (let at = 0; at < entries.length; at += EVENTS_PER_CHUNK) yield mapInTurns(entries.slice(at, at + EVENTS_PER_CHUNK), (entry) => calendarEvent(entry, urls, options));
  }
  return calendar(header, { needs: entries.flatMap(entryZoneNeeds), chunks: chunks() }, zoneOf);
}

/** Events of a feed made at a time: a feed of more is written in chunks of this many. */
const EVENTS_PER_CHUNK = 50;

/** The zone years an entry's VEVENT needs (calendar/ical.ts `zoneNeeds`), without making the VEVENT. */
function entryZoneNeeds({ row, masked, seriesEndUtc }: FeedEntry): ZoneNeed[] {
  const [start] = times(row, masked);
  const master = row.seriesId !== null && row.recurrenceStart !== null && row.id === row.seriesId;
  return zoneNeeds({ start, spanUtc: [row.startUtc, seriesEndUtc && seriesEndUtc > row.endUtc ? seriesEndUtc : row.endUtc], recurrence: master ? [] : undefined });
}

/**
 * The feed of the first `entries` that fit in `limit` bytes (REPLY_LIMIT), built by `build`, and how
 * many it holds. Each event is bounded (text/limits.ts), a feed of many is not: past the limit the
 * feed is cut, as it is at ICAL_MAX_EVENTS (docs/limits.md). Only a feed over the limit costs more
 * than one build: each entry is weighed alone (with its own time-zone block, which a calendar of
 * several shares, so alone it weighs at least what it adds).
 */
export async function calendarWithin(entries: FeedEntry[], build: (entries: FeedEntry[]) => Promise<Buffer>, limit: number): Promise<{ bytes: Buffer; count: number }> {
  const whole = await build(entries);
  if (whole.length <= limit) return { bytes: whole, count: entries.length };
  const empty = (await build([])).length;
  let size = empty;
  let count = 0;
  for (const entry of entries) {
    size += (await build([entry])).length - empty;
    if (size > limit) break;
    count++;
  }
  // A series is cut whole: not after its master and some of its overrides (docs/contract.md §14).
  while (count > 0 && count < entries.length && entries[count].part === 'override') count--;
  let bytes = await build(entries.slice(0, count));
  // Zone blocks spanning several events' years can outweigh each event's own: cut further if needed.
  while (count > 0 && bytes.length > limit) {
    count = Math.floor(count * 0.9);
    while (count > 0 && entries[count].part === 'override') count--;
    bytes = await build(entries.slice(0, count));
  }
  return { bytes, count };
}
