import ICAL from 'ical.js';
import type { Test } from 'supertest';

/** iCalendar in tests: an answer's text, and the instances a calendar describes as ical.js (an independent consumer) expands them. */

/** A request whose answer body is read as UTF-8 text (a calendar). */
export function text(req: Test) {
  return req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
  });
}

export interface Instance {
  uid: string;
  local: string;
  utc: string;
  summary: string;
}

/** Every instance a calendar describes, as ical.js expands it: `{uid, start (local), utc, summary}`, sorted by UTC start. */
export function instancesOf(calendarText: string, until: string): Instance[] {
  const calendar = new ICAL.Component(ICAL.parse(calendarText) as unknown[]);
  ICAL.TimezoneService.reset();
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const vevents = calendar.getAllSubcomponents('vevent').map((vevent) => new ICAL.Event(vevent));
  const overrides = new Map<string, ICAL.Event>();
  for (const event of vevents) if (event.isRecurrenceException()) overrides.set(`${event.uid}|${event.recurrenceId.toUnixTime()}`, event);
  const out: Instance[] = [];
  const push = (event: ICAL.Event, start: ICAL.Time) =>
    out.push({ uid: event.uid, local: start.toString().replace('T', ' '), utc: start.convertToZone(ICAL.Timezone.utcTimezone).toString(), summary: event.summary });
  const end = ICAL.Time.fromDateTimeString(until);
  for (const event of vevents) {
    if (event.isRecurrenceException()) {
      // An instance whose master is not in this calendar stands alone.
      if (!vevents.some((e) => e.uid === event.uid && e.isRecurring())) push(event, event.startDate);
      continue;
    }
    if (!event.isRecurring()) {
      push(event, event.startDate);
      continue;
    }
    const iterator = event.iterator();
    for (let next = iterator.next(); next && next.compare(end) <= 0; next = iterator.next()) {
      const override = overrides.get(`${event.uid}|${next.toUnixTime()}`);
      if (override) push(override, override.startDate);
      else push(event, next);
    }
  }
  return out.sort((a, b) => a.utc.localeCompare(b.utc) || a.summary.localeCompare(b.summary));
}
