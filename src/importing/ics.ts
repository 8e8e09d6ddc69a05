import ICAL from 'ical.js';
import type { ImportSource } from './engine.js';
import type { ImportRecord, OccurrenceOverride, SkippedRecord } from './records.js';
import { eventOf, overrideName, overrideOf, TooManyCategories, uidOf, type IcsZones } from './ics-event.js';
import { exdateLine } from '../dates/recurrence-rewrites.js';

/**
 * An iCalendar text as an import source (docs/importing.md "Importing a calendar file"): each VEVENT
 * an event keyed by its UID (the VEVENTs of the same UID with a RECURRENCE-ID are its series' changed
 * occurrences, carried by its record), its LOCATION a venue keyed by name, its ORGANIZER an organizer keyed by
 * e-mail or name, its CATEGORIES categories keyed by name, each yielded before the first event that
 * links it and matched to a local record of the same name when no import of this source made it.
 * The text is bounded before it is parsed (docs/limits.md "Imports").
 */

/** The largest iCalendar text an import reads, in bytes. */
export const ICS_MAX_BYTES = 5 * 1024 * 1024;
/** The most VEVENTs (overrides included) one text may hold: as many as `events.ics` gives out. */
export const ICS_MAX_EVENTS = 2000;
/** The most components of any kind (alarms, time zones and their rules too). */
const ICS_MAX_COMPONENTS = 20000;

/** The most parameters one content line may have (ical.js reads a line's parameters in quadratic time). */
const ICS_MAX_PARAMETERS = 100;

/**
 * The most parameters of any content line, in one linear pass: a line's name and parameters end at
 * its first `:` outside double quotes; a line break followed by a space or tab continues the line.
 */
function mostParameters(text: string): number {
  let most = 0;
  let count = 0;
  let inHead = true;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 /* \n */) {
      const next = text.charCodeAt(i + 1);
      if (next === 32 || next === 9) continue;
      inHead = true;
      quoted = false;
      count = 0;
    } else if (!inHead) continue;
    else if (c === 34 /* " */) quoted = !quoted;
    else if (quoted) continue;
    else if (c === 59 /* ; */ && ++count > most) most = count;
    else if (c === 58 /* : */) inHead = false;
  }
  return most;
}

/** Why a text is no iCalendar this import reads (told as is: 400 over HTTP, exit status 1 on the command line). */
export class IcsError extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/** The VCALENDAR of a text, checked against the bounds before ical.js parses it. */
export function parseCalendar(text: string): ICAL.Component {
  if (Buffer.byteLength(text, 'utf8') > ICS_MAX_BYTES) throw new IcsError(`the calendar is larger than ${ICS_MAX_BYTES} bytes.`, true);
  if (!/^\s*BEGIN:VCALENDAR\r?\n/i.test(text)) throw new IcsError('this is not an iCalendar text (it does not begin with BEGIN:VCALENDAR).');
  const events = (text.match(/^BEGIN:VEVENT\r?$/gim) ?? []).length;
  if (events > ICS_MAX_EVENTS) throw new IcsError(`the calendar holds ${events} events; an import takes at most ${ICS_MAX_EVENTS}.`, true);
  const components = (text.match(/^BEGIN:/gim) ?? []).length;
  if (components > ICS_MAX_COMPONENTS) throw new IcsError(`the calendar holds ${components} components; an import takes at most ${ICS_MAX_COMPONENTS}.`, true);
  const parameters = mostParameters(text);
  if (parameters > ICS_MAX_PARAMETERS) throw new IcsError(`a line of the calendar has ${parameters} parameters; an import takes at most ${ICS_MAX_PARAMETERS}.`, true);
  let parsed: unknown;
  try {
    parsed = ICAL.parse(text);
  } catch (err) {
    throw new IcsError(`the calendar cannot be read: ${(err as Error).message}`);
  }
  // A text of several calendars: the first is read.
  const jcal = Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed : Array.isArray(parsed) ? parsed[0] : undefined;
  const calendar = jcal ? new ICAL.Component(jcal) : undefined;
  if (!calendar || calendar.name !== 'vcalendar') throw new IcsError('this is not an iCalendar text (no VCALENDAR).');
  return calendar;
}

export interface IcsSourceOptions {
  /** Where the text came from: a URL or a file's path (names the source: the same location, the same records). */
  location: string;
  /** The zone of floating times (the site's). */
  siteTimezone: string;
}

