import assert from 'node:assert/strict';
import { createUser, NS, testApp, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { openTestDatabase } from '../helpers/database.js';
import { ADMIN_CREDENTIALS, isKnownDifference, loadRecording, replaySite, type ReplayedSite, type SiteRecording } from '../helpers/tec-site-server.js';
import { runImport, type ImportOptions, type ImportReport } from '../../src/importing/engine.js';
import { openSite, SiteError } from '../../src/importing/tec-site-http.js';
import { tecSiteSource } from '../../src/importing/tec-site.js';
import type { ImportRecord } from '../../src/importing/records.js';

/**
 * `import-site` (docs/importing.md "Moving from WordPress") against a real peer's recorded answers
 * (test/fixtures/tec-site/peer.json, a realistic site filled by scripts/import-site/populate-peer.ts),
 * replayed by a local server: what is read, what is written, and what a second run does.
 */

/** Records per page, as recorded (scripts/import-site/record-fixtures.ts). */
const PER_PAGE = 10;
const EVENTS_LIST = `${NS}/events?status=publish,future,draft,pending,private&start_date=1000-01-01%2000%3A00%3A00&end_date=9999-12-31%2023%3A59%3A59&per_page=10&page=`;
const ANON_EVENTS_LIST = `${NS}/events?start_date=1000-01-01%2000%3A00%3A00&end_date=9999-12-31%2023%3A59%3A59&per_page=10&page=`;

let recording: SiteRecording;
let site: ReplayedSite;

before(() => {
  recording = loadRecording();
});

beforeEach(async () => {
  site = await replaySite(recording);
});

afterEach(() => site.close());

async function importSite(options: Partial<ImportOptions> & { credentials?: string | null } = {}): Promise<ImportReport> {
  const { db } = await openTestDatabase();
  const opened = await openSite(site.origin, { credentials: options.credentials === null ? undefined : (options.credentials ?? ADMIN_CREDENTIALS) });
  return runImport(db, tecSiteSource(opened, { perPage: PER_PAGE }), { siteTimezone: 'UTC', ...options });
}

/** The recorded events (authenticated view), by id. */
function recordedEvents(view: keyof SiteRecording = 'authenticated'): Map<number, Record<string, unknown>> {
  const events = new Map<number, Record<string, unknown>>();
  const list = view === 'authenticated' ? EVENTS_LIST : ANON_EVENTS_LIST;
  for (let page = 1; recording[view][`${list}${page}`]; page++) {
    for (const event of JSON.parse(recording[view][`${list}${page}`].body).events) events.set(event.id, event);
  }
  const hidden = recording[view][`${NS}/events/27`];
  if (hidden) events.set(27, JSON.parse(hidden.body));
  return events;
}

function differences(a: unknown, b: unknown, path: string, out: string[]): void {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) differences((a as never)[key], (b as never)[key], `${path}.${Array.isArray(a) ? '*' : key}`, out);
  } else if (JSON.stringify(a) !== JSON.stringify(b) && !isKnownDifference(path)) out.push(`${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`);
}

const withoutOrigins = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/https?:\/\/127\.0\.0\.1:\d+|\{\{ORIGIN\}\}/g, 'ORIGIN'));

