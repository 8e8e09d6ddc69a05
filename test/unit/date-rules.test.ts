import assert from 'node:assert/strict';
import { namesImpossibleDate } from '../../src/dates/calendar.js';
import { assertUtcProcess, parseDateInput, zoneOf } from '../../src/dates/parse.js';
import { formatUtc } from '../../src/dates/storage.js';

/** The date rules of src/dates/ one by one, at their edges (the wider cases are in date-parse.test.ts). */
describe('date rules at their edges', () => {
  const NOW = new Date('2026-11-21T21:18:07Z');
  const utc = zoneOf('UTC')!;
  const iso = (input: unknown, now = NOW, zone = utc) => parseDateInput(input, zone, now)?.toUTC().toISO({ suppressMilliseconds: true });

  it('knows the Gregorian leap years: every fourth, not centuries, but every fourth century', () => {
    assert.equal(namesImpossibleDate('1900-02-29'), true);
    assert.equal(namesImpossibleDate('2100-02-29'), true);
    assert.equal(namesImpossibleDate('2000-02-29'), false);
    assert.equal(namesImpossibleDate('2024-02-29'), false);
  });

  it('takes hours 1 to 12 before am/pm, with or without minutes', () => {
    for (const text of ['1:00 pm', '12:30 pm', '1pm', '12am', '11 am']) assert.equal(namesImpossibleDate(text), false, text);
    for (const text of ['0:30 pm', '13:00 pm', '0pm', '13pm']) assert.equal(namesImpossibleDate(text), true, text);
    assert.equal(namesImpossibleDate('10:59:59'), false);
    assert.equal(namesImpossibleDate('10:59:60'), true);
  });

  it('insists on a UTC process', () => {
    const zone = process.env.TZ;
    try {
      process.env.TZ = 'Europe/Paris';
      assert.throws(() => assertUtcProcess(), /TZ=UTC/);
    } finally {
      process.env.TZ = zone;
    }
    assert.doesNotThrow(() => assertUtcProcess());
  });

  it('reads WordPress offsets only when the whole name is one', () => {
    assert.equal(zoneOf('xUTC+5'), undefined);
    assert.equal(zoneOf('UTC+5')?.offset(NOW.getTime()), 300);
  });

  it('gives "next <weekday>" alone on that weekday the week after, as PHP does', () => {
    const wednesday = new Date('2026-11-25T10:00:00Z');
    assert.equal(iso('next wednesday', wednesday), '2026-12-02T00:00:00Z');
  });

  it('reads a day without a year in the current year of the zone, not of UTC', () => {
    // 23:30 UTC on 31 December 2027 is already 2028 (a leap year) five hours east.
    assert.equal(iso('Feb 29', new Date('2027-12-31T23:30:00Z'), zoneOf('UTC+5')!), '2028-02-28T19:00:00Z');
    assert.equal(iso('Feb 29', new Date('2027-12-31T23:30:00Z')), undefined);
  });

  it('reads relative phrases with an offset from now, and trims the text', () => {
    assert.equal(iso('tomorrow 10:00 +0500'), '2026-11-22T05:00:00Z');
    assert.equal(iso(' 2030-01-01T10:00:00+05:00 '), '2030-01-01T05:00:00Z');
  });

  it('refuses text longer than 100 characters', () => {
    assert.equal(iso(`2030-01-01${' '.repeat(90)}`), '2030-01-01T00:00:00Z');
    assert.equal(iso(`2030-01-01${' '.repeat(91)}`), undefined);
  });

  it('formats a date as UTC storage text, to the second', () => {
    assert.equal(formatUtc(new Date('2026-01-02T03:04:05.678Z')), '2026-01-02 03:04:05');
  });
});
