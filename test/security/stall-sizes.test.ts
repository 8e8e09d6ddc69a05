import assert from 'node:assert/strict';
import { UserRepository } from '../../src/repositories/users.js';
import type { Role } from '../../src/auth/capabilities.js';
import { insertEvent } from '../helpers/event-rows.js';
import { send, startStallService, withoutStall, type Answer, type StallService } from './stall.js';

/**
 * Reproduction 5 of the issue (docs/limits.md "Text fields and reply sizes"): one author made the
 * lists, the records and the change feed answer 500 for everyone with three venues whose
 * descriptions were a million `<` each (4 MB once escaped) and an event embedding them. Text fields
 * are bounded on write (400 naming the field, nothing stored), and rows written before the limits,
 * straight into the database, are cut when read: every list, record and feed keeps answering, and
 * `/healthz` answers within its budget meanwhile.
 */
describe('stall: one author’s huge texts break no list, record or feed (reproduction 5)', function () {
  this.timeout(180_000);
  let stall: StallService;
  const API = '/wp-json/tribe/events/v1';
  let logins = 0;

  before(async () => {
    stall = await startStallService();
  });
  after(async () => {
    await stall?.close();
  });

  /** A user of that role (a new one per call: the test database may be emptied between tests). */
  async function user(role: Role): Promise<string> {
    const login = `sizes-${role}-${++logins}`;
    const secret = `${login}-secret-0123456789`;
    await new UserRepository(stall.db).add(login, role, secret);
    return `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}`;
  }

  const get = (path: string, authorization?: string) => send(stall.url, `${API}${path}`, { authorization });

  function expectOk(res: Answer, what: string): void {
    assert.equal(res.status, 200, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  }

  it('three venues whose descriptions are a million `<` each are refused, 400 naming `description`, and store nothing', async () => {
    const author = await user('author');
    const warm = await send(stall.url, `${API}/venues`, { authorization: author, body: { venue: 'Warm-up', status: 'publish' } });
    assert.equal(warm.status, 201, warm.text.slice(0, 300));
    const venuesBefore = Number((await get('/venues')).headers.get('x-wp-total'));
    const { result, slowestProbeMs } = await withoutStall(stall.url, async () => {
      const answers: Answer[] = [];
      for (let i = 0; i < 3; i++) {
        answers.push(await send(stall.url, `${API}/venues`, { authorization: author, body: { venue: `Huge ${i}`, status: 'publish', description: '<'.repeat(1_000_000) } }));
      }
      return answers;
    });
    console.log(`      slowest /healthz probe: ${Math.round(slowestProbeMs)} ms`);
    for (const res of result) {
      assert.equal(res.status, 400, res.text.slice(0, 300));
      assert.equal(res.json.code, 'rest_invalid_param');
      assert.ok('description' in res.json.data.params, JSON.stringify(res.json.data.params).slice(0, 300));
    }
    assert.equal(Number((await get('/venues')).headers.get('x-wp-total')), venuesBefore, 'nothing stored');
    expectOk(await get('/events'), 'GET /events');
  });

  it('rows of 4 MB written straight into the database: lists, the record (to an administrator too), the .ics feed and every position of /changes answer 200', async () => {
    const admin = await user('administrator');
    const venueIds: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await send(stall.url, `${API}/venues`, { authorization: admin, body: { venue: `Big ${i}` } });
      assert.equal(res.status, 201, res.text.slice(0, 300));
      venueIds.push(res.json.id as number);
    }
    await stall
      .db('posts')
      .whereIn('id', venueIds)
      .update({ description: '&lt;'.repeat(1_000_000) });
    const eventId = await insertEvent(stall.db, { title: 'Embeds them all', startUtc: '2027-05-01 10:00:00', endUtc: '2027-05-01 12:00:00', venueIds });
    await stall
      .db('posts')
      .where('id', eventId)
      .update({ description: '&lt;'.repeat(1_000_000) });
    // Warm-up: each route once (the validator compiles a route on its first use).
    for (const path of ['/events?per_page=1&search=nothing-matches', '/venues?search=nothing-matches', '/changes?types=tag', '/events.ics?search=nothing-matches']) await get(path);

    const { slowestProbeMs } = await withoutStall(stall.url, async () => {
      expectOk(await get('/events'), 'GET /events');
      expectOk(await get(`/events/${eventId}`), 'GET /events/{id}');
      expectOk(await get(`/events/${eventId}`, admin), 'GET /events/{id} as an administrator');
      expectOk(await get('/venues'), 'GET /venues');
      expectOk(await get('/events.ics'), 'GET /events.ics');
      let after = '';
      for (let page = 0; page < 50; page++) {
        const res = await get(`/changes${after ? `?after=${after}` : ''}`);
        expectOk(res, `GET /changes (page ${page + 1})`);
        after = res.json.next_cursor as string;
        if (!res.json.has_more) return;
      }
      assert.fail('the change feed did not reach its end');
    });
    console.log(`      slowest /healthz probe: ${Math.round(slowestProbeMs)} ms`);
  });
});
