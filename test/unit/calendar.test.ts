import assert from 'node:assert/strict';
import { namesImpossibleDate } from '../../src/dates/calendar.js';
import { parseDateInput, zoneOf } from '../../src/dates/parse.js';

describe('impossible calendar dates', () => {
  const impossible = [
    '2027-02-30',
    '2027-02-29',
    '2027-02-29 10:00:00',
    '2027-13-01',
    '2027-00-10',
    '2027-04-31',
    '2027-01-32',
    '2027-01-00',
    '2027/02/30',
    '02/30/2027',
    '13/01/2027',
    '30-02-2027',
    '31.04.2027',
    '2027-03-01 24:30',
    '2027-03-01 24:00:00',
    '2027-03-01 23:60',
    '2027-03-01 23:59:60',
    '2027-03-01T25:00:00Z',
    '2027-02-30T10:00:00+02:00',
    'tomorrow 24:30',
    'tomorrow 13pm',
    'tomorrow 0am',
    'tomorrow 13:00pm',
    'February 30 2027',
    'feb 30',
    '31 April 2027',
    '30-Feb-2027',
  ];
  /** Impossible only in the current year, 2026 at the test's clock (strtotime reads a day without a year in it). */
  const impossibleThisYear = ['Feb 29', 'February 29 10am'];
  const possible = [
    '2028-02-29',
    '2000-02-29 12:00:00',
    '2027-12-31 23:59:59',
    '2027-03-01 00:00',
    '2027-03-01T10:00:00-05:00',
    '2027-03-01T10:00:00.123Z',
    '2027-03-01 10:00:00 +14:00',
    '12/31/2027',
    '31-12-2027',
    '29 February 2028',
    'March 5, 2027 4pm',
    'tomorrow 9am',
    'tomorrow 12:30am',
    '+5 days 11am',
    'next wednesday 4pm',
    '2018-01-01 4pm',
    'now',
    '1903860000',
    '@1700000000',
  ];

  it('recognises days and times that do not exist', () => {
    for (const text of impossible) assert.equal(namesImpossibleDate(text), true, text);
  });

  it('leaves real days, times, offsets and relative phrases alone', () => {
    for (const text of possible) assert.equal(namesImpossibleDate(text), false, text);
  });

  it('reads a day without a year in the current year', () => {
    for (const text of impossibleThisYear) {
      assert.equal(namesImpossibleDate(text, 2026), true, text);
      assert.equal(namesImpossibleDate(text, 2028), false, text);
    }
  });

  it('makes the parser refuse what PHP would roll over, and still parse the rest', () => {
    const utc = zoneOf('UTC')!;
    const now = new Date('2026-11-21T21:18:07Z');
    for (const text of [...impossible, ...impossibleThisYear]) assert.equal(parseDateInput(text, utc, now), undefined, text);
    assert.ok(parseDateInput('Feb 29', utc, new Date('2028-01-10T00:00:00Z')), 'Feb 29 in a leap year');
    for (const text of possible) assert.ok(parseDateInput(text, utc, now), text);
    assert.equal(parseDateInput('2028-02-29 10:00:00', utc, now)?.toFormat('yyyy-MM-dd HH:mm:ss'), '2028-02-29 10:00:00');
  });
});
