import assert from 'node:assert/strict';
import qs from 'qs';
import type { Response } from 'supertest';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, NS, testConfig, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import {
  EVENT_KEYS,
  call,
  createEvent,
  createOrganizer,
  createVenue,
  eventBody,
  eventPath,
  eventSlugPath,
  eventsApp,
  eventsPath,
  expectEnvelope,
  readEvent,
  tableCounts,
  type Http,
  type Method,
  type Rec,
} from '../../helpers/events.js';

/**
 * Property tests: random valid and invalid create/update bodies and list queries. fast-check is not
 * installed, so a small seeded generator (mulberry32) drives them; set PROPERTY_SEED to replay a run.
 * Every app runs with response validation on, so any 2xx that did not match the document would
 * have been a 500 and failed the "never a 5xx" property.
 */
const SEED = Number(process.env.PROPERTY_SEED ?? 20261121);

type Random = () => number;

function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Small generator toolkit over one random source. */
function gen(random: Random) {
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const chance = (p: number) => random() < p;
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)];
  const ALPHABETS = ['abcdefghijklmnopqrstuvwxyz ', 'ÀÉÎÕÜßçñø', 'Жизнь и музыка', '音楽の夜祭り', 'مرحبا بالعالم', '🎉🎸🥁😀', '<>&"\'%_\\/;:{}[]', '\u200b\u00a0\t\n'];
  const text = (max = 40): string => {
    const alphabet = pick(ALPHABETS);
    const chars = [...alphabet];
    return Array.from({ length: int(1, max) }, () => pick(chars)).join('');
  };
  const huge = () => pick(['x', 'é', '🎉', 'ab ']).repeat(int(3000, 70000));
  const scalarJunk = (): unknown =>
    pick<() => unknown>([
      () => '',
      () => '   ',
      () => text(),
      () => huge(),
      () => int(-5, 5),
      () => 1e20,
      () => -1.5,
      () => true,
      () => false,
      () => null,
      () => 'null',
      () => '0000-00-00 00:00:00',
      () => '2030-02-30 25:61:61',
      () => '<script>alert(1)</script>',
      () => "'; DROP TABLE posts; --",
    ])();
  const junk = (depth = 0): unknown => {
    if (depth < 2 && chance(0.2)) return Array.from({ length: int(0, 3) }, () => junk(depth + 1));
    if (depth < 2 && chance(0.15))
      return Object.fromEntries(Array.from({ length: int(0, 3) }, () => [pick(['id', 'venue', 'organizer', 'city', 'x', 'website', '__proto__']), junk(depth + 1)]));
    return scalarJunk();
  };
  return { int, chance, pick, text, junk };
}

/** The ids of the records that random bodies refer to. */
interface World {
  venues: number[];
  organizers: number[];
  categoryIds: number[];
  categorySlugs: string[];
  tagIds: number[];
  imageId: number;
  eventId: number;
}

