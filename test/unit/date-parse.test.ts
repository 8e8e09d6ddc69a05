import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { applyAllDay, isoWithOffset, timesOf, timezoneAbbreviation } from '../../src/dates/event-times.js';
import { parseDateInput, zoneOf } from '../../src/dates/parse.js';
import { dateDetails, fromStorage, toStorage, toStorageUtc } from '../../src/dates/storage.js';

/** A fixed clock: Wednesday 2030-05-01 12:34:56 UTC (08:34:56 in New York, 21:34:56 in Tokyo, 02:34:56 in Honolulu). */
const NOW = new Date('2030-05-01T12:34:56Z');

/** `local | utc` of an input parsed in a zone, or undefined when it is refused. */
function parsed(input: unknown, zoneName: string, now: Date = NOW): string | undefined {
  const moment = parseDateInput(input, zoneOf(zoneName)!, now);
  return moment && `${toStorage(moment)} | ${toStorageUtc(moment)}`;
}

describe('date parsing (docs/contract.md §2, docs/plugin-behaviour.md §5.2)', () => {
  describe('zoneOf', () => {
    it('reads UTC and WordPress UTC±N offsets, fractions included', () => {
      const offsetOf = (name: string) => zoneOf(name)?.offset(NOW.getTime());
      assert.equal(offsetOf('UTC'), 0);
      assert.equal(offsetOf('UTC+5'), 300);
      assert.equal(offsetOf('UTC+05'), 300);
      assert.equal(offsetOf('UTC-3.5'), -210);
      assert.equal(offsetOf('UTC+5.75'), 345);
      assert.equal(offsetOf('UTC+14'), 840);
      assert.equal(offsetOf('UTC-0'), 0);
    });

    it('reads IANA names with their DST rules', () => {
      assert.equal(zoneOf('Europe/Paris')?.offset(NOW.getTime()), 120);
      assert.equal(zoneOf('Europe/Paris')?.offset(Date.UTC(2030, 0, 15)), 60);
      assert.equal(zoneOf('America/New_York')?.name, 'America/New_York');
    });

    it('refuses unknown names and offsets beyond 14 hours', () => {
      for (const name of ['UTC+15', 'UTC+', 'Mars/Phobos', '+05:00', '', 'Europe/']) assert.equal(zoneOf(name), undefined, name);
    });
  });

  describe('parseDateInput', () => {
    it('reads wall-clock forms in the zone given', () => {
      assert.equal(parsed('2030-05-01 10:00:00', 'America/New_York'), '2030-05-01 10:00:00 | 2030-05-01 14:00:00');
      assert.equal(parsed('2030-05-01', 'America/New_York'), '2030-05-01 00:00:00 | 2030-05-01 04:00:00');
      assert.equal(parsed('2030-05-01T10:00:00', 'America/New_York'), '2030-05-01 10:00:00 | 2030-05-01 14:00:00');
      assert.equal(parsed('  2030-05-01  ', 'America/New_York'), '2030-05-01 00:00:00 | 2030-05-01 04:00:00');
      assert.equal(parsed('2018-01-01 4pm', 'Asia/Hong_Kong'), '2018-01-01 16:00:00 | 2018-01-01 08:00:00');
      assert.equal(parsed('10 September 2030', 'UTC'), '2030-09-10 00:00:00 | 2030-09-10 00:00:00');
      assert.equal(parsed('Sep 10 2030 5pm', 'UTC'), '2030-09-10 17:00:00 | 2030-09-10 17:00:00');
      assert.equal(parsed('5/4/2030', 'UTC'), '2030-05-04 00:00:00 | 2030-05-04 00:00:00', 'US month/day/year');
      assert.equal(parsed('04.05.2030', 'UTC'), '2030-05-04 00:00:00 | 2030-05-04 00:00:00', 'day.month.year');
      assert.equal(parsed('2030-05-01 10:00:00', 'UTC-3.5'), '2030-05-01 10:00:00 | 2030-05-01 13:30:00');
    });

    it('refuses a day or time that does not exist instead of rolling it over as strtotime does', () => {
      for (const input of ['2030-02-30', '2030-13-01', '2030-04-31 10:00:00', '2030-05-01 24:30']) assert.equal(parsed(input, 'UTC'), undefined, input);
      assert.equal(parsed('2028-02-29', 'UTC'), '2028-02-29 00:00:00 | 2028-02-29 00:00:00');
    });

    it('converts text with an offset, Z, UTC or GMT into the zone (the instant is kept)', () => {
      assert.equal(parsed('2030-05-01T10:00:00Z', 'America/New_York'), '2030-05-01 06:00:00 | 2030-05-01 10:00:00');
      assert.equal(parsed('2030-05-01T10:00:00.123Z', 'America/New_York'), '2030-05-01 06:00:00 | 2030-05-01 10:00:00');
      assert.equal(parsed('2030-05-01T10:00:00+02:00', 'America/New_York'), '2030-05-01 04:00:00 | 2030-05-01 08:00:00');
      assert.equal(parsed('2030-05-01 10:00:00 +0200', 'America/New_York'), '2030-05-01 04:00:00 | 2030-05-01 08:00:00');
      assert.equal(parsed('2030-05-01 10:00 GMT', 'America/New_York'), '2030-05-01 06:00:00 | 2030-05-01 10:00:00');
      assert.equal(parsed('2030-05-01 10:00 UTC', 'America/New_York'), '2030-05-01 06:00:00 | 2030-05-01 10:00:00');
      assert.equal(parsed('Thu, 02 May 2030 10:00:00 +0000', 'America/New_York'), '2030-05-02 06:00:00 | 2030-05-02 10:00:00');
      assert.equal(parsed('2030-05-01T10:00:00Z', 'UTC+5'), '2030-05-01 15:00:00 | 2030-05-01 10:00:00');
    });

    it('reads UNIX timestamps (number, numeric string, @N) as instants', () => {
      const expected = '2030-03-17 13:46:40 | 2030-03-17 17:46:40';
      for (const input of [1900000000, '1900000000', '@1900000000', ' 1900000000 ', '1900000000.4']) {
        assert.equal(parsed(input, 'America/New_York'), expected, JSON.stringify(input));
      }
      assert.equal(parsed(0, 'UTC'), '1970-01-01 00:00:00 | 1970-01-01 00:00:00');
      assert.equal(parsed('-1', 'UTC'), '1969-12-31 23:59:59 | 1969-12-31 23:59:59');
      assert.equal(parsed('20300504', 'UTC'), '1970-08-23 23:01:44 | 1970-08-23 23:01:44', 'all digits is a timestamp, as in the plugin');
    });

    it('reads relative phrases relative to now in the zone', () => {
      assert.equal(parsed('now', 'America/New_York'), '2030-05-01 08:34:56 | 2030-05-01 12:34:56');
      assert.equal(parsed('today', 'America/New_York'), '2030-05-01 00:00:00 | 2030-05-01 04:00:00');
      assert.equal(parsed('tomorrow', 'America/New_York'), '2030-05-02 00:00:00 | 2030-05-02 04:00:00');
      assert.equal(parsed('tomorrow 9am', 'America/New_York'), '2030-05-02 09:00:00 | 2030-05-02 13:00:00');
      assert.equal(parsed('+5 days 11am', 'America/New_York'), '2030-05-06 11:00:00 | 2030-05-06 15:00:00');
      assert.equal(parsed('yesterday 23:59', 'America/New_York'), '2030-04-30 23:59:00 | 2030-05-01 03:59:00');
      assert.equal(parsed('-2 days', 'UTC'), '2030-04-29 12:34:56 | 2030-04-29 12:34:56');
      assert.equal(parsed('+1 week', 'UTC'), '2030-05-08 12:34:56 | 2030-05-08 12:34:56');
      assert.equal(parsed('tomorrow noon', 'UTC'), '2030-05-02 12:00:00 | 2030-05-02 12:00:00');
      assert.equal(parsed('midnight', 'UTC'), '2030-05-01 00:00:00 | 2030-05-01 00:00:00');
    });

    it('takes "today" from the zone\'s own date, not UTC\'s', () => {
      // 20:00 UTC on 1 May is 05:00 on 2 May in Tokyo.
      const evening = new Date('2030-05-01T20:00:00Z');
      assert.equal(parsed('today', 'Asia/Tokyo', evening), '2030-05-02 00:00:00 | 2030-05-01 15:00:00');
      assert.equal(parsed('tomorrow 9am', 'Asia/Tokyo', evening), '2030-05-03 09:00:00 | 2030-05-03 00:00:00');
      assert.equal(parsed('today', 'Asia/Tokyo'), '2030-05-01 00:00:00 | 2030-04-30 15:00:00');
      // 02:34 in Honolulu is still 1 May.
      assert.equal(parsed('today', 'Pacific/Honolulu'), '2030-05-01 00:00:00 | 2030-05-01 10:00:00');
      assert.equal(parsed('today', 'Pacific/Honolulu', new Date('2030-05-02T05:00:00Z')), '2030-05-01 00:00:00 | 2030-05-01 10:00:00');
    });

    it('reads weekday phrases', () => {
      const tuesday = new Date('2030-04-30T12:00:00Z');
      const thursday = new Date('2030-05-02T12:00:00Z');
      assert.equal(parsed('next wednesday 4pm', 'UTC', tuesday), '2030-05-01 16:00:00 | 2030-05-01 16:00:00');
      assert.equal(parsed('next wednesday 4pm', 'UTC', thursday), '2030-05-08 16:00:00 | 2030-05-08 16:00:00');
      assert.equal(parsed('wednesday', 'UTC', NOW), '2030-05-01 00:00:00 | 2030-05-01 00:00:00', 'a bare weekday includes today');
      assert.equal(parsed('last wednesday', 'UTC', NOW), '2030-04-24 00:00:00 | 2030-04-24 00:00:00');
    });

    it('reads "next <weekday>" on that weekday as a week later, as PHP does', () => {
      // NOW is a Wednesday.
      assert.equal(parsed('next wednesday 4pm', 'UTC'), '2030-05-08 16:00:00 | 2030-05-08 16:00:00');
      assert.equal(parsed('next wednesday', 'UTC'), '2030-05-08 00:00:00 | 2030-05-08 00:00:00');
      assert.equal(parsed('Next Wed 9am', 'America/New_York'), '2030-05-08 09:00:00 | 2030-05-08 13:00:00');
      assert.equal(parsed('next thursday', 'UTC'), '2030-05-02 00:00:00 | 2030-05-02 00:00:00', 'another weekday: the coming one');
      assert.equal(parsed('next tuesday', 'UTC'), '2030-05-07 00:00:00 | 2030-05-07 00:00:00');
      assert.equal(parsed('+1 week next wednesday', 'UTC'), '2030-05-15 00:00:00 | 2030-05-15 00:00:00');
      // It is Thursday 2 May in Tokyo at 20:00 UTC on 1 May.
      assert.equal(parsed('next thursday', 'Asia/Tokyo', new Date('2030-05-01T20:00:00Z')), '2030-05-09 00:00:00 | 2030-05-08 15:00:00');
    });

    it('moves a wall time inside a DST gap forward by the gap', () => {
      // New York springs forward on 2030-03-10 at 02:00; Paris on 2030-03-31 at 02:00.
      assert.equal(parsed('2030-03-10 02:30:00', 'America/New_York'), '2030-03-10 03:30:00 | 2030-03-10 07:30:00');
      assert.equal(parsed('2030-03-10 03:30:00', 'America/New_York'), '2030-03-10 03:30:00 | 2030-03-10 07:30:00');
      assert.equal(parsed('2030-03-31 02:30:00', 'Europe/Paris'), '2030-03-31 03:30:00 | 2030-03-31 01:30:00');
    });

    it('reads a wall time that occurs twice (DST overlap) as its standard-time occurrence', () => {
      // New York falls back on 2030-11-03 at 02:00 (01:00-01:59 happens twice); Paris on 2030-10-27 at 03:00.
      assert.equal(parsed('2030-11-03 00:30:00', 'America/New_York'), '2030-11-03 00:30:00 | 2030-11-03 04:30:00');
      assert.equal(parsed('2030-11-03 01:30:00', 'America/New_York'), '2030-11-03 01:30:00 | 2030-11-03 06:30:00');
      assert.equal(parsed('2030-11-03 02:30:00', 'America/New_York'), '2030-11-03 02:30:00 | 2030-11-03 07:30:00');
      assert.equal(parsed('2030-10-27 02:30:00', 'Europe/Paris'), '2030-10-27 02:30:00 | 2030-10-27 01:30:00');
    });

    it('returns the moment in the zone it was given, to the second', () => {
      const moment = parseDateInput('2030-05-01T10:00:00.999Z', zoneOf('Europe/Paris')!, NOW)!;
      assert.equal(moment.zoneName, 'Europe/Paris');
      assert.equal(moment.millisecond, 0);
    });

    it('refuses what is not a date', () => {
      for (const input of ['', '   ', 'foo', 'not a date', '2030-13-01', '2030-05-01 25:00:00', 'x'.repeat(101), null, undefined, true, {}, []]) {
        assert.equal(parsed(input, 'UTC'), undefined, JSON.stringify(input));
      }
    });

    it('refuses dates outside the years 1000-9999', () => {
      assert.equal(parsed('0999-12-31', 'UTC'), undefined);
      assert.equal(parsed('now + 10000000 years', 'UTC'), undefined, 'past the range of JavaScript dates');
      assert.equal(parsed('@99999999999999', 'UTC'), undefined);
      assert.equal(parsed('1000-01-01 00:00:00', 'UTC'), '1000-01-01 00:00:00 | 1000-01-01 00:00:00');
      assert.equal(parsed('9999-12-31 23:59:59', 'UTC'), '9999-12-31 23:59:59 | 9999-12-31 23:59:59');
    });

    it('refuses a wall time whose UTC time falls outside the years 1000-9999', () => {
      // Stored as a five-digit year it broke the UTC columns (MySQL refused it naming the column).
      assert.equal(parsed('9999-12-31 23:00:00', 'America/New_York'), undefined);
      assert.equal(parsed('1000-01-01 05:00:00', 'Asia/Tokyo'), undefined);
      assert.equal(parsed('9999-12-31 18:00:00', 'America/New_York'), '9999-12-31 18:00:00 | 9999-12-31 23:00:00');
    });
  });

  describe('storage helpers', () => {
    it('formats a moment as local and UTC storage strings and reads them back', () => {
      const moment = fromStorage('2030-05-01 10:00:00', zoneOf('America/Chicago')!);
      assert.equal(moment.toISO(), '2030-05-01T10:00:00.000-05:00');
      assert.equal(toStorage(moment), '2030-05-01 10:00:00');
      assert.equal(toStorageUtc(moment), '2030-05-01 15:00:00');
    });

    it('reads a stored wall time in a DST overlap as standard time, and in a gap as the shifted time', () => {
      assert.equal(fromStorage('2030-11-03 01:30:00', zoneOf('America/New_York')!).toISO(), '2030-11-03T01:30:00.000-05:00');
      assert.equal(fromStorage('2030-03-10 02:30:00', zoneOf('America/New_York')!).toISO(), '2030-03-10T03:30:00.000-04:00');
    });
  });
});

