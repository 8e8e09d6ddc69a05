import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import { IANAZone } from 'luxon';
import { vtimezone } from '../../src/calendar/ical.js';
import { expandOccurrences } from '../../src/dates/recurrence.js';
import { RecurrenceError } from '../../src/dates/recurrence-lines.js';
import { endBefore, startFrom } from '../../src/dates/recurrence-rewrites.js';
import { inZone, shiftLocal } from '../../src/dates/wall-clock.js';
import { zoneOf } from '../../src/dates/parse.js';

/** Recurrence rules and their expansion (docs/contract.md §14), and the ical.js behaviour they rely on. */

/** ical.js's own expansion of a VEVENT in a real zone (its VTIMEZONE from our writer), as UTC instants and local wall times. */
function icalJsExpansion(zoneName: string, dtstart: string, rule: string, max = 60): Array<{ local: string; utc: string }> {
  const lines = [
    'BEGIN:VCALENDAR',
    ...vtimezone(zoneName, IANAZone.create(zoneName), 2026, 2028),
    'BEGIN:VEVENT',
    `DTSTART;TZID=${zoneName}:${dtstart}`,
    `RRULE:${rule}`,
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  const root = new ICAL.Component(ICAL.parse(lines.join('\r\n')));
  const zone = new ICAL.Timezone(root.getFirstSubcomponent('vtimezone')!);
  ICAL.TimezoneService.register(zone, zoneName);
  try {
    const event = root.getFirstSubcomponent('vevent')!;
    const expansion = new ICAL.RecurExpansion({ component: event, dtstart: event.getFirstPropertyValue('dtstart') as ICAL.Time });
    const out: Array<{ local: string; utc: string }> = [];
    for (let next = expansion.next(); next && out.length < max; next = expansion.next()) {
      out.push({ local: next.toString(), utc: next.convertToZone(ICAL.Timezone.utcTimezone).toString() });
    }
    return out;
  } finally {
    ICAL.TimezoneService.remove(zoneName);
  }
}

const expand = (lines: string[], startLocal: string, overrides: Partial<Parameters<typeof expandOccurrences>[0]> = {}) =>
  expandOccurrences({ lines, timezone: 'Europe/Paris', startLocal, horizonLocal: '2028-12-31 23:59:59', max: 1000, ...overrides });

const refused = (lines: string[], startLocal: string, index: number, reason: RegExp, overrides = {}) =>
  assert.rejects(
    expand(lines, startLocal, overrides),
    (err: unknown) => err instanceof RecurrenceError && err.index === index && reason.test(err.message) && err.message.includes(lines[index]?.slice(0, 20) ?? ''),
  );

describe('ical.js across DST changes (what the expansion relies on)', () => {
  it('keeps 10:00 Europe/Paris weekly at 10:00 local across the March and October changes; the UTC time moves', () => {
    const instances = icalJsExpansion('Europe/Paris', '20260301T100000', 'FREQ=WEEKLY;COUNT=40');
    assert.equal(instances.length, 40);
    for (const { local } of instances) assert.match(local, /T10:00:00$/);
    const byDay = new Map(instances.map(({ local, utc }) => [local.slice(0, 10), utc]));
    assert.equal(byDay.get('2026-03-22'), '2026-03-22T09:00:00Z', 'winter: UTC+1');
    assert.equal(byDay.get('2026-03-29'), '2026-03-29T08:00:00Z', 'the day summer time starts: UTC+2');
    assert.equal(byDay.get('2026-10-18'), '2026-10-18T08:00:00Z', 'summer: UTC+2');
    assert.equal(byDay.get('2026-10-25'), '2026-10-25T09:00:00Z', 'the day winter time starts: UTC+1');
  });

  it('keeps 10:00 Australia/Sydney weekly at 10:00 local across the April and October changes (the other hemisphere)', () => {
    const instances = icalJsExpansion('Australia/Sydney', '20260301T100000', 'FREQ=WEEKLY;COUNT=40');
    for (const { local } of instances) assert.match(local, /T10:00:00$/);
    const byDay = new Map(instances.map(({ local, utc }) => [local.slice(0, 10), utc]));
    assert.equal(byDay.get('2026-03-29'), '2026-03-28T23:00:00Z', 'summer: UTC+11');
    assert.equal(byDay.get('2026-04-05'), '2026-04-05T00:00:00Z', 'the day summer time ends: UTC+10');
    assert.equal(byDay.get('2026-09-27'), '2026-09-27T00:00:00Z', 'winter: UTC+10');
    assert.equal(byDay.get('2026-10-04'), '2026-10-03T23:00:00Z', 'the day summer time starts: UTC+11');
  });

  it('gives the same local starts as our floating expansion', async () => {
    for (const zone of ['Europe/Paris', 'Australia/Sydney', 'America/New_York']) {
      const theirs = icalJsExpansion(zone, '20260301T100000', 'FREQ=WEEKLY;BYDAY=SU,WE;COUNT=50', 100).map(({ local }) => local.replace('T', ' '));
      const ours = await expand(['RRULE:FREQ=WEEKLY;BYDAY=SU,WE;COUNT=50'], '2026-03-01 10:00:00', { timezone: zone });
      assert.deepEqual(ours, theirs);
    }
  });
});

describe('expanding recurrence lines', () => {
  it('counts the start as the first occurrence (COUNT) and stops at UNTIL, inclusive', async () => {
    assert.deepEqual(await expand(['RRULE:FREQ=DAILY;COUNT=3'], '2026-03-01 10:00:00'), ['2026-03-01 10:00:00', '2026-03-02 10:00:00', '2026-03-03 10:00:00']);
    assert.deepEqual(await expand(['RRULE:FREQ=DAILY;UNTIL=20260303T100000'], '2026-03-01 10:00:00'), ['2026-03-01 10:00:00', '2026-03-02 10:00:00', '2026-03-03 10:00:00']);
  });

  it('reads a UTC UNTIL in the event zone (09:00Z is 10:00 in Paris in winter) and a date UNTIL as its whole day', async () => {
    assert.deepEqual(await expand(['RRULE:FREQ=DAILY;UNTIL=20260302T090000Z'], '2026-03-01 10:00:00'), ['2026-03-01 10:00:00', '2026-03-02 10:00:00']);
    assert.deepEqual(await expand(['RRULE:FREQ=DAILY;UNTIL=20260302T085959Z'], '2026-03-01 10:00:00'), ['2026-03-01 10:00:00']);
    assert.deepEqual(await expand(['RRULE:FREQ=DAILY;UNTIL=20260302'], '2026-03-01 10:00:00'), ['2026-03-01 10:00:00', '2026-03-02 10:00:00']);
  });

  it('skips months without a 31st on a monthly rule on the 31st', async () => {
    assert.deepEqual(await expand(['RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4'], '2026-01-31 19:00:00'), [
      '2026-01-31 19:00:00',
      '2026-03-31 19:00:00',
      '2026-05-31 19:00:00',
      '2026-07-31 19:00:00',
    ]);
  });

  it('picks the last weekday of each month with BYDAY and BYSETPOS', async () => {
    assert.deepEqual(await expand(['RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=4'], '2026-03-31 17:00:00'), [
      '2026-03-31 17:00:00',
      '2026-04-30 17:00:00',
      '2026-05-29 17:00:00',
      '2026-06-30 17:00:00',
    ]);
  });

  it('leaves out impossible days that ical.js rolls over into the next month (30 February)', async () => {
    // (ical.js still counts such days towards a COUNT, so this rule has none; the horizon ends 2028.)
    assert.deepEqual(await expand(['RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29,30'], '2027-02-28 10:00:00'), [
      '2027-02-28 10:00:00',
      '2028-02-28 10:00:00',
      '2028-02-29 10:00:00',
    ]);
  });

  it('adds RDATEs and removes EXDATEs, converting UTC and other zones into the event zone', async () => {
    const lines = [
      'RRULE:FREQ=WEEKLY;COUNT=4',
      'EXDATE;TZID=Europe/Paris:20260308T100000',
      'EXDATE:20260315T090000Z',
      'RDATE;TZID=America/New_York:20260310T120000',
      'RDATE;VALUE=DATE:20260311',
    ];
    assert.deepEqual(await expand(lines, '2026-03-01 10:00:00'), ['2026-03-01 10:00:00', '2026-03-10 17:00:00', '2026-03-11 10:00:00', '2026-03-22 10:00:00']);
    assert.deepEqual(await expand(['RDATE:20260305T100000,20260306T100000'], '2026-03-01 10:00:00'), ['2026-03-01 10:00:00', '2026-03-05 10:00:00', '2026-03-06 10:00:00']);
    assert.deepEqual(await expand(['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE;VALUE=DATE:20260302'], '2026-03-01 10:00:00'), ['2026-03-01 10:00:00', '2026-03-03 10:00:00']);
  });

  it('materialises up to the horizon only', async () => {
    assert.equal((await expand(['RRULE:FREQ=WEEKLY'], '2026-03-01 10:00:00', { horizonLocal: '2026-03-31 23:59:59' })).length, 5);
  });

  it('refuses, naming the line: a malformed line, an unknown property or part, a bad value', async () => {
    await refused(['RRULE:FREQ=WEEKLY', 'garbage'], '2026-03-01 10:00:00', 1, /not an iCalendar content line/);
    await refused(['DTSTART:20260301T100000'], '2026-03-01 10:00:00', 0, /unknown property DTSTART/);
    await refused(['RRULE:FREQ=FOO'], '2026-03-01 10:00:00', 0, /FREQ must be one of/);
    await refused(['RRULE:FREQ=DAILY;FOO=BAR'], '2026-03-01 10:00:00', 0, /not an RRULE part/);
    await refused(['RRULE:COUNT=3'], '2026-03-01 10:00:00', 0, /needs FREQ/);
    await refused(['RRULE:FREQ=DAILY;COUNT=3;UNTIL=20260310T000000Z'], '2026-03-01 10:00:00', 0, /COUNT or UNTIL/);
    await refused(['RRULE:FREQ=DAILY;COUNT=0'], '2026-03-01 10:00:00', 0, /COUNT must be a positive/);
    await refused(['EXDATE:notadate'], '2026-03-01 10:00:00', 0, /date/);
    await refused(['RDATE;TZID=Mars/Olympus:20260305T100000'], '2026-03-01 10:00:00', 0, /not a known time zone/);
    await refused(['RDATE;VALUE=PERIOD:20260305T100000Z/PT1H'], '2026-03-01 10:00:00', 0, /PERIOD is not supported/);
  });

  it('refuses a rule that yields no occurrence, one that does not start on the start, and one past the limit', async () => {
    await refused(['RRULE:FREQ=WEEKLY;UNTIL=20200101T000000Z'], '2026-03-01 10:00:00', 0, /yields no occurrence/);
    await refused(['RRULE:FREQ=WEEKLY;BYDAY=MO'], '2026-03-01 10:00:00', 0, /first occurrence is 2026-03-02 10:00:00/);
    await refused(['RRULE:FREQ=DAILY'], '2026-03-01 10:00:00', 0, /more than 1000 occurrences/);
    await refused(['RRULE:FREQ=DAILY;COUNT=5'], '2026-03-01 10:00:00', 0, /more than 3 occurrences/, { max: 3 });
    await refused(['RDATE:20260201T100000'], '2026-03-01 10:00:00', 0, /before the event's start/);
    await refused(['RRULE:FREQ=DAILY;COUNT=5', 'EXDATE:20260301T090000Z'], '2026-03-01 10:00:00', 1, /removes the first occurrence/);
  });
});

describe('splitting recurrence lines', () => {
  it('ends a series one second before a local start (UNTIL in UTC) and starts the rest with what is left of a COUNT', async () => {
    const lines = ['RRULE:FREQ=WEEKLY;COUNT=10', 'EXDATE;TZID=Europe/Paris:20260308T100000,20260405T100000'];
    const before = endBefore(lines, 'Europe/Paris', '2026-03-29 10:00:00');
    assert.deepEqual(before, ['RRULE:FREQ=WEEKLY;UNTIL=20260329T075959Z', 'EXDATE:20260308T100000']);
    assert.deepEqual(await expand(before, '2026-03-01 10:00:00'), ['2026-03-01 10:00:00', '2026-03-15 10:00:00', '2026-03-22 10:00:00']);
    const after = await startFrom(lines, 'Europe/Paris', '2026-03-01 10:00:00', '2026-03-29 10:00:00');
    assert.deepEqual(after, ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE:20260405T100000']);
    assert.equal((await expand(after, '2026-03-29 10:00:00')).length, 5);
  });

  it('moves a local time by the difference of two others, as wall-clock time', () => {
    assert.equal(shiftLocal('2026-03-29 10:00:00', '2026-03-01 10:00:00', '2026-03-02 11:30:00'), '2026-03-30 11:30:00');
  });
});

describe('occurrence instants (RFC 5545 §3.3.5)', () => {
  const newYork = zoneOf('America/New_York')!;
  it('reads a time in a spring-forward gap with the offset before the gap: it moves forward by the gap', () => {
    assert.deepEqual(inZone('2007-03-11 02:30:00', newYork), { local: '2007-03-11 03:30:00', utc: '2007-03-11 07:30:00' });
    assert.deepEqual(inZone('2027-10-03 02:30:00', zoneOf('Australia/Sydney')!), { local: '2027-10-03 03:30:00', utc: '2027-10-02 16:30:00' });
  });

  it('reads a time that occurs twice as the first of the two, in both hemispheres', () => {
    assert.deepEqual(inZone('2007-11-04 01:30:00', newYork), { local: '2007-11-04 01:30:00', utc: '2007-11-04 05:30:00' });
    assert.deepEqual(inZone('2027-04-04 02:30:00', zoneOf('Australia/Sydney')!), { local: '2027-04-04 02:30:00', utc: '2027-04-03 15:30:00' });
  });

  it('reads other times with the zone’s offset, fixed offsets included', () => {
    assert.deepEqual(inZone('2027-06-01 12:00:00', zoneOf('Europe/Paris')!), { local: '2027-06-01 12:00:00', utc: '2027-06-01 10:00:00' });
    assert.deepEqual(inZone('2027-06-01 12:00:00', zoneOf('UTC+5.5')!), { local: '2027-06-01 12:00:00', utc: '2027-06-01 06:30:00' });
  });
});
