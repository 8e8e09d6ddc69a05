import assert from 'node:assert/strict';
import { createUser } from '../../helpers/app.js';
import { expectError } from '../../helpers/assertions.js';
import { call, createEvent, eventsApp, eventsPath, NOW } from '../../helpers/events.js';

/**
 * Answers that are not JSON obey REPLY_LIMIT too (docs/limits.md "Text fields and reply sizes"): a
 * public page and one event's iCalendar feed over it are refused before any of it is sent, as a
 * single JSON record is. With the text-field limits neither comes near the default 8 MB; a small
 * REPLY_LIMIT shows the rule.
 */
describe('REPLY_LIMIT on pages and iCalendar feeds', () => {
  it('a public page or an event feed over REPLY_LIMIT is 500 rest_response_too_large; under it, 200', async () => {
    const { http } = await eventsApp();
    const editor = await createUser('editor');
    const description = `<p>${'A long programme of music and talks. '.repeat(60)}</p>`;
    const event = await createEvent(http, editor, { title: 'Long evening', description, start_date: '2026-12-01 18:00:00', end_date: '2026-12-01 22:00:00' });
    // The limit lies between the sizes of a small answer and of the long event's page or feed.
    const small = await eventsApp({ replyLimit: 2_000 }, NOW);
    for (const path of [`/event/${event.slug}/`, `${eventsPath}/${event.id}.ics`]) {
      const whole = await http().get(path);
      assert.equal(whole.status, 200, path);
      assert.ok(Buffer.byteLength(whole.text) > 2_000, `${path} is larger than the small limit`);
      const refused = expectError(await small.http().get(path), 500, 'rest_response_too_large');
      assert.equal((refused as { limit?: number }).limit, 2_000);
    }
    // A page that fits is served under the same limit.
    const fits = await small.http().get('/event/no-such-event/');
    assert.equal(fits.status, 404);
    const listed = await call(small.http, 'get', `${eventsPath}?per_page=1&search=nothing-matches`);
    assert.equal(listed.status, 200);
  });
});
