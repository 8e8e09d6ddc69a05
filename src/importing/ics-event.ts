import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import sanitizeHtml from 'sanitize-html';
import { structureProblem } from '../text/html-structure.js';
import { EMBED_LIMITS } from '../text/limits.js';
import { zoneOf } from '../dates/parse.js';
import { windowsZone } from '../dates/windows-zones.js';
import type { ImportRecord, OccurrenceOverride, SkippedRecord, SourceImage, SourceLinks } from './records.js';

/**
 * One VEVENT as the engine's records (docs/importing.md "Importing a calendar file"): the event in
 * the API's write body, and the venue, organizer and categories it links, keyed by name (matched to
 * local records of the same name). Times keep their zone: a TZID that is an IANA name, a Windows name
 * (Outlook), or a zone the file defines in a VTIMEZONE (then read in UTC); floating times are in the
 * site's zone; dates are all-day events.
 */

export interface IcsZones {
  /** The site's zone: floating times are read in it. */
  site: string;
  /** The calendar's own VTIMEZONEs by TZID. */
  defined: Map<string, ICAL.Timezone>;
}

type Mapped = SkippedRecord | { event: ImportRecord; linked: ImportRecord[] };

const SQL = 'yyyy-MM-dd HH:mm:ss';

/** The IANA zone a TZID names (undefined: none known; the file may still define it). */
function ianaZone(tzid: string): string | undefined {
  if (zoneOf(tzid)) return tzid;
  const windows = windowsZone(tzid);
  if (windows) return windows;
  // Older Thunderbird and some exporters prefix the IANA name: "/mozilla.org/20070129_1/Europe/Paris".
  const tail = /([A-Za-z_]+\/[A-Za-z_+-]+(?:\/[A-Za-z_+-]+)?)$/.exec(tzid)?.[1];
  return tail && zoneOf(tail) ? tail : undefined;
}