describe('import-site', () => {
  let admin: TestUser;

  beforeEach(async function () {
    // The first test imports into a database without users, so that the authors keep their ids.
    if (!this.currentTest?.title.startsWith('copies')) admin = await createUser('administrator', 'local-admin');
  });

  it('copies a site into an empty database keeping ids and slugs: every record reads as the plugin answered it, apart from origins', async () => {
    const report = await importSite();
    admin = await createUser('administrator', 'local-admin');
    assert.deepEqual(report.failures, []);
    assert.equal(report.keepsIds, true);
    assert.deepEqual(Object.fromEntries(Object.entries(report.counts).map(([kind, c]) => [kind, c.created])), { user: 4, category: 7, tag: 5, venue: 5, organizer: 4, event: 26 });
    const { http } = await testApp({ siteUrl: site.origin });
    const events = recordedEvents();
    assert.equal(events.size, 26, 'drafts, pending, private, future and hidden events included');
    const problems: string[] = [];
    for (const [id, peer] of events) {
      const ours = await http().get(`${NS}/events/${id}`).set('Authorization', admin.authorization);
      expectStatus(ours, 200);
      differences(withoutOrigins(peer), withoutOrigins(ours.body), 'events', problems);
    }
    for (const [collection, query] of [
      ['categories', 'hide_empty=0&'],
      ['tags', 'hide_empty=0&'],
      ['venues', 'status=publish,future,draft,pending,private&'],
      ['organizers', 'status=publish,future,draft,pending,private&'],
    ]) {
      const records = JSON.parse(recording.authenticated[`${NS}/${collection}?${query}per_page=10&page=1`].body)[collection];
      assert.ok(records.length > 3);
      for (const peer of records) {
        const ours = await http().get(`${NS}/${collection}/${peer.id}`).set('Authorization', admin.authorization);
        differences(withoutOrigins(peer), withoutOrigins(ours.body), collection, problems);
      }
    }
    assert.deepEqual(problems, []);
    // An event without a website: the plugin answers its permalink, which is no website.
    const websites = await Promise.all([18, 30].map(async (id) => (await http().get(`${NS}/events/${id}`).set('Authorization', admin.authorization)).body.website));
    assert.deepEqual(websites, ['https://tickets.example.org/jazz', '']);
    // Authors became users without a secret; their records keep them.
    const maria = await http().get(`${NS}/events/30`).set('Authorization', admin.authorization);
    assert.equal(maria.body.author, '2');
    const { db } = await openTestDatabase();
    assert.deepEqual(await db('users').where('id', 2).first('login', 'role'), { login: 'maria', role: 'author' });
    assert.equal((await db('secrets').where('user_id', 2)).length, 0);
  });

  it('runs again: unchanged records are left alone, a changed one is updated, a new one added, and --prune removes only what the source no longer has', async () => {
    await importSite();
    const { http } = await testApp();
    const local = await http().post(`${NS}/venues`).set('Authorization', admin.authorization).send({ venue: 'Made here' });
    expectStatus(local, 201);
    // The source changes an event's title, drops the event 45 and the tag "unused tag".
    site.override(`${EVENTS_LIST}1`, (body) => {
      const page = body as { events: Array<Record<string, unknown>> };
      page.events[0].title = 'Renamed at the source';
      page.events[0].modified_utc = '2030-01-01 00:00:00';
      return page;
    });
    site.override(`${EVENTS_LIST}3`, (body) => ({ ...(body as object), events: (body as { events: Array<{ id: number }> }).events.filter((e) => e.id !== 45) }));
    site.override(`/wp-json/wp/v2/tribe_events?_fields=id&status=publish,future,draft,pending,private&per_page=100&page=1`, (body) =>
      (body as Array<{ id: number }>).filter((e) => e.id !== 45),
    );
    site.override(`${NS}/tags?hide_empty=0&per_page=10&page=1`, (body) => ({
      ...(body as object),
      tags: (body as { tags: Array<{ name: string }> }).tags.filter((t) => t.name !== 'unused tag'),
    }));
    const changed = JSON.parse(recording.authenticated[`${EVENTS_LIST}1`].body).events[0];
    const before = await http().get(`${NS}/changes?per_page=100`).set('Authorization', admin.authorization);
    expectStatus(before, 200);
    const dry = await importSite({ prune: true, dryRun: true });
    assert.deepEqual([dry.counts.event.updated, dry.counts.event.removed], [1, 1]);
    expectStatus(await http().get(`${NS}/events/45`).set('Authorization', admin.authorization), 200);
    const third = await importSite({ prune: true });
    assert.deepEqual(third.failures, []);
    assert.deepEqual([third.counts.event.updated, third.counts.event.unchanged, third.counts.event.removed], [1, 24, 1]);
    assert.deepEqual([third.counts.venue.unchanged, third.counts.category.unchanged, third.counts.tag.unchanged, third.counts.tag.removed], [5, 7, 4, 1]);
    assert.deepEqual(
      Object.values(third.counts).map((c) => c.created + c.failed),
      [0, 0, 0, 0, 0, 0],
    );
    const renamed = await http().get(`${NS}/events/${changed.id}`).set('Authorization', admin.authorization);
    assert.equal(renamed.body.title, 'Renamed at the source');
    assert.equal(renamed.body.modified_utc, '2030-01-01 00:00:00');
    expectStatus(await http().get(`${NS}/events/45`).set('Authorization', admin.authorization), 404);
    expectStatus(await http().get(`${NS}/venues/${local.body.id}`), 200);
    // The writes are in the change feed like any other.
    const after = await http().get(`${NS}/changes?per_page=100&after=${before.body.next_cursor}`).set('Authorization', admin.authorization);
    expectStatus(after, 200);
    assert.ok(JSON.stringify(after.body).includes(`"id":${changed.id}`), 'the updated event is in the change feed');
  });

  it('without credentials reads what a visitor sees; into a database with records it maps ids instead of keeping them', async () => {
    const { http } = await testApp();
    const first = await http().post(`${NS}/venues`).set('Authorization', admin.authorization).send({ venue: 'Already here' });
    expectStatus(first, 201);
    const mapped = new Map<string, number>();
    const report = await importSite({ credentials: null, onRecord: (o) => o.localId !== undefined && mapped.set(`${o.kind} ${o.sourceId}`, o.localId) });
    assert.equal(report.keepsIds, false);
    assert.deepEqual(report.failures, []);
    assert.equal(report.counts.event.created, recordedEvents('anonymous').size);
    assert.equal(report.counts.event.created, 22, 'published events only, the hidden one included');
    const jazz = mapped.get('event 18')!;
    assert.notEqual(jazz, 18);
    const event = await http().get(`${NS}/events/${jazz}`);
    expectStatus(event, 200);
    assert.equal(event.body.title, 'Spring Jazz Night');
    assert.equal(event.body.venue.id, mapped.get('venue 5'), 'links follow the map');
    assert.deepEqual(
      event.body.categories.map((c: { id: number }) => c.id),
      [mapped.get('category 3')],
    );
  });

  it('reports a record that breaks the rules with its source id and reason, fails what links to it, and writes the rest; a dry run writes nothing', async () => {
    site.override(`${NS}/venues?status=publish,future,draft,pending,private&per_page=10&page=1`, (body) => {
      const page = body as { venues: Array<Record<string, unknown>> };
      const hall = page.venues.find((v) => v.id === 5)!;
      hall.website = 'not a url';
      const park = page.venues.find((v) => v.id === 6)!;
      Object.assign(park, { geo_lat: 52.52, geo_lng: 13.405 });
      return page;
    });
    site.override(`${EVENTS_LIST}1`, (body) => {
      const page = body as { events: Array<Record<string, unknown>> };
      page.events[1].title = 'x'.repeat(100_000);
      return page;
    });
    site.override(`${NS}/organizers?status=publish,future,draft,pending,private&per_page=10&page=1`, (body) => {
      const page = body as { organizers: Array<Record<string, unknown>> };
      page.organizers.find((o) => o.id === 16)!.status = 'auto-draft';
      return page;
    });
    const dry = await importSite({ dryRun: true });
    const { db } = await openTestDatabase();
    assert.equal((await db('posts').count({ n: '*' }))[0].n, 0, 'a dry run writes nothing');
    assert.equal(Number((await db('import_origins').count({ n: '*' }))[0].n), 0);
    assert.equal(dry.counts.venue.failed, 1);

    const report = await importSite();
    const failed = report.failures.map((f) => `${f.kind} ${f.sourceId}`);
    const broken = JSON.parse(recording.authenticated[`${EVENTS_LIST}1`].body).events[1];
    assert.ok(failed.includes('venue 5') && failed.includes(`event ${broken.id}`), failed.join(', '));
    assert.match(report.failures.find((f) => f.sourceId === '5')!.reason, /website/);
    assert.match(report.failures.find((f) => f.kind === 'organizer')!.reason, /^status must be one of publish/);
    assert.match(report.failures.find((f) => f.sourceId === String(broken.id))!.reason, /title/);
    assert.ok(report.failures.some((f) => f.kind === 'event' && /venue 5 could not be imported/.test(f.reason)));
    assert.deepEqual(report.counts.event.created + report.counts.event.failed, 26);
    assert.deepEqual(dry.counts.event.created + dry.counts.event.failed, 26, 'the dry run told the same');
    const park = await db('venues').where('post_id', 6).first('geo_lat', 'geo_lng');
    assert.deepEqual([Number(park.geo_lat), Number(park.geo_lng)], [52.52, 13.405]);
  });

  it('gives every record to --author instead of the source authors', async () => {
    const editor = await createUser('editor', 'owner');
    const report = await importSite({ author: { id: editor.id, login: editor.login, role: editor.role } });
    assert.equal(report.counts.user.created, 0);
    const { db } = await openTestDatabase();
    assert.deepEqual(await db('posts').whereNot('type', 'image').distinct().pluck('author_id'), [editor.id]);
  });

  it('tells an unreachable site, a site without the plugin and refused credentials, before anything is written', async () => {
    await assert.rejects(openSite('http://127.0.0.1:9/'), (err: Error) => err instanceof SiteError && /cannot reach/.test(err.message));
    await assert.rejects(openSite(site.origin, { credentials: 'admin:wrong' }), (err: Error) => err instanceof SiteError && /refused the credentials \(HTTP 401/.test(err.message));
    site.override('/wp-json/', (index) => ({ ...(index as object), namespaces: ['wp/v2'] }), 'anonymous');
    await assert.rejects(openSite(site.origin), (err: Error) => err instanceof SiteError && /does not run The Events Calendar/.test(err.message));
  });
});

describe('the import engine with another source', () => {
  it('takes any source of normalised records: string keys, ids never kept, links by key, written as the role asked, unchanged when the fingerprint is', async () => {
    const { db } = await openTestDatabase();
    let title = 'Standup';
    const source = {
      key: 'test:calendar.ics',
      type: 'test',
      location: 'calendar.ics',
      numericIds: false,
      async *records(): AsyncGenerator<ImportRecord> {
        yield { kind: 'category', sourceId: 'Meetings', body: { name: 'Meetings' } };
        yield {
          kind: 'event',
          sourceId: 'uid-1@example.org',
          id: 7,
          body: {
            title,
            description: '<p onclick="steal()">Daily</p><script>steal()</script>',
            status: 'publish',
            start_date: '2031-03-01 09:00:00',
            end_date: '2031-03-01 09:15:00',
            timezone: 'Europe/Paris',
          },
          links: { categories: ['Meetings'] },
        };
      },
    };
    // Written as an author: its HTML is cleaned as an author's write is.
    const options = { siteTimezone: 'UTC', role: 'author' as const };
    const first = await runImport(db, source, options);
    assert.deepEqual([first.keepsIds, first.counts.event.created, first.counts.category.created], [false, 1, 1]);
    const origin = await db('import_origins').where({ kind: 'event', source_id: 'uid-1@example.org' }).first('local_id');
    const event = await db('events').where('post_id', origin.local_id).first('start_utc', 'timezone');
    assert.deepEqual(event, { start_utc: '2031-03-01 08:00:00', timezone: 'Europe/Paris' });
    // As WordPress's kses: the script element goes, its text stays as text (docs/contract.md §3).
    assert.equal((await db('posts').where('id', origin.local_id).first('description')).description, '<p>Daily</p>steal()');
    assert.equal((await runImport(db, source, options)).counts.event.unchanged, 1);
    title = 'Daily standup';
    const third = await runImport(db, source, options);
    assert.deepEqual([third.counts.event.updated, third.counts.category.unchanged], [1, 1]);
    assert.equal((await db('posts').where('id', origin.local_id).first('title')).title, 'Daily standup');
  });
});
