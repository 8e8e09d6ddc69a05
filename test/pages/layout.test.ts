import assert from 'node:assert/strict';
import { escapeHtml, jsonLdScript, webcalUrl } from '../../src/records/pages/layout.js';
import { plainOf } from '../../src/text/plain-forms.js';
import { whenText } from '../../src/records/pages/views.js';
import { dayText } from '../../src/dates/event-times.js';

/** The pure helpers of the public pages (docs/contract.md §13). */
describe('page helpers', () => {
  it('a JSON-LD block cannot be closed or commented out by its data, and parses back to the same value', () => {
    const data = { name: '</script><script>alert(1)</script>', description: '<!-- x --> & \u2028 \u2029 </SCRIPT >', nested: ['<b>'] };
    const block = jsonLdScript(data);
    const inner = block.slice('<script type="application/ld+json">'.length, -'</script>'.length);
    assert.doesNotMatch(inner, /<|>|&/);
    assert.doesNotMatch(inner, /[\u2028\u2029]/);
    assert.deepEqual(JSON.parse(inner), data);
  });

  it('escapes the five HTML characters and shows stored references as the characters they stand for', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
    // Stored plain text is shown in its plain form (stored when written, text/plain-forms.ts), escaped.
    assert.equal(escapeHtml(plainOf('Rock &amp; Roll')), 'Rock &#38; Roll');
    assert.equal(escapeHtml(plainOf('a &lt;img src=x onerror=alert(1)&gt;')), 'a &#60;img src=x onerror=alert(1)&#62;');
    assert.equal(escapeHtml(plainOf(' Two\n  lines&nbsp; ')), 'Two lines');
    assert.equal(plainOf(''), '');
  });

  it('webcal:// form of a feed URL', () => {
    assert.equal(webcalUrl('https://x.example/wp-json/tribe/events/v1/events.ics?tags=a'), 'webcal://x.example/wp-json/tribe/events/v1/events.ics?tags=a');
    assert.equal(webcalUrl('http://x.example/e.ics'), 'webcal://x.example/e.ics');
  });

  it('says when an event happens: same day, several days, all day, from the days stored when written', () => {
    const event = { start_date: '2027-01-10 10:00:00', end_date: '2027-01-10 12:30:00', all_day: false, timezone_abbr: 'CET' };
    const days = (start: string, end: string) => ({ start: dayText(start), end: dayText(end) });
    assert.equal(whenText(event, days(event.start_date, event.end_date)), 'Sunday 10 January 2027, 10:00 – 12:30 CET');
    assert.equal(
      whenText({ ...event, end_date: '2027-01-12 18:00:00' }, days(event.start_date, '2027-01-12 18:00:00')),
      'Sunday 10 January 2027, 10:00 – Tuesday 12 January 2027, 18:00 CET',
    );
    assert.equal(whenText({ ...event, all_day: true, end_date: '2027-01-10 23:59:59' }, days(event.start_date, '2027-01-10 23:59:59')), 'Sunday 10 January 2027 (all day)');
    assert.equal(
      whenText({ ...event, all_day: true, end_date: '2027-01-11 23:59:59' }, days(event.start_date, '2027-01-11 23:59:59')),
      'Sunday 10 January 2027 – Monday 11 January 2027 (all day)',
    );
    assert.equal(whenText(event, { start: 'START-MARK', end: 'END-MARK' }), 'START-MARK, 10:00 – 12:30 CET', 'the days are taken as given');
  });
});
