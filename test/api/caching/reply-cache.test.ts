import assert from 'node:assert/strict';
import { testApp, NS, createUsers } from '../../helpers/app.js';
import { replyKey } from '../../../src/operations/shared/replies.js';
import { readerOf } from '../../../src/policies/posts.js';
import type { Urls } from '../../../src/core/urls.js';
import type { User } from '../../../src/auth/capabilities.js';
import { expectStatus } from '../../helpers/assertions.js';

/**
 * Replies to reads and list totals are cached until the next committed write (operations/shared/replies.ts,
 * db/versioned-cache.ts). Every read below is made twice before a write, so a cached reply is
 * in place (a fixed public URL: without one, each supertest call has its own port, so its own
 * links and key); the read after each write must show the write. The suite runs with the cache on
 * and with REPLY_CACHE=off; the tests that look at the cache itself set it.
 */
describe('the reply cache follows every write', function () {
  // Each test makes dozens of requests; on MariaDB on a busy machine they take longer than the default.
  this.timeout(90_000);
  it('for categories and tags: rename, re-parent, delete', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const { editor } = await createUsers();
    const as = <T extends { set(name: string, value: string): T }>(req: T) => req.set('Authorization', editor.authorization);
    const read = async (path: string) => {
      await http().get(path);
      return (await http().get(path)).body;
    };
    const parent = (await as(http().post(`${NS}/categories`)).send({ name: 'Parent' })).body.id as number;
    const child = (await as(http().post(`${NS}/categories`)).send({ name: 'Child' })).body.id as number;
    assert.equal((await read(`${NS}/categories/${child}`)).name, 'Child');
    assert.deepEqual(
      (await read(`${NS}/categories?hide_empty=false`)).categories.map((c: { name: string }) => c.name),
      ['Child', 'Parent'],
    );
    expectStatus(await as(http().post(`${NS}/categories/${child}`)).send({ name: 'Renamed', parent }), 200);
    assert.equal((await read(`${NS}/categories/${child}`)).name, 'Renamed');
    assert.equal((await read(`${NS}/categories/${child}`)).parent, parent);
    assert.deepEqual(
      (await read(`${NS}/categories?hide_empty=false`)).categories.map((c: { name: string }) => c.name),
      ['Parent', 'Renamed'],
    );
    expectStatus(await as(http().delete(`${NS}/categories/${parent}?force=true`)), 200);
    assert.equal((await read(`${NS}/categories/${child}`)).parent, 0);
    assert.equal((await read(`${NS}/categories?hide_empty=false`)).total, 1);
    const tag = (await as(http().post(`${NS}/tags`)).send({ name: 'Loud' })).body.id as number;
    assert.equal((await read(`${NS}/tags/${tag}`)).description, '');
    expectStatus(await as(http().post(`${NS}/tags/${tag}`)).send({ description: 'Very loud' }), 200);
    assert.equal((await read(`${NS}/tags/${tag}`)).description, 'Very loud');
  });

  it('for venues and organizers: update, trash, and the events that embed them', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const { editor } = await createUsers();
    const as = <T extends { set(name: string, value: string): T }>(req: T) => req.set('Authorization', editor.authorization);
    const read = async (path: string) => {
      await http().get(path);
      return http().get(path);
    };
    const venue = (await as(http().post(`${NS}/venues`)).send({ venue: 'Hall', city: 'Springfield' })).body.id as number;
    const organizer = (await as(http().post(`${NS}/organizers`)).send({ organizer: 'Org', phone: '555' })).body.id as number;
    const event = (await as(http().post(`${NS}/events`)).send({ title: 'Gig', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00', venue, organizer: [organizer] }))
      .body.id as number;
    assert.equal((await read(`${NS}/venues/${venue}`)).body.city, 'Springfield');
    assert.equal((await read(`${NS}/venues`)).body.total, 1);
    assert.equal((await read(`${NS}/events/${event}`)).body.organizer[0].phone, '555');
    expectStatus(await as(http().post(`${NS}/venues/${venue}`)).send({ city: 'Shelbyville' }), 200);
    expectStatus(await as(http().post(`${NS}/organizers/${organizer}`)).send({ phone: '556' }), 200);
    assert.equal((await read(`${NS}/venues/${venue}`)).body.city, 'Shelbyville');
    assert.equal((await read(`${NS}/venues`)).body.venues[0].city, 'Shelbyville');
    assert.equal((await read(`${NS}/events/${event}`)).body.organizer[0].phone, '556');
    assert.equal((await read(`${NS}/events?start_date=2030-01-01&end_date=2030-12-31`)).body.events[0].venue.city, 'Shelbyville');
    expectStatus(await as(http().delete(`${NS}/venues/${venue}`)), 200);
    assert.equal((await read(`${NS}/venues/${venue}`)).status, 403, 'a trashed venue is no longer available to anonymous callers');
    assert.equal((await read(`${NS}/venues`)).body.total, 0);
    assert.deepEqual((await read(`${NS}/events/${event}`)).body.venue, []);
  });

  it('apart for each caller: a draft never leaks through a reply cached for an editor, nor is hidden by one cached for the public', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test', replyCache: true });
    const { editor, subscriber } = await createUsers();
    const created = await http()
      .post(`${NS}/events`)
      .set('Authorization', editor.authorization)
      .send({ title: 'Secret', status: 'draft', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00' });
    const path = `${NS}/events?start_date=2030-01-01&end_date=2030-12-31`;
    assert.equal((await http().get(path).set('Authorization', editor.authorization)).body.total, 1);
    assert.equal((await http().get(`${NS}/events/${created.body.id}`).set('Authorization', editor.authorization)).status, 200);
    const anonymous = await http().get(path);
    assert.equal(anonymous.status, 200);
    assert.equal(anonymous.body.total, 0);
    assert.equal((await http().get(path).set('Authorization', subscriber.authorization)).body.total, 0);
    assert.equal((await http().get(`${NS}/events/${created.body.id}`)).status, 403);
    // The other way round: the public's cached reply is not the editor's.
    const other = `${NS}/events?start_date=2030-05-01&end_date=2030-05-31`;
    assert.equal((await http().get(other)).body.total, 0);
    assert.equal((await http().get(other).set('Authorization', editor.authorization)).body.total, 1);
  });

  it('keys each reply by the reader: the same request by two readers gives two keys', () => {
    const request = { operationId: 'listEvents' as const, urls: { restRoot: 'http://api.test/wp-json/', site: 'http://api.test' } as Urls };
    const keys = [undefined, subscriberUser(1), subscriberUser(2), editorUser(3)].map((user) => replyKey(readerOf(user), request, ['same']));
    assert.equal(new Set(keys).size, keys.length);
  });

  it('runs every stage of a single read that sends a password, whose attempts are counted', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test', replyCache: true, passwordFailureLimit: 2 });
    const { editor } = await createUsers();
    const created = await http()
      .post(`${NS}/events`)
      .set('Authorization', editor.authorization)
      .send({ title: 'Guarded', password: 'open-sesame', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00' });
    const path = `${NS}/events/${created.body.id}`;
    expectStatus(await http().get(`${path}?password=open-sesame`), 200);
    for (let i = 0; i < 2; i++) await http().get(`${path}?password=wrong`);
    // Locked out: the right password too, although its reply was built a moment ago.
    expectStatus(await http().get(`${path}?password=open-sesame`), 429);
  });

  it('are sent byte for byte as res.json sends them when responses are not validated (production), and the same with the cache off', async () => {
    const validated = await testApp({ publicUrl: 'http://api.test' });
    const production = await testApp({ publicUrl: 'http://api.test', validateResponses: false, replyCache: true });
    // The same reads with the cache off (REPLY_CACHE=off) answer the same bytes.
    const uncached = await testApp({ publicUrl: 'http://api.test', validateResponses: false, replyCache: false });
    const { editor } = await createUsers();
    const created = await validated
      .http()
      .post(`${NS}/events`)
      .set('Authorization', editor.authorization)
      .send({ title: 'Bytes — café 😀', description: 'Ünïcode “quoted”', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00' });
    const id = created.body.id as number;
    // Cached replies keep only their UTF-8 bytes (operations/shared/replies.ts): JSON, text (iCalendar) and
    // JSON-LD replies, and the body decoded back for `_fields`, are the same as when first built.
    for (const path of [
      `${NS}/events/${id}`,
      `${NS}/events/${id}?_fields=id,title`,
      `${NS}/events?start_date=2030-01-01&end_date=2030-12-31`,
      `${NS}/events?start_date=2030-01-01&end_date=2030-12-31&_fields=title`,
      `${NS}/events.ics?start_date=2030-01-01&end_date=2030-12-31`,
      `${NS}/events/${id}.ics`,
      `${NS}/events.jsonld?start_date=2030-01-01&end_date=2030-12-31`,
      `${NS}/categories`,
    ]) {
      const expected = await validated.http().get(path);
      for (const res of [await production.http().get(path), await production.http().get(path), await uncached.http().get(path)]) {
        assert.equal(res.status, expected.status);
        assert.equal(res.text, expected.text, path);
        assert.equal(res.headers['content-type'], expected.headers['content-type']);
        assert.equal(res.headers.etag, expected.headers.etag);
      }
    }
  });
});

function subscriberUser(id: number): User {
  return { id, login: `subscriber${id}`, role: 'subscriber' };
}

function editorUser(id: number): User {
  return { id, login: `editor${id}`, role: 'editor' };
}