/** The source of one iCalendar text (throws IcsError when it is none, before anything is read). */
export function icsSource(text: string, options: IcsSourceOptions): ImportSource {
  const calendar = parseCalendar(text);
  return {
    key: `ics:${options.location}`,
    type: 'ics',
    location: options.location,
    numericIds: false,
    records: () => calendarRecords(calendar, options.siteTimezone),
  };
}

/** The records of a parsed calendar, what each event links first (also run by the parsing worker, importing/ics-worker.ts). */
export async function* calendarRecords(calendar: ICAL.Component, siteTimezone: string): AsyncGenerator<ImportRecord | SkippedRecord> {
  const zones: IcsZones = { site: siteTimezone, defined: new Map() };
  for (const vtimezone of calendar.getAllSubcomponents('vtimezone')) {
    const tzid = vtimezone.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string') zones.defined.set(tzid, new ICAL.Timezone({ component: vtimezone, tzid }));
  }
  const vevents = calendar.getAllSubcomponents('vevent');
  // The changed occurrences (RECURRENCE-ID) of each UID go with the VEVENT of that UID without one (its series' master), wherever they are in the file.
  const masters = new Set<string>();
  const overrides = new Map<string, ICAL.Component[]>();
  for (const vevent of vevents) {
    const uid = uidOf(vevent);
    if (!uid) continue;
    if (!vevent.hasProperty('recurrence-id')) masters.add(uid);
    else overrides.set(uid, [...(overrides.get(uid) ?? []), vevent]);
  }
  const given = new Set<string>();
  function* linkedFirst(linked: ImportRecord[]) {
    // What the event links, once each, before it.
    for (const record of linked) {
      const key = `${record.kind} ${record.sourceId}`;
      if (given.has(key)) continue;
      given.add(key);
      yield record;
    }
  }
  let index = 0;
  for (const vevent of vevents) {
    index++;
    const uid = uidOf(vevent);
    const isOverride = vevent.hasProperty('recurrence-id');
    // A changed occurrence whose series is in the file is read with it; one without is an event of its own.
    if (isOverride && masters.has(uid)) continue;
    let mapped;
    try {
      mapped = eventOf(vevent, index, zones, isOverride && uid ? overrideName(vevent) : undefined);
      if (!isOverride && !('skipped' in mapped)) {
        const notes = withOverrides(mapped.event, overrides.get(uid) ?? [], zones);
        yield* notes.skipped;
        mapped.linked.push(...notes.linked);
      }
    } catch (err) {
      // ical.js decodes a value when it is read: a malformed date fails this event, not the import.
      const reason = err instanceof TooManyCategories ? err.message : `it cannot be read: ${(err as Error).message}`;
      yield { kind: 'event', sourceId: uid !== '' ? uid : `VEVENT ${index}`, skipped: reason, failed: true };
      continue;
    }
    if ('skipped' in mapped) {
      yield mapped;
      continue;
    }
    yield* linkedFirst(mapped.linked);
    yield mapped.event;
  }
}

/**
 * Adds a series' changed occurrences to its master's record: each override as an `overrides` entry,
 * each cancelled one as an EXDATE of its rules; those left out are told (skipped) with why.
 */
function withOverrides(event: ImportRecord, vevents: ICAL.Component[], zones: IcsZones): { skipped: SkippedRecord[]; linked: ImportRecord[] } {
  const skipped: SkippedRecord[] = [];
  const linked: ImportRecord[] = [];
  if (!vevents.length) return { skipped, linked };
  const body = event.body;
  const shape = { timezone: String(body.timezone), allDay: body.all_day === true, recurring: Array.isArray(body.recurrence) };
  const list: OccurrenceOverride[] = [];
  for (const vevent of vevents) {
    const read = overrideOf(vevent, zones, shape);
    if ('skipped' in read) skipped.push({ kind: 'event', sourceId: overrideName(vevent), skipped: read.skipped });
    else if ('cancelled' in read) {
      const local = read.cancelled;
      (body.recurrence as string[]).push(shape.allDay ? `EXDATE;VALUE=DATE:${local.slice(0, 10).replace(/-/g, '')}` : exdateLine(shape.timezone, local));
    } else {
      list.push(read.override);
      linked.push(...read.linked);
    }
  }
  if (list.length) event.overrides = list.sort((a, b) => (a.recurrenceStart < b.recurrenceStart ? -1 : a.recurrenceStart > b.recurrenceStart ? 1 : 0));
  return { skipped, linked };
}
