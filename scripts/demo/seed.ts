/**
 * The demonstration calendar of `npm run demo` and of the contract kit's newman run
 * (docs/contract-testing.md): users with known secrets, venues, organizers, categories, tags and
 * events (a recurring series, a draft, a password-protected one), plus records that the suite may
 * delete. Everything is written through the service's own HTTP API on a running app, except what
 * has no HTTP route: users (the CLI's UserRepository) and one idempotency key held as if its create
 * were still running (the IdempotencyRepository), so that the 409 case is reproducible.
 *
 * On a fresh database the ids and slugs are always the same (printed by `npm run demo`); on a
 * database that already had rows (the test database, whose sequences keep counting) the ids differ,
 * so everything the suite needs is returned as variables (`DemoData.variables`) that the caller
 * hands to newman.
 */
import type { Knex } from 'knex';
import { UserRepository } from '../../src/repositories/users.js';
import { IdempotencyRepository } from '../../src/repositories/idempotency.js';
import { inStateWriteTransaction } from '../../src/repositories/registry.js';
import { formatUtc } from '../../src/dates/storage.js';
import { newWebhookSecret } from '../../src/webhooks/secrets.js';

/** One user per WordPress role, each with a known secret (demo only: never on a public address). */
export const DEMO_USERS = {
  administrator: { login: 'admin', secret: 'demo-admin-secret' },
  editor: { login: 'editor', secret: 'demo-editor-secret' },
  author: { login: 'author', secret: 'demo-author-secret' },
  contributor: { login: 'contributor', secret: 'demo-contributor-secret' },
  subscriber: { login: 'subscriber', secret: 'demo-subscriber-secret' },
} as const;

/** The key the demo holds as a create still running: a create sent with it answers 409. */
export const IN_FLIGHT_KEY = 'demo-key-in-flight';
/** The body that key was claimed with (another body is 422, the same body is 409). */
export const IN_FLIGHT_BODY = { name: 'In flight' };

export interface DemoData {
  /** Postman/newman variables: ids, slugs, credentials (names as in contract-kit/portman). */
  variables: Record<string, string>;
}

/** Dates a few weeks ahead of today (UTC), so the events are upcoming in the default list window. */
function day(offsetDays: number, time: string): string {
  const date = new Date(Date.now() + offsetDays * 86_400_000);
  return `${date.toISOString().slice(0, 10)} ${time}`;
}

type Answer = { id: number; slug: string };

/** One user per role (the command-line tool's repository: users have no HTTP route); the admin's id. */
async function addUsers(db: Knex): Promise<number> {
  const users = new UserRepository(db);
  const admin = await users.add(DEMO_USERS.administrator.login, 'administrator', DEMO_USERS.administrator.secret);
  for (const role of ['editor', 'author', 'contributor', 'subscriber'] as const) await users.add(DEMO_USERS[role].login, role, DEMO_USERS[role].secret);
  return admin.user.id;
}

/**
 * Holds IN_FLIGHT_KEY as a create still running: claimed with the fingerprint of `doneKey`, a real
 * keyed create of IN_FLIGHT_BODY (so the fingerprint is whatever the service computes), and dated a
 * year ahead, so its lease never runs out while the demo runs.
 */
async function holdKeyInFlight(db: Knex, userId: number, doneKey: string): Promise<void> {
  const keys = new IdempotencyRepository(db);
  const done = await keys.find(userId, doneKey);
  if (!done) throw new Error('seeding: the keyed create stored no idempotency key');
  const farAhead = Date.now() + 365 * 86_400_000;
  await keys.claim(userId, IN_FLIGHT_KEY, done.fingerprint, farAhead, farAhead + 86_400_000);
}

/**
 * A paused webhook (docs/webhooks.md): written through the repository, not `POST /webhooks`, because
 * the API resolves a webhook's host when it is created and the demo must start without a network;
 * paused, so that a service delivering webhooks sends the demo's changes nowhere.
 */
async function addWebhook(db: Knex, ownerId: number, url: string, description: string): Promise<number> {
  const nowUtc = formatUtc(new Date());
  return inStateWriteTransaction(db, async (repositories) => {
    const position = await repositories.changes.position();
    const id = await repositories.webhooks.create({ url, types: 'event,venue', visibility: 'public', ownerId, description, secret: newWebhookSecret(), position, nowUtc });
    await repositories.webhooks.update(id, { status: 'paused' }, nowUtc);
    return id;
  });
}

/**
 * A subscription (docs/importing.md "Subscribing to a calendar"), as an administrator creates one; no
 * scheduler runs in the demo, and its URL is a closed local port, so a refresh is a quick failed run.
 */
async function addSubscription(db: Knex, ownerId: number, url: string): Promise<number> {
  const nowUtc = formatUtc(new Date());
  return inStateWriteTransaction(db, (repositories) => repositories.subscriptions.create({ url, type: 'ical', refreshMinutes: 60, categories: [], status: null, ownerId, nowUtc }));
}

