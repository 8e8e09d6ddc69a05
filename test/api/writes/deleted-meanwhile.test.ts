import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { createUsers, NS, testApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { expectError } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';

type Statement = { sql: string; bindings?: unknown[] };
type Send = (connection: unknown, statement: Statement) => Promise<unknown>;

/**
 * A write whose record another request deletes between this request's read of it and its write
 * (src/db/errors.ts `RecordGone`): the 404 of a record that does not exist, and nothing written. It
 * answered 500 on MySQL (the search index's insert broke its foreign key) and, on either engine, a
 * write that found no row went on to note a change of the deleted record in the change feed. A write
 * linking a venue, organizer or term deleted meanwhile: the 400 of one that does not exist (it
 * answered 500: the link broke its foreign key).
 *
 * The race is made certain: just before the write's own statement on the record's table, the row is
 * deleted on the same connection, as if the other request had committed first. The write then rolls
 * back, that delete with it, so the record is still there afterwards: nothing changed.
 */
describe('a write to a record deleted meanwhile, or linking one, answers 404 or 400 and changes nothing', () => {
  let app: TestApp;
  let db: Knex;
  let editor: TestUser;
  // Transactions run on clients made from the client's prototype (Knex's makeTxClient): the hook goes there.
  let prototype: { query: Send };
  let query: Send;
  let ownQuery: boolean;
  /** Takes the hook away: the prototype as it was (the method is usually inherited from Knex's Client). */
  const restore = () => {
    if (ownQuery) prototype.query = query;
    else delete (prototype as { query?: Send }).query;
  };

  before(async () => {
    app = await testApp();
    ({ db } = await openTestDatabase());
    prototype = Object.getPrototypeOf(db.client);
    query = prototype.query;
    ownQuery = Object.prototype.hasOwnProperty.call(prototype, 'query');
  });

  beforeEach(async () => {
    ({ editor } = await createUsers());
  });

  afterEach(restore);

  /** Deletes row `id` of `table` on the write's connection just before the write's first UPDATE of that table. */
  function deleteBeforeUpdateOf(table: 'posts' | 'terms', id: number): void {
    deleteBefore(/^update [`"]?(\w+)[`"]?/i, table, table, id);
  }

  /** Deletes row `id` of `table` on the write's connection just before the write first inserts into `linkTable`. */
  function deleteBeforeLinkTo(linkTable: 'event_venues' | 'event_terms', table: 'posts' | 'terms', id: number): void {
    deleteBefore(/^insert into [`"]?(\w+)[`"]?/i, linkTable, table, id);
  }

  function deleteBefore(statementOn: RegExp, written: string, table: string, id: number): void {
    let done = false;
    prototype.query = async function (this: unknown, connection: unknown, statement: Statement) {
      if (!done && statementOn.exec(statement.sql)?.[1] === written && statement.bindings?.includes(id)) {
        done = true;
        await query.call(this, connection, { sql: `delete from ${table} where id = ?`, bindings: [id] });
      }
      return query.call(this, connection, statement);
    };
  }

  const as = (req: ReturnType<ReturnType<TestApp['http']>['get']>) => req.set('Authorization', editor.authorization);
  const changesOf = async (type: string, id: number) => (await db('changes').where({ type, record_id: id }).select('seq', 'deleted')).map((row) => `${row.seq}:${row.deleted}`);

  it('PATCH of an event', async () => {
    const created = await as(app.http().post(`${NS}/events`)).send({ title: 'Soon gone', status: 'publish', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00' });
    assert.equal(created.status, 201);
    const id = created.body.id as number;
    const before = await changesOf('event', id);
    deleteBeforeUpdateOf('posts', id);
    const res = await as(app.http().patch(`${NS}/events/${id}`)).send({ title: 'Renamed', cost: '$5' });
    expectError(res, 404, 'rest-event-not-found');
    assert.equal(res.body.message, `Event with ID ${id} does not exist.`);
    restore();
    const after = await app.http().get(`${NS}/events/${id}`).expect(200);
    assert.equal(after.body.title, 'Soon gone', 'the write rolled back');
    assert.deepEqual(await changesOf('event', id), before, 'no change noted');
  });

  it('DELETE (to the trash) of a venue', async () => {
    const created = await as(app.http().post(`${NS}/venues`)).send({ venue: 'Soon gone hall', status: 'publish' });
    assert.equal(created.status, 201);
    const id = created.body.id as number;
    deleteBeforeUpdateOf('posts', id);
    const res = await as(app.http().delete(`${NS}/venues/${id}`));
    expectError(res, 404, 'rest-venue-not-found');
    restore();
    const after = await app.http().get(`${NS}/venues/${id}`).expect(200);
    assert.equal(after.body.venue, 'Soon gone hall');
  });

  it('PATCH of a category', async () => {
    const created = await as(app.http().post(`${NS}/categories`)).send({ name: 'Soon gone category' });
    assert.equal(created.status, 201);
    const id = created.body.id as number;
    const before = await changesOf('category', id);
    deleteBeforeUpdateOf('terms', id);
    const res = await as(app.http().patch(`${NS}/categories/${id}`)).send({ description: 'Changed' });
    expectError(res, 404, 'rest-term-not-found');
    restore();
    await app.http().get(`${NS}/categories/${id}`).expect(200);
    assert.deepEqual(await changesOf('category', id), before, 'no change noted');
  });

  it('POST of an event linking a venue (the 400 of a venue that does not exist)', async () => {
    const venue = await as(app.http().post(`${NS}/venues`)).send({ venue: 'Soon gone venue', status: 'publish' });
    const id = venue.body.id as number;
    deleteBeforeLinkTo('event_venues', 'posts', id);
    const res = await as(app.http().post(`${NS}/events`)).send({
      title: 'Linked',
      status: 'publish',
      start_date: '2030-05-01 10:00:00',
      end_date: '2030-05-01 11:00:00',
      venue: id,
    });
    const data = expectError(res, 400, 'rest_invalid_param');
    assert.deepEqual(data.params, { venue: `venue ${id} is not a venue.` });
    restore();
    await app.http().get(`${NS}/venues/${id}`).expect(200);
    assert.equal((await app.http().get(`${NS}/events?search=Linked`)).body.total, 0, 'no event was created');
  });

  it('PATCH of an event linking a category', async () => {
    const category = await as(app.http().post(`${NS}/categories`)).send({ name: 'Soon gone link' });
    const id = category.body.id as number;
    const event = await as(app.http().post(`${NS}/events`)).send({ title: 'Relinked', status: 'publish', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00' });
    deleteBeforeLinkTo('event_terms', 'terms', id);
    const res = await as(app.http().patch(`${NS}/events/${event.body.id}`)).send({ categories: [id], title: 'Relinked again' });
    const data = expectError(res, 400, 'rest_invalid_param');
    assert.deepEqual(data.params, { categories: `categories contains unknown categories: ${id}.` });
    restore();
    assert.equal((await app.http().get(`${NS}/events/${event.body.id}`).expect(200)).body.title, 'Relinked');
    await app.http().get(`${NS}/categories/${id}`).expect(200);
  });
});
