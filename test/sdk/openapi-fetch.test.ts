import assert from 'node:assert/strict';
import { createEventsClient, type EventsClient } from '../../src/client.js';
import type { components } from '../../generated/openapi.js';
import { createUser } from '../helpers/app.js';
import { startService, type RunningService } from './server.js';
import { sharedStory } from './stories/openapi-fetch.js';
import { STORY_STEPS } from './story.js';

type ApiError = components['schemas']['Error'];
type Venue = components['schemas']['Venue'];

/** The same client story as the generated SDK's, with the openapi-fetch client of src/client.ts. */
describe('the typed openapi-fetch client (src/client.ts)', () => {
  let service: RunningService;
  let api: EventsClient;

  before(async () => {
    service = await startService();
  });

  after(async () => {
    await service?.close();
  });

  beforeEach(async () => {
    const admin = await createUser('administrator');
    api = createEventsClient(service.baseUrl, { login: admin.login, secret: admin.secret });
  });

  const at = (day: number, hour: number) => `2027-04-${String(day).padStart(2, '0')} ${String(hour).padStart(2, '0')}:00:00`;

  it('runs the shared client story (docs/sdks.md), as the generated SDKs do', async () => {
    const editor = await createUser('editor');
    const admin = await createUser('administrator', 'story-admin');
    const steps: string[] = [];
    await sharedStory({ baseUrl: service.baseUrl, login: admin.login, secret: admin.secret, bearer: editor.secret }, (name) => steps.push(name));
    assert.deepEqual(steps, [...STORY_STEPS]);
  });

  it('creates linked records, lists them with filters page by page, updates and deletes', async () => {
    const category = (await api.POST('/categories', { body: { name: 'Talks' } })).data!;
    const venue = (await api.POST('/venues', { body: { venue: 'Library', city: 'Springfield' } })).data!;
    const organizer = (await api.POST('/organizers', { body: { organizer: 'Book Club' } })).data!;
    for (const day of [2, 1, 3]) {
      const { data, error, response } = await api.POST('/events', {
        body: { title: `Talk ${day}`, start_date: at(day, 18), end_date: at(day, 19), status: 'publish', venue: venue.id, organizer: [organizer.id], categories: [category.id] },
      });
      assert.equal(response.status, 201, JSON.stringify(error));
      assert.equal((data!.venue as Venue).venue, 'Library');
      assert.deepEqual(
        data!.organizer.map((o) => o.id),
        [organizer.id],
      );
    }
    await api.POST('/events', { body: { title: 'Unrelated', start_date: at(1, 9), end_date: at(1, 10), status: 'publish' } });

    const titles: string[] = [];
    for (let page = 1; ; page++) {
      const { data } = await api.GET('/events', { params: { query: { categories: [category.slug], venue: [venue.id], per_page: 2, page } } });
      assert.equal(data!.total, 3);
      titles.push(...data!.events.map((e) => e.title));
      if (!data!.next_rest_url) break;
    }
    assert.deepEqual(titles, ['Talk 1', 'Talk 2', 'Talk 3']);

    const first = (await api.GET('/events', { params: { query: { search: 'Talk 1' } } })).data!.events[0];
    const patched = await api.PATCH('/events/{id}', { params: { path: { id: first.id } }, body: { title: 'Opening talk' } });
    assert.equal(patched.data!.title, 'Opening talk');
    assert.equal(patched.data!.start_date, at(1, 18));

    const deleted = await api.DELETE('/events/{id}', { params: { path: { id: first.id }, query: { force: true } } });
    assert.equal(deleted.response.status, 200);
    assert.equal((await api.GET('/events/{id}', { params: { path: { id: first.id } } })).response.status, 404);
  });

  it('returns a 400 and a 404 as typed error bodies', async () => {
    const invalid = await api.POST('/events', { body: { title: 'Backwards', start_date: at(5, 12), end_date: at(5, 10) } });
    assert.equal(invalid.response.status, 400);
    const badRequest: ApiError | undefined = invalid.error;
    assert.equal(badRequest?.code, 'rest_invalid_param');
    assert.ok(Object.keys(badRequest?.data.params ?? {}).includes('end_date'));

    const missing = await api.GET('/venues/by-slug/{slug}', { params: { path: { slug: 'nowhere' } } });
    assert.equal(missing.response.status, 404);
    assert.equal(missing.error?.code, 'rest-venue-not-found');
    assert.equal(missing.data, undefined);
  });

  it('reads anonymously and authenticates with a bearer token', async () => {
    const anonymous = createEventsClient(service.baseUrl);
    assert.equal((await anonymous.POST('/tags', { body: { name: 'Free' } })).error?.code, 'rest_forbidden');
    const editor = await createUser('editor');
    const bearer = createEventsClient(`${service.baseUrl}/`, { bearer: editor.secret });
    const created = await bearer.POST('/tags', { body: { name: 'Free' } });
    assert.equal(created.response.status, 201);
    const read = await anonymous.GET('/tags/{id}', { params: { path: { id: created.data!.id } } });
    assert.equal(read.data!.name, 'Free');
  });
});
