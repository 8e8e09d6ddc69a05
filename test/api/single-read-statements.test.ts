import assert from 'node:assert/strict';
import { createUsers, NS } from '../helpers/app.js';
import { openTestDatabase, statementsDuring } from '../helpers/database.js';
import { call, createEvent, eventPath, eventSlugPath, eventsApp, type Http, type Rec } from '../helpers/events.js';

/**
 * A single read of an event costs one statement when its reply is cached: the data version
 * (docs/contract.md §16). The read after a write of the event, of a venue it embeds, or of another
 * event that moves its term's count shows that write.
 */
describe('single event reads: one statement, always exact', () => {
  async function statementsOf(read: () => Promise<unknown>): Promise<string[]> {
    const { db } = await openTestDatabase();
    return statementsDuring(db, read);
  }

  const anonymousRead = async (http: Http, path: string): Promise<Rec> => {
    const res = await call(http, 'get', path);
    assert.equal(res.status, 200, res.text);
    return res.body as Rec;
  };

  it('answers a cached reply to an anonymous caller with one statement, by id and by slug', async () => {
    const { http } = await eventsApp({ replyCache: true });
    const { editor } = await createUsers();
    const category = (await call(http, 'post', `${NS}/categories`, editor, { name: 'Counted' })).body as Rec;
    const venue = (await call(http, 'post', `${NS}/venues`, editor, { venue: 'One look hall' })).body as Rec;
    const event = await createEvent(http, editor, { title: 'One look', slug: 'one-look', venue: venue.id, categories: [category.id] });
    for (const path of [eventPath(event.id as number), eventSlugPath('one-look')]) {
      const first = await anonymousRead(http, path);
      let again: Rec = {};
      const statements = await statementsOf(async () => (again = await anonymousRead(http, path)));
      assert.deepEqual(again, first);
      assert.equal(statements.length, 1, statements.join('\n'));
    }
  });

  it('shows an edit of the event, of its venue and a change of its term count on the next read', async () => {
    const { http } = await eventsApp();
    const { editor } = await createUsers();
    const category = (await call(http, 'post', `${NS}/categories`, editor, { name: 'Moving count' })).body as Rec;
    const venue = (await call(http, 'post', `${NS}/venues`, editor, { venue: 'Before', city: 'Springfield' })).body as Rec;
    const event = await createEvent(http, editor, { title: 'Watched', venue: venue.id, categories: [category.id] });
    const path = eventPath(event.id as number);
    const read = async () => {
      await anonymousRead(http, path);
      return anonymousRead(http, path);
    };
    const before = await read();
    assert.equal(before.venue.city, 'Springfield');
    assert.equal(before.categories[0].count, 1);

    assert.equal((await call(http, 'post', `${NS}/venues/${venue.id}`, editor, { city: 'Shelbyville' })).status, 200);
    assert.equal((await read()).venue.city, 'Shelbyville');

    await createEvent(http, editor, { title: 'Neighbour', categories: [category.id] });
    assert.equal((await read()).categories[0].count, 2);

    assert.equal((await call(http, 'patch', path, editor, { title: 'Watched, renamed' })).status, 200);
    const after = await read();
    assert.equal(after.title, 'Watched, renamed');
    assert.equal(after.venue.city, 'Shelbyville');
    assert.equal(after.categories[0].count, 2);
  });
});