export async function seedDemo(db: Knex, namespaceUrl: string): Promise<DemoData> {
  const adminId = await addUsers(db);
  const admin = `Basic ${Buffer.from(`${DEMO_USERS.administrator.login}:${DEMO_USERS.administrator.secret}`).toString('base64')}`;

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(`${namespaceUrl}${path}`, {
      method: 'POST',
      headers: { Authorization: admin, 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Answer;
    // A demo that half-seeded would make every later step misleading: stop at the first refusal.
    if (res.status !== 201 && res.status !== 200) throw new Error(`seeding POST ${path} answered ${res.status}: ${JSON.stringify(answer)}`);
    return answer;
  };

  // In this order, so that on a fresh database the records are the ones the document's examples
  // name: venue 1 `town-hall`, organizer 2 `springfield-music-society`, image 3, event 4
  // `spring-concert`; categories 1 `concerts` and 2 `jazz`, tag 3 `outdoor`.
  const hall = await post('/venues', { venue: 'Town Hall', address: '1 Main Street', city: 'Springfield', country: 'United States', status: 'publish' });
  const society = await post('/organizers', { organizer: 'Springfield Music Society', email: 'music@example.org', status: 'publish' });
  const concerts = await post('/categories', { name: 'Concerts' });
  const jazzCategory = await post('/categories', { name: 'Jazz', parent: concerts.id });
  const outdoor = await post('/tags', { name: 'Outdoor' });
  const concert = await post('/events', {
    title: 'Spring Concert',
    description: '<p>An evening of music in the Town Hall.</p>',
    start_date: day(30, '19:00:00'),
    end_date: day(30, '22:00:00'),
    status: 'publish',
    cost: '15',
    image: 'https://events.example.org/wp-content/uploads/spring-concert.jpg',
    venue: hall.id,
    organizer: [society.id],
    categories: [concerts.id, jazzCategory.id],
    tags: [outdoor.id],
  });
  const stage = await post('/venues', { venue: 'Riverside Stage', city: 'Springfield', status: 'publish' });
  const guild = await post('/organizers', { organizer: 'Makers Guild', website: 'https://makers.example.org', status: 'publish' });
  const workshops = await post('/categories', { name: 'Workshops' });

  const pottery = await post('/events', {
    title: 'Weekly Pottery Class',
    start_date: day(31, '18:00:00'),
    end_date: day(31, '20:00:00'),
    status: 'publish',
    venue: stage.id,
    organizer: [guild.id],
    categories: [workshops.id],
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
  });
  const draft = await post('/events', { title: 'Autumn Gala', start_date: day(60, '20:00:00'), end_date: day(60, '23:00:00'), status: 'draft' });
  const members = await post('/events', {
    title: 'Members Preview',
    description: '<p>For members only.</p>',
    start_date: day(40, '18:00:00'),
    end_date: day(40, '19:00:00'),
    status: 'publish',
    password: 'members-only',
  });

  // Records the suite deletes (by id, and by slug where the resource has slug routes), so that the
  // demonstration records stay.
  const disposable = async (path: string, body: Record<string, unknown>, name: string, slugRoutes = true) => ({
    byId: await post(path, { ...body, [name]: `Disposable ${path.slice(1)} A` }),
    bySlug: slugRoutes ? await post(path, { ...body, [name]: `Disposable ${path.slice(1)} B` }) : undefined,
  });
  const eventTimes = { start_date: day(90, '10:00:00'), end_date: day(90, '11:00:00'), status: 'publish' };
  const goneEvents = await disposable('/events', eventTimes, 'title');
  const goneVenues = await disposable('/venues', { status: 'publish' }, 'venue');
  const goneOrganizers = await disposable('/organizers', { status: 'publish' }, 'organizer');
  const goneCategories = await disposable('/categories', {}, 'name', false);
  const goneTags = await disposable('/tags', {}, 'name', false);

  // Webhook 1 is the one the document's examples name; webhook 2 is the one the suite deletes.
  const webhook = await addWebhook(db, adminId, 'https://hooks.example.org/calendar', 'website sync');
  const goneWebhook = await addWebhook(db, adminId, 'https://hooks.example.org/disposable', 'Disposable webhook');

  // Subscription 1 is the one the document's examples name; subscription 2 is the one the suite deletes.
  const subscription = await addSubscription(db, adminId, 'http://127.0.0.1:9/demo.ics');
  const goneSubscription = await addSubscription(db, adminId, 'http://127.0.0.1:9/disposable.ics');

  await post('/tags', IN_FLIGHT_BODY, { 'Idempotency-Key': 'demo-key-done' });
  await holdKeyInFlight(db, adminId, 'demo-key-done');

  const ids = (prefix: string, pair: { byId: Answer; bySlug?: Answer }) => ({
    [`${prefix}DeleteId`]: String(pair.byId.id),
    ...(pair.bySlug ? { [`${prefix}DeleteSlug`]: pair.bySlug.slug } : {}),
  });
  return {
    variables: {
      eventId: String(concert.id),
      eventSlug: concert.slug,
      recurringEventId: String(pottery.id),
      draftEventId: String(draft.id),
      protectedEventId: String(members.id),
      venueId: String(hall.id),
      venueSlug: hall.slug,
      organizerId: String(society.id),
      organizerSlug: society.slug,
      categoryId: String(jazzCategory.id),
      categorySlug: jazzCategory.slug,
      tagId: String(outdoor.id),
      tagSlug: outdoor.slug,
      ...ids('event', goneEvents),
      ...ids('venue', goneVenues),
      ...ids('organizer', goneOrganizers),
      ...ids('category', goneCategories),
      ...ids('tag', goneTags),
      webhookId: String(webhook),
      webhookDeleteId: String(goneWebhook),
      subscriptionId: String(subscription),
      subscriptionDeleteId: String(goneSubscription),
      inFlightKey: IN_FLIGHT_KEY,
      inFlightName: IN_FLIGHT_BODY.name,
      ...Object.fromEntries(
        Object.entries(DEMO_USERS).flatMap(([role, user]) => [
          [`${role}Login`, user.login],
          [`${role}Secret`, user.secret],
        ]),
      ),
    },
  };
}

/** A Postman environment file (what newman's `--environment` reads) holding the variables. */
export function postmanEnvironment(variables: Record<string, string>) {
  return {
    name: 'tec-events demo',
    values: Object.entries(variables).map(([key, value]) => ({ key, value, type: 'default', enabled: true })),
  };
}
