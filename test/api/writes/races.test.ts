import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { createUsers, NS, testApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { openTestDatabase } from '../../helpers/database.js';
import { raceTwo } from '../../helpers/races.js';

/**
 * Writes that check something and then write what the check allowed, raced so that each checks
 * before the other's write is visible (test/helpers/races.ts): they must hold as when they come one
 * after the other (src/db/write-locks.ts). On MariaDB two such category updates both answered 200
 * and left a cycle, and two identical venue creates made two venues.
 */
describe('checks that hold under concurrent writes', () => {
  let app: TestApp;
  let db: Knex;
  let editor: TestUser;

  before(async () => {
    app = await testApp();
    ({ db } = await openTestDatabase());
  });

  beforeEach(async () => {
    ({ editor } = await createUsers());
  });

  const send = (method: 'post' | 'patch', path: string, body: object) => app.http()[method](`${NS}${path}`).set('Authorization', editor.authorization).send(body);

  it('two categories made each other’s parent at once: one is refused, no cycle', async () => {
    const a = (await send('post', '/categories', { name: 'Race A' })).body.id as number;
    const b = (await send('post', '/categories', { name: 'Race B' })).body.id as number;
    const [first, second] = await raceTwo(
      db,
      () => send('patch', `/categories/${a}`, { parent: b }),
      () => send('patch', `/categories/${b}`, { parent: a }),
    );
    assert.deepEqual([first.status, second.status].sort(), [200, 400], JSON.stringify([first.body, second.body]));
    const refused = first.status === 400 ? first : second;
    assert.equal(refused.body.code, 'rest_invalid_param');
    const parents = await db('terms').whereIn('id', [a, b]).orderBy('id').pluck('parent');
    assert.ok(!(Number(parents[0]) === b && Number(parents[1]) === a), 'no cycle');
  });

  it('a category moved under a category deleted at once: refused, or moved up by the delete; never under a category that does not exist', async () => {
    const a = (await send('post', '/categories', { name: 'Race moved' })).body.id as number;
    const b = (await send('post', '/categories', { name: 'Race deleted' })).body.id as number;
    const [moved, deleted] = await raceTwo(
      db,
      () => send('patch', `/categories/${a}`, { parent: b }),
      () => app.http().delete(`${NS}/categories/${b}?force=true`).set('Authorization', editor.authorization),
    );
    assert.equal(deleted.status, 200);
    // Either order is one after the other: the delete first refuses the move (its parent no longer
    // exists); the move first is undone by the delete, which moves the deleted category's children up.
    // The delete usually takes the tree's lock first; a loaded database server may let the move in first.
    if (moved.status !== 200) {
      assert.equal(moved.status, 400, JSON.stringify(moved.body));
      assert.equal(moved.body.code, 'rest_invalid_param');
    }
    assert.equal(
      Number(
        await db('terms')
          .where('id', a)
          .first('parent')
          .then((row) => row.parent),
      ),
      0,
    );
  });

  for (const [collection, field] of [
    ['venues', 'venue'],
    ['organizers', 'organizer'],
  ] as const) {
    it(`two identical ${collection} created at once are one record (duplicate detection, docs/contract.md §6)`, async () => {
      const name = `Race ${field} ${Date.now()}`;
      const body = { [field]: name, status: 'publish', ...(field === 'venue' ? { city: 'Lyon' } : { email: 'race@example.org' }) };
      const [first, second] = await raceTwo(
        db,
        () => send('post', `/${collection}`, body),
        () => send('post', `/${collection}`, body),
      );
      assert.deepEqual([first.status, second.status], [201, 201]);
      assert.equal(first.body.id, second.body.id);
      assert.equal((await db('posts').where({ type: field, title: name })).length, 1);
    });
  }

  it('two events created at once with the same new venue link one venue', async () => {
    const venue = { venue: `Race nested hall ${Date.now()}`, city: 'Lyon' };
    const event = (title: string) => send('post', '/events', { title, status: 'publish', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00', venue });
    const [first, second] = await raceTwo(
      db,
      () => event('Race one'),
      () => event('Race two'),
    );
    assert.deepEqual([first.status, second.status], [201, 201]);
    assert.equal(first.body.venue.id, second.body.venue.id);
    assert.equal((await db('posts').where({ type: 'venue', title: venue.venue })).length, 1);
  });
});
