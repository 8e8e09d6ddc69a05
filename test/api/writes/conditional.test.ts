import assert from 'node:assert/strict';
import { createUsers, NS, testApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { expectError } from '../../helpers/assertions.js';
import type { Role } from '../../../src/auth/capabilities.js';
import { openTestDatabase } from '../../helpers/database.js';

/** docs/contract.md §10: strong ETags from record versions, and If-Match on single-record writes. */

type Kind = 'events' | 'venues' | 'organizers' | 'categories' | 'tags';

const BODIES: Record<Kind, Record<string, unknown>> = {
  events: { title: 'Conditional', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00', status: 'publish' },
  venues: { venue: 'Conditional hall', status: 'publish' },
  organizers: { organizer: 'Conditional org', status: 'publish' },
  categories: { name: 'Conditional category' },
  tags: { name: 'Conditional tag' },
};

const CHANGE: Record<Kind, (n: number) => Record<string, unknown>> = {
  events: (n) => ({ title: `Changed ${n}` }),
  venues: (n) => ({ venue: `Changed ${n}` }),
  organizers: (n) => ({ organizer: `Changed ${n}` }),
  categories: (n) => ({ description: `Changed ${n}` }),
  tags: (n) => ({ description: `Changed ${n}` }),
};

const STRONG = /^"[a-z]+-\d+-\d+\.[A-Za-z0-9_-]{22}"$/;

describe('conditional writes: ETag and If-Match (docs/contract.md §10)', () => {
  let app: TestApp;
  let users: Record<Role, TestUser>;
  const http = () => app.http();

  beforeEach(async () => {
    app = await testApp({ publicUrl: 'http://api.test' });
    users = await createUsers();
  });

  const create = async (kind: Kind, as: TestUser = users.administrator) => {
    const res = await http().post(`${NS}/${kind}`).set('Authorization', as.authorization).send(BODIES[kind]);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res;
  };

  for (const kind of ['events', 'venues', 'organizers', 'categories', 'tags'] as const) {
    describe(kind, () => {
      it('sends a strong ETag on GET (also when authenticated) and on every write answer; it changes with each write and If-None-Match still answers 304', async () => {
        const created = await create(kind);
        const url = `${NS}/${kind}/${created.body.id}`;
        assert.match(created.headers.etag, STRONG);
        const read = await http().get(url);
        assert.match(read.headers.etag, STRONG);
        const asAdmin = await http().get(url).set('Authorization', users.administrator.authorization);
        assert.match(asAdmin.headers.etag, STRONG);
        assert.equal((await http().get(url).set('If-None-Match', read.headers.etag)).status, 304);

        const updated = await http().patch(url).set('Authorization', users.administrator.authorization).send(CHANGE[kind](1));
        assert.equal(updated.status, 200);
        assert.match(updated.headers.etag, STRONG);
        assert.notEqual(updated.headers.etag, created.headers.etag);
        const reread = await http().get(url);
        assert.notEqual(reread.headers.etag, read.headers.etag);
        assert.equal((await http().get(url).set('If-None-Match', read.headers.etag)).status, 200);

        // The same content written again (ABA within one second) still changes the tag: it is the version's.
        const again = await http().patch(url).set('Authorization', users.administrator.authorization).send(CHANGE[kind](1));
        assert.equal(again.status, 200);
        assert.notEqual(again.headers.etag, updated.headers.etag);
      });

      it('writes with a matching If-Match (from a GET or from a write answer) and with *, and answers 412 rest_precondition_failed with the current ETag otherwise, changing nothing', async () => {
        const created = await create(kind);
        const url = `${NS}/${kind}/${created.body.id}`;
        const admin = users.administrator.authorization;
        const fromGet = (await http().get(url)).headers.etag;
        const first = await http().patch(url).set('Authorization', admin).set('If-Match', fromGet).send(CHANGE[kind](1));
        assert.equal(first.status, 200, JSON.stringify(first.body));
        const second = await http().put(url).set('Authorization', admin).set('If-Match', first.headers.etag).send(CHANGE[kind](2));
        assert.equal(second.status, 200, JSON.stringify(second.body));

        const stale = await http().post(url).set('Authorization', admin).set('If-Match', fromGet).send(CHANGE[kind](3));
        expectError(stale, 412, 'rest_precondition_failed');
        const current = await http().get(url).set('Authorization', admin);
        assert.equal(stale.headers.etag, current.headers.etag, 'the 412 carries the current ETag, as a GET would');
        assert.deepEqual(current.body, (await http().get(url).set('Authorization', admin)).body);
        const text = JSON.stringify(current.body);
        assert.ok(text.includes('Changed 2') && !text.includes('Changed 3'), 'nothing changed');

        expectError(await http().patch(url).set('Authorization', admin).set('If-Match', '"not-a-tag"').send(CHANGE[kind](4)), 412, 'rest_precondition_failed');
        expectError(await http().patch(url).set('Authorization', admin).set('If-Match', `W/${current.headers.etag}`).send(CHANGE[kind](4)), 412, 'rest_precondition_failed');
        const list = await http().patch(url).set('Authorization', admin).set('If-Match', `"x", ${current.headers.etag}`).send(CHANGE[kind](5));
        assert.equal(list.status, 200, 'any tag of a list may match');
        assert.equal((await http().patch(url).set('Authorization', admin).set('If-Match', '*').send(CHANGE[kind](6))).status, 200);

        const deleteStale = await http().delete(`${url}?force=true`).set('Authorization', admin).set('If-Match', current.headers.etag);
        expectError(deleteStale, 412, 'rest_precondition_failed');
        const latest = (await http().get(url).set('Authorization', admin)).headers.etag;
        const deleted = await http().delete(`${url}?force=true`).set('Authorization', admin).set('If-Match', latest);
        assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
        assert.match(deleted.headers.etag, STRONG);
        assert.equal((await http().get(url).set('Authorization', admin)).status, 404);
      });

      it('checks If-Match after 400, 404 and 401/403: only callers who may write learn the version', async () => {
        const created = await create(kind);
        const url = `${NS}/${kind}/${created.body.id}`;
        const stale = '"stale"';
        const badBody = kind === 'events' ? { start_date: 'not a date' } : kind === 'categories' || kind === 'tags' ? { name: '' } : { status: 'nonsense' };
        assert.equal((await http().patch(url).set('Authorization', users.administrator.authorization).set('If-Match', stale).send(badBody)).status, 400);
        const missing = await http().patch(`${NS}/${kind}/999999`).set('Authorization', users.administrator.authorization).set('If-Match', stale).send(CHANGE[kind](1));
        assert.equal(missing.status, 404);
        assert.equal((await http().patch(url).set('If-Match', stale).send(CHANGE[kind](1))).status, 401);
        const refused = await http().patch(url).set('Authorization', users.subscriber.authorization).set('If-Match', stale).send(CHANGE[kind](1));
        assert.equal(refused.status, 403);
        assert.equal(refused.headers.etag?.startsWith('"'), false, 'no record ETag on a refusal');
      });
    });
  }

  it('gives a masked protected event and the full one different ETags (different callers, different representations)', async () => {
    const created = await http()
      .post(`${NS}/events`)
      .set('Authorization', users.administrator.authorization)
      .send({ ...BODIES.events, password: 'secret', description: 'Hidden text' });
    assert.equal(created.status, 201);
    const url = `${NS}/events/${created.body.id}`;
    const full = await http().get(url).set('Authorization', users.administrator.authorization);
    const withPassword = await http().get(`${url}?password=secret`);
    assert.equal(full.status, 200);
    assert.equal(withPassword.status, 200);
    const list = await http().get(`${NS}/events?start_date=2030-01-01&end_date=2031-01-01`);
    assert.equal(list.body.events[0].description, '', 'masked in lists');
    // The same record and version, different representations: the version part is the same, the digest differs.
    const versionPart = (tag: string) => tag.split('.')[0];
    const fields = await http().get(`${url}?_fields=id,title`).set('Authorization', users.administrator.authorization);
    assert.equal(versionPart(fields.headers.etag), versionPart(full.headers.etag));
    assert.notEqual(fields.headers.etag, full.headers.etag);
    const other = await http().get(url).set('Authorization', users.editor.authorization);
    assert.equal(other.status, 200);
    // The venue an event embeds changes the event's representation, so its tag too.
    const venue = await create('venues');
    await http().post(url).set('Authorization', users.administrator.authorization).send({ venue: venue.body.id });
    const before = (await http().get(url).set('Authorization', users.administrator.authorization)).headers.etag;
    await http().post(`${NS}/venues/${venue.body.id}`).set('Authorization', users.administrator.authorization).send({ venue: 'Renamed hall' });
    const after = await http().get(url).set('Authorization', users.administrator.authorization).set('If-None-Match', before);
    assert.equal(after.status, 200, 'an embedded change is not answered 304');
    assert.equal(versionPart(after.headers.etag), versionPart(before));
  });

  it('matches a tag by its whole version part: the bare version, or the version and a digest, of this kind and record', async () => {
    const created = await create('events');
    const url = `${NS}/events/${created.body.id}`;
    const admin = users.administrator.authorization;
    const versionPart = (tag: string) => tag.replace(/^"|"$/g, '').split('.')[0];
    const patch = (ifMatch: string, n: number) => http().patch(url).set('Authorization', admin).set('If-Match', ifMatch).send(CHANGE.events(n));
    const bare = versionPart(created.headers.etag);
    const first = await patch(`"${bare}"`, 1);
    assert.equal(first.status, 200, 'the version part alone names the version');
    const current = versionPart(first.headers.etag);
    for (const wrong of [`"${current}0"`, `"${current}0.abc"`, `"${current}x"`, `"venue${current.slice('event'.length)}"`, `"${bare}"`]) {
      const refused = await patch(wrong, 2);
      expectError(refused, 412, 'rest_precondition_failed');
      assert.match(refused.body.message, /changed since the version If-Match names/);
    }
    assert.equal((await patch(`"${current}.anything"`, 3)).status, 200, 'any digest of the current version');
  });

  it('answers 412 on every single-record write route (by id and by slug, each method) to a stale If-Match', async () => {
    const admin = users.administrator.authorization;
    for (const kind of ['events', 'venues', 'organizers', 'categories', 'tags'] as const) {
      const created = await create(kind);
      const paths = [`${NS}/${kind}/${created.body.id}`];
      if (kind !== 'categories' && kind !== 'tags') paths.push(`${NS}/${kind}/by-slug/${created.body.slug}`);
      for (const url of paths) {
        for (const method of ['post', 'put', 'patch', 'delete'] as const) {
          const res = await http()
            [method](url)
            .set('Authorization', admin)
            .set('If-Match', '"stale-0-0"')
            .send(method === 'delete' ? undefined : CHANGE[kind](9));
          expectError(res, 412, 'rest_precondition_failed');
          assert.match(res.headers.etag, STRONG, `${method} ${url}`);
        }
      }
    }
  });

  it('answers a stale If-Match with 412 before checking the input against the stored record (an end before the stored start)', async () => {
    const created = await create('events');
    const url = `${NS}/events/${created.body.id}`;
    const stale = await http().patch(url).set('Authorization', users.administrator.authorization).set('If-Match', '"event-1-0"').send({ end_date: '2020-01-01 10:00:00' });
    expectError(stale, 412, 'rest_precondition_failed');
    const current = await http().patch(url).set('Authorization', users.administrator.authorization).set('If-Match', created.headers.etag).send({ end_date: '2020-01-01 10:00:00' });
    assert.equal(current.status, 400);
  });

  it('grows the stored version with every write, in the repositories (trash too)', async () => {
    const { db } = await openTestDatabase();
    const created = await create('events');
    const version = async () => Number((await db('posts').where('id', created.body.id).first('version')).version);
    assert.equal(await version(), 1);
    await http().post(`${NS}/events/${created.body.id}`).set('Authorization', users.administrator.authorization).send({});
    assert.equal(await version(), 2);
    await http().delete(`${NS}/events/${created.body.id}`).set('Authorization', users.administrator.authorization);
    assert.equal(await version(), 3);
  });

  it('lets exactly one of two concurrent PATCHes with the same If-Match through (repeated)', async function () {
    this.timeout(60_000);
    for (const kind of ['events', 'venues', 'categories'] as const) {
      const created = await create(kind);
      const url = `${NS}/${kind}/${created.body.id}`;
      for (let round = 0; round < 5; round++) {
        const tag = (await http().get(url).set('Authorization', users.administrator.authorization)).headers.etag;
        const answers = await Promise.all(
          [1, 2].map((n) =>
            http()
              .patch(url)
              .set('Authorization', users.administrator.authorization)
              .set('If-Match', tag)
              .send(CHANGE[kind](round * 10 + n)),
          ),
        );
        const statuses = answers.map((res) => res.status).sort();
        assert.deepEqual(statuses, [200, 412], `${kind} round ${round}: ${answers.map((res) => JSON.stringify(res.body)).join(' ')}`);
        const winner = answers.find((res) => res.status === 200)!;
        const loser = answers.find((res) => res.status === 412)!;
        const current = await http().get(url).set('Authorization', users.administrator.authorization);
        assert.equal(loser.headers.etag, current.headers.etag);
        assert.equal(winner.headers.etag.split('.')[0], current.headers.etag.split('.')[0]);
      }
    }
  });
});