describe('event times and stored dates (src/dates/event-times.ts, src/dates/storage.ts)', () => {
  const newYork = zoneOf('America/New_York')!;

  it('stretches all-day events from 00:00:00 of the first day to 23:59:59 of the last (docs/plugin-behaviour.md §5.3)', () => {
    const start = DateTime.fromISO('2030-05-01T10:30:00', { zone: newYork });
    const end = DateTime.fromISO('2030-05-03T08:15:45.500', { zone: newYork });
    const [allDayStart, allDayEnd] = applyAllDay(start, end);
    assert.deepEqual(timesOf(allDayStart, allDayEnd, 'America/New_York'), {
      startLocal: '2030-05-01 00:00:00',
      endLocal: '2030-05-03 23:59:59',
      startUtc: '2030-05-01 04:00:00',
      endUtc: '2030-05-04 03:59:59',
      zoneAbbr: 'EDT',
      startIso: '2030-05-01T00:00:00-04:00',
      endIso: '2030-05-03T23:59:59-04:00',
      startDay: 'Wednesday 1 May 2030',
      endDay: 'Friday 3 May 2030',
    });
    assert.equal(allDayEnd.millisecond, 0);
  });

  it('gives the UTC times of an all-day event on a DST change day from the real offsets', () => {
    const day = DateTime.fromISO('2030-03-10T12:00:00', { zone: newYork });
    assert.deepEqual(timesOf(...applyAllDay(day, day), 'America/New_York'), {
      startLocal: '2030-03-10 00:00:00',
      endLocal: '2030-03-10 23:59:59',
      startUtc: '2030-03-10 05:00:00',
      endUtc: '2030-03-11 03:59:59',
      // The abbreviation at the start; the end's offset is the day's later one.
      zoneAbbr: 'EST',
      startIso: '2030-03-10T00:00:00-05:00',
      endIso: '2030-03-10T23:59:59-04:00',
      startDay: 'Sunday 10 March 2030',
      endDay: 'Sunday 10 March 2030',
    });
  });

  it('splits a stored date into zero-padded strings (docs/plugin-behaviour.md §1.6)', () => {
    assert.deepEqual(dateDetails('2030-05-01 09:05:07'), { year: '2030', month: '05', day: '01', hour: '09', minutes: '05', seconds: '07' });
    assert.deepEqual(dateDetails('2030-05-01'), { year: '2030', month: '05', day: '01', hour: '00', minutes: '00', seconds: '00' });
  });

  it('names the zone abbreviation valid at the start, DST-aware', () => {
    assert.equal(timezoneAbbreviation('America/Chicago', '2030-05-01 15:00:00'), 'CDT');
    assert.equal(timezoneAbbreviation('America/Chicago', '2030-01-15 16:00:00'), 'CST');
    assert.equal(timezoneAbbreviation('Europe/Paris', '2030-07-01 10:00:00'), 'CEST');
    assert.equal(timezoneAbbreviation('Asia/Tokyo', '2030-07-01 10:00:00'), 'JST');
    assert.equal(timezoneAbbreviation('Asia/Dubai', '2030-07-01 10:00:00'), '+04', 'the tz database has no letters for it');
    assert.equal(timezoneAbbreviation('UTC', '2030-07-01 10:00:00'), 'UTC');
    assert.equal(timezoneAbbreviation('UTC+5', '2030-07-01 10:00:00'), 'UTC+5', 'an offset zone is its own abbreviation');
    assert.equal(timezoneAbbreviation('UTC-3.5', '2030-07-01 10:00:00'), 'UTC-3.5');
    // New York leaves DST at 06:00 UTC on 2030-11-03.
    assert.equal(timezoneAbbreviation('America/New_York', '2030-11-03 05:59:59'), 'EDT');
    assert.equal(timezoneAbbreviation('America/New_York', '2030-11-03 06:00:00'), 'EST');
  });

  it("writes ISO 8601 with the event's offset for JSON-LD", () => {
    assert.equal(isoWithOffset('2030-05-01 10:00:00', '2030-05-01 15:00:00', 'America/Chicago'), '2030-05-01T10:00:00-05:00');
    assert.equal(isoWithOffset('2030-01-15 10:00:00', '2030-01-15 16:00:00', 'America/Chicago'), '2030-01-15T10:00:00-06:00');
    assert.equal(isoWithOffset('2030-05-01 10:00:00', '2030-05-01 13:30:00', 'UTC-3.5'), '2030-05-01T10:00:00-03:30');
    assert.equal(isoWithOffset('2030-05-01 10:00:00', '2030-05-01 10:00:00', 'UTC'), '2030-05-01T10:00:00Z');
    assert.equal(isoWithOffset('2030-05-01 10:00:00', '2030-05-01 10:00:00', 'Not/AZone'), '2030-05-01T10:00:00Z', 'an unknown zone reads as UTC');
    assert.equal(isoWithOffset('2030-01-05 10:00:00', '2030-01-05 10:00:00', 'Europe/London'), '2030-01-05T10:00:00+00:00', 'a zone at 0 only for now');
  });
});
