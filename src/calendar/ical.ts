import { DateTime, type Zone } from 'luxon';

/**
 * A small iCalendar (RFC 5545) writer: content lines, their escaping and folding, and VTIMEZONE
 * components built from the tz database (through luxon). Pure: it knows nothing of events as the
 * service stores them (events/ical.ts maps records into `CalendarEvent`s). The rules it follows are
 * docs/contract.md §11.
 */

/** One property: its name, parameters (already valid parameter values) and value (already escaped where text). */
export interface Property {
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
  /** The UTC instants the event covers (`YYYY-MM-DD HH:MM:SS`), for the span of its zone's VTIMEZONE. */
  spanUtc: [string, string];
}

export interface CalendarHeader {
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
export function basicDateTime(storage: string): string {
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

interface Transition {
  /** Epoch milliseconds of the change. */
  at: number;
  from: number;
  to: number;
}

const DAY_MS = 86_400_000;

/** The offset changes of a zone between two instants (epoch ms), found day by day and narrowed to the second. */
export function transitions(zone: Zone, fromMs: number, toMs: number): Transition[] {
  const found: Transition[] = [];
  let previous = zone.offset(fromMs);
  for (let t = fromMs; t < toMs;) {
    const next = Math.min(t + DAY_MS, toMs);
    const offset = zone.offset(next);
    if (offset !== previous) {
      let low = t;
      let high = next;
      while (high - low > 1000) {
        const mid = low + Math.floor((high - low) / 2000) * 1000;
        if (zone.offset(mid) === previous) low = mid;
        else high = mid;
      }
      found.push({ at: high, from: previous, to: zone.offset(high) });
      previous = zone.offset(high);
    }
    t = next;
  }
  return found;
}

/** Whether an offset is the zone's summer time: above the year's smallest offset. */
function isDaylight(zone: Zone, at: number, offset: number): boolean {
  const year = new Date(at).getUTCFullYear();
  const january = zone.offset(Date.UTC(year, 0, 1));
  const july = zone.offset(Date.UTC(year, 6, 1));
  return offset > Math.min(january, july);
}

const vtimezoneCache = new Map<string, string[]>();

/**
 * The VTIMEZONE of a zone for the whole UTC years `fromYear`..`toYear`: an observance for the
 * offset at the start, then one observance per transition within those years (each with its own
 * DTSTART, the local time before the change, and TZOFFSETFROM/TZOFFSETTO), DAYLIGHT when the new
 * offset is the zone's summer time. Fixed offsets (`UTC+5.5`) are one STANDARD observance.
 * Remembered per zone and span (the tz database does not change while the process runs).
 */
export function vtimezone(zoneName: string, zone: Zone, fromYear: number, toYear: number): string[] {
  const key = `${zoneName}\n${fromYear}\n${toYear}`;
  const cached = vtimezoneCache.get(key);
  if (cached) return cached;
  const fromMs = Date.UTC(fromYear, 0, 1);
  const toMs = Date.UTC(toYear + 1, 0, 1);
  const lines: string[] = ['BEGIN:VTIMEZONE', `TZID:${escapeText(zoneName)}`];
  const observance = (at: number, from: number, to: number) => {
    const type = isDaylight(zone, at, to) ? 'DAYLIGHT' : 'STANDARD';
    const local = DateTime.fromMillis(at + Math.round(from * 60_000), { zone: 'utc' }).toFormat("yyyyMMdd'T'HHmmss");
    lines.push(`BEGIN:${type}`, `DTSTART:${local}`, `TZOFFSETFROM:${offsetText(from)}`, `TZOFFSETTO:${offsetText(to)}`, `END:${type}`);
  };
  const initial = zone.offset(fromMs);
  observance(fromMs, initial, initial);
  for (const change of zone.isUniversal ? [] : transitions(zone, fromMs, toMs)) observance(change.at, change.from, change.to);
  lines.push('END:VTIMEZONE');
  if (vtimezoneCache.size > 1000) vtimezoneCache.clear();
  vtimezoneCache.set(key, lines);
  return lines;
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
    // `NAME;PARAMS:VALUE`, as dates/recurrence.ts calendarLines writes them (no `:` before the value).
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

/** A whole calendar: header, one VTIMEZONE per zone used, the events; CRLF line ends, folded lines. */
export function calendar(header: CalendarHeader, events: CalendarEvent[], zoneOf: (name: string) => Zone | undefined): string {
  const parts: string[] = [];
  const line = (name: string, value: string, params?: Array<[string, string]>) => parts.push(contentLine({ name, value, params }));
  parts.push('BEGIN:VCALENDAR\r\n');
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
  // The span of each zone: the UTC years its events cover.
  const spans = new Map<string, [number, number]>();
  for (const event of events) {
    for (const time of [event.start, event.end]) {
      if (time.kind !== 'local') continue;
      const first = Number(event.spanUtc[0].slice(0, 4));
      const last = Number(event.spanUtc[1].slice(0, 4));
      const span = spans.get(time.zoneName);
      spans.set(time.zoneName, span ? [Math.min(span[0], first), Math.max(span[1], last)] : [first, last]);
    }
  }
  for (const [name, [fromYear, toYear]] of [...spans].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const zone = zoneOf(name);
    if (!zone) continue;
    for (const text of vtimezone(name, zone, fromYear, toYear)) parts.push(foldLine(text));
  }
  for (const event of events) {
    parts.push('BEGIN:VEVENT\r\n');
    for (const prop of eventProperties(event)) parts.push(contentLine(prop));
    parts.push('END:VEVENT\r\n');
  }
  parts.push('END:VCALENDAR\r\n');
  return parts.join('');
}
