// A client team's code against the TypeScript SDK that `npm run sdk` generates (@hey-api/openapi-ts),
// compiled with `tsc --strict` together with the SDK under `moduleResolution` `nodenext` and `bundler`
// (test/sdk/tsconfig.typescript-*.json) and run by test/sdk/typescript.test.ts against the service on
// a real port. No `as` anywhere: the unions of the document (`Event.venue`, `Event.image`, error
// `params`) are typed, so narrowing them is enough. A `.mts` file so that the project's own type
// check, which runs before the SDK exists, does not include it.
import assert from 'node:assert/strict';
import { createClient, createConfig, type Client } from '../../../sdk/typescript/client/index.js';
import {
  createCategory,
  createEvent,
  createOrganizer,
  createTag,
  createVenue,
  deleteEvent,
  getEvent,
  getEventBySlug,
  getEventIcs,
  getVenueBySlug,
  listChanges,
  listEventOccurrences,
  listEvents,
  listEventsIcs,
  listEventsJsonLd,
  patchEvent,
  putEvent,
  type ChangeFeed,
  type Error as ApiError,
  type Event,
  type EventItemList,
} from '../../../sdk/typescript/index.js';

export interface Target {
  /** The namespace URL, e.g. http://127.0.0.1:8080/wp-json/tribe/events/v1. */
  basePath: string;
  /** An application password, sent with HTTP Basic... */
  login?: string;
  secret?: string;
  /** ...or as a bearer token. Neither: the anonymous visitor. */
  bearer?: string;
}

/** A client for one caller: the SDK asks for a token per security scheme an operation accepts. */
function clientFor(target: Target): Client {
  return createClient(
    createConfig({
      baseUrl: target.basePath,
      auth: (scheme) => {
        if (scheme.scheme === 'basic' && target.login !== undefined) return `${target.login}:${target.secret}`;
        if (scheme.scheme === 'bearer') return target.bearer;
        return undefined;
      },
    }),
  );
}

