import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startService, type RunningService } from '../sdk/server.js';
import { createUser, testConfig, type TestUser } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { IdempotencyRepository } from '../../src/repositories/idempotency.js';
import { describeViolations, prismBinary, startPrismProxy, throughPrism, type PrismProxy, type Request, type Sent } from './prism.js';
import { docRequests } from './doc-requests.js';

/**
 * The Prism proxy battery (docs/testing.md "Prism proxy battery"): Stoplight Prism, built from the
 * document the service serves at `/doc`, sits between a client and the service, as client teams run
 * it in CI, and reports every request and answer the document does not allow. A realistic battery
 * (every read kind, JSON and form writes, conditional requests and idempotent creates, the error
 * answers 400, 401, 403, 404, 409, 412 and 422, the iCalendar feeds) and every request README.md and
 * docs/*.md show must pass with no violation. Without Prism the suite skips, unless REQUIRE_SDK=1
 * (CI), which makes a missing Prism a failure.
 */

/** What the docs' `--data-binary @calendar.ics` stands for. */
const CALENDAR = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Docs//EN',
  'BEGIN:VEVENT',
  'UID:docs-1@example.org',
  'DTSTAMP:20270101T000000Z',
  'DTSTART:20270612T180000Z',
  'DTEND:20270612T200000Z',
  'SUMMARY:From calendar.ics',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

const PASSWORD_FREE_EVENT = { start_date: '2027-03-20 19:00:00', end_date: '2027-03-20 21:00:00', status: 'publish' };

const basic = (user: TestUser) => ({ Authorization: user.authorization });

