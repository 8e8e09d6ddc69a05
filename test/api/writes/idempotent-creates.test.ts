import assert from 'node:assert/strict';
import { createUser, createUsers, NS, testApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { expectError } from '../../helpers/assertions.js';
import type { Role } from '../../../src/auth/capabilities.js';
import { openTestDatabase } from '../../helpers/database.js';
import { IdempotencyRepository } from '../../../src/repositories/idempotency.js';

/** docs/contract.md §10: Idempotency-Key on creates. */

type Kind = 'events' | 'venues' | 'organizers' | 'categories' | 'tags';

const BODIES: Record<Kind, Record<string, unknown>> = {
  events: { title: 'Once only', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00', status: 'publish' },
  venues: { venue: 'Once hall', status: 'publish' },
  organizers: { organizer: 'Once org', status: 'publish' },
  categories: { name: 'Once category' },
  tags: { name: 'Once tag' },
};

const TABLE: Record<Kind, [table: string, where: Record<string, string>]> = {
  events: ['posts', { type: 'event' }],
  venues: ['posts', { type: 'venue' }],
  organizers: ['posts', { type: 'organizer' }],
  categories: ['terms', { taxonomy: 'tribe_events_cat' }],
  tags: ['terms', { taxonomy: 'post_tag' }],
};

const HOUR = 60 * 60 * 1000;

describe('idempotent creates: Idempotency-Key (docs/contract.md §10)', () => {
  let app: TestApp;
  let users: Record<Role, TestUser>;
  let clock: number;
  const http = () => app.http();

  beforeEach(async () => {
    clock = Date.parse('2026-11-23T12:00:00Z');
    app = await testApp({ publicUrl: 'http://api.test' }, () => new Date(clock));
    users = await createUsers();
  });

  const post = (kind: Kind, key: string | undefined, body: Record<string, unknown> = BODIES[kind], as: TestUser = users.administrator) => {
    const req = http().post(`${NS}/${kind}`).set('Authorization', as.authorization);
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(body);
  };

  const count = async (kind: Kind) => {
    const { db } = await openTestDatabase();
    const [table, where] = TABLE[kind];
    const [{ n }] = await db(table).where(where).count({ n: '*' });
    return Number(n);
  };

  for (const kind of ['events', 'venues', 'organizers', 'categories', 'tags'] as const) {
    describe(kind, () => {
      it('replays the first answer (status, body, Location, ETag) with Idempotent-Replayed: true, and creates once', async () => {
        const first = await post(kind, 'key-1');
        assert.equal(first.status, 201, JSON.stringify(first.body));
        assert.equal(first.headers['idempotent-replayed'], undefined);
        // The same body with its keys in another order is the same request.
        const reordered = Object.fromEntries(Object.entries(BODIES[kind]).reverse());
        const again = await post(kind, 'key-1', reordered);
        assert.equal(again.status, 201);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.deepEqual(again.body, first.body);
        assert.equal(again.headers.location, first.headers.location);
        assert.equal(again.headers.etag, first.headers.etag);
        assert.equal(await count(kind), 1);
      });

      it('answers 422 rest_idempotency_key_reused to the same key with another body, creating nothing', async () => {
        assert.equal((await post(kind, 'key-2')).status, 201);
        const other = { ...BODIES[kind], description: 'another body' };
        expectError(await post(kind, 'key-2', other), 422, 'rest_idempotency_key_reused');
        assert.equal(await count(kind), 1);
      });

      it('runs 20 concurrent creates with one key once: one record, identical answers (or 409 for those that overlapped)', async function () {
        this.timeout(60_000);
        const answers = await Promise.all(Array.from({ length: 20 }, () => post(kind, `burst-${kind}`)));
        const created = answers.filter((res) => res.status === 201);
        const inUse = answers.filter((res) => res.status === 409);
        assert.equal(created.length + inUse.length, 20, answers.map((res) => `${res.status} ${JSON.stringify(res.body)}`).join('\n'));
        assert.ok(created.length >= 1);
        for (const res of created) {
          assert.deepEqual(res.body, created[0].body);
          assert.equal(res.headers.location, created[0].headers.location);
          assert.equal(res.headers.etag, created[0].headers.etag);
        }
        assert.equal(created.filter((res) => res.headers['idempotent-replayed'] === undefined).length, 1, 'one first answer');
        for (const res of inUse) expectError(res, 409, 'rest_idempotency_key_in_use');
        assert.equal(await count(kind), 1);
        // Once finished, every retry is a replay.
        const retry = await post(kind, `burst-${kind}`);
        assert.equal(retry.status, 201);
        assert.deepEqual(retry.body, created[0].body);
      });
    });
  }

  it('refuses keys that are not 1 to 255 visible ASCII characters with 400 rest_invalid_param naming Idempotency-Key', async () => {
    for (const key of ['', ' ', 'with space', 'x'.repeat(256), 'tab\tkey', 'é']) {
      const res = await http()
        .post(`${NS}/tags`)
        .set('Authorization', users.administrator.authorization)
        .set('Idempotency-Key', Buffer.from(key, 'latin1').toString('latin1'))
        .send(BODIES.tags);
      const error = expectError(res, 400, 'rest_invalid_param');
      assert.ok(JSON.stringify(error).includes('Idempotency-Key'), JSON.stringify(error));
    }
    assert.equal(await count('tags'), 0);
    assert.equal((await post('tags', 'x'.repeat(255))).status, 201);
    assert.equal((await post('categories', '!~"{}')).status, 201);
  });

  it('leaves the key to the right: an anonymous create with a key is 401, a key on a non-create changes nothing', async () => {
    const anonymous = await http().post(`${NS}/tags`).set('Idempotency-Key', 'anon').send(BODIES.tags);
    expectError(anonymous, 401, 'rest_forbidden');
    const created = await post('tags', undefined, { name: 'Keyed update' });
    const url = `${NS}/tags/${created.body.id}`;
    for (const n of [1, 2]) {
      const res = await http()
        .patch(url)
        .set('Authorization', users.administrator.authorization)
        .set('Idempotency-Key', 'update')
        .send({ description: `Change ${n}` });
      assert.equal(res.status, 200);
      assert.equal(res.headers['idempotent-replayed'], undefined);
      assert.equal(res.body.description, `Change ${n}`, 'an update is never replayed');
    }
  });

  it('takes a body with the same fields in another order as the same request', async () => {
    const first = await post('venues', 'ordered', { venue: 'Ordered hall', city: 'Lyon', status: 'publish' });
    const again = await post('venues', 'ordered', { status: 'publish', city: 'Lyon', venue: 'Ordered hall' });
    assert.equal(first.status, 201);
    assert.equal(again.status, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body.id, first.body.id);
    const reused = await post('venues', 'ordered', { venue: 'Ordered hall', city: 'Lyon', status: 'draft' });
    expectError(reused, 422, 'rest_idempotency_key_reused');
    assert.match(reused.body.message, /Idempotency-Key was used for another request/);
  });

  it('scopes keys to the user: another user with the same key creates its own record', async () => {
    const other = await createUser('editor', 'other-editor');
    const mine = await post('categories', 'shared', { name: 'Mine' });
    const theirs = await post('categories', 'shared', { name: 'Theirs' }, other);
    assert.equal(mine.status, 201);
    assert.equal(theirs.status, 201);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.body.id, mine.body.id);
  });

  it('keys expire after 24 hours: the key then names a new request; expired keys are cleaned up', async () => {
    const first = await post('tags', 'daily', { name: 'Day one' });
    assert.equal(first.status, 201);
    clock += 24 * HOUR - 1;
    assert.equal((await post('tags', 'daily', { name: 'Day one' })).headers['idempotent-replayed'], 'true');
    clock += 1;
    const next = await post('tags', 'daily', { name: 'Day two' });
    assert.equal(next.status, 201, JSON.stringify(next.body));
    assert.equal(next.headers['idempotent-replayed'], undefined);
    assert.notEqual(next.body.id, first.body.id);

    const { db } = await openTestDatabase();
    await post('tags', 'other-key', { name: 'Other' });
    clock += 25 * HOUR;
    // The bounded clean-up deletes what has expired, and only that.
    const repo = new IdempotencyRepository(db);
    await post('tags', 'fresh', { name: 'Fresh' });
    await repo.purgeExpired(clock, 100);
    assert.deepEqual(await db('idempotency_keys').orderBy('idempotency_key').pluck('idempotency_key'), ['fresh']);
  });

  it('stores no error answer: the key is released and may be sent again with a corrected body', async () => {
    const bad = await post('events', 'fix-me', { title: 'No dates' });
    assert.equal(bad.status, 400);
    const fixed = await post('events', 'fix-me');
    assert.equal(fixed.status, 201, JSON.stringify(fixed.body));
    assert.equal(fixed.headers['idempotent-replayed'], undefined);
    const refused = await post('tags', 'no-right', BODIES.tags, users.subscriber);
    assert.equal(refused.status, 403);
    const { db } = await openTestDatabase();
    assert.equal(await db('idempotency_keys').where('idempotency_key', 'no-right').first(), undefined);
  });

  it('releases only its own key after an error answer: another key of the same user still replays', async () => {
    const kept = await post('tags', 'kept', { name: 'Kept' });
    assert.equal(kept.status, 201);
    assert.equal((await post('events', 'failing', { title: 'No dates' })).status, 400);
    const again = await post('tags', 'kept', { name: 'Kept' });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body.id, kept.body.id);
  });

  it('answers 409 rest_idempotency_key_in_use while the first request is running, and takes over a claim abandoned past its lease', async () => {
    const { db } = await openTestDatabase();
    const repo = new IdempotencyRepository(db);
    const fingerprintOf = async () => {
      // A real request's fingerprint: create once under another key and read it back.
      await post('tags', 'probe', BODIES.tags);
      const row = await db('idempotency_keys').where('idempotency_key', 'probe').first();
      await db('idempotency_keys').delete();
      await db('terms').delete();
      return String(row.fingerprint);
    };
    const fingerprint = await fingerprintOf();
    const held = await repo.claim(users.administrator.id, 'running', fingerprint, clock, clock + 24 * HOUR);
    assert.ok(held);
    const busy = await post('tags', 'running');
    expectError(busy, 409, 'rest_idempotency_key_in_use');
    assert.match(busy.body.message, /Idempotency-Key is still being processed/);
    assert.equal(busy.headers['retry-after'], '1');
    assert.equal(await count('tags'), 0);
    // Every create answers so (the fingerprint is read from the row, so the bodies match).
    for (const kind of ['events', 'venues', 'organizers', 'categories'] as const) {
      await post(kind, `probe-${kind}`);
      const row = await db('idempotency_keys').where('idempotency_key', `probe-${kind}`).first();
      await db('idempotency_keys')
        .where('id', row.id)
        .update({ state: 'running', status: null, headers: null, body: null, idempotency_key: `running-${kind}` });
      expectError(await post(kind, `running-${kind}`), 409, 'rest_idempotency_key_in_use');
    }
    // The process that held it died: after the lease (request timeout + a minute) the key is taken over.
    const lease = (30 + 60) * 1000;
    clock += lease - 1;
    expectError(await post('tags', 'running'), 409, 'rest_idempotency_key_in_use');
    clock += 1;
    const taken = await post('tags', 'running');
    assert.equal(taken.status, 201, JSON.stringify(taken.body));
    assert.equal(await count('tags'), 1);
  });
});
