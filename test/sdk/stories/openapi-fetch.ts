// The shared client story (docs/sdks.md, "The client story") with the typed openapi-fetch client of
// src/client.ts, whose types are generated/openapi.d.ts (openapi-typescript): the same steps, in the
// same order, as stories/typescript.mts (hey-api), stories/python.py and stories/Story.java. Run by
// test/sdk/openapi-fetch.test.ts; `step` is called with each step's name once it has passed.
import assert from 'node:assert/strict';
import { createEventsClient } from '../../../src/client.js';
import type { components } from '../../../generated/openapi.js';

type Change = components['schemas']['Change'];

export interface Target {
  baseUrl: string;
  login: string;
  secret: string;
  bearer: string;
}

/** The data of a call that must succeed. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  assert.ok(result.response.ok && result.data !== undefined, `${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

export async function sharedStory(target: Target, step: (name: string) => void): Promise<void> {
  const admin = createEventsClient(target.baseUrl, { login: target.login, secret: target.secret });
  const editor = createEventsClient(target.baseUrl, { bearer: target.bearer });
  const anonymous = createEventsClient(target.baseUrl);

  // Where the change feed starts: the cursor of a list read before the story writes anything.
  let cursor = (await admin.GET('/events', { params: { query: { per_page: 1 } } })).response.headers.get('X-TEC-Change-Cursor') ?? undefined;
  assert.ok(cursor, 'X-TEC-Change-Cursor on the list');

  const venue = ok(await admin.POST('/venues', { body: { venue: 'Fetch Hall', city: 'Springfield', country: 'United States' } }));
  const organizer = ok(await admin.POST('/organizers', { body: { organizer: 'Fetch Society', email: 'fetch@example.org' } }));
  const category = ok(await admin.POST('/categories', { body: { name: 'Fetch concerts' } }));
  const tag = ok(await editor.POST('/tags', { body: { name: 'Fetch picks' } }));
  assert.equal(venue.venue, 'Fetch Hall');
  assert.equal(tag.name, 'Fetch picks');
  step('create-linked-records');

  const created = ok(
    await admin.POST('/events', {
      body: {
        title: 'Fetch concert',
        start_date: '2027-05-20 19:00:00',
        end_date: '2027-05-20 21:00:00',
        status: 'publish',
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
        tags: [tag.id],
        image: 'https://images.example.org/fetch.jpg',
        cost: 15,
      },
    }),
  );
  assert.equal(created.cost, '$15');
  step('create-event');

  // The unions are typed: narrowed, not cast.
  const read = ok(await admin.GET('/events/{id}', { params: { path: { id: created.id } } }));
  assert.ok(!Array.isArray(read.venue), 'one venue');
  assert.equal(read.venue.id, venue.id);
  assert.equal(read.venue.city, 'Springfield');
  assert.ok(read.image, 'an image');
  assert.equal(read.image.url, 'https://images.example.org/fetch.jpg');
  assert.deepEqual(
    read.organizer.map((o) => o.organizer),
    ['Fetch Society'],
  );
  assert.deepEqual([read.categories[0]?.slug, read.tags[0]?.slug], [category.slug, tag.slug]);
  const bySlug = ok(await admin.GET('/events/by-slug/{slug}', { params: { path: { slug: created.slug } } }));
  assert.ok(!Array.isArray(bySlug.venue) && bySlug.venue.venue === 'Fetch Hall', 'read by slug');
  step('read-by-id-and-slug');

  // A conditional read with the ETag of a read: 304 and no data, nothing thrown. openapi-fetch sets `error`
  // on every answer that is not 2xx, so a 304 has `error` '': a client checks the status first
  // (docs/sdks.md, "What each language gets").
  const current = (await admin.GET('/events/{id}', { params: { path: { id: created.id } } })).response.headers.get('ETag') ?? '';
  const again = await admin.GET('/events/{id}', { params: { path: { id: created.id }, header: { 'If-None-Match': current } } });
  assert.equal(again.response.status, 304);
  assert.deepEqual([again.data, again.error], [undefined, '']);
  step('not-modified');

  const window = (month: string) => ({ categories: [category.slug], start_date: `2027-${month}-01`, end_date: `2027-${month}-30` });
  const listed = ok(await admin.GET('/events', { params: { query: window('05') } }));
  assert.deepEqual(
    listed.events.map((e) => e.id),
    [created.id],
  );
  assert.equal(ok(await admin.GET('/events', { params: { query: window('06') } })).total, 0);
  step('list-with-filters');

  const path = { path: { id: created.id } };
  const etag = (await admin.GET('/events/{id}', { params: path })).response.headers.get('ETag') ?? '';
  const updated = ok(await admin.PATCH('/events/{id}', { params: { ...path, header: { 'If-Match': etag } }, body: { title: 'Fetch concert, updated' } }));
  assert.equal(updated.start_date, '2027-05-20 19:00:00', 'updates are partial');
  const stale = await admin.PATCH('/events/{id}', { params: { ...path, header: { 'If-Match': etag } }, body: { title: 'Lost' } });
  assert.equal(stale.response.status, 412);
  assert.equal(stale.error?.code, 'rest_precondition_failed');
  step('update-if-match');

  const draft = { title: 'Fetch once', start_date: '2027-05-21 10:00:00', end_date: '2027-05-21 11:00:00', status: 'draft' as const };
  const idempotent = { header: { 'Idempotency-Key': `fetch-story-${created.id}` } };
  const once = ok(await admin.POST('/events', { params: idempotent, body: draft }));
  const twice = await admin.POST('/events', { params: idempotent, body: draft });
  assert.equal(ok(twice).id, once.id);
  assert.equal(twice.response.headers.get('Idempotent-Replayed'), 'true');
  step('idempotent-replay');

  const seen = new Map<number, Change>();
  for (;;) {
    const feed: components['schemas']['ChangeFeed'] = ok(await admin.GET('/changes', { params: { query: { after: cursor, types: ['event'] } } }));
    for (const change of feed.changes) seen.set(change.id, change);
    cursor = feed.next_cursor;
    if (!feed.has_more) break;
  }
  const change = seen.get(created.id);
  assert.equal(change?.action, 'upsert');
  assert.ok(change.record && 'title' in change.record, 'an event record');
  assert.equal(change.record.title, 'Fetch concert, updated');
  assert.ok(seen.has(once.id));
  step('change-feed');

  const calendar = ok(await anonymous.GET('/events.ics', { params: { query: { categories: [category.slug] } }, parseAs: 'text' }));
  assert.match(calendar, /^BEGIN:VCALENDAR\r\n/);
  assert.equal(calendar.match(/BEGIN:VEVENT\r\n/g)?.length, 1);
  const single = ok(await anonymous.GET('/events/{id}/ics', { params: path, parseAs: 'text' }));
  assert.match(single, /SUMMARY:Fetch concert\\, updated\r\n/);
  const itemList = ok(await anonymous.GET('/events.jsonld', { params: { query: { categories: [category.slug] } } }));
  assert.equal(itemList.numberOfItems, 1);
  assert.equal(itemList.itemListElement[0]?.item.name, 'Fetch concert, updated');
  assert.equal(itemList.itemListElement[0]?.item.location?.['@type'], 'Place');
  step('ics-and-json-ld-feeds');

  const missing = await admin.GET('/events/{id}', { params: { path: { id: 987_654 } } });
  assert.equal(missing.response.status, 404);
  assert.equal(missing.error?.code, 'rest-event-not-found');
  const refused = await anonymous.POST('/tags', { body: { name: 'Free' } });
  assert.equal(refused.response.status, 401);
  assert.equal(refused.error?.code, 'rest_forbidden');
  assert.equal(refused.error?.data.status, 401);
  step('typed-errors');

  assert.equal(ok(await admin.DELETE('/events/{id}', { params: { ...path, query: { force: true } } })).id, created.id);
  assert.equal((await admin.GET('/events/{id}', { params: path })).response.status, 404);
  step('delete');
}