describe('Prism proxy battery: the served document validates real traffic', function () {
  this.timeout(180_000);
  let service: RunningService | undefined;
  let proxy: PrismProxy | undefined;

  before(async function () {
    const binary = prismBinary();
    if (!binary) {
      if (process.env.REQUIRE_SDK === '1') throw new Error('REQUIRE_SDK=1 but Prism (@stoplight/prism-cli) was not found in node_modules/.bin or PRISM_BIN.');
      console.log('      (the Prism proxy battery is skipped: @stoplight/prism-cli is not installed; set PRISM_BIN, or REQUIRE_SDK=1 to fail instead)');
      this.skip();
    }
    // Loopback allowed as an outbound network: the docs' calendar import reads the service's own feed.
    service = await startService({ outbound: { ...testConfig().outbound, allowedNetworks: ['127.0.0.0/8'] } });
    proxy = await startPrismProxy(binary, service.baseUrl);
  });

  after(async () => {
    await proxy?.close();
    await service?.close();
  });

  const send = (request: Request, label?: string): Promise<Sent> => throughPrism(proxy as PrismProxy, request, label);

  /** Sends every request in order; each answer must have the expected status. */
  async function battery(requests: Array<[Request, number]>, sent: Sent[]): Promise<void> {
    for (const [request, status] of requests) {
      const answer = await send(request);
      assert.equal(answer.status, status, `${answer.label}: ${answer.text.slice(0, 300)}`);
      sent.push(answer);
    }
  }

  async function created(request: Request, sent: Sent[]): Promise<Record<string, unknown>> {
    const answer = await send({ method: 'POST', ...request });
    assert.equal(answer.status, 201, `${answer.label}: ${answer.text.slice(0, 300)}`);
    sent.push(answer);
    return JSON.parse(answer.text) as Record<string, unknown>;
  }

  it('reads, JSON and form writes, conditional and idempotent requests, errors and feeds: no violation', async () => {
    const editor = await createUser('editor');
    const author = await createUser('author');
    const contributor = await createUser('contributor');
    const subscriber = await createUser('subscriber');
    const sent: Sent[] = [];
    const as = basic(editor);

    // Writes with JSON bodies: every linked kind, then an event with them.
    const category = await created({ path: '/categories', headers: as, json: { name: 'Concerts' } }, sent);
    const tag = await created({ path: '/tags', headers: as, json: { name: 'Jazz' } }, sent);
    const venue = await created({ path: '/venues', headers: as, json: { venue: 'Blue Hall', city: 'Lyon', country: 'France' } }, sent);
    const organizer = await created({ path: '/organizers', headers: as, json: { organizer: 'Night Owls', email: 'owls@example.org' } }, sent);
    const event = await created(
      {
        path: '/events',
        headers: as,
        json: { title: 'Blue Note', ...PASSWORD_FREE_EVENT, venue: venue.id, organizer: [organizer.id], categories: [category.id], tags: ['Jazz'] },
      },
      sent,
    );
    // Form bodies, as WordPress clients send them: repeated keys, one value, comma-separated items, booleans.
    const formEvent = await created(
      {
        path: '/events',
        headers: as,
        form: 'title=Form+one&start_date=2027-04-01+10:00:00&end_date=2027-04-01+12:00:00&status=publish&categories=Concerts&categories=Talks&tags=Jazz&featured=true',
      },
      sent,
    );
    await created({ path: '/events', headers: as, form: 'title=Form+two&start_date=2027-04-02+10:00:00&end_date=2027-04-02+12:00:00&status=publish&tags=Jazz,+Blues' }, sent);
    await created({ path: '/venues', headers: as, form: 'venue=Form+Hall&city=Paris&show_map=false' }, sent);
    const draft = await created({ path: '/events', headers: basic(author), json: { title: 'Draft', ...PASSWORD_FREE_EVENT, status: 'draft' } }, sent);
    const recurring = await created({ path: '/events', headers: as, json: { title: 'Weekly', ...PASSWORD_FREE_EVENT, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] } }, sent);

    const id = event.id as number;
    const slug = event.slug as string;
    // Every read kind, anonymous and authenticated.
    await battery(
      [
        [{ path: '/' }, 200],
        [{ path: '/doc' }, 200],
        [{ path: '/events' }, 200],
        [{ path: `/events?per_page=2&page=1&order=desc&orderby=title` }, 200],
        [{ path: `/events?categories=${category.id}&start_date=2027-03-01&end_date=2027-05-01` }, 200],
        [{ path: `/events?include=${id},${formEvent.id}&featured=false` }, 200],
        [{ path: `/events?search=blue&venue=${venue.id as number}&organizer=${organizer.id as number}` }, 200],
        [{ path: '/events?status=any', headers: as }, 200],
        [{ path: `/events/${id}` }, 200],
        [{ path: `/events/by-slug/${slug}` }, 200],
        [{ path: `/events/${recurring.id as number}/occurrences` }, 200],
        [{ path: '/events.ics?categories=concerts' }, 200],
        [{ path: `/events/${id}/ics` }, 200],
        [{ path: `/events/${id}/ics?uid=plugin` }, 200],
        [{ path: '/events.jsonld?per_page=2' }, 200],
        [{ path: '/venues' }, 200],
        [{ path: `/venues/${venue.id as number}` }, 200],
        [{ path: `/venues/by-slug/${venue.slug as string}` }, 200],
        [{ path: `/venues?has_events=true&order=asc` }, 200],
        [{ path: '/organizers' }, 200],
        [{ path: `/organizers/${organizer.id as number}` }, 200],
        [{ path: `/organizers/by-slug/${organizer.slug as string}` }, 200],
        [{ path: '/categories?hide_empty=false&orderby=name' }, 200],
        [{ path: `/categories/${category.id as number}` }, 200],
        [{ path: '/tags?hide_empty=true' }, 200],
        [{ path: `/tags/${tag.id as number}` }, 200],
        [{ path: '/changes?types=event,venue&per_page=5' }, 200],
        [{ path: '/changes', headers: as }, 200],
      ],
      sent,
    );

    // Conditional requests: 304 on reads, 412 on a stale If-Match, the write with the current tag.
    const read = await send({ path: `/events/${id}` });
    const etag = String(read.headers.etag);
    const feed = await send({ path: `/events/${id}/ics` });
    sent.push(read, feed);
    await battery(
      [
        [{ path: `/events/${id}`, headers: { 'If-None-Match': etag } }, 304],
        [{ path: `/events/${id}/ics`, headers: { 'If-None-Match': String(feed.headers.etag) } }, 304],
        [{ method: 'PATCH', path: `/events/${id}`, headers: { ...as, 'If-Match': etag }, json: { title: 'Blue Note, again' } }, 200],
        [{ method: 'PUT', path: `/events/${id}`, headers: { ...as, 'If-Match': etag }, json: { title: 'Stale' } }, 412],
        [{ method: 'POST', path: `/events/by-slug/${slug}`, headers: as, form: 'excerpt=Short&categories=Concerts,+Talks' }, 200],
        [{ method: 'PATCH', path: `/venues/${venue.id as number}`, headers: as, json: { phone: '+33 4 00 00 00 00' } }, 200],
        [{ method: 'PUT', path: `/organizers/by-slug/${organizer.slug as string}`, headers: as, form: 'website=https://owls.example.org' }, 200],
        [{ method: 'PATCH', path: `/categories/${category.id as number}`, headers: as, json: { description: 'Live music' } }, 200],
        [{ method: 'POST', path: `/tags/${tag.id as number}`, headers: as, form: 'description=Swing' }, 200],
      ],
      sent,
    );

    // Idempotent creates: the replay, the key reused with another body (422), the key in use (409).
    const key = crypto.randomUUID();
    const body = { title: 'Once', ...PASSWORD_FREE_EVENT };
    await battery(
      [
        [{ method: 'POST', path: '/events', headers: { ...as, 'Idempotency-Key': key }, json: body }, 201],
        [{ method: 'POST', path: '/events', headers: { ...as, 'Idempotency-Key': key }, json: body }, 201],
        [{ method: 'POST', path: '/events', headers: { ...as, 'Idempotency-Key': key }, json: { ...body, title: 'Twice' } }, 422],
      ],
      sent,
    );
    // 409 while the first request with the key still runs: that request is stood in for by a claim
    // held in the database, with the fingerprint of a real request's body (as test/api/writes/idempotent-creates does).
    await battery([[{ method: 'POST', path: '/tags', headers: { ...as, 'Idempotency-Key': 'probe' }, json: { name: 'Held' } }, 201]], sent);
    const { db } = await openTestDatabase();
    const probe = await db('idempotency_keys').where('idempotency_key', 'probe').first();
    assert.ok(await new IdempotencyRepository(db).claim(editor.id, 'running', String(probe.fingerprint), Date.now(), Date.now() + 60 * 60 * 1000));
    await battery([[{ method: 'POST', path: '/tags', headers: { ...as, 'Idempotency-Key': 'running' }, json: { name: 'Held' } }, 409]], sent);

    // Errors the document allows for valid requests: 400, 401, 403, 404, 410 and deletes.
    await battery(
      [
        [{ method: 'POST', path: '/events', headers: as, json: { title: 'Backwards', start_date: '2027-03-20 19:00:00', end_date: '2027-03-20 18:00:00' } }, 400],
        [{ method: 'POST', path: '/events', headers: { Authorization: `Basic ${Buffer.from('editor:wrong-secret').toString('base64')}` }, json: body }, 401],
        [{ path: '/events', headers: { Authorization: 'Bearer not-a-secret' } }, 401],
        [{ path: `/events/${draft.id as number}` }, 403],
        [{ path: `/events/${draft.id as number}/ics` }, 403],
        [{ method: 'PATCH', path: `/events/${id}`, headers: basic(contributor), json: { title: 'Not mine' } }, 403],
        [{ method: 'DELETE', path: `/categories/${category.id as number}`, headers: basic(subscriber) }, 403],
        [{ path: '/events/999999' }, 404],
        [{ path: '/events/999999/ics' }, 404],
        [{ path: '/events/by-slug/no-such-event' }, 404],
        [{ path: '/venues/999999' }, 404],
        [{ path: `/events/${venue.id as number}` }, 400],
        [{ path: '/changes?after=not-a-cursor' }, 400],
        [{ method: 'DELETE', path: `/tags/${tag.id as number}?force=true`, headers: as }, 200],
        [{ method: 'DELETE', path: `/events/${formEvent.id as number}`, headers: as }, 200],
        [{ path: `/events/${formEvent.id as number}` }, 403],
        [{ method: 'DELETE', path: `/events/${formEvent.id as number}?force=true`, headers: as }, 200],
        [{ path: `/events/${formEvent.id as number}` }, 404],
      ],
      sent,
    );

    assert.deepEqual(describeViolations(sent), []);
    assert.ok(sent.length >= 70, `${sent.length} requests`);
  });

  it('reports what the document does not allow (the battery can fail)', async () => {
    // A form the document does not declare, and an answer of another shape: Prism must name both.
    const refused = await send({ path: '/tags?hide_empty=0' });
    assert.equal(refused.status, 200, 'the service accepts it (a compatibility leniency)');
    assert.match(describeViolations([refused]).join('\n'), /hide_empty/);
    const partial = await send({ path: '/?_fields=namespace' });
    assert.ok(
      partial.violations.some((v) => v.code === 'required'),
      describeViolations([partial]).join('\n'),
    );
  });

  it('lets `_fields` answers through with only the keys left out reported missing (x-partial-response)', async () => {
    const served = JSON.parse((await send({ path: '/doc' })).text) as { components: { parameters: Record<string, Record<string, unknown>> } };
    assert.equal(served.components.parameters.Fields['x-partial-response'], true, 'the document marks `_fields` answers as partial');
    const editor = await createUser('editor');
    const sent: Sent[] = [];
    const event = await created({ path: '/events', headers: basic(editor), json: { title: 'Partial', ...PASSWORD_FREE_EVENT } }, sent);
    for (const path of [`/events/${event.id as number}?_fields=id,title,start_date`, '/events?_fields=id,title', '/venues?_fields=id']) {
      const answer = await send({ path });
      assert.equal(answer.status, 200, answer.text);
      const selected = new URL(`http://x${path}`).searchParams.get('_fields')?.split(',') ?? [];
      for (const violation of answer.violations) {
        // Prism knows no `x-partial-response`: it reports each required key the selection left out,
        // and nothing else (the selected keys still match their schemas).
        assert.equal(violation.code, 'required', `${path}: ${violation.message}`);
        const key = /required property '([^']+)'/.exec(violation.message)?.[1];
        assert.ok(key !== undefined && !selected.includes(key), `${path}: ${violation.message}`);
      }
    }
  });

  it('passes every request README.md and docs/*.md show', async () => {
    const admin = await createUser('administrator', 'admin');
    const requests = docRequests();
    assert.ok(requests.length >= 18, `only ${requests.length} requests found in the docs`);
    // The records and values the examples' placeholders stand for.
    const cursor = (await send({ path: '/events', headers: basic(admin) })).headers['x-tec-change-cursor'];
    const sent: Sent[] = [];
    const event = await created({ path: '/events', headers: basic(admin), json: { title: 'Concert', ...PASSWORD_FREE_EVENT } }, sent);
    const fill = (text: string) =>
      text
        .replace(/\/events\/(ID|12)\b/g, `/events/${event.id as number}`)
        .replace(/CURSOR/g, String(cursor))
        .replace(/\$\(uuidgen\)/g, crypto.randomUUID())
        .replace('https://calendar.example.org/events.ics', `${service!.baseUrl}/events.ics`);
    for (const doc of requests) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(doc.headers)) headers[name] = fill(value).replace(/^Bearer SECRET$/, `Bearer ${admin.secret}`);
      if (doc.user !== undefined) headers.Authorization = admin.authorization;
      if (headers['If-Match'] !== undefined) headers['If-Match'] = String((await send({ path: `/events/${event.id as number}`, headers: basic(admin) })).headers.etag);
      const data = doc.data === '@event.json' ? JSON.stringify({ title: 'From event.json', ...PASSWORD_FREE_EVENT }) : doc.data === '@calendar.ics' ? CALENDAR : doc.data;
      const type = headers['Content-Type'];
      delete headers['Content-Type'];
      const request: Request = { method: doc.method, path: fill(doc.path), headers };
      if (data !== undefined && type === 'application/json') request.json = JSON.parse(fill(data));
      else if (data !== undefined && type === 'text/calendar') request.text = { type, body: data };
      else if (data !== undefined) request.form = data;
      const answer = await send(request, `${doc.where}: ${doc.method} ${request.path}`);
      // Any documented answer will do (an example may name a record that does not exist here), but
      // never an unrouted path or a failure.
      // (The error's code, not the text: the namespace index quotes `rest_no_route` in descriptions.)
      assert.ok(answer.status < 500 && !answer.text.includes('"code":"rest_no_route"'), `${answer.label}: ${answer.status} ${answer.text.slice(0, 300)}`);
      sent.push(answer);
    }
    assert.deepEqual(describeViolations(sent), []);
  });
});
