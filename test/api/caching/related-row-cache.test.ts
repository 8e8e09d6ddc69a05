import assert from 'node:assert/strict';
import { createUsers, NS } from '../../helpers/app.js';
import { openTestDatabase, statementsDuring } from '../../helpers/database.js';
import { call, eventBody, eventsApp, type Rec } from '../../helpers/events.js';

/**
 * The rows an event's record embeds (venues, organizers, terms, images) are kept per app at the
 * versions its links report (repositories/related-row-cache.ts), so a record built again after a
 * write to the event alone reads none of them.
 */
describe('event records: the rows they embed are cached', () => {
  it('builds a changed event again without reading its venue, organizer, terms or images', async () => {
    const { http } = await eventsApp();
    const users = await createUsers();
    const post = async (path: string, body: Rec) => {
      const res = await call(http, 'post', `${NS}/${path}`, users.editor, body);
      assert.equal(res.status, 201, res.text);
      return res.body as Rec;
    };
    const venue = await post('venues', { venue: 'Remembered hall', image: 'https://cdn.example.test/hall.png' });
    const organizer = await post('organizers', { organizer: 'Remembered organizer' });
    const category = await post('categories', { name: 'Remembered category' });
    const event = await post(
      'events',
      eventBody({ title: 'Remembered', venue: venue.id, organizer: [organizer.id], categories: [category.id], image: 'https://cdn.example.test/event.png' }),
    );
    const read = async () => {
      const res = await call(http, 'get', `${NS}/events/${event.id}`, users.editor);
      assert.equal(res.status, 200, res.text);
      return res.body as Rec;
    };
    const first = await read();
    assert.equal((first.venue as Rec).id, venue.id);
    assert.deepEqual(
      (first.categories as Rec[]).map((term) => term.id),
      [category.id],
    );
    assert.equal((await call(http, 'patch', `${NS}/events/${event.id}`, users.editor, { title: 'Remembered, renamed' })).status, 200);

    const { db } = await openTestDatabase();
    let record: Rec = {};
    const queries = await statementsDuring(db, async () => (record = await read()));
    assert.equal(record.title, 'Remembered, renamed');
    assert.deepEqual(
      (record.categories as Rec[]).map((term) => term.id),
      [category.id],
    );
    const reads = queries.filter((sql) => /from [`"](images|terms)[`"]|[`"]p[`"]\.[`"]id[`"] in \(/.test(sql));
    assert.deepEqual(reads, []);
  });
});
