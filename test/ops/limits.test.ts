import assert from 'node:assert/strict';
import { createUser, NS, testApp, type TestUser } from '../helpers/app.js';
import { expectError } from '../helpers/assertions.js';
import { openTestDatabase } from '../helpers/database.js';
import { eventBody } from '../helpers/events.js';

/** Limits that keep one request from costing the service without bound. */
describe('request limits', () => {
  let editor: TestUser;
  beforeEach(async () => {
    editor = await createUser('editor');
  });

  const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');

  it('refuses more than 100 items in a list parameter with 400 rest_invalid_param', async () => {
    const { http } = await testApp();
    for (const [path, name] of [
      ['/events', 'include'],
      ['/events', 'venue'],
      ['/events', 'organizer'],
      ['/events', 'categories'],
      ['/events', 'tags'],
      ['/categories', 'include'],
      ['/tags', 'exclude'],
    ]) {
      const res = await http()
        .get(`${NS}${path}`)
        .query({ [name]: ids(101) });
      const data = expectError(res, 400, 'rest_invalid_param');
      assert.deepEqual(Object.keys(data.params as object), [name], `${path} ${name}`);
      assert.match(JSON.stringify(data.params), /more than 100 items/);
      // 100 items pass the limit (unknown ids may still be refused for what they are).
      const hundred = await http()
        .get(`${NS}${path}`)
        .query({ [name]: ids(100), hide_empty: 0 });
      assert.doesNotMatch(JSON.stringify(hundred.body), /more than 100 items/, `${path} ${name} 100 items`);
    }
  });

  it('refuses more than 100 categories or organizers in an event body', async () => {
    const { http } = await testApp();
    const tooMany = Array.from({ length: 101 }, (_, i) => `Category ${i}`);
    const res = await http()
      .post(`${NS}/events`)
      .set('Authorization', editor.authorization)
      .send(eventBody({ categories: tooMany }));
    const data = expectError(res, 400, 'rest_invalid_param');
    assert.deepEqual(Object.keys(data.params as object), ['categories']);
    const organizers = await http()
      .post(`${NS}/events`)
      .set('Authorization', editor.authorization)
      .send(eventBody({ organizer: Array.from({ length: 101 }, (_, i) => i + 1) }));
    assert.deepEqual(Object.keys(expectError(organizers, 400, 'rest_invalid_param').params as object), ['organizer']);
  });

  it('refuses a search string longer than 200 characters', async () => {
    const { http } = await testApp();
    for (const path of ['/events', '/venues', '/organizers', '/categories', '/tags']) {
      const data = expectError(
        await http()
          .get(`${NS}${path}`)
          .query({ search: 'x'.repeat(201) }),
        400,
        'rest_invalid_param',
      );
      assert.deepEqual(Object.keys(data.params as object), ['search'], path);
      assert.notEqual(
        (
          await http()
            .get(`${NS}${path}`)
            .query({ search: 'x'.repeat(200) })
        ).status,
        400,
        path,
      );
    }
  });

  it('clamps per_page to 50', async () => {
    const { http } = await testApp();
    for (let i = 0; i < 52; i++)
      await http()
        .post(`${NS}/categories`)
        .set('Authorization', editor.authorization)
        .send({ name: `Category ${i}` })
        .expect(201);
    const res = await http().get(`${NS}/categories`).query({ per_page: 1000, hide_empty: 0 });
    assert.equal(res.status, 200);
    assert.equal(res.body.categories.length, 50);
    assert.equal(res.headers['x-wp-totalpages'], '2');
  });

  it('answers a body over BODY_LIMIT with 413 rest_request_too_large, JSON and form alike', async () => {
    const { http } = await testApp({ bodyLimit: '10kb' });
    const big = 'x'.repeat(11 * 1024);
    expectError(await http().post(`${NS}/events`).set('Authorization', editor.authorization).send({ title: big }), 413, 'rest_request_too_large');
    expectError(await http().post(`${NS}/events`).set('Authorization', editor.authorization).type('form').send(`title=${big}`), 413, 'rest_request_too_large');
  });

  it('answers 503 rest_request_timeout with Retry-After when a request outlives REQUEST_TIMEOUT, then serves again', async () => {
    const { http } = await testApp({ requestTimeoutSeconds: 0.3 });
    const { db } = await openTestDatabase();
    // Take every pooled connection, so the request waits for one as it would for a stuck database.
    const pool = (db.client as { pool: { max: number } }).pool;
    const client = db.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<void> };
    const held = await Promise.all(Array.from({ length: pool.max }, () => client.acquireConnection()));
    let res;
    try {
      res = await http().get(`${NS}/events`);
    } finally {
      await Promise.all(held.map((connection) => client.releaseConnection(connection)));
    }
    expectError(res, 503, 'rest_request_timeout');
    assert.equal(res.headers['retry-after'], '5');
    assert.equal((await http().get(`${NS}/events`)).status, 200);
  });
});
