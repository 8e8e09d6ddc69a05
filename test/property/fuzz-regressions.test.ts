import { expectError } from '../helpers/assertions.js';
import { createUser, NS, testApp } from '../helpers/app.js';

/** The bugs the fuzz test found, each reproduced by its exact request, so they stay fixed. */
describe('fuzz test findings (regressions)', () => {
  // body-parser refuses a form body nested deeper than 32 bracket levels ("The input exceeded the depth").
  it('a form body nested deeper than 32 levels is a 400, not a 500', async () => {
    const { http } = await testApp();
    const editor = await createUser('editor');
    const res = await http()
      .post(`${NS}/events`)
      .set('Authorization', editor.authorization)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(`title${'[a]'.repeat(50)}=x`);
    expectError(res, 400, 'rest_invalid_param');
  });

  // A `page` whose OFFSET ((page - 1) × per_page) exceeds a signed 64-bit integer once failed in the database.
  it('a page past the 64-bit OFFSET range is 404 or 400, never 500, on every list', async () => {
    const { http } = await testApp();
    const lists = {
      events: 'event-archive-page-not-found',
      venues: 'venue-archive-page-not-found',
      organizers: 'organizer-archive-page-not-found',
      categories: 'term-archive-page-not-found',
      tags: 'term-archive-page-not-found',
    };
    for (const [collection, code] of Object.entries(lists)) {
      // The largest page the document allows (9007199254740991, docs: openapi/README.md "The OWASP
      // ruleset") is past every list; beyond it the number is refused before any query runs.
      expectError(await http().get(`${NS}/${collection}?page=9007199254740991&per_page=50`), 404, code);
      expectError(await http().get(`${NS}/${collection}?page=922337203685477581`), 400, 'rest_invalid_param');
      expectError(await http().get(`${NS}/${collection}?page=18446744073709552000`), 400, 'rest_invalid_param');
    }
  });

  // The validator coerces `1e400`, `-1e400` or `Infinity` to ±Infinity and accepts it as an integer;
  // MySQL then got a bare `Infinity` (500) and SQLite answered 200.
  it('an integer input given as 1e400 is a 400, not a 500 (MySQL) or 200 (SQLite)', async () => {
    const { http } = await testApp();
    for (const query of ['categories?exclude=-1e400', 'tags?include=1e400', 'events?include=-1e400', 'events?venue=Infinity', 'events?organizer=1e400']) {
      expectError(await http().get(`${NS}/${query}`), 400, 'rest_invalid_param');
    }
    const author = await createUser('author');
    const created = await http().post(`${NS}/organizers`).set('Authorization', author.authorization).send({ organizer: 'Host' });
    const res = await http()
      .post(`${NS}/organizers/${created.body.id}`)
      .set('Authorization', author.authorization)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('author=-1e400');
    expectError(res, 400, 'rest_invalid_param');
  });

  // A relative date phrase landing past the JavaScript date range (`now + 10000000 years`), in any date input.
  it('a date phrase past the representable range is a 400, not a 500', async () => {
    const { http } = await testApp();
    const editor = await createUser('editor');
    const far = 'now + 10000000 years';
    const create = await http().post(`${NS}/events`).set('Authorization', editor.authorization).send({ title: 'x', start_date: far, end_date: '2030-01-01 12:00:00' });
    expectError(create, 400, 'rest_invalid_param');
    expectError(await http().get(`${NS}/events`).query({ starts_after: far }), 400, 'rest_invalid_param');
    expectError(await http().post(`${NS}/venues`).set('Authorization', editor.authorization).send({ venue: 'v', date: far }), 400, 'rest_invalid_param');
  });
});
