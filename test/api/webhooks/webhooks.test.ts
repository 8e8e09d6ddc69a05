import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import type { Knex } from 'knex';
import type { Role } from '../../../src/auth/capabilities.js';
import { createLogger } from '../../../src/core/logger.js';
import { loadConfig } from '../../../src/core/config.js';
import { readDataVersion } from '../../../src/db/data-version.js';
import { createApp } from '../../../src/http/app.js';
import { encodeCursor } from '../../../src/records/change-feed.js';
import { Repositories } from '../../../src/repositories/registry.js';
import type { Resolver } from '../../../src/core/outbound.js';
import { sendPing } from '../../../src/webhooks/ping.js';
import { answerCheckingListener } from '../../contract/answers.js';
import { recordingListener } from '../../contract/coverage.js';
import { NS, createUser, createUsers, testApp, testConfig, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';

/**
 * The webhooks API (docs/webhooks.md): administrators manage webhooks; their writes touch neither
 * the data version nor the change feed. Delivery itself is tested in test/webhooks/.
 */

/** Names the URL checks may resolve without a network: one public, one private, one loopback. */
const NAMES: Record<string, string[]> = {
  'hooks.example.org': ['93.184.216.34'],
  'internal.example.org': ['10.1.2.3'],
  'loopback.example.org': ['127.0.0.1', '93.184.216.34'],
};
const resolveHost: Resolver = async (host) => {
  const addresses = NAMES[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses;
};

const NOW = new Date('2026-11-27T10:00:00.000Z');
const NOW_UTC = '2026-11-27 10:00:00';
const URL = 'https://hooks.example.org/calendar';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const KEYS = ['id', 'url', 'types', 'visibility', 'description', 'status', 'status_changed', 'status_reason', 'created', 'cursor', 'failed_attempts', 'next_attempt'];
const ALL_TYPES = ['event', 'venue', 'organizer', 'category', 'tag'];

type Http = () => ReturnType<typeof request>;
type Method = 'get' | 'post' | 'patch' | 'delete';

describe('webhooks API: /webhooks', () => {
  let http: Http;
  let db: Knex;
  let users: Record<Role, TestUser>;
  let clock: Date;

  before(async () => {
    ({ db } = await openTestDatabase());
    // An app of its own: a clock the tests move and a resolver without a network. Answers are
    // checked against the document and recorded for the coverage check, as testApp does.
    const app = createApp({ config: testConfig(), db, logger: createLogger('error'), now: () => clock, resolveHost });
    const listener = recordingListener(answerCheckingListener(app));
    http = () => request(listener);
  });

  beforeEach(async () => {
    clock = NOW;
    users = await createUsers();
  });

  /** A request as `as` (an administrator by default; null: anonymous). */
  const call = (method: Method, path: string, as: TestUser | null = users.administrator, body?: object) => {
    let req = http()[method](`${NS}${path}`);
    if (as) req = req.set('Authorization', as.authorization);
    return body === undefined ? req : req.send(body);
  };

  const create = async (body: object = { url: URL }) => {
    const res = await call('post', '/webhooks', users.administrator, body);
    expectStatus(res, 201);
    return res.body as Record<string, unknown> & { id: number; secret: string; cursor: string };
  };

  const row = async (id: number) => db('webhooks').where('id', id).first();

  /** The feed's cursor now, as a webhook created now starts from. */
  const feedCursor = async () => {
    const repositories = new Repositories(db);
    return encodeCursor(await repositories.changes.cursorKey(), await repositories.changes.position());
  };

  describe('create, read, change, delete', () => {
    it('creates a webhook and answers it with its secret, in the documented keys and order', async () => {
      const res = await call('post', '/webhooks', users.administrator, { url: URL, types: ['venue', 'event'], description: '  website\n<b>sync</b>  ' });
      expectStatus(res, 201);
      const { secret, ...record } = res.body;
      assert.match(secret, SECRET);
      assert.deepEqual(record, {
        id: record.id,
        url: URL,
        types: ['event', 'venue'],
        visibility: 'public',
        description: 'website sync',
        status: 'active',
        status_changed: NOW_UTC,
        status_reason: null,
        created: NOW_UTC,
        cursor: await feedCursor(),
        failed_attempts: 0,
        next_attempt: null,
      });
      assert.deepEqual(Object.keys(res.body), [...KEYS, 'secret']);
      assert.ok(res.headers.location.endsWith(`${NS}/webhooks/${record.id}`));
      assert.equal(res.headers['cache-control'], 'no-store');
      const stored = await row(record.id);
      assert.equal(stored.secret, secret);
      assert.equal(Number(stored.owner_id), users.administrator.id);
      assert.equal(stored.types, 'event,venue');

      const read = await call('get', `/webhooks/${record.id}`);
      expectStatus(read, 200);
      assert.deepEqual(read.body, record);
      assert.deepEqual(Object.keys(read.body), KEYS);
    });

    it('defaults to every type, public visibility and no description; owner visibility is kept', async () => {
      const webhook = await create({ url: URL });
      assert.deepEqual([webhook.types, webhook.visibility, webhook.description], [ALL_TYPES, 'public', '']);
      const owned = await create({ url: URL, visibility: 'owner', types: ['tag'] });
      assert.deepEqual([owned.types, owned.visibility], [['tag'], 'owner']);
      assert.equal((await row(owned.id)).visibility, 'owner');
    });

    it('lists every webhook, oldest first, without secrets', async () => {
      const first = await create({ url: URL, description: 'first' });
      clock = new Date(NOW.getTime() + 60_000);
      const second = await create({ url: 'https://93.184.216.34/hook', description: 'second' });
      const res = await call('get', '/webhooks');
      expectStatus(res, 200);
      assert.deepEqual(
        res.body.webhooks.map((w: { id: number; description: string; created: string }) => [w.id, w.description, w.created]),
        [
          [first.id, 'first', NOW_UTC],
          [second.id, 'second', '2026-11-27 10:01:00'],
        ],
      );
      for (const webhook of res.body.webhooks) assert.deepEqual(Object.keys(webhook), KEYS);
    });

    it('keeps at most 100 webhooks: past them a create is 409 rest_webhook_limit_reached and writes nothing', async () => {
      for (let i = 0; i < 97; i++) await create({ url: URL, description: `hook ${i}` });
      // The last places taken by creates sent at once: exactly as many succeed as there is room for.
      const racing = await Promise.all([1, 2, 3, 4, 5].map((i) => call('post', '/webhooks', users.administrator, { url: URL, description: `racing ${i}` })));
      assert.deepEqual(racing.map((res) => res.status).sort(), [201, 201, 201, 409, 409]);
      assert.equal(Number((await db('webhooks').count({ n: '*' }))[0].n), 100);
      const refused = await call('post', '/webhooks', users.administrator, { url: URL });
      expectError(refused, 409, 'rest_webhook_limit_reached');
      assert.equal(refused.body.data.limit, 100);
      assert.equal(Number((await db('webhooks').count({ n: '*' }))[0].n), 100);
      const listed = await call('get', '/webhooks');
      expectStatus(listed, 200);
      assert.equal(listed.body.webhooks.length, 100, 'all of them in one answer');
      // Deleting one makes room for one.
      expectStatus(await call('delete', `/webhooks/${listed.body.webhooks[0].id}`), 200);
      await create({ url: URL, description: 'in the freed place' });
      expectError(await call('post', '/webhooks', users.administrator, { url: URL }), 409, 'rest_webhook_limit_reached');
    });

    it('changes url, types, description and status; only what was sent', async () => {
      const webhook = await create({ url: URL, types: ['event'], description: 'before' });
      clock = new Date(NOW.getTime() + 5_000);
      const paused = await call('patch', `/webhooks/${webhook.id}`, users.administrator, { status: 'paused', types: ['tag', 'category'] });
      expectStatus(paused, 200);
      const { secret: _secret, ...record } = webhook;
      assert.deepEqual(paused.body, { ...record, types: ['category', 'tag'], status: 'paused', status_changed: '2026-11-27 10:00:05' });
      assert.equal('secret' in paused.body, false);

      const moved = await call('patch', `/webhooks/${webhook.id}`, users.administrator, { url: 'https://93.184.216.34/elsewhere', description: 'after' });
      expectStatus(moved, 200);
      assert.deepEqual([moved.body.url, moved.body.description, moved.body.status, moved.body.types], ['https://93.184.216.34/elsewhere', 'after', 'paused', ['category', 'tag']]);
      assert.deepEqual((await call('get', `/webhooks/${webhook.id}`)).body, moved.body);
      // The secret does not change with the rest.
      assert.equal((await row(webhook.id)).secret, webhook.secret);
    });

    it('deletes a webhook with its delivery log and answers it as it was', async () => {
      const webhook = await create();
      const other = await create();
      await insertDeliveries(webhook.id, 2);
      await insertDeliveries(other.id, 1);
      const { secret: _secret, ...record } = webhook;
      const res = await call('delete', `/webhooks/${webhook.id}`);
      expectStatus(res, 200);
      assert.deepEqual(res.body, { deleted: true, previous: record });
      expectError(await call('get', `/webhooks/${webhook.id}`), 404, 'rest_webhook_invalid_id');
      expectError(await call('delete', `/webhooks/${webhook.id}`), 404, 'rest_webhook_invalid_id');
      assert.equal((await db('webhook_deliveries').where('webhook_id', webhook.id)).length, 0);
      assert.equal((await db('webhook_deliveries').where('webhook_id', other.id)).length, 1);
      assert.deepEqual(
        (await call('get', '/webhooks')).body.webhooks.map((w: { id: number }) => w.id),
        [other.id],
      );
    });
  });

  describe('statuses', () => {
    it('shows failed attempts and the next attempt while failing', async () => {
      const webhook = await create();
      await db('webhooks')
        .where('id', webhook.id)
        .update({ status: 'failing', attempts: 2, next_attempt_ms: Date.parse('2026-11-27T10:02:05Z'), status_reason: 'HTTP 503' });
      const res = await call('get', `/webhooks/${webhook.id}`);
      assert.deepEqual([res.body.status, res.body.failed_attempts, res.body.next_attempt, res.body.status_reason], ['failing', 2, '2026-11-27 10:02:05', 'HTTP 503']);
    });

    it('re-enables a disabled webhook with a fresh retry schedule', async () => {
      const webhook = await create();
      await db('webhooks').where('id', webhook.id).update({ status: 'disabled', attempts: 11, next_attempt_ms: 123, status_reason: 'HTTP 500' });
      clock = new Date(NOW.getTime() + 3_600_000);
      const res = await call('patch', `/webhooks/${webhook.id}`, users.administrator, { status: 'active' });
      expectStatus(res, 200);
      assert.deepEqual([res.body.status, res.body.failed_attempts, res.body.status_reason, res.body.status_changed], ['active', 0, null, '2026-11-27 11:00:00']);
      const stored = await row(webhook.id);
      assert.deepEqual([Number(stored.attempts), Number(stored.next_attempt_ms)], [0, 0]);
    });

    it('answers 409 rest_webhook_expired to re-activating an expired webhook, which stays expired', async () => {
      const webhook = await create();
      await db('webhooks').where('id', webhook.id).update({ status: 'expired', status_reason: 'changes after its cursor were purged' });
      expectError(await call('patch', `/webhooks/${webhook.id}`, users.administrator, { status: 'active' }), 409, 'rest_webhook_expired');
      expectError(await call('patch', `/webhooks/${webhook.id}`, users.administrator, { status: 'paused' }), 409, 'rest_webhook_expired');
      assert.equal((await row(webhook.id)).status, 'expired');
      // Its note may still change.
      const noted = await call('patch', `/webhooks/${webhook.id}`, users.administrator, { description: 'replaced by a new one' });
      expectStatus(noted, 200);
      assert.deepEqual([noted.body.status, noted.body.description], ['expired', 'replaced by a new one']);
    });

    it('refuses every status but active and paused', async () => {
      const webhook = await create();
      for (const status of ['failing', 'disabled', 'expired', 'deleted', '']) {
        const data = expectError(await call('patch', `/webhooks/${webhook.id}`, users.administrator, { status }), 400, 'rest_invalid_param');
        assert.ok('status' in (data.params as object), status);
      }
      assert.equal((await row(webhook.id)).status, 'active');
    });
  });

  describe('secrets', () => {
    it('shows the secret only when created and rotated; a rotation keeps the old one for 24 hours', async () => {
      const webhook = await create();
      for (const [method, path] of [
        ['get', `/webhooks/${webhook.id}`],
        ['get', '/webhooks'],
        ['patch', `/webhooks/${webhook.id}`],
      ] as const) {
        const res = await call(method, path, users.administrator, method === 'patch' ? { description: 'x' } : undefined);
        expectStatus(res, 200);
        assert.ok(!JSON.stringify(res.body).includes(webhook.secret), `${method} ${path}`);
        assert.ok(!JSON.stringify(res.body).includes('"secret"'), `${method} ${path}`);
      }
      clock = new Date(NOW.getTime() + 1_000);
      const rotated = await call('post', `/webhooks/${webhook.id}/secret`);
      expectStatus(rotated, 200);
      assert.match(rotated.body.secret, SECRET);
      assert.notEqual(rotated.body.secret, webhook.secret);
      assert.deepEqual(Object.keys(rotated.body), [...KEYS, 'secret']);
      const stored = await row(webhook.id);
      assert.deepEqual(
        [stored.secret, stored.previous_secret, Number(stored.previous_secret_until_ms)],
        [rotated.body.secret, webhook.secret, NOW.getTime() + 1_000 + 24 * 3_600_000],
      );
      const again = await call('post', `/webhooks/${webhook.id}/secret`);
      assert.notEqual(again.body.secret, rotated.body.secret);
      assert.equal((await row(webhook.id)).previous_secret, rotated.body.secret);
      const deleted = await call('delete', `/webhooks/${webhook.id}`);
      assert.ok(!JSON.stringify(deleted.body).includes('"secret"'));
    });
  });

  describe('who may', () => {
    const routes = (id: number): Array<[Method, string, object?]> => [
      ['get', '/webhooks'],
      ['post', '/webhooks', { url: URL }],
      ['get', `/webhooks/${id}`],
      ['patch', `/webhooks/${id}`, { description: 'x' }],
      ['post', `/webhooks/${id}/secret`],
      ['get', `/webhooks/${id}/deliveries`],
      ['post', `/webhooks/${id}/ping`],
      ['delete', `/webhooks/${id}`],
    ];

    it('answers 401 to anonymous callers and 403 to every role but administrator, even for ids that name nothing', async () => {
      const webhook = await create();
      for (const id of [webhook.id, 999_999]) {
        for (const [method, path, body] of routes(id)) {
          const anonymous = await call(method, path, null, body);
          expectError(anonymous, 401, 'rest_forbidden');
          for (const role of ['editor', 'author', 'contributor', 'subscriber'] as const) {
            expectError(await call(method, path, users[role], body), 403, 'rest_forbidden');
          }
        }
      }
      assert.equal((await call('get', '/webhooks')).body.webhooks.length, 1);
      assert.equal((await row(webhook.id)).description, '');
    });

    it('serves administrators, and lists the methods only for them in Allow', async () => {
      const webhook = await create();
      for (const [method, path, body] of routes(webhook.id).filter(([, path]) => !path.endsWith('/ping'))) {
        const res = await call(method, path, users.administrator, body);
        assert.ok(res.status === 200 || res.status === 201, `${method} ${path}: ${res.status}`);
      }
      assert.equal((await call('get', '/webhooks')).headers.allow, 'GET, POST');
      // Nobody else may use any method: no Allow header (not an empty one).
      assert.equal((await call('get', '/webhooks', users.editor)).headers.allow, undefined);
      const anonymous = await call('get', '/webhooks', null);
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.allow, undefined);
    });
  });

  describe('refused input', () => {
    const refusedUrls: Array<[string, RegExp]> = [
      ['http://hooks.example.org/calendar', /https/],
      ['http://127.0.0.1/hook', /https/],
      ['https://127.0.0.1/hook', /127\.0\.0\.1 is a loopback address/],
      ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a linkLocal address/],
      ['https://[::1]/hook', /::1 is a loopback address/],
      ['https://10.0.0.1/hook', /10\.0\.0\.1 is a private address/],
      ['https://[fd00::1]/hook', /uniqueLocal/],
      ['https://internal.example.org/hook', /10\.1\.2\.3 is a private address/],
      ['https://loopback.example.org/hook', /127\.0\.0\.1 is a loopback address/],
      ['https://user:password@hooks.example.org/hook', /user name or password/],
      ['not a url', /absolute https URL/],
    ];

    it('refuses URLs the service may not send to, naming url with the reason, on create and on change', async () => {
      const webhook = await create();
      for (const [url, reason] of refusedUrls) {
        const created = expectError(await call('post', '/webhooks', users.administrator, { url }), 400, 'rest_invalid_param');
        assert.deepEqual(Object.keys(created.params as object), ['url'], url);
        assert.match((created.params as { url: string }).url, reason, url);
        const changed = expectError(await call('patch', `/webhooks/${webhook.id}`, users.administrator, { url }), 400, 'rest_invalid_param');
        assert.match((changed.params as { url: string }).url, reason, url);
      }
      assert.equal((await call('get', '/webhooks')).body.webhooks.length, 1);
      assert.equal((await row(webhook.id)).url, URL);
    });

    it('accepts a host name that does not resolve now (each delivery resolves and checks it again)', async () => {
      const created = await call('post', '/webhooks', users.administrator, { url: 'https://nowhere.example.org/hook' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.url, 'https://nowhere.example.org/hook');
    });

    it('lets WEBHOOK_ALLOWED_NETWORKS (the older name of OUTBOUND_ALLOWED_NETWORKS) exempt a network, and only there allows http', async () => {
      const app = createApp({
        config: { ...testConfig(), outbound: loadConfig({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' }).outbound },
        db,
        logger: createLogger('error'),
        resolveHost,
      });
      const local = request(recordingListener(answerCheckingListener(app)));
      const res = await local.post(`${NS}/webhooks`).set('Authorization', users.administrator.authorization).send({ url: 'http://127.0.0.1:9999/hook' });
      expectStatus(res, 201);
      const refused = await request(recordingListener(answerCheckingListener(app)))
        .post(`${NS}/webhooks`)
        .set('Authorization', users.administrator.authorization)
        .send({ url: 'http://93.184.216.34/hook' });
      expectError(refused, 400, 'rest_invalid_param');
    });

    it('refuses bad types, visibility, lengths and a missing url, naming the field', async () => {
      const cases: Array<[object, string]> = [
        [{ url: URL, types: ['bogus'] }, 'types'],
        [{ url: URL, types: [] }, 'types'],
        [{ url: URL, types: ['event', 'event'] }, 'types'],
        [{ url: URL, types: 'event,gig' }, 'types'],
        [{ url: URL, visibility: 'private' }, 'visibility'],
        [{ url: `https://hooks.example.org/${'a'.repeat(2049 - 'https://hooks.example.org/'.length)}` }, 'url'],
        [{ url: URL, description: 'a'.repeat(1001) }, 'description'],
        // Within the limit as sent, longer once cleaned (`<` kept as `&lt;`).
        [{ url: URL, description: `${'a'.repeat(996)} < b` }, 'description'],
      ];
      for (const [body, name] of cases) {
        const data = expectError(await call('post', '/webhooks', users.administrator, body), 400, 'rest_invalid_param');
        assert.deepEqual(Object.keys(data.params as object), [name], JSON.stringify(body).slice(0, 80));
      }
      const longest = await call('post', '/webhooks', users.administrator, {
        url: `https://hooks.example.org/${'a'.repeat(2048 - 'https://hooks.example.org/'.length)}`,
        description: 'a'.repeat(1000),
      });
      expectStatus(longest, 201);
      expectError(await call('post', '/webhooks', users.administrator, { types: ['event'] }), 400, 'rest_missing_callback_param');
      const webhook = longest.body as { id: number };
      const data = expectError(await call('patch', `/webhooks/${webhook.id}`, users.administrator, { types: ['event', 'bogus'] }), 400, 'rest_invalid_param');
      assert.deepEqual(Object.keys(data.params as object), ['types']);
      assert.equal((await call('get', '/webhooks')).body.webhooks.length, 1);
    });
  });

  describe('unknown ids', () => {
    it('answers 404 rest_webhook_invalid_id on every route', async () => {
      await create();
      for (const [method, path, body] of [
        ['get', '/webhooks/999999'],
        ['patch', '/webhooks/999999', { description: 'x' }],
        ['delete', '/webhooks/999999'],
        ['post', '/webhooks/999999/secret'],
        ['get', '/webhooks/999999/deliveries'],
        ['post', '/webhooks/999999/ping'],
      ] as Array<[Method, string, object?]>) {
        const data = expectError(await call(method, path, users.administrator, body), 404, 'rest_webhook_invalid_id');
        assert.equal(data.status, 404);
      }
    });
  });

  /** Inserts `count` attempts for a webhook, oldest first: changes of each type, then a ping. */
  async function insertDeliveries(webhookId: number, count: number): Promise<void> {
    const types = ['event.updated', 'venue.deleted', 'tag.updated', 'webhook.ping'];
    for (let i = 0; i < count; i++) {
      const type = types[i % types.length];
      const ping = type === 'webhook.ping';
      await db('webhook_deliveries').insert({
        webhook_id: webhookId,
        message_id: ping ? `msg_ping_${webhookId}_${i}` : `msg_${webhookId}_${i.toString(36)}_0`,
        cursor: ping ? null : `${i.toString(36)}.k3JwUQ0V7m3pLx2YkKpd1g`,
        position: ping ? null : i,
        type,
        attempt: 1 + (i % 3),
        status_code: i % 2 === 0 ? 200 : null,
        error: i % 2 === 0 ? null : 'connect ECONNREFUSED',
        duration_ms: 10 + i,
        attempted_utc: `2026-11-27 10:${String(i).padStart(2, '0')}:00`,
        attempted_ms: Date.parse('2026-11-27T10:00:00Z') + i * 60_000,
        next_attempt_utc: i % 2 === 0 ? null : `2026-11-27 11:${String(i).padStart(2, '0')}:00`,
      });
    }
  }

  describe('the delivery log', () => {
    it('pages attempts newest first, with totals and paging links', async () => {
      const webhook = await create();
      const other = await create();
      await insertDeliveries(webhook.id, 12);
      await insertDeliveries(other.id, 3);
      const ids = (await db('webhook_deliveries').where('webhook_id', webhook.id).orderBy('id', 'desc').select('id')).map((r) => Number(r.id));

      const first = await call('get', `/webhooks/${webhook.id}/deliveries?per_page=5`);
      expectStatus(first, 200);
      assert.deepEqual([first.headers['x-wp-total'], first.headers['x-wp-totalpages']], ['12', '3']);
      assert.deepEqual([first.body.total, first.body.total_pages], [12, 3]);
      assert.deepEqual(
        first.body.deliveries.map((d: { id: number }) => d.id),
        ids.slice(0, 5),
      );
      assert.match(first.headers.link, /rel="next"/);
      assert.ok(first.body.next_rest_url.endsWith(`/webhooks/${webhook.id}/deliveries/?page=2&per_page=5`));
      // The newest (i = 11): a ping that got no answer; then (i = 10) a tag's change, acknowledged.
      assert.deepEqual(first.body.deliveries.slice(0, 2), [
        {
          id: ids[0],
          message_id: `msg_ping_${webhook.id}_11`,
          cursor: null,
          type: null,
          action: null,
          message_type: 'webhook.ping',
          attempt: 3,
          status_code: null,
          error: 'connect ECONNREFUSED',
          duration_ms: 21,
          attempted: '2026-11-27 10:11:00',
          next_attempt: '2026-11-27 11:11:00',
        },
        {
          id: ids[1],
          message_id: `msg_${webhook.id}_a_0`,
          cursor: 'a.k3JwUQ0V7m3pLx2YkKpd1g',
          type: 'tag',
          action: 'updated',
          message_type: 'tag.updated',
          attempt: 2,
          status_code: 200,
          error: null,
          duration_ms: 20,
          attempted: '2026-11-27 10:10:00',
          next_attempt: null,
        },
      ]);
      // i = 9: a venue's deletion.
      assert.deepEqual([first.body.deliveries[2].type, first.body.deliveries[2].action], ['venue', 'deleted']);

      const last = await call('get', `/webhooks/${webhook.id}/deliveries?per_page=5&page=3`);
      expectStatus(last, 200);
      assert.deepEqual(
        last.body.deliveries.map((d: { id: number }) => d.id),
        ids.slice(10),
      );
      assert.equal(last.body.next_rest_url, undefined);
      assert.match(last.headers.link, /rel="prev"/);
      expectError(await call('get', `/webhooks/${webhook.id}/deliveries?per_page=5&page=4`), 404, 'webhook-deliveries-page-not-found');
      const data = expectError(await call('get', `/webhooks/${webhook.id}/deliveries?per_page=101`), 400, 'rest_invalid_param');
      assert.deepEqual(Object.keys(data.params as object), ['per_page']);
      const all = await call('get', `/webhooks/${webhook.id}/deliveries?per_page=100`);
      assert.equal(all.body.deliveries.length, 12);

      const empty = await create();
      const none = await call('get', `/webhooks/${empty.id}/deliveries`);
      expectStatus(none, 200);
      assert.deepEqual([none.body.total, none.body.total_pages, none.body.deliveries, none.headers['x-wp-total']], [0, 0, [], '0']);
    });
  });

  describe('ping', () => {
    // The sending is the delivery engine's (src/webhooks/ping.ts, tested in test/webhooks/); this is
    // the operation around it. Until the engine is in, ping.ts is a stub that throws.
    const built = !sendPing.toString().includes('not built yet');

    it('sends a signed ping now and answers the attempt as the log records it, without moving the cursor', async function () {
      if (!built) this.skip();
      const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
      const receiver = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          received.push({ headers: req.headers, body });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      try {
        // A receiver on this machine: OUTBOUND_ALLOWED_NETWORKS lets the service reach it, over http.
        const config = testConfig({ outbound: { ...testConfig().outbound, allowedNetworks: ['127.0.0.0/8'] } });
        const local = () => request(recordingListener(answerCheckingListener(createApp({ config, db, logger: createLogger('error'), resolveHost }))));
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
        const created = await local().post(`${NS}/webhooks`).set('Authorization', users.administrator.authorization).send({ url });
        expectStatus(created, 201);
        const res = await local().post(`${NS}/webhooks/${created.body.id}/ping`).set('Authorization', users.administrator.authorization);
        expectStatus(res, 200);
        assert.deepEqual(
          [res.body.message_type, res.body.type, res.body.action, res.body.cursor, res.body.attempt, res.body.status_code, res.body.error],
          ['webhook.ping', null, null, null, 1, 204, null],
        );
        assert.equal(received.length, 1);
        assert.equal(received[0].headers['webhook-id'], res.body.message_id);
        new Webhook(created.body.secret).verify(received[0].body, received[0].headers as Record<string, string>);
        const log = await call('get', `/webhooks/${created.body.id}/deliveries`);
        assert.deepEqual(log.body.deliveries, [res.body]);
        assert.equal((await call('get', `/webhooks/${created.body.id}`)).body.cursor, created.body.cursor);
      } finally {
        await new Promise((resolve) => receiver.close(resolve));
      }
    });
  });

  describe('outside the calendar', () => {
    it('starts a new webhook at the cursor a list gave right before', async () => {
      // Some changes first, so that the position is not the feed's start.
      for (const name of ['One', 'Two']) expectStatus(await call('post', '/tags', users.editor, { name }), 201);
      const listed = await call('get', '/tags?hide_empty=false');
      const webhook = await create();
      assert.equal(webhook.cursor, listed.headers['x-tec-change-cursor']);
      assert.equal(webhook.cursor, await feedCursor());
      // The feed after it holds nothing yet, and the next change follows it.
      assert.deepEqual((await call('get', `/changes?after=${webhook.cursor}`, null)).body.changes, []);
      expectStatus(await call('post', '/tags', users.editor, { name: 'Three' }), 201);
      const after = await call('get', `/changes?after=${webhook.cursor}`, null);
      assert.deepEqual(
        after.body.changes.map((c: { type: string; record: { name: string } }) => [c.type, c.record.name]),
        [['tag', 'Three']],
      );
    });

    it('writes neither the data version nor the change feed', async () => {
      expectStatus(await call('post', '/tags', users.editor, { name: 'Before' }), 201);
      const cursor = await feedCursor();
      const version = await readDataVersion(db);
      const webhook = await create();
      expectStatus(await call('patch', `/webhooks/${webhook.id}`, users.administrator, { status: 'paused', description: 'x', url: 'https://93.184.216.34/' }), 200);
      expectStatus(await call('post', `/webhooks/${webhook.id}/secret`), 200);
      expectStatus(await call('delete', `/webhooks/${webhook.id}`), 200);
      assert.equal(await readDataVersion(db), version);
      assert.equal(await feedCursor(), cursor);
      const feed = await call('get', `/changes?after=${cursor}`, users.administrator);
      expectStatus(feed, 200);
      assert.deepEqual(feed.body.changes, []);
    });
  });
});

/** The outbound rule through POST /webhooks (docs/webhooks.md "Safety"): forms a parser reads unlike the network. */
describe('POST /webhooks refuses every special-purpose address (the outbound rule)', () => {
  it('refuses IPv4-compatible, NAT64, 6to4 and Teredo forms of forbidden addresses, and documentation ranges', async () => {
    const { http: api } = await testApp();
    const admin = await createUser('administrator');
    for (const url of [
      'https://[::127.0.0.1]/hook',
      'https://[::169.254.169.254]/hook',
      'https://[::a00:1]/hook',
      'https://[::2]/hook',
      'https://[64:ff9b::7f00:1]/hook',
      'https://[64:ff9b:1::808:808]/hook',
      'https://[2002:a9fe:a9fe::1]/hook',
      'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
      'https://[2001:db8::1]/hook',
      'https://192.0.2.1/hook',
      'https://198.18.0.1/hook',
      'https://0x7f.1/hook',
    ]) {
      const data = expectError(await api().post(`${NS}/webhooks`).set('Authorization', admin.authorization).send({ url }), 400, 'rest_invalid_param');
      assert.match(String((data.params as Record<string, string>).url), /may not be reached/, url);
    }
  });
});
