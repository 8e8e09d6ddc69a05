import assert from 'node:assert/strict';
import { describeRecurrence } from '../../src/dates/recurrence-text.js';

/** A series' rule in words for the public pages (src/dates/recurrence-text.ts, docs/contract.md §13). */
describe('recurrence rules in words', () => {
  const origin = { timezone: 'Europe/Berlin', startLocal: '2027-06-04 10:00:00' };
  const words = (lines: string[], startLocal = origin.startLocal) => describeRecurrence(lines, { ...origin, startLocal });

  it('frequencies, intervals, weekdays, ordinals, month days and months', async () => {
    const cases: Array<[string, string]> = [
      ['RRULE:FREQ=DAILY', 'Every day'],
      ['RRULE:FREQ=DAILY;INTERVAL=3', 'Every 3 days'],
      ['RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR', 'Every weekday'],
      ['RRULE:FREQ=DAILY;BYDAY=SU,SA', 'Every Saturday and Sunday'],
      ['RRULE:FREQ=WEEKLY', 'Every week'],
      ['RRULE:FREQ=WEEKLY;INTERVAL=2', 'Every 2 weeks'],
      ['RRULE:FREQ=WEEKLY;BYDAY=WE,MO', 'Every week on Monday and Wednesday'],
      ['RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;WKST=SU', 'Every week on Monday, Wednesday and Friday'],
      ['RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR', 'Every 2 weeks on weekdays'],
      ['RRULE:FREQ=MONTHLY', 'Every month'],
      ['RRULE:FREQ=MONTHLY;BYDAY=1FR', 'Every month on the first Friday'],
      ['RRULE:FREQ=MONTHLY;BYDAY=-1FR,-2MO', 'Every month on the last Friday and the second-last Monday'],
      ['RRULE:FREQ=MONTHLY;BYMONTHDAY=1,15', 'Every month on the 1st and 15th'],
      ['RRULE:FREQ=MONTHLY;BYMONTHDAY=4,-1', 'Every month on the 4th and the last day'],
      ['RRULE:FREQ=YEARLY', 'Every year'],
      ['RRULE:FREQ=YEARLY;BYMONTH=6;BYMONTHDAY=4', 'Every year on the 4th of June'],
      ['RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU', 'Every year on the last Sunday in October'],
      ['RRULE:FREQ=YEARLY;BYMONTH=6,12', 'Every year in June and December'],
      ['RRULE:FREQ=HOURLY;INTERVAL=6', 'Every 6 hours'],
    ];
    for (const [line, text] of cases) assert.equal(await words([line]), text, line);
  });

  it('the end: COUNT with the date of its last occurrence, UNTIL, none; RDATE adds "other dates", EXDATE changes nothing', async () => {
    assert.equal(await words(['RRULE:FREQ=WEEKLY;COUNT=6']), 'Every week, 6 times, until 9 July 2027');
    assert.equal(await words(['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE:20270618T100000']), 'Every week, 6 times, until 9 July 2027');
    assert.equal(await words(['RRULE:FREQ=DAILY;COUNT=2']), 'Every day, twice, until 5 June 2027');
    assert.equal(await words(['RRULE:FREQ=YEARLY;COUNT=1']), 'Every year, once');
    assert.equal(await words(['RRULE:FREQ=WEEKLY;UNTIL=20270709']), 'Every week, until 9 July 2027');
    // A UTC UNTIL is read in the series' zone: 23:30 UTC is the next day in Berlin.
    assert.equal(await words(['RRULE:FREQ=WEEKLY;UNTIL=20270709T233000Z']), 'Every week, until 10 July 2027');
    assert.equal(await words(['RRULE:FREQ=WEEKLY', 'RDATE:20270701T100000']), 'Every week, and on other dates');
    // The same expansion as the series' own: February has no 30th, so the third is in April.
    assert.equal(await words(['RRULE:FREQ=MONTHLY;BYMONTHDAY=30;COUNT=3'], '2027-01-30 10:00:00'), 'Every month on the 30th, 3 times, until 30 April 2027');
  });

  it('a COUNT whose last date needs more than the budget gives the count alone', async () => {
    const started = performance.now();
    assert.equal(await words(['RRULE:FREQ=DAILY;COUNT=100000']), 'Every day, 100,000 times');
    assert.ok(performance.now() - started < 1000);
  });

  it('undefined for what it cannot phrase: several rules, no rule, BYSETPOS, BYHOUR, BYYEARDAY, BYWEEKNO, weekdays with month days, a bad line', async () => {
    for (const lines of [
      ['RRULE:FREQ=WEEKLY', 'RRULE:FREQ=MONTHLY'],
      ['RDATE:20270701T100000'],
      [],
      ['RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1'],
      ['RRULE:FREQ=DAILY;BYHOUR=10,16'],
      ['RRULE:FREQ=YEARLY;BYYEARDAY=100'],
      ['RRULE:FREQ=YEARLY;BYWEEKNO=20'],
      ['RRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13'],
      ['RRULE:FREQ=MONTHLY;BYDAY=MO,1FR'],
      ['RRULE:NOT-A-RULE'],
    ])
      assert.equal(await words(lines), undefined, JSON.stringify(lines));
  });
});
