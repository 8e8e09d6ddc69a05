import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import { listOperations, loadDocument, type OperationInfo } from '../../../src/openapi/document.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createUser, NS, testApp, testConfig, type TestUser } from '../../helpers/app.js';
import { openTestDatabase } from '../../helpers/database.js';
import { SERVICE_WIDE_RESPONSES } from '../../contract/coverage.js';

/**
 * The documented error statuses of every operation, each exercised through HTTP. The other API
 * tests cover the behaviour in depth; this file makes sure that no (operation, status) pair of the
 * document is left without a test (the contract coverage check in test/contract/coverage.ts fails
 * the run otherwise). The scenarios are derived from the document, so a new operation is covered
 * as soon as it is documented.
 */

type Http = Awaited<ReturnType<typeof testApp>>['http'];
type Kind = 'events' | 'venues' | 'organizers' | 'categories' | 'tags';

const operations = listOperations(loadDocument());

/** What a record of each kind needs to be created, as an administrator. */
const CREATE_BODIES: Record<Kind, (status: string) => Record<string, unknown>> = {
  events: (status) => ({ title: 'Gap check', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00', status }),
  venues: (status) => ({ venue: 'Gap Hall', status }),
  organizers: (status) => ({ organizer: 'Gap Crew', status }),
  categories: () => ({ name: 'Gap category' }),
  tags: () => ({ name: 'Gap tag' }),
};

/** A body the validator rejects for each kind: an unknown status, an empty term name. */
const INVALID_BODIES: Record<Kind, Record<string, unknown>> = {
  events: { status: 'bogus' },
  venues: { status: 'bogus' },
  organizers: { status: 'bogus' },
  categories: { name: '' },
  tags: { name: '' },
};

function kindOf(op: OperationInfo): Kind | undefined {
  // `/events.ics`, `/events/{id}.ics` and `/events.jsonld` are the events' feeds (docs/contract.md §11, §12).
  const first = op.path.split('/')[1].replace(/\.(ics|jsonld)$/, '');
  return (Object.keys(CREATE_BODIES) as Kind[]).find((kind) => kind === first);
}

function send(http: Http, method: string, url: string, as?: TestUser | string, body?: Record<string, unknown>) {
  const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  let req = http()[verb](url);
  if (typeof as === 'string') req = req.set('Authorization', as);
  else if (as) req = req.set('Authorization', as.authorization);
  if (body && !['GET', 'DELETE'].includes(method)) req = req.send(body);
  return req;
}

function expectErrorEnvelope(res: Response, status: number, code: RegExp, label: string): void {
  assert.equal(res.status, status, `${label}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  assert.match(String(res.body.code), code, `${label}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.data.status, status, label);
}

/** The operation's URL for a record (or for nothing, with `missing`). */
function urlFor(op: OperationInfo, record?: { id: number; slug: string }, query = ''): string {
  const path = op.path.replace('{id}', String(record?.id ?? 999_999)).replace('{slug}', record?.slug ?? 'no-such-record');
  return `${NS}${path === '/' ? '/' : path}${query}`;
}

const isTerm = (kind: Kind): boolean => kind === 'categories' || kind === 'tags';

/** A valid change to a record of the kind. */
const changeOf = (kind: Kind): Record<string, unknown> => (isTerm(kind) ? { description: 'Changed' } : { title: 'Changed' });

async function createRecord(http: Http, kind: Kind, admin: TestUser, status = 'publish', prefix = ''): Promise<{ id: number; slug: string }> {
  const body = CREATE_BODIES[kind](status);
  for (const key of ['title', 'venue', 'organizer', 'name']) if (typeof body[key] === 'string') body[key] = `${prefix}${body[key]}`;
  const res = await send(http, 'POST', `${NS}/${kind}`, admin, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.id, slug: res.body.slug };
}

/**
 * The error statuses of the webhook operations (docs/webhooks.md), administrators' alone: 401 without
 * credentials (reads too), 403 for other roles, 400 for a refused URL, status or page, 404 for an id
 * that names no webhook, 409 for re-activating an expired one and for a create past the most webhooks.
 */
async function webhookError(http: Http, op: OperationInfo, status: number, admin: TestUser, subscriber: TestUser): Promise<Response> {
  const created = await send(http, 'POST', `${NS}/webhooks`, admin, { url: 'https://93.184.216.34/gap' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const webhook = { id: created.body.id as number, slug: '' };
  const body = op.method === 'POST' && !op.path.includes('{') ? { url: 'https://93.184.216.34/gap' } : { description: 'Changed' };
  switch (status) {
    case 401:
      return send(http, op.method, urlFor(op, webhook), undefined, body);
    case 403:
      return send(http, op.method, urlFor(op, webhook), subscriber, body);
    case 404:
      return send(http, op.method, urlFor(op), admin, body);
    case 409: {
      const { db } = await openTestDatabase();
      if (!op.path.includes('{')) {
        // A create past the most webhooks a service keeps: the others copied straight into the table.
        const { id: _id, ...row } = await db('webhooks').where('id', webhook.id).first();
        for (let i = 1; i < 100; i++) await db('webhooks').insert(row);
        return send(http, op.method, urlFor(op), admin, body);
      }
      await db('webhooks').where('id', webhook.id).update({ status: 'expired' });
      return send(http, op.method, urlFor(op, webhook), admin, { status: 'active' });
    }
    case 400:
      if (op.path.endsWith('/deliveries')) return send(http, op.method, urlFor(op, webhook, '?page=0'), admin);
      // The other reads take only If-None-Match, which is at most 8192 characters.
      if (op.method === 'GET') return send(http, op.method, urlFor(op, webhook), admin).set('If-None-Match', 'x'.repeat(8193));
      return send(http, op.method, urlFor(op, webhook), admin, op.path.includes('{') ? { status: 'bogus' } : { url: 'https://10.0.0.1/gap' });
    default:
      assert.fail(`${op.operationId}: no scenario for the documented status ${status}`);
  }
}

const WEBHOOK_CODES: Record<number, RegExp> = {
  400: /^rest_invalid_param$/,
  401: /^rest_forbidden$/,
  403: /^rest_forbidden$/,
  404: /^rest_webhook_invalid_id$/,
  409: /^rest_webhook_(expired|limit_reached)$/,
};

/**
 * The error statuses of the subscription operations (docs/importing.md "Subscribing to a calendar"),
 * administrators' alone, as for webhooks: 401, 403, 400 for a refused field, page or header, 404 for
 * an id that names no subscription, 409 for a create past the most subscriptions.
 */
async function subscriptionError(http: Http, op: OperationInfo, status: number, admin: TestUser, subscriber: TestUser): Promise<Response> {
  const created = await send(http, 'POST', `${NS}/subscriptions`, admin, { url: 'https://93.184.216.34/gap.ics', type: 'ical' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const subscription = { id: created.body.id as number, slug: '' };
  const body = op.method === 'POST' && !op.path.includes('{') ? { url: 'https://93.184.216.34/gap.ics', type: 'ical' } : { refresh_minutes: 30 };
  switch (status) {
    case 401:
      return send(http, op.method, urlFor(op, subscription), undefined, body);
    case 403:
      return send(http, op.method, urlFor(op, subscription), subscriber, body);
    case 404:
      return send(http, op.method, urlFor(op), admin, body);
    case 409: {
      // A create past the most subscriptions a service keeps: the others copied straight into the table.
      const { db } = await openTestDatabase();
      const { id: _id, ...row } = await db('subscriptions').where('id', subscription.id).first();
      await db('subscriptions').insert(Array.from({ length: 99 }, () => row));
      return send(http, op.method, urlFor(op), admin, body);
    }
    case 400:
      if (op.path.endsWith('/runs')) return send(http, op.method, urlFor(op, subscription, '?page=0'), admin);
      if (op.method === 'GET') return send(http, op.method, urlFor(op, subscription), admin).set('If-None-Match', 'x'.repeat(8193));
      return send(http, op.method, urlFor(op, subscription), admin, { ...body, refresh_minutes: 4 });
    default:
      assert.fail(`${op.operationId}: no scenario for the documented status ${status}`);
  }
}

const SUBSCRIPTION_CODES: Record<number, RegExp> = {
  400: /^rest_invalid_param$/,
  401: /^rest_forbidden$/,
  403: /^rest_forbidden$/,
  404: /^rest_subscription_invalid_id$/,
  409: /^rest_subscription_limit_reached$/,
};

/**
 * The error statuses of `POST /events/import` (docs/contract.md §20), on an app that may reach
 * loopback and gives up on a source after 0.3 s: a text that is no calendar, no credentials, a
 * subscriber, a body past 5 MiB, a port where nothing listens, a server that never answers.
 */
async function importError(status: number, admin: TestUser, subscriber: TestUser): Promise<Response> {
  const { http: app } = await testApp({ outbound: { ...testConfig().outbound, allowedNetworks: ['127.0.0.0/8'], fetchTimeoutSeconds: 0.3 } });
  const url = `${NS}/events/import`;
  const calendar = (as: TestUser | undefined, text: string) => {
    const req = app().post(url).set('Content-Type', 'text/calendar');
    return (as ? req.set('Authorization', as.authorization) : req).send(text);
  };
  switch (status) {
    case 400:
      return calendar(admin, 'not a calendar');
    case 401:
      return calendar(undefined, 'BEGIN:VCALENDAR');
    case 403:
      return calendar(subscriber, 'BEGIN:VCALENDAR');
    case 413:
      return calendar(admin, 'x'.repeat(5 * 1024 * 1024 + 1));
    case 502:
      return send(app, 'POST', url, admin, { url: 'http://127.0.0.1:9/nothing.ics' });
    case 504: {
      // Accepts the connection and never answers.
      const silent = http.createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        return await send(app, 'POST', url, admin, { url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/slow.ics` });
      } finally {
        silent.closeAllConnections();
        silent.close();
      }
    }
    default:
      assert.fail(`importEvents: no scenario for the documented status ${status}`);
  }
}

const IMPORT_CODES: Record<number, RegExp> = {
  400: /^rest_invalid_calendar$/,
  401: /^rest_forbidden$/,
  403: /^rest_forbidden$/,
  413: /^rest_request_too_large$/,
  502: /^rest_import_source_unavailable$/,
  504: /^rest_import_source_timeout$/,
};

describe('every documented error status of every operation', () => {
  for (const op of operations) {
    const kind = kindOf(op);
    // The service-wide 429 and 500 (coverage.ts SERVICE_WIDE_RESPONSES) are reached once by the
    // throttle and fault tests, not per operation.
    const responses = (loadDocument().paths[op.path][op.method.toLowerCase()] as { responses: Record<string, { $ref?: string }> }).responses;
    const statuses = Object.keys(responses)
      .map(Number)
      .filter((status) => status >= 400 && SERVICE_WIDE_RESPONSES.get(responses[String(status)]?.$ref ?? '') !== status);
    const onRecord = op.path.includes('{');

    it(`${op.operationId} (${op.method} ${op.path}) answers ${statuses.join(', ')}`, async () => {
      const { http } = await testApp();
      const admin = await createUser('administrator');
      const subscriber = await createUser('subscriber');
      const record = kind && onRecord ? await createRecord(http, kind, admin) : undefined;
      const label = (status: number) => `${op.operationId} ${status}`;

      for (const status of statuses) {
        if (op.path.startsWith('/webhooks')) {
          expectErrorEnvelope(await webhookError(http, op, status, admin, subscriber), status, WEBHOOK_CODES[status], label(status));
          continue;
        }
        if (op.operationId === 'importEvents') {
          expectErrorEnvelope(await importError(status, admin, subscriber), status, IMPORT_CODES[status], label(status));
          continue;
        }
        if (op.path.startsWith('/subscriptions')) {
          expectErrorEnvelope(await subscriptionError(http, op, status, admin, subscriber), status, SUBSCRIPTION_CODES[status], label(status));
          continue;
        }
        if (op.operationId === 'listChanges' && (status === 400 || status === 410)) {
          // The change feed (docs/contract.md §9): a forged cursor; a cursor from before a tombstone
          // older than the retention, read 31 days later.
          if (status === 400) {
            expectErrorEnvelope(await send(http, 'GET', `${NS}/changes?after=1.forged`), 400, /^rest_invalid_param$/, label(400));
            continue;
          }
          const cursor = (await send(http, 'GET', `${NS}/tags`)).headers['x-tec-change-cursor'] as string;
          const gone = await createRecord(http, 'tags', admin);
          assert.equal((await send(http, 'DELETE', `${NS}/tags/${gone.id}`, admin)).status, 200);
          const later = new Date(Date.now() + 31 * 86_400_000);
          const { http: future } = await testApp({}, () => later);
          expectErrorEnvelope(await send(future, 'GET', `${NS}/changes?after=${cursor}`), 410, /^rest_cursor_expired$/, label(410));
          continue;
        }
        if (status === 401) {
          // Reads are anonymous, so only wrong credentials are refused; writes refuse anonymous callers.
          const res =
            op.method === 'GET'
              ? await send(http, op.method, urlFor(op, record), `Basic ${Buffer.from('nobody:wrong-secret').toString('base64')}`)
              : await send(http, op.method, urlFor(op, record), undefined, kind ? CREATE_BODIES[kind]('publish') : {});
          expectErrorEnvelope(res, 401, op.method === 'GET' ? /^rest_invalid_credentials$/ : /^rest_forbidden$/, label(401));
        } else if (status === 400 && !kind) {
          // The namespace index and /doc: an If-None-Match longer than the 8192 characters allowed.
          const res = await send(http, op.method, urlFor(op), admin).set('If-None-Match', 'x'.repeat(8193));
          expectErrorEnvelope(res, 400, /^rest_invalid_param$/, label(400));
        } else if (status === 400) {
          assert.ok(kind, `${op.operationId}: no 400 scenario`);
          let res: Response;
          if (!onRecord) {
            // A list with an invalid page, a create with an invalid field.
            res =
              op.method === 'GET'
                ? await send(http, op.method, urlFor(op, undefined, '?page=0'), admin)
                : await send(http, op.method, urlFor(op), admin, isTerm(kind) ? INVALID_BODIES[kind] : CREATE_BODIES[kind]('bogus'));
          } else if (isTerm(kind) && ['GET', 'DELETE'].includes(op.method)) {
            // A term of the other taxonomy: terms share one ID space.
            const other = await createRecord(http, kind === 'tags' ? 'categories' : 'tags', admin);
            res = await send(http, op.method, urlFor(op, other), admin);
          } else if (op.method === 'GET') {
            res = await send(http, op.method, urlFor(op, record, '?password='), admin);
          } else if (op.method === 'DELETE') {
            res = await send(http, op.method, urlFor(op, record, '?force=maybe'), admin);
          } else {
            res = await send(http, op.method, urlFor(op, record), admin, INVALID_BODIES[kind]);
          }
          expectErrorEnvelope(res, 400, /^(rest_invalid_param|rest-invalid-term-id)$/, label(400));
        } else if (status === 403) {
          assert.ok(kind, `${op.operationId}: no 403 scenario`);
          let res: Response;
          if (op.method === 'GET') {
            // A draft is not readable by anonymous visitors. (Another name: venues and organizers
            // identical to an existing one are not created again.)
            const draft = await createRecord(http, kind, admin, 'draft', 'Draft');
            res = await send(http, op.method, urlFor(op, draft));
          } else {
            // Subscribers may write nothing.
            res = await send(http, op.method, urlFor(op, record), subscriber, onRecord ? changeOf(kind) : CREATE_BODIES[kind]('publish'));
          }
          expectErrorEnvelope(res, 403, /^(rest_forbidden|rest_cannot_\w+|[a-z]+-not-accessible)$/, label(403));
        } else if (status === 404) {
          const res = onRecord ? await send(http, op.method, urlFor(op), admin, kind ? changeOf(kind) : {}) : await send(http, op.method, urlFor(op, undefined, '?page=99'), admin);
          expectErrorEnvelope(res, 404, /^(rest-[a-z]+-not-found|rest-term-not-found|[a-z]+-archive-page-not-found)$/, label(404));
        } else if (status === 410) {
          assert.ok(kind && record, `${op.operationId}: no 410 scenario`);
          assert.equal((await send(http, op.method, urlFor(op, record), admin)).status, 200, `${op.operationId}: first delete`);
          expectErrorEnvelope(await send(http, op.method, urlFor(op, record), admin), 410, /^[a-z]+-is-in-trash$/, label(410));
        } else if (status === 412) {
          // A stale If-Match on a single-record write (docs/contract.md §10).
          assert.ok(kind, `${op.operationId}: no 412 scenario`);
          const fresh = await createRecord(http, kind, admin, 'publish', 'Fresh ');
          const res = await send(http, op.method, urlFor(op, fresh), admin, changeOf(kind)).set('If-Match', '"stale-0-0"');
          expectErrorEnvelope(res, 412, /^rest_precondition_failed$/, label(412));
        } else if (status === 422) {
          // An Idempotency-Key used again with another body (docs/contract.md §10).
          assert.ok(kind, `${op.operationId}: no 422 scenario`);
          const first = await send(http, op.method, urlFor(op), admin, CREATE_BODIES[kind]('publish')).set('Idempotency-Key', 'gap-422');
          assert.equal(first.status, 201, JSON.stringify(first.body));
          const res = await send(http, op.method, urlFor(op), admin, { ...CREATE_BODIES[kind]('publish'), description: 'other' }).set('Idempotency-Key', 'gap-422');
          expectErrorEnvelope(res, 422, /^rest_idempotency_key_reused$/, label(422));
        } else if (status === 409) {
          // An Idempotency-Key whose first request is still running: its stored row says so.
          assert.ok(kind, `${op.operationId}: no 409 scenario`);
          const body = { ...CREATE_BODIES[kind]('publish'), ...(isTerm(kind) ? { name: 'In use' } : {}), description: 'in use' };
          assert.equal((await send(http, op.method, urlFor(op), admin, body).set('Idempotency-Key', 'gap-409')).status, 201);
          const { db } = await openTestDatabase();
          await db('idempotency_keys').where('idempotency_key', 'gap-409').update({ state: 'running', status: null, headers: null, body: null });
          expectErrorEnvelope(await send(http, op.method, urlFor(op), admin, body).set('Idempotency-Key', 'gap-409'), 409, /^rest_idempotency_key_in_use$/, label(409));
        } else {
          assert.fail(`${op.operationId}: no scenario for the documented status ${status}`);
        }
      }
    });
  }

  // The 429 and 500 every operation lists are the whole service's answers (coverage.ts
  // SERVICE_WIDE_RESPONSES): the coverage check needs each once, on any operation.
  it('answers the service-wide 429 (failed credentials) and 500 (a record past REPLY_LIMIT) as documented', async () => {
    // Apps with a clock of their own are never shared (test/helpers/app.ts): no counter or limit leaks.
    const { http } = await testApp({ authFailureLimit: 1, authFailureAddressLimit: 100 }, () => new Date());
    const wrong = `Basic ${Buffer.from('nobody:wrong-secret').toString('base64')}`;
    expectErrorEnvelope(await send(http, 'GET', `${NS}/tags`, wrong), 401, /^rest_invalid_credentials$/, 'listTags 401');
    const throttled = await send(http, 'GET', `${NS}/tags`, wrong);
    expectErrorEnvelope(throttled, 429, /^rest_too_many_requests$/, 'listTags 429');
    assert.ok(Number(throttled.headers['retry-after']) > 0, 'Retry-After on the 429');

    const admin = await createUser('administrator');
    const created = await send(http, 'POST', `${NS}/events`, admin, { ...CREATE_BODIES.events('publish'), description: 'x'.repeat(5_000) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const event = { id: created.body.id as number };
    const { http: small } = await testApp({ replyLimit: 4 * 1024, validateResponses: false }, () => new Date());
    // A page of one record larger than REPLY_LIMIT is the server's configuration: 500 (docs/limits.md).
    // The limit applies where answers are streamed, i.e. without the tests' response validation (as
    // in production); the 500 is still recorded and its keys checked.
    expectErrorEnvelope(await send(small, 'GET', `${NS}/events?per_page=1&include=${event.id}`, admin), 500, /^rest_response_too_large$/, 'listEvents 500');
  });
});