/** The data of a call that must succeed (the SDK returns `{ data, error, response }` and never throws). */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  assert.ok(result.response.ok && result.data !== undefined, `${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

const at = (day: number, hour: number) => `2027-03-${String(day).padStart(2, '0')} ${String(hour).padStart(2, '0')}:00:00`;

export async function createLinkedEvent(target: Target): Promise<void> {
  const client = clientFor(target);
  const category = ok(await createCategory({ client, body: { name: 'Concerts' } }));
  const venue = ok(await createVenue({ client, body: { venue: 'Town Hall', city: 'Springfield', country: 'United States' } }));
  const organizer = ok(await createOrganizer({ client, body: { organizer: 'Music Society', email: 'info@example.org' } }));

  const event: Event = ok(
    await createEvent({
      client,
      body: {
        title: 'Spring Concert',
        start_date: at(20, 19),
        end_date: at(20, 21),
        status: 'publish',
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
        image: 'https://images.example.org/spring-concert.jpg',
        cost: 15,
      },
    }),
  );
  assert.equal(event.title, 'Spring Concert');
  assert.equal(event.start_date, '2027-03-20 19:00:00');
  assert.equal(event.cost, '$15');
  // `venue` is one venue or a list of them, `image` an image or false: narrowed, not cast.
  assert.ok(!Array.isArray(event.venue), 'one venue');
  assert.equal(event.venue.venue, 'Town Hall');
  assert.equal(event.venue.city, 'Springfield');
  assert.ok(event.image, 'an image');
  assert.equal(event.image.url, 'https://images.example.org/spring-concert.jpg');
  assert.equal(event.image.extension, 'jpg');
  assert.deepEqual(
    event.organizer.map((o) => o.organizer),
    ['Music Society'],
  );
  assert.deepEqual(
    event.categories.map((c) => c.slug),
    ['concerts'],
  );

  const read = ok(await getEvent({ client, path: { id: event.id } }));
  assert.equal(read.id, event.id);
  assert.equal(read.json_ld?.['@type'], 'Event');
  assert.equal(ok(await getEventBySlug({ client, path: { slug: event.slug } })).id, event.id);
  assert.equal(ok(await getVenueBySlug({ client, path: { slug: venue.slug ?? '' } })).venue, 'Town Hall');
}

export async function listAndPage(target: Target): Promise<void> {
  const client = clientFor(target);
  const jazz = ok(await createCategory({ client, body: { name: 'Jazz' } }));
  for (const day of [3, 1, 2]) {
    ok(await createEvent({ client, body: { title: `Jazz night ${day}`, start_date: at(day, 20), end_date: at(day, 22), status: 'publish', categories: [jazz.id] } }));
  }
  ok(await createEvent({ client, body: { title: 'Chess club', start_date: at(1, 18), end_date: at(1, 19), status: 'publish' } }));

  // Page through the filtered list, two at a time, until there is no next page.
  const titles: string[] = [];
  let page = 1;
  for (;;) {
    const result = await listEvents({ client, query: { categories: [jazz.slug], per_page: 2, page } });
    const list = ok(result);
    assert.equal(list.total, 3);
    assert.equal(list.total_pages, 2);
    assert.equal(result.response.headers.get('X-WP-Total'), '3');
    titles.push(...list.events.map((e) => e.title));
    if (!list.next_rest_url) break;
    page += 1;
  }
  assert.equal(page, 2);
  assert.deepEqual(titles, ['Jazz night 1', 'Jazz night 2', 'Jazz night 3']);

  const search = ok(await listEvents({ client, query: { search: 'chess' } }));
  assert.deepEqual(
    search.events.map((e) => e.title),
    ['Chess club'],
  );
}

export async function updateAndDelete(target: Target): Promise<void> {
  const client = clientFor(target);
  const event = ok(await createEvent({ client, body: { title: 'Workshop', start_date: at(10, 9), end_date: at(10, 12), status: 'draft' } }));

  const renamed = ok(await patchEvent({ client, path: { id: event.id }, body: { title: 'Pottery workshop' } }));
  assert.equal(renamed.title, 'Pottery workshop');
  assert.equal(renamed.start_date, '2027-03-10 09:00:00', 'updates are partial');
  const moved = ok(await putEvent({ client, path: { id: event.id }, body: { end_date: at(10, 13) } }));
  assert.equal(moved.end_date, '2027-03-10 13:00:00');
  assert.equal(moved.title, 'Pottery workshop');

  assert.equal(ok(await deleteEvent({ client, path: { id: event.id } })).status, 'trash');
  const gone = await deleteEvent({ client, path: { id: event.id } });
  assert.equal(gone.response.status, 410);
  assert.equal(gone.error?.code, 'event-is-in-trash');
  ok(await deleteEvent({ client, path: { id: event.id }, query: { force: true } }));
  assert.equal((await getEvent({ client, path: { id: event.id } })).response.status, 404);
}

export async function typedErrors(target: Target): Promise<void> {
  const client = clientFor(target);
  const invalid = await createEvent({ client, body: { title: 'Backwards', start_date: at(5, 12), end_date: at(5, 10) } });
  assert.equal(invalid.response.status, 400);
  const error: ApiError | undefined = invalid.error;
  assert.equal(error?.code, 'rest_invalid_param');
  assert.equal(error?.data.status, 400);
  // `params` is a list of names or a map of name → reason: narrowed, not cast.
  const params = error?.data.params;
  assert.ok(params !== undefined && !Array.isArray(params), JSON.stringify(error));
  assert.match(params.end_date, /before/);

  const missing = await getEvent({ client, path: { id: 987_654 } });
  assert.equal(missing.response.status, 404);
  assert.equal(missing.error?.code, 'rest-event-not-found');
  assert.equal(missing.data, undefined);

  const anonymous = await createTag({ client: clientFor({ basePath: target.basePath }), body: { name: 'Free' } });
  assert.equal(anonymous.response.status, 401);
  assert.equal(anonymous.error?.code, 'rest_forbidden');
}

export async function conditionalReadsAndFields(target: Target): Promise<void> {
  const client = clientFor(target);
  const event = ok(await createEvent({ client, body: { title: 'Open air', start_date: at(12, 18), end_date: at(12, 20), status: 'publish' } }));
  const reader = clientFor({ basePath: target.basePath, bearer: target.bearer });

  // The document lists If-None-Match and the 304: the SDK sends the header and reports the status.
  // fetch marks a request that carries If-None-Match `Cache-Control: no-cache` (which always gets the
  // whole answer) unless its cache mode is 'no-cache' (then `max-age=0`): pass `cache: 'no-cache'`.
  const first = await getEvent({ client: reader, path: { id: event.id } });
  const etag = first.response.headers.get('ETag');
  assert.ok(etag, 'an ETag');
  assert.equal(first.response.headers.get('Allow'), 'GET, DELETE, POST, PUT, PATCH');
  const again = await getEvent({ client: reader, path: { id: event.id }, headers: { 'If-None-Match': etag }, cache: 'no-cache' });
  assert.equal(again.response.status, 304);
  assert.equal(again.data, undefined);
  const changed = await getEvent({ client: reader, path: { id: event.id }, headers: { 'If-None-Match': 'W/"other"' }, cache: 'no-cache' });
  assert.equal(ok(changed).title, 'Open air');

  // `_fields` keeps the named keys, on a record and on each record of a list.
  const some = ok(await getEvent({ client: reader, path: { id: event.id }, query: { _fields: ['id', 'title'] } }));
  assert.deepEqual(some, { id: event.id, title: 'Open air' });
  const list = ok(await listEvents({ client: reader, query: { _fields: ['title'], search: 'Open air' } }));
  assert.deepEqual(list.events, [{ title: 'Open air' }]);
  assert.equal(list.total, 1);
}

/**
 * A client that keeps a copy of the calendar: a full read of the events changed since a moment (the
 * default date window does not apply), then the change feed from the cursor the first page sent; a
 * conditional update that loses a race (412) and retries; an idempotent create sent twice.
 */
export async function syncAndSafeWrites(target: Target): Promise<void> {
  const client = clientFor(target);
  const kept = ok(await createEvent({ client, body: { title: 'Sync: kept', start_date: at(14, 10), end_date: at(14, 11), status: 'publish' } }));
  const doomed = ok(await createEvent({ client, body: { title: 'Sync: doomed', start_date: at(15, 10), end_date: at(15, 11), status: 'publish' } }));

  // Full sync, oldest modification first, two per page; the first page's cursor is where the feed starts.
  const copy = new Map<number, string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const result = await listEvents({ client, query: { modified_after: '2000-01-01T00:00:00Z', orderby: 'modified', order: 'asc', per_page: 2, page } });
    const list = ok(result);
    cursor ??= result.response.headers.get('X-TEC-Change-Cursor') ?? undefined;
    for (const event of list.events) copy.set(event.id, event.title);
    if (!list.next_rest_url) break;
  }
  assert.equal(copy.get(kept.id), 'Sync: kept');
  assert.ok(cursor, 'X-TEC-Change-Cursor on the list');

  // Others write: an update, a create, a permanent delete.
  ok(await patchEvent({ client, path: { id: kept.id }, body: { title: 'Sync: renamed' } }));
  const added = ok(await createEvent({ client, body: { title: 'Sync: added', start_date: at(16, 10), end_date: at(16, 11), status: 'publish' } }));
  ok(await deleteEvent({ client, path: { id: doomed.id }, query: { force: true } }));

  // Follow the feed until it has nothing more; upserts carry the record, deletes only the id.
  for (;;) {
    const feed: ChangeFeed = ok(await listChanges({ client, query: { after: cursor, types: ['event'] } }));
    for (const change of feed.changes) {
      if (change.action === 'upsert' && change.record && 'title' in change.record) copy.set(change.id, change.record.title);
      else copy.delete(change.id);
    }
    cursor = feed.next_cursor;
    if (!feed.has_more) break;
  }
  assert.equal(copy.get(kept.id), 'Sync: renamed');
  assert.equal(copy.get(added.id), 'Sync: added');
  assert.equal(copy.has(doomed.id), false, 'the deleted event is dropped');

  // A conditional update: the ETag read first is stale once someone else wrote, so 412; read again, retry.
  const first = await getEvent({ client, path: { id: kept.id } });
  const etag = first.response.headers.get('ETag');
  assert.ok(etag, 'a record ETag');
  ok(await patchEvent({ client, path: { id: kept.id }, body: { title: 'Sync: edited elsewhere' } }));
  const stale = await patchEvent({ client, path: { id: kept.id }, body: { title: 'Sync: mine' }, headers: { 'If-Match': etag } });
  assert.equal(stale.response.status, 412);
  assert.equal(stale.error?.code, 'rest_precondition_failed');
  const current = stale.response.headers.get('ETag');
  assert.ok(current && current !== etag, 'the current ETag comes with the 412');
  const retried = ok(await patchEvent({ client, path: { id: kept.id }, body: { title: 'Sync: mine' }, headers: { 'If-Match': current } }));
  assert.equal(retried.title, 'Sync: mine');

  // An idempotent create, sent twice (say, after a timeout): one event, the same answer, marked as replayed.
  const key = `story-${kept.id}`;
  const body = { title: 'Sync: once', start_date: at(17, 10), end_date: at(17, 11), status: 'publish' as const };
  const once = await createEvent({ client, body, headers: { 'Idempotency-Key': key } });
  const twice = await createEvent({ client, body, headers: { 'Idempotency-Key': key } });
  assert.equal(ok(twice).id, ok(once).id);
  assert.equal(twice.response.status, 201);
  assert.equal(twice.response.headers.get('Idempotent-Replayed'), 'true');
}

/**
 * A calendar app's view: the filtered events as an iCalendar feed to subscribe to and as one event's
 * calendar, and a search engine's: the same events as a schema.org ItemList (JSON-LD), page by page.
 */
export async function subscribeToFeeds(target: Target): Promise<void> {
  const client = clientFor(target);
  const category = ok(await createCategory({ client, body: { name: 'Workshops' } }));
  const venue = ok(await createVenue({ client, body: { venue: 'Library', address: '2 Elm Street', city: 'Springfield', state: 'IL', zip: '62701', country: 'United States' } }));
  const events: Event[] = [];
  for (const day of [5, 6, 7]) {
    const body = {
      title: `Workshop, part ${day}`,
      start_date: at(day, 10),
      end_date: at(day, 12),
      status: 'publish' as const,
      categories: [category.id],
      venue: venue.id,
      cost: '$5 - $8',
    };
    events.push(ok(await createEvent({ client, body })));
  }
  const anonymous = clientFor({ basePath: target.basePath });

  // The iCalendar feed is text: the SDK hands it over as a string.
  const calendar: string = ok(await listEventsIcs({ client: anonymous, query: { categories: [category.slug] } }));
  assert.match(calendar, /^BEGIN:VCALENDAR\r\n/);
  assert.equal(calendar.match(/BEGIN:VEVENT\r\n/g)?.length, 3);
  assert.match(calendar, /X-WR-CALNAME:[^\r]*Events: Workshops\r\n/);
  const one: string = ok(await getEventIcs({ client: anonymous, path: { id: events[0].id } }));
  assert.match(one, /SUMMARY:Workshop\\, part 5\r\n/);

  // The JSON-LD feed is typed: an ItemList of ListItems holding schema.org Events.
  const positions: number[] = [];
  for (let page = 1; ; page++) {
    const result = await listEventsJsonLd({ client: anonymous, query: { categories: [category.slug], per_page: 2, page } });
    const list: EventItemList = ok(result);
    assert.equal(result.response.headers.get('Content-Type'), 'application/ld+json; charset=utf-8');
    assert.equal(list['@type'], 'ItemList');
    assert.equal(list.numberOfItems, 3);
    for (const element of list.itemListElement) {
      positions.push(element.position);
      assert.equal(element.item.location?.['@type'], 'Place');
      assert.equal(element.item.offers?.['@type'], 'AggregateOffer');
      assert.equal(element.item.offers?.lowPrice, '5');
      assert.equal(element.item.eventStatus, 'https://schema.org/EventScheduled');
    }
    if (!result.response.headers.get('Link')?.includes('rel="next"')) break;
  }
  assert.deepEqual(positions, [1, 2, 3]);
}

/**
 * A recurring series (docs/contract.md §14): created with RFC 5545 lines, one occurrence moved (it
 * becomes an exception), the series split from a later occurrence on with a new time, and both halves
 * listed; `scope` and `recurrence` are typed parameters and fields of the SDK.
 */
export async function recurringSeries(target: Target): Promise<void> {
  const client = clientFor(target);
  const series = ok(
    await createEvent({
      client,
      body: {
        title: 'Choir rehearsal',
        start_date: '2027-03-02 19:00:00',
        end_date: '2027-03-02 21:00:00',
        timezone: 'Europe/Paris',
        status: 'publish',
        recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=8'],
      },
    }),
  );
  assert.equal(series.series_id, series.id);
  assert.deepEqual(series.recurrence, ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=8']);
  const window = { start_date: '2027-03-01', end_date: '2027-06-30', per_page: 20 };
  const occurrences = ok(await listEventOccurrences({ client, path: { id: series.id }, query: window })).events;
  assert.equal(occurrences.length, 8);

  // Move the third rehearsal to the Wednesday: only that occurrence changes (scope=this is the default there).
  const third = occurrences[2];
  const moved = ok(await patchEvent({ client, path: { id: third.id }, body: { start_date: '2027-03-17 19:00:00', end_date: '2027-03-17 21:00:00' } }));
  assert.equal(moved.series_id, series.id);
  assert.equal(moved.start_date, '2027-03-17 19:00:00');

  // From the sixth on, rehearsals start at 20:00: the series splits there.
  const sixth = occurrences[5];
  const split = ok(
    await patchEvent({ client, path: { id: sixth.id }, query: { scope: 'following' }, body: { start_date: '2027-04-06 20:00:00', end_date: '2027-04-06 22:00:00' } }),
  );
  assert.equal(split.series_id, sixth.id);
  assert.deepEqual(split.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=3;BYDAY=TU'], 'the rest of the COUNT, as ical.js writes a rule');

  const before = ok(await listEventOccurrences({ client, path: { id: series.id }, query: window })).events;
  assert.deepEqual(
    before.map((e) => e.start_date),
    ['2027-03-02 19:00:00', '2027-03-09 19:00:00', '2027-03-17 19:00:00', '2027-03-23 19:00:00', '2027-03-30 19:00:00'],
  );
  const after = ok(await listEventOccurrences({ client, path: { id: sixth.id }, query: window })).events;
  assert.deepEqual(
    after.map((e) => e.start_date),
    ['2027-04-06 20:00:00', '2027-04-13 20:00:00', '2027-04-20 20:00:00'],
  );
  // Every occurrence is an ordinary event in the list; one per series with hide_subsequent_recurrences.
  const all = ok(await listEvents({ client, query: { ...window, search: 'Choir' } }));
  assert.equal(all.total, 8);
  const firsts = ok(await listEvents({ client, query: { ...window, search: 'Choir', hide_subsequent_recurrences: true } }));
  assert.deepEqual(
    firsts.events.map((e) => e.id),
    [series.id, sixth.id],
  );
}

/**
 * The shared client story (docs/sdks.md, "The client story"): the same steps, in the same order, as
 * stories/python.py and stories/Story.java; `step` is called with each step's name once it has passed.
 */
export async function sharedStory(target: Target, step: (name: string) => void): Promise<void> {
  const admin = clientFor({ basePath: target.basePath, login: target.login, secret: target.secret });
  const editor = clientFor({ basePath: target.basePath, bearer: target.bearer });
  const anonymous = clientFor({ basePath: target.basePath });

  // Where the change feed starts: the cursor of a list read before the story writes anything.
  let cursor = (await listEvents({ client: admin, query: { per_page: 1 } })).response.headers.get('X-TEC-Change-Cursor') ?? undefined;
  assert.ok(cursor, 'X-TEC-Change-Cursor on the list');

  const venue = ok(await createVenue({ client: admin, body: { venue: 'TypeScript Hall', city: 'Springfield', country: 'United States' } }));
  const organizer = ok(await createOrganizer({ client: admin, body: { organizer: 'TypeScript Society', email: 'ts@example.org' } }));
  const category = ok(await createCategory({ client: admin, body: { name: 'TypeScript concerts' } }));
  const tag = ok(await createTag({ client: editor, body: { name: 'TypeScript picks' } }));
  assert.equal(venue.venue, 'TypeScript Hall');
  assert.equal(tag.name, 'TypeScript picks');
  step('create-linked-records');

  const created = ok(
    await createEvent({
      client: admin,
      body: {
        title: 'TypeScript concert',
        start_date: '2027-05-20 19:00:00',
        end_date: '2027-05-20 21:00:00',
        status: 'publish',
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
        tags: [tag.id],
        image: 'https://images.example.org/typescript.jpg',
        cost: 15,
      },
    }),
  );
  assert.equal(created.cost, '$15');
  step('create-event');

  // The unions are typed: narrowed, not cast.
  const read: Event = ok(await getEvent({ client: admin, path: { id: created.id } }));
  assert.ok(!Array.isArray(read.venue), 'one venue');
  assert.equal(read.venue.id, venue.id);
  assert.equal(read.venue.city, 'Springfield');
  assert.ok(read.image, 'an image');
  assert.equal(read.image.url, 'https://images.example.org/typescript.jpg');
  assert.deepEqual(
    read.organizer.map((o) => o.organizer),
    ['TypeScript Society'],
  );
  assert.deepEqual([read.categories[0]?.slug, read.tags[0]?.slug], [category.slug, tag.slug]);
  const bySlug = ok(await getEventBySlug({ client: admin, path: { slug: created.slug } }));
  assert.ok(!Array.isArray(bySlug.venue) && bySlug.venue.venue === 'TypeScript Hall', 'read by slug');
  step('read-by-id-and-slug');

  // A conditional read with the ETag of a read: 304 and no data, nothing thrown. hey-api sets `error`
  // on every answer that is not 2xx, so a 304 has `error` {}: a client checks the status first
  // (docs/sdks.md, "What each language gets").
  const current = (await getEvent({ client: admin, path: { id: created.id } })).response.headers.get('ETag') ?? '';
  const again = await getEvent({ client: admin, path: { id: created.id }, headers: { 'If-None-Match': current } });
  assert.equal(again.response.status, 304);
  assert.deepEqual([again.data, again.error], [undefined, {}]);
  step('not-modified');

  const window = (month: string) => ({ categories: [category.slug], start_date: `2027-${month}-01`, end_date: `2027-${month}-30` });
  const listed = ok(await listEvents({ client: admin, query: window('05') }));
  assert.deepEqual(
    listed.events.map((e) => e.id),
    [created.id],
  );
  assert.equal(ok(await listEvents({ client: admin, query: window('06') })).total, 0);
  step('list-with-filters');

  const etag = (await getEvent({ client: admin, path: { id: created.id } })).response.headers.get('ETag') ?? '';
  const updated = ok(await patchEvent({ client: admin, path: { id: created.id }, body: { title: 'TypeScript concert, updated' }, headers: { 'If-Match': etag } }));
  assert.equal(updated.start_date, '2027-05-20 19:00:00', 'updates are partial');
  const stale = await patchEvent({ client: admin, path: { id: created.id }, body: { title: 'Lost' }, headers: { 'If-Match': etag } });
  assert.equal(stale.response.status, 412);
  assert.equal(stale.error?.code, 'rest_precondition_failed');
  step('update-if-match');

  const draft = { title: 'TypeScript once', start_date: '2027-05-21 10:00:00', end_date: '2027-05-21 11:00:00', status: 'draft' as const };
  const key = `typescript-story-${created.id}`;
  const once = ok(await createEvent({ client: admin, body: draft, headers: { 'Idempotency-Key': key } }));
  const twice = await createEvent({ client: admin, body: draft, headers: { 'Idempotency-Key': key } });
  assert.equal(ok(twice).id, once.id);
  assert.equal(twice.response.headers.get('Idempotent-Replayed'), 'true');
  step('idempotent-replay');

  const seen = new Map<number, ChangeFeed['changes'][number]>();
  for (;;) {
    const feed: ChangeFeed = ok(await listChanges({ client: admin, query: { after: cursor, types: ['event'] } }));
    for (const change of feed.changes) seen.set(change.id, change);
    cursor = feed.next_cursor;
    if (!feed.has_more) break;
  }
  const change = seen.get(created.id);
  assert.equal(change?.action, 'upsert');
  assert.ok(change.record && 'title' in change.record, 'an event record');
  assert.equal(change.record.title, 'TypeScript concert, updated');
  assert.ok(seen.has(once.id));
  step('change-feed');

  const calendar: string = ok(await listEventsIcs({ client: anonymous, query: { categories: [category.slug] } }));
  assert.match(calendar, /^BEGIN:VCALENDAR\r\n/);
  assert.equal(calendar.match(/BEGIN:VEVENT\r\n/g)?.length, 1);
  assert.match(ok(await getEventIcs({ client: anonymous, path: { id: created.id } })), /SUMMARY:TypeScript concert\\, updated\r\n/);
  const itemList: EventItemList = ok(await listEventsJsonLd({ client: anonymous, query: { categories: [category.slug] } }));
  assert.equal(itemList.numberOfItems, 1);
  assert.equal(itemList.itemListElement[0]?.item.name, 'TypeScript concert, updated');
  assert.equal(itemList.itemListElement[0]?.item.location?.['@type'], 'Place');
  step('ics-and-json-ld-feeds');

  const missing = await getEvent({ client: admin, path: { id: 987_654 } });
  assert.equal(missing.response.status, 404);
  const notFound: ApiError | undefined = missing.error;
  assert.equal(notFound?.code, 'rest-event-not-found');
  const refused = await createTag({ client: anonymous, body: { name: 'Free' } });
  assert.equal(refused.response.status, 401);
  assert.equal(refused.error?.code, 'rest_forbidden');
  assert.equal(refused.error?.data.status, 401);
  step('typed-errors');

  assert.equal(ok(await deleteEvent({ client: admin, path: { id: created.id }, query: { force: true } })).id, created.id);
  assert.equal((await getEvent({ client: admin, path: { id: created.id } })).response.status, 404);
  step('delete');
}
