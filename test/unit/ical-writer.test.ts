import assert from 'node:assert/strict';
import { IANAZone, FixedOffsetZone } from 'luxon';
import { escapeText, foldLine, offsetText, paramValue, transitions, vtimezone } from '../../src/calendar/ical.js';
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
    const changes = transitions(IANAZone.create('America/New_York'), Date.UTC(2030, 0, 1), Date.UTC(2031, 0, 1));
    assert.deepEqual(
      changes.map((change) => [new Date(change.at).toISOString(), change.from, change.to]),
      [
        ['2030-03-10T07:00:00.000Z', -300, -240],
        ['2030-11-03T06:00:00.000Z', -240, -300],
      ],
    );
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