/** A random event body: every field valid with some probability, replaced by junk otherwise. */
function randomBody(g: ReturnType<typeof gen>, world: World, creating: boolean): Record<string, unknown> {
  const { int, chance, pick, text, junk } = g;
  const valid: Record<string, () => unknown> = {
    title: () => text(),
    start_date: () => pick(['2030-05-01 10:00:00', '2030-05-01', 'tomorrow 9am', '2030-05-01T10:00:00+02:00', 1903860000, '1903860000', 'next wednesday 4pm']),
    end_date: () => pick(['2031-06-01 12:00:00', '2031-06-01', '2031-06-01T12:00:00Z', 1938081600]),
    timezone: () => pick(['UTC', 'America/New_York', 'Asia/Tokyo', 'UTC+5', 'UTC-3.5', 'Europe/Paris', '']),
    all_day: () => pick([true, false, '1', '0', 'true']),
    description: () => (chance(0.5) ? text(200) : `<p>${text()}</p><script>x()</script>`),
    excerpt: () => text(80),
    slug: () => text(30),
    status: () => pick(['publish', 'draft', 'pending', 'private', 'future']),
    cost: () => pick<unknown>(['15', '20$', ['0$', '20$', '30$'], 'Donation', 0, 12.5, '', '€1.000,50']),
    website: () => pick(['https://example.test/a?b=1&c=2', '', 'http://x.test']),
    show_map: () => chance(0.5),
    show_map_link: () => pick([true, false, '0']),
    hide_from_listings: () => chance(0.2),
    sticky: () => chance(0.5),
    featured: () => pick([true, false, 'FALSE']),
    venue: () =>
      pick<() => unknown>([
        () => pick(world.venues),
        () => String(pick(world.venues)),
        () => ({ id: pick(world.venues) }),
        () => ({ venue: text(20), city: text(10) }),
        () => [pick(world.venues), pick(world.venues)],
        () => pick([0, '', null, []]),
      ])(),
    organizer: () =>
      pick<() => unknown>([
        () => pick(world.organizers),
        () => [pick(world.organizers), { id: pick(world.organizers) }, { organizer: text(20) }],
        () => [],
        () => [{ organizer: text(15), email: 'someone@example.test' }],
      ])(),
    categories: () => pick<unknown>([[pick(world.categoryIds)], [pick(world.categorySlugs)], [], [`New ${text(10)}`]]),
    tags: () => pick<unknown>([[pick(world.tagIds)], [], [String(pick(world.tagIds))]]),
    image: () => pick<unknown>([world.imageId, 'https://cdn.example.test/p.png', null]),
    password: () => pick(['', text(10)]),
    date: () => pick(['2026-01-01 10:00:00', '2027-06-01 10:00:00', 'yesterday']),
  };
  const body: Record<string, unknown> = {};
  for (const [name, make] of Object.entries(valid)) {
    const required = creating && ['title', 'start_date', 'end_date'].includes(name);
    if (!required && !chance(0.25)) continue;
    if (required && chance(0.05)) continue;
    body[name] = chance(0.12) ? junk() : make();
  }
  // Nested junk and type confusions where scalars or objects are expected.
  if (chance(0.08)) body.venue = { venue: junk(), website: junk(), geo_lat: junk() };
  if (chance(0.08)) body.organizer = [junk(1), { organizer: junk() }];
  if (chance(0.05)) body.id = int(1, 100000);
  if (chance(0.05)) body.start_date_details = junk();
  return body;
}

/** A random list query string: each parameter valid most of the time, junk otherwise. */
function randomQuery(g: ReturnType<typeof gen>, world: World): string {
  const { int, chance, pick, text } = g;
  const [venue, otherVenue] = world.venues;
  const values: Record<string, [() => string, string[]]> = {
    page: [() => pick(['1', '2', String(int(1, 5))]), ['0', '-1', 'abc', '1.5', '99999999999999999999']],
    per_page: [() => pick(['1', '10', '50', '100', String(int(1, 60))]), ['0', 'x', '']],
    start_date: [() => pick(['2030-01-01', '2026-11-20 00:00:00', 'tomorrow 9am', '1903860000', '2029-12-31T23:00:00-05:00']), ['garbage', '2030-02-30', '']],
    end_date: [() => pick(['2031-12-31', '+5 days 11am', '2030-05-01T10:00:00Z']), ['never', '💥']],
    starts_before: [() => pick(['2031-01-01', 'now']), ['bad date']],
    starts_after: [() => pick(['2029-01-01', 'yesterday', '@0']), ['13/13/2013']],
    ends_before: [() => pick(['2031-01-01', '2030-05-01 10:00:00+02:00']), ['x']],
    ends_after: [() => pick(['2020-01-01', '2030-05-03']), ['tomorrow never']],
    strict_dates: [() => pick(['true', 'false', '1', '0', 'TRUE', 'yes', 'Off']), ['maybe', '']],
    search: [() => pick([text(20), 'List', '"List 2"', 'List -3', '%', '_', 'a'.repeat(3000)]), ['']],
    categories: [() => pick([world.categorySlugs[0], String(world.categoryIds[0]), `${world.categorySlugs[0]},${world.categoryIds[1]}`]), ['unknown-slug', '999999', '']],
    tags: [() => String(world.tagIds[0]), ['nope', '']],
    venue: [() => pick([String(venue), `${venue},${otherVenue}`, `${otherVenue}, ${venue}`]), ['999999', 'abc', '-1', '99999999999999999999']],
    organizer: [() => pick(world.organizers.map(String)), ['0', 'x,y']],
    featured: [() => pick(['true', 'false', '1', '0']), ['maybe']],
    status: [() => pick(['publish', 'draft', 'any', 'publish,draft', 'trash']), ['bogus', '']],
    geoloc: [() => pick(['true', 'false']), ['x']],
    geoloc_lat: [() => pick(['48.85', '0', '-90']), ['91', 'north']],
    geoloc_lng: [() => pick(['2.35', '180']), ['-181', 'east']],
    geoloc_radius: [() => pick(['10', '1e6', '0.5']), ['0', '-5', 'far']],
    include: [() => pick([String(world.eventId), `${world.eventId},${world.eventId + 1}`, '99999999999999999999']), ['0', 'abc', '', `${venue}x`]],
    post_parent: [() => String(world.eventId), [String(venue), '999999', 'x']],
    ticketed: [() => pick(['false', '0']), ['true', '1', 'maybe']],
    password: [() => text(5), []],
    colour: [() => 'blue', []],
  };
  const parts: string[] = [];
  for (const [name, [valid, invalid]] of Object.entries(values)) {
    if (!chance(0.15)) continue;
    const make = () => (invalid.length && chance(0.12) ? pick(invalid) : valid());
    if (chance(0.1)) parts.push(`${name}[]=${encodeURIComponent(make())}&${name}[]=${encodeURIComponent(make())}`);
    else parts.push(`${name}=${encodeURIComponent(make())}`);
  }
  if (chance(0.03)) parts.push('search=%E0%A4%A');
  // Object-valued list parameters (`categories[a]=x`) are left out: they answer 500, see the
  // skipped BUG test in events-list.test.ts.
  if (chance(0.03)) parts.push(`search[a]=${encodeURIComponent(text(5))}`);
  return parts.join('&');
}

