import assert from 'node:assert/strict';
import { IANAZone, FixedOffsetZone } from 'luxon';
import { coveredYears, escapeText, foldLine, offsetText, paramValue, vtimezone, zoneBlock, zoneNeeds, type CalendarEvent } from '../../src/calendar/ical.js';
import { offsetSeconds, transitionsBetween } from '../../src/calendar/zone-transitions.js';
import { htmlToText } from '../../src/text/html.js';

/** The iCalendar writer's pieces (docs/contract.md §11). */
describe('the iCalendar writer', () => {
  it('escapes TEXT: backslash, semicolon, comma, line breaks', () => {
    assert.equal(escapeText('a\\b;c,d\ne\r\nf'), 'a\\\\b\\;c\\,d\\ne\\nf');
  });

  it('quotes parameter values with : ; , and never lets a double quote through', () => {
    assert.equal(paramValue('Jo Host'), 'Jo Host');
    assert.equal(paramValue('Host, Inc.'), '"Host, Inc."');
    assert.equal(paramValue('Jo "The" Host'), "Jo 'The' Host");
  });

  it('folds at 75 octets with CRLF, never inside a UTF-8 character or a surrogate pair', () => {
    for (const line of ['x'.repeat(200), `SUMMARY:${'é'.repeat(100)}`, `SUMMARY:${'会'.repeat(100)}`, `SUMMARY:${'🎉'.repeat(60)}`, `SUMMARY:a${'👩‍👩‍👧'.repeat(20)}`]) {
      const folded = foldLine(line);
      assert.ok(folded.endsWith('\r\n'));
      const physical = folded.slice(0, -2).split('\r\n');
      physical.forEach((part, index) => {
        const bytes = Buffer.from(part, 'utf8');
        assert.ok(bytes.length <= 75, `${bytes.length} octets`);
        assert.ok(!part.includes('\ufffd'));
        assert.ok(!/[\ud800-\udbff]$/.test(part) && !/^ ?[\udc00-\udfff]/.test(part), 'a surrogate pair split');
        if (index > 0) assert.equal(part[0], ' ');
      });
      assert.equal(physical.map((part, index) => (index ? part.slice(1) : part)).join(''), line);
    }
    assert.equal(foldLine('SHORT:1'), 'SHORT:1\r\n');
  });

  it('writes offsets as ±HHMM (seconds when there are some)', () => {
    assert.equal(offsetText(-300), '-0500');
    assert.equal(offsetText(330), '+0530');
    assert.equal(offsetText(0), '+0000');
    assert.equal(offsetText(9.35), '+000921');
  });

  it('finds the tz database transitions to the second', () => {
    const changes = transitionsBetween(IANAZone.create('America/New_York'), Date.UTC(2030, 0, 1), Date.UTC(2031, 0, 1));
    assert.deepEqual(
      changes.map((change) => [new Date(change.at).toISOString(), change.from, change.to]),
      [
        ['2030-03-10T07:00:00.000Z', -18000, -14400],
        ['2030-11-03T06:00:00.000Z', -14400, -18000],
      ],
    );
    // Local mean time has seconds (Berlin's +00:53:28 until 1893); a summer time of a week is not missed.
    assert.deepEqual(
      transitionsBetween(IANAZone.create('Europe/Berlin'), Date.UTC(1893, 0, 1), Date.UTC(1894, 0, 1)).map((change) => [new Date(change.at).toISOString(), change.from, change.to]),
      [['1893-03-31T23:06:32.000Z', 3208, 3600]],
    );
    assert.deepEqual(
      transitionsBetween(IANAZone.create('America/Boa_Vista'), Date.UTC(2000, 0, 1), Date.UTC(2001, 0, 1)).map((change) => [
        new Date(change.at).toISOString(),
        change.from,
        change.to,
      ]),
      [
        ['2000-02-27T03:00:00.000Z', -10800, -14400],
        ['2000-10-08T04:00:00.000Z', -14400, -10800],
        ['2000-10-15T03:00:00.000Z', -10800, -14400],
      ],
    );
  });

  it('reads offsets from Intl as luxon does, in seconds', () => {
    for (const name of ['Europe/Berlin', 'America/St_Johns', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham', 'UTC', 'Etc/GMT+12']) {
      const zone = IANAZone.create(name);
      for (const ms of [Date.UTC(1850, 0, 1), Date.UTC(1950, 6, 1), Date.UTC(2030, 0, 1), Date.UTC(2030, 6, 1), Date.UTC(2130, 6, 1)]) {
        assert.equal(offsetSeconds(zone, ms), Math.round(zone.offset(ms) * 60), `${name} at ${new Date(ms).toISOString()}`);
      }
    }
    assert.equal(offsetSeconds(FixedOffsetZone.instance(330), 0), 19800);
  });

  it('describes the years events need: a series through its last occurrence, another event its start and end years', () => {
    const event = (start: string, end: string, recurrence?: string[]) =>
      ({ start: { kind: 'local', local: start, zoneName: 'Europe/Paris' }, spanUtc: [start, end], recurrence }) as CalendarEvent;
    assert.deepEqual(zoneNeeds(event('2030-05-01 10:00:00', '2030-05-01 12:00:00')), [{ zoneName: 'Europe/Paris', run: [2030, 2030] }]);
    assert.deepEqual(zoneNeeds(event('1000-01-02 10:00:00', '3500-12-31 12:00:00')), [
      { zoneName: 'Europe/Paris', run: [1000, 1000] },
      { zoneName: 'Europe/Paris', run: [3500, 3500] },
    ]);
    assert.deepEqual(zoneNeeds(event('2026-01-05 10:00:00', '2028-12-25 12:00:00', ['RRULE:FREQ=WEEKLY'])), [{ zoneName: 'Europe/Paris', run: [2026, 2028] }]);
    assert.deepEqual(zoneNeeds({ ...event('2030-05-01 10:00:00', '2030-05-01 12:00:00'), start: { kind: 'date', date: '2030-05-01' } }), []);
  });

  it('covers every year needed within the budget; past it the shortest needs first, and a zone left without years keeps one observance', () => {
    const need = (zoneName: string, first: number, last: number) => ({ zoneName, run: [first, last] as [number, number] });
    const needs = [need('B', 1000, 3500), need('A', 2030, 2030), need('A', 2031, 2031), need('A', 2035, 2035), need('C', 2000, 2099), need('A', 2030, 2030)];
    assert.deepEqual(Object.fromEntries(coveredYears(needs, 5000)), {
      A: [
        [2030, 2031],
        [2035, 2035],
      ],
      B: [[1000, 3500]],
      C: [[2000, 2099]],
    });
    // 3 years for A's single years, 100 for C, the 47 left for the start of B's long span.
    assert.deepEqual(Object.fromEntries(coveredYears(needs, 150)), {
      A: [
        [2030, 2031],
        [2035, 2035],
      ],
      B: [[1000, 1046]],
      C: [[2000, 2099]],
    });
    assert.deepEqual(Object.fromEntries(coveredYears(needs, 2)), { A: [[2030, 2031]], B: [[1000, 999]], C: [[2000, 1999]] });
  });

  it('writes one observance at the start of each run of years, from the offset just before it', () => {
    const paris = IANAZone.create('Europe/Paris');
    const lines = zoneBlock('Europe/Paris', paris, [
      { run: [2030, 2030], changes: transitionsBetween(paris, Date.UTC(2030, 0, 1), Date.UTC(2031, 0, 1)) },
      { run: [2035, 2034], changes: [] },
    ]);
    assert.deepEqual(lines.slice(-6), ['BEGIN:STANDARD', 'DTSTART:20350101T010000', 'TZOFFSETFROM:+0100', 'TZOFFSETTO:+0100', 'END:STANDARD', 'END:VTIMEZONE']);
    assert.equal(lines.filter((line) => line.startsWith('DTSTART:')).length, 4);
  });

  it('builds a VTIMEZONE with an observance per change, local DTSTART before the change', () => {
    const lines = vtimezone('Europe/Paris', IANAZone.create('Europe/Paris'), 2030, 2030);
    assert.deepEqual(lines, [
      'BEGIN:VTIMEZONE',
      'TZID:Europe/Paris',
      'BEGIN:STANDARD',
      'DTSTART:20300101T010000',
      'TZOFFSETFROM:+0100',
      'TZOFFSETTO:+0100',
      'END:STANDARD',
      'BEGIN:DAYLIGHT',
      'DTSTART:20300331T020000',
      'TZOFFSETFROM:+0100',
      'TZOFFSETTO:+0200',
      'END:DAYLIGHT',
      'BEGIN:STANDARD',
      'DTSTART:20301027T030000',
      'TZOFFSETFROM:+0200',
      'TZOFFSETTO:+0100',
      'END:STANDARD',
      'END:VTIMEZONE',
    ]);
    const fixed = vtimezone('UTC+5.5', FixedOffsetZone.instance(330), 2030, 2031);
    assert.deepEqual(fixed.slice(2, 7), ['BEGIN:STANDARD', 'DTSTART:20300101T053000', 'TZOFFSETFROM:+0530', 'TZOFFSETTO:+0530', 'END:STANDARD']);
    assert.equal(fixed.length, 8);
  });

  it('turns HTML into plain text: blocks, breaks, references, no scripts or comments', () => {
    assert.equal(htmlToText('<p>First <strong>para</strong> &amp; more.</p><p>Second</p>'), 'First para & more.\n\nSecond');
    assert.equal(htmlToText('a<br />b<script>x<y</script> c &eacute;&#x1F600;&#233; <!-- hidden -->d &bogus; &hellip;'), 'a\nb c é😀é d &bogus; …');
    assert.equal(htmlToText('<ul><li>one</li><li>two</li></ul>end'), 'one\n\ntwo\n\nend');
    assert.equal(htmlToText('a < b & c'), 'a < b & c');
    assert.equal(htmlToText('<a href="x>y" title=\'q\'>link</a> &lt;b&gt;'), 'link <b>');
    assert.equal(htmlToText('plain\n\n\n\ntext   here  '), 'plain\n\ntext here');
    assert.equal(htmlToText('&#0;&#xD800;'), '\ufffd\ufffd');
  });
});
