import assert from 'node:assert/strict';
import { testApp, NS, createUsers } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';

/** The app, an editor's requests, and the `count` of a term of one collection, as each test starts. */
async function setUp(collection: 'categories' | 'tags') {
  const { http } = await testApp();
  const { editor } = await createUsers();
  const as = (req: ReturnType<ReturnType<typeof http>['get']>) => req.set('Authorization', editor.authorization);
  const count = async (id: number) => (await http().get(`${NS}/${collection}/${id}`)).body.count as number;
  return { http, as, count };
}

describe('term counts', () => {
  it('count published events only, and follow publishing, retagging, trashing and deleting', async () => {
    const { http, as, count } = await setUp('categories');
    const music = (await as(http().post(`${NS}/categories`)).send({ name: 'Music' })).body.id as number;
    const art = (await as(http().post(`${NS}/categories`)).send({ name: 'Art' })).body.id as number;
    const body = { title: 'Gig', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00', categories: [music] };
    const draft = await as(http().post(`${NS}/events`)).send({ ...body, status: 'draft' });
    expectStatus(draft, 201);
    assert.equal(await count(music), 0, 'drafts do not count');
    expectStatus(await as(http().patch(`${NS}/events/${draft.body.id}`)).send({ status: 'publish' }), 200);
    assert.equal(await count(music), 1);
    const second = await as(http().post(`${NS}/events`)).send(body);
    assert.equal(await count(music), 2);
    expectStatus(await as(http().patch(`${NS}/events/${second.body.id}`)).send({ categories: [art] }), 200);
    assert.deepEqual([await count(music), await count(art)], [1, 1]);
    expectStatus(await as(http().delete(`${NS}/events/${draft.body.id}`)), 200);
    assert.equal(await count(music), 0, 'trashed events do not count');
    expectStatus(await as(http().delete(`${NS}/events/${second.body.id}?force=true`)), 200);
    assert.equal(await count(art), 0);
    const list = await http().get(`${NS}/categories`);
    assert.equal(list.body.total, 0, 'hide_empty hides terms no published event uses');
  });

  it('follow an update of the tags alone, and stay put through an update of neither status nor terms', async () => {
    const { http, as, count } = await setUp('tags');
    const red = (await as(http().post(`${NS}/tags`)).send({ name: 'Red' })).body.id as number;
    const blue = (await as(http().post(`${NS}/tags`)).send({ name: 'Blue' })).body.id as number;
    const event = await as(http().post(`${NS}/events`)).send({ title: 'Tagged', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00', tags: [red] });
    expectStatus(event, 201);
    expectStatus(await as(http().patch(`${NS}/events/${event.body.id}`)).send({ tags: [blue] }), 200);
    assert.deepEqual([await count(red), await count(blue)], [0, 1]);
    expectStatus(await as(http().patch(`${NS}/events/${event.body.id}`)).send({ title: 'Retitled', cost: '$5' }), 200);
    assert.deepEqual([await count(red), await count(blue)], [0, 1]);
  });

  // On MySQL, linking an event to a term takes a shared lock on the term's row (the foreign key), and
  // raising its count needs the exclusive one: writes that raised the count after linking deadlocked
  // pairwise (every create of 8 at once, before the fix), and some ran out of retries (503).
  it('hold, without a deadlock, when many writes link the same terms at once', async () => {
    const { http, as, count } = await setUp('categories');
    const { db } = await openTestDatabase();
    const music = (await as(http().post(`${NS}/categories`)).send({ name: 'Busy music' })).body.id as number;
    const art = (await as(http().post(`${NS}/categories`)).send({ name: 'Busy art' })).body.id as number;
    const body = { title: 'Busy', status: 'publish', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00', categories: [music, art] };
    const deadlocks: number[] = [];
    const listener = (err: { errno?: number }) => {
      if (err.errno === 1213) deadlocks.push(err.errno);
    };
    db.on('query-error', listener);
    try {
      const created = await Promise.all(Array.from({ length: 12 }, () => as(http().post(`${NS}/events`)).send(body)));
      for (const reply of created) expectStatus(reply, 201);
      const retagged = await Promise.all(created.slice(0, 6).map((reply) => as(http().patch(`${NS}/events/${reply.body.id}`)).send({ categories: [art] })));
      for (const reply of retagged) expectStatus(reply, 200);
      const back = await Promise.all(created.slice(0, 6).map((reply) => as(http().patch(`${NS}/events/${reply.body.id}`)).send({ categories: [music, art] })));
      for (const reply of back) expectStatus(reply, 200);
      // Drafts tagged with a term, published with a category: the tag's count moves too.
      const tag = (await as(http().post(`${NS}/tags`)).send({ name: 'Busy tag' })).body.id as number;
      const drafts = await Promise.all(Array.from({ length: 6 }, () => as(http().post(`${NS}/events`)).send({ ...body, status: 'draft', categories: [], tags: [tag] })));
      for (const reply of drafts) expectStatus(reply, 201);
      const published = await Promise.all(drafts.map((reply) => as(http().patch(`${NS}/events/${reply.body.id}`)).send({ status: 'publish', categories: [art] })));
      for (const reply of published) expectStatus(reply, 200);
      assert.equal((await http().get(`${NS}/tags/${tag}`)).body.count, 6);
    } finally {
      db.off('query-error', listener);
    }
    assert.deepEqual(deadlocks, [], 'no write deadlocked');
    assert.deepEqual([await count(music), await count(art)], [12, 18]);
  });
});
