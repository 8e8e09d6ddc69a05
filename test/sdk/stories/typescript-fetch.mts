// A client team's code against the SDK that `npm run sdk` generates (typescript-fetch), compiled with
// `tsc --strict` together with the SDK (test/sdk/tsconfig.json) and run by
// test/sdk/typescript-fetch.test.ts against the service on a real port. A `.mts` file so that the
// project's own type check, which runs before the SDK exists, does not include it.
import assert from 'node:assert/strict';
import {
  CategoriesApi,
  Configuration,
  EventCreateStatusEnum,
  EventsApi,
  ModelErrorFromJSON,
  OrganizersApi,
  VenuesApi,
  type ModelError,
  type Venue,
} from '../../../sdk/typescript-fetch/index.js';

export interface Target {
  /** The namespace URL, e.g. http://127.0.0.1:8080/wp-json/tribe/events/v1. */
  basePath: string;
  login: string;
  secret: string;
}

function clients(target: Target) {
  const configuration = new Configuration({
    basePath: target.basePath,
    username: target.login,
    password: target.secret,
    // The generated runtime defaults to `window.fetch`; Node has a global fetch instead.
    fetchApi: fetch,
  });
  return {
    events: new EventsApi(configuration),
    venues: new VenuesApi(configuration),
    organizers: new OrganizersApi(configuration),
    categories: new CategoriesApi(configuration),
  };
}

/**
 * The error a call failed with, typed by the document's Error schema. typescript-fetch 4.3.1 throws
 * the fetch `Response` itself for any status outside 2xx.
 */
async function failureOf(call: Promise<unknown>): Promise<{ status: number; error: ModelError }> {
  try {
    await call;
  } catch (thrown) {
    if (thrown instanceof Response) return { status: thrown.status, error: ModelErrorFromJSON(await thrown.json()) };
    throw thrown;
  }
  assert.fail('the call was expected to fail');
}

/** `venue` of an event is one venue, several, or `[]` (a pass-through union in this SDK). */
function venuesOf(venue: unknown): Venue[] {
  return Array.isArray(venue) ? (venue as Venue[]) : [venue as Venue];
}

const at = (day: number, hour: number) => `2027-03-${String(day).padStart(2, '0')} ${String(hour).padStart(2, '0')}:00:00`;

export async function createLinkedEvent(target: Target): Promise<void> {
  const api = clients(target);
  const category = await api.categories.createCategory({ categoryCreate: { name: 'Concerts' } });
  const venue = await api.venues.createVenue({ venueCreate: { venue: 'Town Hall', city: 'Springfield', country: 'United States' } });
  const organizer = await api.organizers.createOrganizer({ organizerCreate: { organizer: 'Music Society', email: 'info@example.org' } });

  const event = await api.events.createEvent({
    eventCreate: {
      title: 'Spring Concert',
      start_date: at(20, 19),
      end_date: at(20, 21),
      status: EventCreateStatusEnum.Publish,
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
      cost: '15',
    },
  });
  assert.equal(event.title, 'Spring Concert');
  assert.equal(event.start_date, '2027-03-20 19:00:00');
  assert.equal(event.cost, '$15');
  assert.deepEqual(venuesOf(event.venue).map((v) => v.venue), ['Town Hall']);
  assert.deepEqual(event.organizer.map((o) => o.organizer), ['Music Society']);
  assert.deepEqual(event.categories.map((c) => c.slug), ['concerts']);

  const read = await api.events.getEvent({ id: event.id });
  assert.equal(read.id, event.id);
  assert.equal(read.json_ld?.type, 'Event');
  const bySlug = await api.events.getEventBySlug({ slug: event.slug });
  assert.equal(bySlug.id, event.id);
}

export async function listAndPage(target: Target): Promise<void> {
  const api = clients(target);
  const jazz = await api.categories.createCategory({ categoryCreate: { name: 'Jazz' } });
  for (const day of [3, 1, 2]) {
    await api.events.createEvent({
      eventCreate: { title: `Jazz night ${day}`, start_date: at(day, 20), end_date: at(day, 22), status: EventCreateStatusEnum.Publish, categories: [jazz.id] },
    });
  }
  await api.events.createEvent({ eventCreate: { title: 'Chess club', start_date: at(1, 18), end_date: at(1, 19), status: EventCreateStatusEnum.Publish } });

  // Page through the filtered list, two at a time, until there is no next page.
  const titles: string[] = [];
  let page = 1;
  for (;;) {
    const list = await api.events.listEvents({ categories: [jazz.slug], perPage: 2, page });
    assert.equal(list.total, 3);
    assert.equal(list.total_pages, 2);
    titles.push(...list.events.map((e) => e.title));
    if (!list.next_rest_url) break;
    page += 1;
  }
  assert.equal(page, 2);
  assert.deepEqual(titles, ['Jazz night 1', 'Jazz night 2', 'Jazz night 3']);

  const search = await api.events.listEvents({ search: 'chess' });
  assert.deepEqual(search.events.map((e) => e.title), ['Chess club']);
}

export async function updateAndDelete(target: Target): Promise<void> {
  const api = clients(target);
  const event = await api.events.createEvent({ eventCreate: { title: 'Workshop', start_date: at(10, 9), end_date: at(10, 12), status: EventCreateStatusEnum.Draft } });

  const renamed = await api.events.patchEvent({ id: event.id, eventUpdate: { title: 'Pottery workshop' } });
  assert.equal(renamed.title, 'Pottery workshop');
  assert.equal(renamed.start_date, '2027-03-10 09:00:00', 'updates are partial');
  const moved = await api.events.putEvent({ id: event.id, eventUpdate: { end_date: at(10, 13) } });
  assert.equal(moved.end_date, '2027-03-10 13:00:00');
  assert.equal(moved.title, 'Pottery workshop');

  const trashed = await api.events.deleteEvent({ id: event.id });
  assert.equal(trashed.status, 'trash');
  const gone = await failureOf(api.events.deleteEvent({ id: event.id }));
  assert.equal(gone.status, 410);
  assert.equal(gone.error.code, 'event-is-in-trash');
  await api.events.deleteEvent({ id: event.id, force: true });
  assert.equal((await failureOf(api.events.getEvent({ id: event.id }))).status, 404);
}

export async function typedErrors(target: Target): Promise<void> {
  const api = clients(target);
  const invalid = await failureOf(
    api.events.createEvent({ eventCreate: { title: 'Backwards', start_date: at(5, 12), end_date: at(5, 10) } }),
  );
  assert.equal(invalid.status, 400);
  assert.equal(invalid.error.code, 'rest_invalid_param');
  assert.equal(invalid.error.data.status, 400);
  assert.ok(Object.keys(invalid.error.data.params ?? {}).includes('end_date'), JSON.stringify(invalid.error));

  const missing = await failureOf(api.events.getEvent({ id: 987_654 }));
  assert.equal(missing.status, 404);
  assert.equal(missing.error.code, 'rest-event-not-found');
  assert.equal(missing.error.data.status, 404);
}
