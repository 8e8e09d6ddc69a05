import type { Zone } from 'luxon';
import { offsetSeconds, transitionsOfYears, yearTransitions, type Transition } from './zone-transitions.js';
import { loopTurn } from '../core/loop-turns.js';
import { ByteBuilder } from '../core/byte-builder.js';

/**
 * A small iCalendar (RFC 5545) writer: content lines, their escaping and folding, and VTIMEZONE
 * components built from the tz database (zone-transitions.ts). Pure: it knows nothing of events as the
 * service stores them (records/events/ical.ts maps records into `CalendarEvent`s). The rules it follows are
 * docs/contract.md §11.
 */

/** One property: its name, parameters (already valid parameter values) and value (already escaped where text). */
interface Property {
  name: string;
  params?: Array<[string, string]>;
  value: string;
}

/** A date-time of an event: a wall-clock time in a named zone, or a whole day. */
export type CalendarTime = { kind: 'local'; local: string; zoneName: string } | { kind: 'date'; date: string };

/** An event as the feed shows it; text is plain (unescaped), optional parts are left out when absent. */
export interface CalendarEvent {
  uid: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  stamp: string;
  start: CalendarTime;
  end: CalendarTime;
  summary: string;
  description?: string;
  location?: string;
  geo?: { lat: number; lng: number };
  url?: string;
  categories?: string[];
  organizer?: { name: string; email?: string };
  lastModified: string;
  sequence: number;
  status: 'CONFIRMED' | 'TENTATIVE' | 'CANCELLED';
  attach?: string;
  /** A recurring series' master: its RRULE/RDATE/EXDATE lines, already in calendar form (docs/contract.md §14). */
  recurrence?: string[];
  /** An occurrence of a series written on its own: the start the rules give it. */
  recurrenceId?: CalendarTime;
  /** The UTC instants the event covers (`YYYY-MM-DD HH:MM:SS`; a series' first event: through its last occurrence), for its zone's VTIMEZONE. */
  spanUtc: [string, string];
}

interface CalendarHeader {
  prodId: string;
  name: string;
  description?: string;
  url?: string;
}