const pad = (n: number, size = 2) => String(n).padStart(size, '0');
const wallClock = (t: ICAL.Time) => `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;

/** A DTSTART or DTEND: its wall-clock time and zone, or why it cannot be read. */
function timeOf(property: ICAL.Property, zones: IcsZones): { local: string; zone: string; date: boolean } | { problem: string } {
  const time = property.getFirstValue() as ICAL.Time;
  if (time.isDate) return { local: wallClock(time), zone: zones.site, date: true };
  if (time.zone === ICAL.Timezone.utcTimezone) return { local: wallClock(time), zone: 'UTC', date: false };
  const tzid = property.getParameter('tzid');
  if (typeof tzid !== 'string' || tzid === '') return { local: wallClock(time), zone: zones.site, date: false };
  const iana = ianaZone(tzid);
  if (iana) return { local: wallClock(time), zone: iana, date: false };
  const defined = zones.defined.get(tzid);
  if (!defined) return { problem: `TZID ${tzid} is neither a known zone nor defined in the calendar.` };
  const floating = time.clone();
  floating.zone = defined;
  const utc = DateTime.fromSQL(wallClock(time), { zone: 'UTC' }).minus({ seconds: defined.utcOffset(floating) });
  return { local: utc.toFormat(SQL), zone: 'UTC', date: false };
}

/** The API's start, end, all-day flag and zone of an event, from DTSTART with DTEND or DURATION. */
function timesOf(vevent: ICAL.Component, zones: IcsZones): Record<string, unknown> | { problem: string } {
  const dtstart = vevent.getFirstProperty('dtstart');
  if (!dtstart) return { problem: 'no DTSTART.' };
  const start = timeOf(dtstart, zones);
  if ('problem' in start) return start;
  const dtend = vevent.getFirstProperty('dtend');
  let end: { local: string; zone: string; date: boolean } | { problem: string };
  if (dtend) end = timeOf(dtend, zones);
  else {
    const duration = vevent.getFirstPropertyValue('duration') as ICAL.Duration | null;
    // Without either, an event of dates lasts its day, an event of a time takes no time (RFC 5545 §3.6.1).
    const seconds = duration ? duration.toSeconds() : start.date ? 86400 : 0;
    const moved = DateTime.fromSQL(start.local, { zone: start.date ? 'UTC' : start.zone }).plus({ seconds });
    end = { local: moved.toFormat(SQL), zone: start.zone, date: start.date };
  }
  if ('problem' in end) return end;
  if (start.date) {
    // DTEND of dates is the day after the last (exclusive); the API's all-day event ends on its last day.
    const last = DateTime.fromSQL(end.local, { zone: 'UTC' }).minus({ days: 1 });
    const endDay = last.toFormat('yyyy-MM-dd') < start.local.slice(0, 10) ? start.local.slice(0, 10) : last.toFormat('yyyy-MM-dd');
    return { start_date: start.local, end_date: `${endDay} 23:59:59`, all_day: true, timezone: start.zone };
  }
  const endLocal = end.zone === start.zone ? end.local : DateTime.fromSQL(end.local, { zone: end.zone }).setZone(start.zone).toFormat(SQL);
  return { start_date: start.local, end_date: endLocal < start.local ? start.local : endLocal, all_day: false, timezone: start.zone };
}

/** RRULE, RDATE and EXDATE as the API's `recurrence` lines (docs/contract.md §14), their Windows TZIDs named as IANA zones. */
function recurrenceOf(vevent: ICAL.Component): string[] {
  const lines: string[] = [];
  for (const name of ['rrule', 'rdate', 'exdate']) {
    for (const property of vevent.getAllProperties(name)) {
      const tzid = property.getParameter('tzid');
      if (typeof tzid === 'string') {
        const iana = ianaZone(tzid);
        if (iana) property.setParameter('tzid', iana);
      }
      lines.push(ICAL.stringify.property(property.toJSON() as never, undefined as never, true));
    }
  }
  return lines;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The description: X-ALT-DESC's HTML when there is one (cleaned as an author's write), else DESCRIPTION's text. */
function descriptionOf(vevent: ICAL.Component): string {
  for (const alt of vevent.getAllProperties('x-alt-desc')) {
    if (String(alt.getParameter('fmttype') ?? '').toLowerCase() === 'text/html') return bodyOfHtml(String(alt.getFirstValue() ?? ''));
  }
  return escapeHtml(String(vevent.getFirstPropertyValue('description') ?? ''));
}

/** An HTML page's body without its scripts, styles and head (whose text would otherwise stay as text); larger or deeper HTML than the bounds is left for the write to refuse. */
const ALT_DESC_MAX = 65536;
function bodyOfHtml(html: string): string {
  if (html.length > ALT_DESC_MAX || structureProblem(html)) return html;
  const dropped = new Set(['script', 'style', 'head', 'title', 'noscript', 'template']);
  return sanitizeHtml(html, { allowedTags: false, allowedAttributes: false, allowVulnerableTags: true, exclusiveFilter: (frame) => dropped.has(frame.tag) })
    .replace(/<\/?(html|body)\b[^>]*>/gi, '')
    .trim();
}

const textOf = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

export class TooManyCategories extends Error {
  constructor() {
    super(`it has more than ${EMBED_LIMITS.categories} CATEGORIES; an event links at most ${EMBED_LIMITS.categories}.`);
  }
}

/** The venue of LOCATION (with GEO), the organizer of ORGANIZER, the categories of CATEGORIES. */
function linkedOf(vevent: ICAL.Component): ImportRecord[] {
  const linked: ImportRecord[] = [];
  const location = textOf(vevent.getFirstPropertyValue('location'));
  if (location) {
    const body: Record<string, unknown> = { venue: location, status: 'publish' };
    const geo = vevent.getFirstPropertyValue('geo') as unknown;
    if (Array.isArray(geo) && geo.length === 2 && geo.every((n) => Number.isFinite(Number(n)))) [body.geo_lat, body.geo_lng] = geo.map(Number);
    linked.push({ kind: 'venue', sourceId: location.toLowerCase(), body, match: true });
  }
  const organizer = vevent.getFirstProperty('organizer');
  if (organizer) {
    const address = textOf(organizer.getFirstValue());
    const email = /^mailto:/i.test(address) ? address.slice(7) : '';
    const name = textOf(organizer.getParameter('cn')) || email;
    if (name) linked.push({ kind: 'organizer', sourceId: (email || name).toLowerCase(), body: { organizer: name, email, status: 'publish' }, match: true });
  }
  const categories = new Map<string, string>();
  for (const property of vevent.getAllProperties('categories')) {
    for (const value of property.getValues()) {
      const name = textOf(value);
      if (name && !categories.has(name.toLowerCase())) categories.set(name.toLowerCase(), name);
      // Nothing is created for an event that cannot link them all (docs/limits.md).
      if (categories.size > EMBED_LIMITS.categories) throw new TooManyCategories();
    }
  }
  for (const [key, name] of categories) linked.push({ kind: 'category', sourceId: key, body: { name }, match: true });
  return linked;
}

/** Extensions of image files (an ATTACH without FMTTYPE is an image when its URL ends with one). */
const IMAGE_EXTENSIONS = /\.(avif|gif|jpe?g|png|svg|webp)$/i;

/** The path of a URL ('' when it cannot be read). */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/** The first ATTACH that is an image by URL (FMTTYPE image/…, or a URL ending with an image's extension): the event's image. Inline (binary) attachments are not read. */
function imageOf(vevent: ICAL.Component): SourceImage | undefined {
  for (const attach of vevent.getAllProperties('attach')) {
    if (attach.getParameter('encoding') || attach.getParameter('value')?.toString().toLowerCase() === 'binary') continue;
    const url = textOf(attach.getFirstValue());
    if (!/^https?:\/\//i.test(url)) continue;
    const type = String(attach.getParameter('fmttype') ?? '').toLowerCase();
    if (type.startsWith('image/') || (type === '' && IMAGE_EXTENSIONS.test(pathOf(url)))) return { url };
  }
  return undefined;
}

const ids = (linked: ImportRecord[], kind: string) => linked.filter((record) => record.kind === kind).map((record) => record.sourceId);

/** What a VEVENT says of an event (a series' master, a changed occurrence, a single event): its write body, links, image and modification time, and the records it links to. */
function contentOf(
  vevent: ICAL.Component,
  zones: IcsZones,
): { linked: ImportRecord[]; fields: { body: Record<string, unknown>; image?: SourceImage; modifiedUtc?: string; links: SourceLinks } } | { problem: string } {
  const times = timesOf(vevent, zones);
  if ('problem' in times) return { problem: String(times.problem) };
  const linked = linkedOf(vevent);
  const lastModified = vevent.getFirstPropertyValue('last-modified') as ICAL.Time | null;
  const body: Record<string, unknown> = {
    title: textOf(vevent.getFirstPropertyValue('summary')),
    description: descriptionOf(vevent),
    status: 'publish',
    ...times,
    website: textOf(vevent.getFirstPropertyValue('url')),
  };
  return {
    linked,
    fields: {
      body,
      image: imageOf(vevent),
      modifiedUtc: lastModified && lastModified.zone === ICAL.Timezone.utcTimezone ? wallClock(lastModified) : undefined,
      links: { venues: ids(linked, 'venue'), organizers: ids(linked, 'organizer'), categories: ids(linked, 'category') },
    },
  };
}

/** Why a VEVENT is left out on purpose (cancelled, private), if it is. */
function leftOut(vevent: ICAL.Component): string | undefined {
  const status = textOf(vevent.getFirstPropertyValue('status')).toUpperCase();
  if (status === 'CANCELLED') return 'it is cancelled (STATUS:CANCELLED).';
  const klass = textOf(vevent.getFirstPropertyValue('class')).toUpperCase();
  if (klass === 'PRIVATE' || klass === 'CONFIDENTIAL') return `it is ${klass.toLowerCase()} (CLASS:${klass}).`;
  return undefined;
}

/** A VEVENT's UID, or '' without one. */
export const uidOf = (vevent: ICAL.Component): string => textOf(vevent.getFirstPropertyValue('uid'));

/** How reports name a changed occurrence: its UID and RECURRENCE-ID as written. */
export function overrideName(vevent: ICAL.Component): string {
  const value = vevent.getFirstProperty('recurrence-id')?.toJSON()[3];
  return `${uidOf(vevent)} RECURRENCE-ID ${String(value)}`;
}

/** A VEVENT's records, or why it is left out. `index`: its place in the file (names one without UID); `sourceId`: its key (default its UID). */
export function eventOf(vevent: ICAL.Component, index: number, zones: IcsZones, sourceId?: string): Mapped {
  const uid = uidOf(vevent);
  if (!uid) return { kind: 'event', sourceId: `VEVENT ${index}`, skipped: 'it has no UID.' };
  const key = sourceId ?? uid;
  const reason = leftOut(vevent);
  if (reason) return { kind: 'event', sourceId: key, skipped: reason, remove: true };
  const content = contentOf(vevent, zones);
  if ('problem' in content) return { kind: 'event', sourceId: key, skipped: content.problem };
  const { fields, linked } = content;
  const recurrence = recurrenceOf(vevent);
  if (recurrence.length) fields.body.recurrence = recurrence;
  return { event: { kind: 'event', sourceId: key, ...fields }, linked };
}

/** A series as the master VEVENT gives it: its zone, whether it is of whole days, and whether it repeats. */
interface SeriesShape {
  timezone: string;
  allDay: boolean;
  recurring: boolean;
}

/**
 * A changed occurrence (a VEVENT with RECURRENCE-ID) of the series `shape` describes: the override,
 * or `cancelled` (STATUS:CANCELLED, or private: the occurrence is removed), or why it is left out.
 * Its RECURRENCE-ID is read as a local time of the series' zone (a date of an all-day series).
 */
export function overrideOf(
  vevent: ICAL.Component,
  zones: IcsZones,
  shape: SeriesShape,
): { override: OccurrenceOverride; linked: ImportRecord[] } | { cancelled: string } | { skipped: string } {
  if (!shape.recurring) return { skipped: 'a changed occurrence (RECURRENCE-ID) of an event that does not repeat.' };
  const property = vevent.getFirstProperty('recurrence-id')!;
  const at = timeOf(property, zones);
  if ('problem' in at) return { skipped: at.problem };
  let recurrenceStart: string;
  if (shape.allDay || at.date) recurrenceStart = `${at.local.slice(0, 10)} 00:00:00`;
  else recurrenceStart = at.zone === shape.timezone ? at.local : DateTime.fromSQL(at.local, { zone: at.zone }).setZone(shape.timezone).toFormat(SQL);
  if (leftOut(vevent)) return { cancelled: recurrenceStart };
  const content = contentOf(vevent, zones);
  if ('problem' in content) return { skipped: content.problem };
  return { override: { recurrenceStart, sourceId: overrideName(vevent), ...content.fields }, linked: content.linked };
}
