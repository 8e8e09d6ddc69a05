import assert from 'node:assert/strict';
import { createLogger } from '../../src/core/logger.js';
import { startCachePurger, type CachePurger, type PurgerOptions } from '../../src/cache/purger.js';
import { createUser, NS, testApp, type TestUser } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { sleep } from '../helpers/wait.js';
import { call, createEvent, createOrganizer, createVenue, eventPath, type Http, type Rec } from '../helpers/events.js';
import { CATEGORIES, TAGS, createTerm, itemPath } from '../helpers/terms.js';
import { expectStatus } from '../helpers/assertions.js';
import { CacheReceiver } from '../helpers/cache-receiver.js';
import { matching } from './ban-match.js';
import { bumpDataVersion } from '../../src/db/data-version.js';

/**
 * The cache purger against a fake cache (test/helpers/cache-receiver.ts), on the test database (both
 * engines): after each write it sends BANs whose regexes, together, cover every URL the write can
 * alter, and none of them covers the single URLs of records the write left alone.
 */
describe('cache purger (PURGE_URL): BANs after writes', function () {
  this.timeout(30_000);
  let http: Http;
  let admin: TestUser;
  let receiver: CacheReceiver;
  let purger: CachePurger | undefined;

  beforeEach(async () => {
    ({ http } = await testApp());
    admin = await createUser('administrator', 'purge-admin');
    receiver = await CacheReceiver.start();
  });

  afterEach(async () => {
    await purger?.stop();
    purger = undefined;
    await receiver.stop();
  });

  async function start(options: Partial<PurgerOptions> = {}): Promise<void> {
    const { db } = await openTestDatabase();
    purger = startCachePurger({
      db,
      config: { publicUrl: undefined, basePath: '/wp-json', purgeUrl: receiver.url },
      logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      pollMs: 100,
      retryMs: 50,
      maxRetryMs: 200,
      ...options,
    });
    // The purger reads its start position first: writes from here on are its to ban.
    await purger.ready;
  }

  /**
   * Runs `write`, then waits until the BANs acknowledged since cover every URL of `must`, and checks
   * that none of them covers a URL of `mustNot`.
   */
  async function expectBans(write: () => Promise<unknown>, must: string[], mustNot: string[]): Promise<string[]> {
    const from = receiver.requests.length;
    await write();
    const covered = () => {
      const patterns = receiver.acknowledgedBans(from);
      return must.every((url) => patterns.some((pattern) => new RegExp(pattern).test(url)));
    };
    await receiver.waitFor(covered).catch((err: Error) => {
      throw new Error(`${err.message}\nmust: ${must.filter((url) => !receiver.acknowledgedBans(from).some((p) => new RegExp(p).test(url))).join(' ')}`);
    });
    // A later batch of the same write, if any, has had time to come (kept, issue 49: no event says
    // that none will; the BANs checked below must include a late one).
    await sleep(250);
    const patterns = receiver.acknowledgedBans(from);
    // `matching` also checks that POSIX ERE (grep -E) reads each regex as JavaScript does.
    for (const pattern of patterns)
      assert.deepEqual(
        [...matching(pattern, [...must, ...mustNot])].filter((url) => mustNot.includes(url)),
        [],
        `${pattern} bans records the write left alone`,
      );
    for (const request of receiver.requests.slice(from)) {
      assert.equal(request.method, 'BAN');
      assert.equal(request.path, '/');
    }
    return patterns;
  }

  const eventUrls = (event: Rec) => [
    eventPath(event.id),
    `${eventPath(event.id)}/`,
    `${eventPath(event.id)}/ics`,
    `${eventPath(event.id)}.ics`,
    `${eventPath(event.id)}?_fields=title`,
    `${NS}/events/by-slug/${event.slug}`,
    `/event/${event.slug}/`,
  ];
  const LISTS = [
    `${NS}/events`,
    `${NS}/events?page=2`,
    `${NS}/events.ics`,
    `${NS}/events.jsonld`,
    `${NS}/venues?only_with_upcoming=true`,
    `${NS}/organizers`,
    `${NS}/categories?hide_empty=true`,
    `${NS}/tags`,
    '/',
    '/events/',
    '/events/?page=2',
    `/?rest_route=/tribe/events/v1/events`,
  ];
  const UNTOUCHED = [`${NS}/`, `${NS}/changes`, `${NS}/doc`, '/docs', '/healthz'];

  /** A small calendar: a venue, an organizer, a category with a child, a tag, and events linked to some of them. */
  async function calendar() {
    const venue = await createVenue(http, admin, { venue: 'The Hall' });
    const otherVenue = await createVenue(http, admin, { venue: 'The Shed' });
    const organizer = await createOrganizer(http, admin, { organizer: 'The Band' });
    const otherOrganizer = await createOrganizer(http, admin, { organizer: 'The Choir' });
    const category = await createTerm(http, CATEGORIES, admin, { name: 'Music' });
    const child = await createTerm(http, CATEGORIES, admin, { name: 'Jazz', parent: category.id });
    const otherCategory = await createTerm(http, CATEGORIES, admin, { name: 'Talks' });
    const tag = await createTerm(http, TAGS, admin, { name: 'Free' });
    const otherTag = await createTerm(http, TAGS, admin, { name: 'Paid' });
    const linked = await createEvent(http, admin, { title: 'Linked', status: 'publish', venue: venue.id, organizer: [organizer.id], categories: [category.id], tags: [tag.id] });
    const sameCategory = await createEvent(http, admin, { title: 'Same category', status: 'publish', categories: [category.id] });
    const bare = await createEvent(http, admin, { title: 'Bare', status: 'publish' });
    return { venue, otherVenue, organizer, otherOrganizer, category, child, otherCategory, tag, otherTag, linked, sameCategory, bare };
  }

  it('an event update bans the event, every list, feed and page, and no other record', async () => {
    const c = await calendar();
    await start();
    await expectBans(
      () => call(http, 'patch', eventPath(c.linked.id), admin, { title: 'Renamed' }).expect(200),
      [...eventUrls(c.linked), ...LISTS, `/venue/${c.venue.slug}/`, `/organizer/${c.organizer.slug}/`, `/events/category/${c.category.slug}/`, `/tag/${c.tag.slug}/`],
      // Its title moved no term count: the other events, and the venue, organizer and terms, stay.
      [
        eventPath(c.sameCategory.id),
        eventPath(c.bare.id),
        `${NS}/venues/${c.venue.id}`,
        `${NS}/organizers/${c.organizer.id}`,
        itemPath(CATEGORIES, c.category.id),
        itemPath(TAGS, c.tag.id),
        ...UNTOUCHED,
      ],
    );
  });

  it('an event create bans it, and the terms whose counts moved with every event that embeds them', async () => {
    const c = await calendar();
    await start();
    let created: Rec | undefined;
    const bans = await expectBans(
      async () => (created = await createEvent(http, admin, { title: 'New', status: 'publish', categories: [c.category.id] })),
      // The category's count moved: its record, and the events that embed it with its count.
      [itemPath(CATEGORIES, c.category.id), eventPath(c.linked.id), eventPath(c.sameCategory.id), ...LISTS],
      [eventPath(c.bare.id), itemPath(CATEGORIES, c.otherCategory.id), itemPath(TAGS, c.tag.id), `${NS}/venues/${c.venue.id}`, ...UNTOUCHED],
    );
    assert.ok(
      bans.some((pattern) => eventUrls(created!).every((url) => new RegExp(pattern).test(url))),
      'the new event is banned in every form',
    );
  });

  it('an event delete (trash, then for good) bans it in every form', async () => {
    const c = await calendar();
    await start();
    await expectBans(() => call(http, 'delete', eventPath(c.bare.id), admin).expect(200), [...eventUrls(c.bare), ...LISTS], [eventPath(c.linked.id), ...UNTOUCHED]);
    await expectBans(() => call(http, 'delete', `${eventPath(c.bare.id)}?force=true`, admin).expect(200), [...eventUrls(c.bare), ...LISTS], [eventPath(c.linked.id), ...UNTOUCHED]);
  });

  for (const kind of ['venue', 'organizer'] as const) {
    it(`a ${kind} create, update and delete ban it, its by-slug reads and every event record`, async () => {
      const c = await calendar();
      const record = kind === 'venue' ? c.venue : c.organizer;
      const other = kind === 'venue' ? c.otherVenue : c.otherOrganizer;
      const path = `${NS}/${kind}s`;
      const unrelated = [
        `${path}/${other.id}`,
        `${NS}/${kind === 'venue' ? 'organizers' : 'venues'}/${record.id}`,
        itemPath(CATEGORIES, c.category.id),
        itemPath(TAGS, c.tag.id),
        ...UNTOUCHED,
      ];
      await start();
      const urls = (r: Rec) => [
        `${path}/${r.id}`,
        `${path}/${r.id}/`,
        `${path}/by-slug/${r.slug}`,
        `/${kind}/${r.slug}/`,
        eventPath(c.linked.id),
        `${eventPath(c.linked.id)}/ics`,
        eventPath(c.bare.id),
        ...LISTS,
      ];
      let created: Rec | undefined;
      await expectBans(
        async () => (created = await (kind === 'venue' ? createVenue(http, admin, { venue: 'Brand new' }) : createOrganizer(http, admin, { organizer: 'Brand new' }))),
        [...LISTS, `${path}/by-slug/brand-new`],
        unrelated,
      );
      assert.ok(receiver.acknowledgedBans().some((pattern) => new RegExp(pattern).test(`${path}/${created!.id}`)));
      await expectBans(() => call(http, 'patch', `${path}/${record.id}`, admin, { [kind]: 'Renamed' }).expect(200), urls(record), unrelated);
      await expectBans(() => call(http, 'delete', `${path}/${record.id}?force=true`, admin).expect(200), urls(record), unrelated);
    });
  }

  it('a category update bans it, its descendants and the events linked to it, and no other record', async () => {
    const c = await calendar();
    await start();
    await expectBans(
      () => call(http, 'patch', itemPath(CATEGORIES, c.category.id), admin, { slug: 'sounds' }).expect(200),
      // The child's `url` holds its parent's slug.
      [
        itemPath(CATEGORIES, c.category.id),
        itemPath(CATEGORIES, c.child.id),
        eventPath(c.linked.id),
        eventPath(c.sameCategory.id),
        '/events/category/music/',
        '/events/category/music/jazz/',
        ...LISTS,
      ],
      [itemPath(CATEGORIES, c.otherCategory.id), eventPath(c.bare.id), itemPath(TAGS, c.tag.id), `${NS}/venues/${c.venue.id}`, ...UNTOUCHED],
    );
  });

  it('a tag update bans it and the events linked to it; a term delete bans every event record', async () => {
    const c = await calendar();
    await start();
    await expectBans(
      () => call(http, 'patch', itemPath(TAGS, c.tag.id), admin, { name: 'Gratis' }).expect(200),
      [itemPath(TAGS, c.tag.id), eventPath(c.linked.id), `/tag/${c.tag.slug}/`, ...LISTS],
      [itemPath(TAGS, c.otherTag.id), eventPath(c.sameCategory.id), eventPath(c.bare.id), itemPath(CATEGORIES, c.category.id), ...UNTOUCHED],
    );
    // The links go with the term, and with them the way to tell which events showed it.
    await expectBans(
      () => call(http, 'delete', itemPath(TAGS, c.tag.id), admin).expect(200),
      [itemPath(TAGS, c.tag.id), eventPath(c.linked.id), eventPath(c.bare.id), ...LISTS],
      [itemPath(TAGS, c.otherTag.id), itemPath(CATEGORIES, c.category.id), ...UNTOUCHED],
    );
  });

  it('wakes at once after a write of this process, without waiting for its next poll', async () => {
    const c = await calendar();
    await start({ pollMs: 60_000 });
    const started = Date.now();
    await expectBans(() => call(http, 'patch', eventPath(c.bare.id), admin, { title: 'Soon' }).expect(200), [eventPath(c.bare.id)], []);
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
  });

  it('finds writes it was not told of (another process) by polling the feed', async () => {
    const c = await calendar();
    await start({ pollMs: 100 });
    const { db } = await openTestDatabase();
    // Another process's commit: a change and a data-version bump written straight to the database,
    // which signals nothing in this process (db/commit-signal.ts).
    const otherProcessWrites = async () => {
      await db.raw('REPLACE INTO changes (type, record_id, deleted, changed_utc) VALUES (?, ?, 0, ?)', ['event', c.bare.id, '2030-01-01 00:00:00']);
      await bumpDataVersion(db);
    };
    await expectBans(otherProcessWrites, [eventPath(c.bare.id)], [eventPath(c.linked.id)]);
  });

  it('sends a batch again until the cache acknowledges it (5xx, no answer), and loses no write meanwhile', async () => {
    const c = await calendar();
    await start({ timeoutMs: 300 });
    const from = receiver.requests.length;
    receiver.failNext(503, 'hang', 500);
    const first = await call(http, 'patch', eventPath(c.bare.id), admin, { title: 'While failing' });
    expectStatus(first, 200);
    // A write while the cache fails: it goes in a later batch, not lost.
    await receiver.waitFor(() => receiver.requests.length >= from + 2);
    await call(http, 'patch', eventPath(c.linked.id), admin, { title: 'Also while failing' }).expect(200);
    await receiver.waitFor(() => [c.bare.id, c.linked.id].every((id) => receiver.acknowledgedBans(from).some((p) => new RegExp(p).test(eventPath(id)))));
    const statuses = receiver.requests.slice(from).map((request) => request.status);
    assert.deepEqual(statuses.slice(0, 4), [503, null, 500, 200]);
    // The batch sent again is the same BAN until acknowledged.
    const patterns = receiver.requests.slice(from, from + 4).map((request) => request.headers['x-ban-url']);
    assert.equal(new Set(patterns).size, 1);
  });

  it('sends nothing while nothing is written', async () => {
    await calendar();
    await start();
    // The pause is the point (kept, issue 49): a stretch of time in which nothing may be sent. (The
    // purger exposes no count of its rounds to wait on first; idle, it may not even query the database.)
    await sleep(500);
    assert.deepEqual(receiver.requests, []);
  });
});