describe('events: properties over random input', function () {
  this.timeout(180_000);
  let http: Http;
  let users: Record<Role, TestUser>;
  let world: World;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
    const editor = users.editor;
    const venues = [
      (await createVenue(http, editor, { venue: 'Paris Hall', geo_lat: 48.8566, geo_lng: 2.3522 })).id,
      (await createVenue(http, editor, { venue: 'Plain Room' })).id,
    ];
    const organizers = [(await createOrganizer(http, editor, { organizer: 'Org One' })).id, (await createOrganizer(http, editor, { organizer: 'Org Two' })).id];
    const categories = [
      (await call(http, 'post', `${NS}/categories`, editor, { name: 'Music' })).body as Rec,
      (await call(http, 'post', `${NS}/categories`, editor, { name: 'Art' })).body as Rec,
    ];
    const tags = [(await call(http, 'post', `${NS}/tags`, editor, { name: 'Free' })).body as Rec];
    const seeded = await createEvent(http, editor, {
      title: 'Seed',
      venue: venues[0],
      organizer: organizers,
      categories: [categories[0].id],
      image: 'https://cdn.example.test/seed.png',
    });
    world = {
      venues,
      organizers,
      categoryIds: categories.map((c) => c.id),
      categorySlugs: categories.map((c) => c.slug),
      tagIds: tags.map((t) => t.id),
      imageId: seeded.image.id,
      eventId: seeded.id,
    };
  });

  it('runs with response validation on, so every 2xx below matched the document', () => {
    assert.equal(testConfig().validateResponses, true);
  });

  /** A caller for a random request: mostly an editor, sometimes anybody else. */
  const randomCaller = (g: ReturnType<typeof gen>): TestUser | undefined =>
    g.chance(0.7) ? users.editor : g.pick<TestUser | undefined>([undefined, users.subscriber, users.contributor, users.author, users.administrator]);

  /** Sends a body as JSON (usually) or as a form. */
  const send = (g: ReturnType<typeof gen>, method: Method, path: string, as: TestUser | undefined, body: unknown) => {
    let req = http()[method](path);
    if (as) req = req.set('Authorization', as.authorization);
    if (g.chance(0.2) && body && typeof body === 'object' && !Array.isArray(body)) return req.type('form').send(qs.stringify(body, { arrayFormat: 'indices' }));
    return req.set('Content-Type', 'application/json').send(JSON.stringify(body));
  };

  const label = (i: number, what: unknown, res: Response) => `seed ${SEED} #${i}: ${JSON.stringify(what)?.slice(0, 400)} → ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`;

  it('never answers 5xx to 160 random create bodies, and a refused create stores nothing', async () => {
    const g = gen(mulberry32(SEED));
    let created = 0;
    let refused = 0;
    for (let i = 0; i < 160; i++) {
      const body: unknown = g.chance(0.04) ? g.pick<unknown>([[eventBody()], 'a string', 42, null]) : randomBody(g, world, true);
      const as = randomCaller(g);
      const before = await tableCounts();
      const res = (await send(g, 'post', eventsPath, as, body)) as Response;
      assert.ok(res.status < 500, label(i, body, res));
      if (res.status === 201) {
        created++;
        assert.deepEqual(Object.keys(res.body), EVENT_KEYS, label(i, body, res));
        assert.ok(String(res.headers.location).endsWith(`/events/${res.body.id}`), label(i, body, res));
      } else {
        refused++;
        assert.ok([400, 401, 403, 413].includes(res.status), label(i, body, res));
        expectEnvelope(res, label(i, body, res));
        assert.deepEqual(await tableCounts(), before, `stored rows after a refusal: ${label(i, body, res)}`);
      }
    }
    assert.ok(created >= 30 && refused >= 30, `a useful mix of valid and invalid bodies: ${created} created, ${refused} refused`);
  });

  it('never answers 5xx to 160 random updates, and a refused update changes nothing', async () => {
    const g = gen(mulberry32(SEED + 1));
    let target = await createEvent(http, users.editor, { title: 'Target', venue: world.venues[1], organizer: [world.organizers[1]], cost: '10', featured: true });
    let updated = 0;
    let refused = 0;
    for (let i = 0; i < 160; i++) {
      const body: unknown = g.chance(0.04) ? g.pick<unknown>([['x'], 'a string', 7]) : randomBody(g, world, false);
      const as = randomCaller(g);
      const method = g.pick(['post', 'put', 'patch'] as const);
      const path = g.chance(0.05) ? eventPath(999999) : g.chance(0.5) ? eventPath(target.id) : eventSlugPath(target.slug);
      const before = await readEvent(http, target.id, users.editor);
      const counts = await tableCounts();
      const res = (await send(g, method, path, as, body)) as Response;
      assert.ok(res.status < 500, label(i, body, res));
      if (res.status === 200) {
        updated++;
        assert.deepEqual(Object.keys(res.body), EVENT_KEYS, label(i, body, res));
        assert.equal(res.body.id, target.id, label(i, body, res));
        target = res.body as Rec;
      } else {
        refused++;
        assert.ok([400, 401, 403, 404, 413].includes(res.status), label(i, body, res));
        expectEnvelope(res, label(i, body, res));
        assert.deepEqual(await readEvent(http, target.id, users.editor), before, `changed after a refusal: ${label(i, body, res)}`);
        assert.deepEqual(await tableCounts(), counts, `stored rows after a refusal: ${label(i, body, res)}`);
      }
    }
    assert.ok(updated >= 30 && refused >= 30, `a useful mix of valid and invalid updates: ${updated} updated, ${refused} refused`);
  });

  it('never answers 5xx to 110 random list queries; every answer is an envelope or a consistent page', async () => {
    const g = gen(mulberry32(SEED + 2));
    for (let day = 1; day <= 6; day++) {
      await createEvent(http, users.editor, {
        title: `List ${day}`,
        start_date: `2030-05-0${day} 10:00:00`,
        end_date: `2030-05-0${day} 11:00:00`,
        venue: world.venues[day % 2],
        categories: [world.categoryIds[day % 2]],
        featured: day % 3 === 0,
        status: day === 6 ? 'draft' : 'publish',
      });
    }
    let ok = 0;
    for (let i = 0; i < 110; i++) {
      const query = randomQuery(g, world);
      const as = g.pick<TestUser | undefined>([undefined, undefined, users.editor, users.contributor]);
      const res = (await call(http, 'get', `${eventsPath}${query ? `?${query}` : ''}`, as)) as unknown as Response;
      assert.ok(res.status < 500, label(i, query, res));
      if (res.status !== 200) {
        assert.ok([400, 404].includes(res.status), label(i, query, res));
        expectEnvelope(res, label(i, query, res));
        continue;
      }
      ok++;
      const keys = Object.keys(res.body);
      const order = ['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages'];
      assert.deepEqual(
        keys,
        order.filter((key) => keys.includes(key)),
        label(i, query, res),
      );
      assert.equal(res.headers['x-tec-total'], String(res.body.total), label(i, query, res));
      assert.ok(res.body.events.length <= 50, label(i, query, res));
      for (const event of res.body.events as Rec[]) assert.deepEqual(Object.keys(event), EVENT_KEYS, label(i, query, res));
      if (res.body.next_rest_url && g.chance(0.5)) {
        const next = new URL(res.body.next_rest_url);
        expectStatus(await call(http, 'get', next.pathname + next.search, as), 200);
      }
    }
    assert.ok(ok >= 20, `a useful share of queries answered: ${ok}`);
  });
});