/** Escapes TEXT (RFC 5545 §3.3.11): backslash, semicolon, comma and line breaks. */
export function escapeText(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/** A parameter value (RFC 5545 §3.1): quoted when it holds `:`, `;` or `,`; `"` cannot appear (it becomes `'`), nor control characters (spaces). */
export function paramValue(value: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/"/g, "'").replace(/[\u0000-\u001f\u007f]/g, ' ');
  return /[:;,]/.test(clean) ? `"${clean}"` : clean;
}

const MAX_OCTETS = 75;

/**
 * Folds a content line (RFC 5545 §3.1): at most 75 octets per line, continuation lines start with
 * one space, and no UTF-8 character (nor a UTF-16 surrogate pair) is split. Lines end with CRLF.
 */
export function foldLine(line: string): string {
  // A UTF-16 unit is at most 3 octets (a pair of them 4): 18 units fit in 75 octets.
  if (line.length <= 18) return `${line}\r\n`;
  let out = '';
  let lineStart = 0;
  let octets = 0;
  for (let i = 0; i < line.length;) {
    const unit = line.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < line.length;
    const units = pair ? 2 : 1;
    const size = unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3;
    if (octets + size > MAX_OCTETS) {
      out += `${line.slice(lineStart, i)}\r\n `;
      lineStart = i;
      octets = 1; // the leading space of the continuation
    }
    octets += size;
    i += units;
  }
  return `${out}${line.slice(lineStart)}\r\n`;
}

function contentLine({ name, params, value }: Property): string {
  const paramText = (params ?? []).map(([key, v]) => `;${key}=${v}`).join('');
  // Control characters other than tab are not allowed in content (RFC 5545 §3.1); escapeText has already turned line breaks into `\n`.
  // eslint-disable-next-line no-control-regex
  return foldLine(`${name}${paramText}:${value.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '')}`);
}

/** `YYYY-MM-DD HH:MM:SS` → `YYYYMMDDTHHMMSS` (add `Z` for UTC). */
function basicDateTime(storage: string): string {
  return storage.replace(/[-:]/g, '').replace(' ', 'T');
}

/** `+HHMM` (or `+HHMMSS`) for an offset in minutes (luxon offsets may have fractional minutes for old LMT). */
export function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const totalSeconds = Math.round(Math.abs(minutes) * 60);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${sign}${pad(h)}${pad(m)}${s ? pad(s) : ''}`;
}

/** Whether an offset (seconds) is the zone's summer time: above the smaller of its year's January and July offsets. */
function isDaylight(zone: Zone, at: number, offset: number): boolean {
  const year = new Date(at).getUTCFullYear();
  return offset > Math.min(offsetSeconds(zone, Date.UTC(year, 0, 1)), offsetSeconds(zone, Date.UTC(year, 6, 1)));
}

/** Epoch ms → `YYYYMMDDTHHMMSS` of that instant shown as UTC (a local time once the offset is added). */
function basicOfMillis(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '');
}

/** Whole UTC years `[first, last]`; `last < first` is a run of no years (see zoneBlock). */
type YearRun = [number, number];

/**
 * The VTIMEZONE of a zone over runs of whole UTC years, each run with the changes within it (in
 * order): an observance at the start of each run for the offset then (the first with that offset on
 * both sides; a later one coming from the offset just before it), then one per change (each with
 * its own DTSTART, the local time before the change, and TZOFFSETFROM/TZOFFSETTO), DAYLIGHT when the
 * new offset is the zone's summer time. Fixed offsets (`UTC+5.5`) have no changes: one STANDARD
 * observance. A run of no years is its starting observance alone.
 */
export function zoneBlock(zoneName: string, zone: Zone, runs: Array<{ run: YearRun; changes: Transition[] }>): string[] {
  const lines: string[] = ['BEGIN:VTIMEZONE', `TZID:${escapeText(zoneName)}`];
  const observance = (at: number, from: number, to: number) => {
    const type = isDaylight(zone, at, to) ? 'DAYLIGHT' : 'STANDARD';
    lines.push(`BEGIN:${type}`, `DTSTART:${basicOfMillis(at + from * 1000)}`, `TZOFFSETFROM:${offsetText(from / 60)}`, `TZOFFSETTO:${offsetText(to / 60)}`, `END:${type}`);
  };
  runs.forEach(({ run: [first], changes }, index) => {
    const start = Date.UTC(first, 0, 1);
    const offset = offsetSeconds(zone, start);
    observance(start, index === 0 ? offset : offsetSeconds(zone, start - 1000), offset);
    for (const change of changes) observance(change.at, change.from, change.to);
  });
  lines.push('END:VTIMEZONE');
  return lines;
}

/** The VTIMEZONE of a zone for the whole UTC years `fromYear`..`toYear` (see zoneBlock). */
export function vtimezone(zoneName: string, zone: Zone, fromYear: number, toYear: number): string[] {
  const changes: Transition[] = [];
  for (let year = fromYear; year <= toYear; year++) changes.push(...yearTransitions(zone, year));
  return zoneBlock(zoneName, zone, [{ run: [fromYear, toYear], changes }]);
}

/**
 * Most UTC years the VTIMEZONEs of one calendar describe, summed over its zones (docs/limits.md
 * "Time-zone blocks in iCalendar feeds"). A year costs ~365 offset probes the first time (a third of
 * a millisecond) and ~200 bytes of output.
 */
const MAX_ZONE_YEARS = 500;

/** UTC years of one zone an event needs described. */
export interface ZoneNeed {
  zoneName: string;
  run: YearRun;
}

/**
 * The years an event needs its zone described for: a series' first event every year from its start
 * through its last occurrence (a client expands its rules over them); any other event the years of
 * its start and of its end, the only times it names.
 */
export function zoneNeeds(event: Pick<CalendarEvent, 'start' | 'spanUtc' | 'recurrence'>): ZoneNeed[] {
  if (event.start.kind !== 'local') return [];
  const zoneName = event.start.zoneName;
  const first = Number(event.spanUtc[0].slice(0, 4));
  const last = Number(event.spanUtc[1].slice(0, 4));
  if (event.recurrence || first === last) return [{ zoneName, run: [first, last] }];
  return [
    { zoneName, run: [first, first] },
    { zoneName, run: [last, last] },
  ];
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The runs of years each zone's VTIMEZONE describes: every year its events need while they add up to
 * at most `budget`; past that, the shortest needs are met first (a single event's years before a
 * long series), and the need that does not fit keeps its first years. A zone left with no year is
 * described by its offset at the start of its first need (a run of no years).
 */
export function coveredYears(needs: ZoneNeed[], budget: number = MAX_ZONE_YEARS): Map<string, YearRun[]> {
  const distinct = new Map(needs.map((need) => [`${need.zoneName}\n${need.run.join('\n')}`, need]));
  const ordered = [...distinct.values()].sort((a, b) => a.run[1] - a.run[0] - (b.run[1] - b.run[0]) || byName(a.zoneName, b.zoneName) || a.run[0] - b.run[0]);
  const years = new Map<string, Set<number>>();
  const firstNeeded = new Map<string, number>();
  let left = budget;
  for (const { zoneName, run } of ordered) {
    const zoneYears = years.get(zoneName) ?? new Set<number>();
    years.set(zoneName, zoneYears);
    firstNeeded.set(zoneName, Math.min(firstNeeded.get(zoneName) ?? run[0], run[0]));
    for (let year = run[0]; year <= run[1] && left > 0; year++) {
      if (zoneYears.has(year)) continue;
      zoneYears.add(year);
      left--;
    }
  }
  const covered = new Map<string, YearRun[]>();
  for (const [zoneName, zoneYears] of [...years].sort(([a], [b]) => byName(a, b))) {
    const sorted = [...zoneYears].sort((a, b) => a - b);
    const runs: YearRun[] = [];
    for (const year of sorted) {
      const last = runs[runs.length - 1];
      if (last && last[1] === year - 1) last[1] = year;
      else runs.push([year, year]);
    }
    const first = firstNeeded.get(zoneName)!;
    covered.set(zoneName, runs.length ? runs : [[first, first - 1]]);
  }
  return covered;
}

function timeProperty(name: 'DTSTART' | 'DTEND' | 'RECURRENCE-ID', time: CalendarTime): Property {
  return time.kind === 'date'
    ? { name, params: [['VALUE', 'DATE']], value: time.date.replace(/-/g, '') }
    : { name, params: [['TZID', paramValue(time.zoneName)]], value: basicDateTime(time.local) };
}

function eventProperties(event: CalendarEvent): Property[] {
  const props: Property[] = [
    { name: 'UID', value: escapeText(event.uid) },
    { name: 'DTSTAMP', value: `${basicDateTime(event.stamp)}Z` },
    timeProperty('DTSTART', event.start),
    timeProperty('DTEND', event.end),
  ];
  if (event.recurrenceId) props.push(timeProperty('RECURRENCE-ID', event.recurrenceId));
  for (const line of event.recurrence ?? []) {
    // `NAME;PARAMS:VALUE`, as dates/recurrence-rewrites.ts calendarLines writes them (no `:` before the value).
    const colon = line.indexOf(':');
    const [name, ...params] = line.slice(0, colon).split(';');
    props.push({ name, params: params.map((param) => param.split('=') as [string, string]), value: line.slice(colon + 1) });
  }
  props.push({ name: 'SUMMARY', value: escapeText(event.summary) });
  if (event.description) props.push({ name: 'DESCRIPTION', value: escapeText(event.description) });
  if (event.location) props.push({ name: 'LOCATION', value: escapeText(event.location) });
  if (event.geo) props.push({ name: 'GEO', value: `${event.geo.lat};${event.geo.lng}` });
  if (event.url) props.push({ name: 'URL', params: [['VALUE', 'URI']], value: event.url });
  if (event.categories?.length) props.push({ name: 'CATEGORIES', value: event.categories.map(escapeText).join(',') });
  if (event.organizer) {
    const email = event.organizer.email;
    props.push({ name: 'ORGANIZER', params: [['CN', paramValue(event.organizer.name)]], value: email ? `mailto:${email}` : 'invalid:nomail' });
  }
  props.push(
    { name: 'LAST-MODIFIED', value: `${basicDateTime(event.lastModified)}Z` },
    { name: 'SEQUENCE', value: String(event.sequence) },
    { name: 'STATUS', value: event.status },
  );
  if (event.attach) props.push({ name: 'ATTACH', value: event.attach });
  return props;
}

/**
 * The events of a long calendar a chunk at a time, each chunk made when the writer asks for it (so
 * only one chunk's events live at a time), and the zones they need, known beforehand: the VTIMEZONEs
 * come before the events.
 */
interface EventChunks {
  needs: ZoneNeed[];
  chunks: AsyncIterable<CalendarEvent[]>;
}

/**
 * A whole calendar as UTF-8 bytes: header, one VTIMEZONE per zone used, the events; CRLF line ends,
 * folded lines. Each line is written as bytes as soon as it is made (core/byte-builder.ts), so a feed
 * of many events keeps no strings across the turns it takes (docs/performance.md "Memory").
 */
export async function calendar(header: CalendarHeader, events: CalendarEvent[] | EventChunks, zoneOf: (name: string) => Zone | undefined): Promise<Buffer> {
  const source = Array.isArray(events) ? { needs: events.flatMap(zoneNeeds), chunks: [events] } : events;
  const out = new ByteBuilder();
  const line = (name: string, value: string, params?: Array<[string, string]>) => out.write(contentLine({ name, value, params }));
  out.write('BEGIN:VCALENDAR\r\n');
  line('VERSION', '2.0');
  line('PRODID', escapeText(header.prodId));
  line('CALSCALE', 'GREGORIAN');
  line('METHOD', 'PUBLISH');
  line('X-WR-CALNAME', escapeText(header.name));
  line('NAME', escapeText(header.name));
  if (header.description) {
    line('X-WR-CALDESC', escapeText(header.description));
    line('DESCRIPTION', escapeText(header.description));
  }
  if (header.url) line('URL', header.url, [['VALUE', 'URI']]);
  line('REFRESH-INTERVAL', 'PT1H', [['VALUE', 'DURATION']]);
  line('X-PUBLISHED-TTL', 'PT1H');
  // One VTIMEZONE per zone, over the years its events need (within the calendar's budget of years).
  for (const [name, runs] of coveredYears(source.needs)) {
    const zone = zoneOf(name);
    if (!zone) continue;
    const described: Array<{ run: YearRun; changes: Transition[] }> = [];
    for (const run of runs) described.push({ run, changes: await transitionsOfYears(zone, run[0], run[1]) });
    for (const text of zoneBlock(name, zone, described)) out.write(foldLine(text));
  }
  for await (const chunk of source.chunks) {
    for (const event of chunk) {
      // Thousands of events take longer to write than one turn of the event loop may (docs/limits.md).
      await loopTurn();
      out.write('BEGIN:VEVENT\r\n');
      for (const prop of eventProperties(event)) out.write(contentLine(prop));
      out.write('END:VEVENT\r\n');
    }
  }
  out.write('END:VCALENDAR\r\n');
  return out.finish();
}
