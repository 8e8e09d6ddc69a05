import assert from 'node:assert/strict';
import { createUser, NS } from '../../helpers/app.js';
import { expectError } from '../../helpers/assertions.js';
import { call, createEvent, createVenue, eventBody, eventPath, eventsApp, readEvent } from '../../helpers/events.js';

/**
 * The structural bounds of HTML fields (docs/limits.md "HTML in descriptions"): past them a write
 * is 400 `rest_invalid_param` naming the field, for every role (also with `unfiltered_html`), and
 * changes nothing.
 */
describe('HTML fields past the structural bounds', () => {
  // Within every field's length limit (docs/limits.md "Text fields and reply sizes"), so that the
  // structural bound, not the length, is what refuses them: 307 and 15,003 characters.
  const TOO_DEEP = `${'<b>'.repeat(101)}deep`;
  const DEEP_ENOUGH = `${'<span>'.repeat(100)}deep${'</span>'.repeat(100)}`;
  const TOO_MANY = '<p>'.repeat(5_001);
  const DEPTH_REASON = (field: string) => `${field} nests HTML elements more than 100 deep.`;
  const COUNT_REASON = (field: string) => `${field} has more than 5000 HTML elements.`;

  it('an event create is 400 on description and excerpt, for a contributor and an administrator, and records nothing', async () => {
    const { http } = await eventsApp();
    for (const role of ['contributor', 'administrator'] as const) {
      const user = await createUser(role);
      const data = expectError(await call(http, 'post', `${NS}/events`, user, eventBody({ description: TOO_MANY, excerpt: TOO_DEEP })), 400, 'rest_invalid_param');
      assert.deepEqual(data.params, { description: COUNT_REASON('description'), excerpt: DEPTH_REASON('excerpt') });
    }
    const list = await call(http, 'get', `${NS}/events?status=any`, await createUser('administrator', 'admin2'));
    assert.equal(list.body.total, 0);
  });

  it('an event update past a bound is 400 and leaves the event as it was; at the bounds it is written', async () => {
    const { http } = await eventsApp();
    const author = await createUser('author');
    const event = await createEvent(http, author, { description: '<p>Before</p>' });
    const data = expectError(await call(http, 'post', eventPath(event.id), author, { description: TOO_MANY }), 400, 'rest_invalid_param');
    assert.deepEqual(data.params, { description: COUNT_REASON('description') });
    assert.equal((await readEvent(http, event.id)).description, '<p>Before</p>');
    const ok = await call(http, 'post', eventPath(event.id), author, { description: DEEP_ENOUGH });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await readEvent(http, event.id)).description, `<p>${DEEP_ENOUGH}</p>`);
  });

  it('a venue, an organizer and a venue created inside an event are refused on their description', async () => {
    const { http } = await eventsApp();
    const editor = await createUser('editor');
    for (const [collection, name] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ]) {
      const data = expectError(await call(http, 'post', `${NS}/${collection}`, editor, { [name]: 'Place', description: TOO_DEEP }), 400, 'rest_invalid_param');
      assert.deepEqual(data.params, { description: DEPTH_REASON('description') });
    }
    const venue = await createVenue(http, editor, { venue: 'Hall', description: '<p>Hall</p>' });
    const update = expectError(await call(http, 'post', `${NS}/venues/${venue.id}`, editor, { description: TOO_MANY }), 400, 'rest_invalid_param');
    assert.deepEqual(update.params, { description: COUNT_REASON('description') });
    const nested = expectError(await call(http, 'post', `${NS}/events`, editor, eventBody({ venue: { venue: 'New hall', description: TOO_DEEP } })), 400, 'rest_invalid_param');
    assert.match((nested.params as Record<string, string>).venue!, /nests HTML elements more than 100 deep/);
    const venues = await call(http, 'get', `${NS}/venues`);
    assert.deepEqual(
      venues.body.venues.map((v: { venue: string }) => v.venue),
      ['Hall'],
    );
  });

  it('all the HTML fields of one write bring at most 5,000 elements together, nested venues included', async () => {
    const { http } = await eventsApp();
    const editor = await createUser('editor');
    const many = (count: number) => '<p>'.repeat(count);
    const together = /brings the HTML fields of this request to more than 5000 elements together\./;
    const withVenue = expectError(
      await call(http, 'post', `${NS}/events`, editor, eventBody({ description: many(3_000), venue: { venue: 'Big hall', description: many(2_001) } })),
      400,
      'rest_invalid_param',
    );
    assert.match(Object.values(withVenue.params as Record<string, string>).join(' '), together);
    const venues = Array.from({ length: 3 }, (_, i) => ({ venue: `Hall ${i}`, description: many(2_000) }));
    const nested = expectError(await call(http, 'post', `${NS}/events`, editor, eventBody({ venue: venues })), 400, 'rest_invalid_param');
    assert.match((nested.params as Record<string, string>).venue!, together);
    const ok = await call(http, 'post', `${NS}/events`, editor, eventBody({ description: many(3_000), venue: { venue: 'Fitting hall', description: many(1_999) } }));
    assert.equal(ok.status, 201, ok.text);
  });

  it('a category and a tag are refused on their description', async () => {
    const { http } = await eventsApp();
    const admin = await createUser('administrator');
    for (const collection of ['categories', 'tags']) {
      const data = expectError(await call(http, 'post', `${NS}/${collection}`, admin, { name: 'Term', description: TOO_DEEP }), 400, 'rest_invalid_param');
      assert.deepEqual(data.params, { description: DEPTH_REASON('description') });
      const list = await call(http, 'get', `${NS}/${collection}`);
      assert.equal(list.body.total, 0);
    }
  });
});
