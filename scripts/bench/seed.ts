/**
 * Seeds a realistic calendar for the benchmark by bulk SQL (batch inserts in transactions), not over
 * HTTP: N events over 3 years around now (drafts, all-day, multi-day, costs in several shapes, some
 * featured / sticky / hidden / with an image), venues and organizers ~2 % of N each (popularity
 * skewed), 30 categories (6 parents with 4 children) and 100 tags; every event has one venue, 1-2
 * organizers and 1-3 terms; ids explicit, dates UTC. The administrator BENCH_ADMIN is created for the
 * write scenarios. A SQLite file is deleted first; a MySQL database has its tables dropped (its name
 * must contain "bench", or pass --force). `node --import tsx scripts/bench/seed.ts [--events 100000]
 * [--database URL] [--seed 42] [--force]` seeds alone.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { fillChanges } from '../../src/db/migrations/20261123000051_fill_changes.js';
import { MIGRATION_TOOLS } from '../../src/db/migrate.js';
import { fillSearchTexts } from '../../src/db/migrations/20261204000101_fill_search_texts.js';
import { up as fillRenderedTexts } from '../../src/db/migrations/20261207000101_fill_rendered_texts.js';
import { up as fillPlainTexts } from '../../src/db/migrations/20261208000101_fill_plain_texts.js';
import { up as fillTimeForms } from '../../src/db/migrations/20261209000101_fill_event_time_forms.js';
import { UserRepository } from '../../src/repositories/users.js';
import { parseCost } from '../../src/domain/events/cost.js';
import { eventCopiesOf } from '../../src/repositories/posts.js';
import { BENCH_ADMIN, BENCH_DB_DIR, ROOT, checkDatabaseUrl, defaultSqliteUrl, describeUrl, options, pick, progress, rng, round } from './common.js';

export interface SeedOptions {
  events: number;
  databaseUrl: string;
  seed?: number;
  /** Allow deleting a SQLite file outside bench/results/db, or a MySQL database whose name lacks "bench". */
  force?: boolean;
  /** Events per transaction (each transaction holds their posts, events and link rows). */
  chunk?: number;
}

export type SeedReport = { events: number; venues: number; organizers: number; images: number; categories: number; tags: number; rows: number; seconds: number; adminId: number };

const BATCH = 400;
const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Titles are `{adjective} {Subject} {format}`; the search-only scenario asks for one whole title. */
export const ADJECTIVES = [
  'Sunset',
  'Midnight',
  'Spring',
  'Summer',
  'Autumn',
  'Winter',
  'Grand',
  'Little',
  'Open',
  'Late',
  'Early',
  'Downtown',
  'Riverside',
  'Community',
  'Annual',
  'Weekly',
  'Monthly',
  'Family',
  'Neighbourhood',
  'Global',
];
/** The subjects are also the search terms of the filtered-list scenario. */
export const SUBJECTS = [
  'jazz',
  'blues',
  'salsa',
  'tango',
  'poetry',
  'comedy',
  'theatre',
  'ballet',
  'opera',
  'cinema',
  'photography',
  'pottery',
  'painting',
  'chess',
  'yoga',
  'running',
  'cycling',
  'football',
  'climbing',
  'swimming',
  'wine',
  'cheese',
  'coffee',
  'baking',
  'vegan',
  'barbecue',
  'robotics',
  'astronomy',
  'history',
  'science',
  'gardening',
  'knitting',
  'origami',
  'karaoke',
  'trivia',
  'bridge',
  'folk',
  'techno',
  'choir',
  'drumming',
];
export const FORMATS = [
  'Night',
  'Festival',
  'Workshop',
  'Meetup',
  'Masterclass',
  'Showcase',
  'Fair',
  'Club',
  'Session',
  'Marathon',
  'Tasting',
  'Jam',
  'Talk',
  'Tour',
  'Party',
  'Contest',
  'Retreat',
  'Brunch',
  'Market',
  'Gala',
];
const SENTENCES = [
  'Join us for an evening of {s} with friends old and new.',
  'Doors open thirty minutes before the start; seating is first come, first served.',
  'This {s} event welcomes beginners and seasoned enthusiasts alike.',
  'Light refreshments will be served, and a bar is available on site.',
  'Please bring your own {s} gear if you have it; spares are available.',
  'The programme features local artists and invited guests from abroad.',
  'Tickets include access to the after-party and a souvenir programme.',
  'Children under twelve must be accompanied by an adult.',
  'The venue is wheelchair accessible and close to public transport.',
  'Our {s} sessions have run every season since the club was founded.',
  'Registration closes two days before the event or when we are full.',
  'Expect a friendly crowd, good music and plenty of {s} talk.',
  'Volunteers are always welcome; contact the organizer to help out.',
  'In case of bad weather the event moves indoors to the main hall.',
  'Photography is allowed, but please no flash during performances.',
  'A short introduction to {s} opens the programme for newcomers.',
];
const CITIES: Array<{ city: string; country: string; state: string; province: string; zip: string; lat: number; lng: number }> = [
  { city: 'New York', country: 'United States', state: 'NY', province: '', zip: '10001', lat: 40.71, lng: -74.0 },
  { city: 'Chicago', country: 'United States', state: 'IL', province: '', zip: '60601', lat: 41.88, lng: -87.63 },
  { city: 'Austin', country: 'United States', state: 'TX', province: '', zip: '73301', lat: 30.27, lng: -97.74 },
  { city: 'Seattle', country: 'United States', state: 'WA', province: '', zip: '98101', lat: 47.61, lng: -122.33 },
  { city: 'Denver', country: 'US', state: 'CO', province: '', zip: '80202', lat: 39.74, lng: -104.99 },
  { city: 'Boston', country: '', state: 'MA', province: '', zip: '02108', lat: 42.36, lng: -71.06 },
  { city: 'Toronto', country: 'Canada', state: '', province: 'Ontario', zip: 'M5H 2N2', lat: 43.65, lng: -79.38 },
  { city: 'Montreal', country: 'Canada', state: '', province: 'Quebec', zip: 'H2Y 1C6', lat: 45.5, lng: -73.57 },
  { city: 'London', country: 'United Kingdom', state: '', province: 'Greater London', zip: 'SW1A 1AA', lat: 51.51, lng: -0.13 },
  { city: 'Berlin', country: 'Germany', state: '', province: 'Berlin', zip: '10117', lat: 52.52, lng: 13.4 },
  { city: 'Paris', country: 'France', state: '', province: 'Île-de-France', zip: '75001', lat: 48.86, lng: 2.35 },
  { city: 'Madrid', country: 'Spain', state: '', province: 'Madrid', zip: '28013', lat: 40.42, lng: -3.7 },
  { city: 'Sydney', country: 'Australia', state: '', province: 'NSW', zip: '2000', lat: -33.87, lng: 151.21 },
  { city: 'Melbourne', country: 'Australia', state: '', province: 'VIC', zip: '3000', lat: -37.81, lng: 144.96 },
];
const VENUE_WORDS = ['Hall', 'Theatre', 'Arena', 'Club', 'Gallery', 'Park', 'Library', 'Studio', 'Center', 'Pavilion', 'Tavern', 'Loft', 'Garden', 'Church', 'Warehouse'];
const STREETS = ['Main St', 'High St', 'Oak Ave', 'Elm St', 'King St', 'Queen St', 'Market Sq', 'Station Rd', 'Harbour Way', 'Mill Lane'];
const ORG_WORDS = ['Society', 'Collective', 'Association', 'Club', 'Foundation', 'Friends', 'Guild', 'Network', 'Group', 'Alliance'];
const CATEGORY_TREE: Array<[string, string[]]> = [
  ['Music', ['Jazz', 'Rock', 'Classical', 'Folk']],
  ['Arts', ['Theatre', 'Dance', 'Film', 'Exhibitions']],
  ['Sports', ['Running', 'Cycling', 'Football', 'Yoga']],
  ['Food & Drink', ['Wine Tasting', 'Cooking Classes', 'Markets', 'Beer']],
  ['Learning', ['Workshops', 'Lectures', 'Book Clubs', 'Languages']],
  ['Community', ['Volunteering', 'Family', 'Meetups', 'Festivals']],
];
const TAG_WORDS = [
  'outdoor',
  'indoor',
  'free entry',
  'kids',
  'seniors',
  'students',
  'accessible',
  'live',
  'online',
  'weekend',
  'evening',
  'morning',
  'summer',
  'winter',
  'spring',
  'autumn',
  'charity',
  'premiere',
  'local',
  'international',
];
const TAG_SUFFIXES = ['', ' series', ' special', ' pass', ' club'];
/** Costs as a user would type them, with their weights; parsed once by the service's own parser. */
const COST_INPUTS: Array<[unknown, number]> = [
  ['', 30],
  ['Free', 10],
  ['15', 15],
  ['$10', 12],
  ['$5 - $25', 10],
  ['20€', 5],
  [['12', '18'], 5],
  ['0', 5],
  ['Donation', 3],
  ['$ 7.50', 5],
];

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Skewed choice of an index in [0, n): low indexes are popular (a few venues host many events). */
function skewed(random: () => number, n: number, power = 2): number {
  return Math.min(n - 1, Math.floor(n * random() ** power));
}

const capitalise = (word: string) => word[0].toUpperCase() + word.slice(1);
/** 'YYYY-MM-DD HH:MM:SS' in UTC, the storage format of every date. */
const sqlDate = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

async function resetDatabase(options: SeedOptions): Promise<void> {
  const engine = checkDatabaseUrl(options.databaseUrl);
  if (engine === 'sqlite') {
    const file = options.databaseUrl.slice('sqlite:'.length);
    if (file === ':memory:') throw new Error('the benchmark needs a file or a MySQL database, not :memory: (the service runs in another process)');
    const absolute = path.resolve(ROOT, file);
    if (fs.existsSync(absolute) && !absolute.startsWith(BENCH_DB_DIR + path.sep) && !options.force)
      throw new Error(`refusing to delete ${absolute} (outside ${BENCH_DB_DIR}); pass --force`);
    for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(absolute + suffix, { force: true });
    return;
  }
  const database = decodeURIComponent(new URL(options.databaseUrl.replace(/^mariadb:/, 'mysql:')).pathname.slice(1));
  if (!/bench/i.test(database) && !options.force) throw new Error(`refusing to drop the tables of "${database}": its name does not contain "bench" (pass --force)`);
  const { db } = openDatabase(options.databaseUrl);
  try {
    // Every table of the database, not a list kept by hand: a table a later migration adds (webhooks,
    // leases ...) left behind would make migrateLatest fail on a rebuilt database. Children before
    // parents: a table a foreign key still points at is dropped in a later pass.
    let tables = (
      (await db('information_schema.tables').where({ table_schema: database, table_type: 'BASE TABLE' }).select({ name: 'table_name' })) as Array<{ name: string }>
    ).map((row) => row.name);
    while (tables.length) {
      const left: string[] = [];
      for (const table of tables) await db.schema.dropTableIfExists(table).catch(() => left.push(table));
      if (left.length === tables.length) throw new Error(`could not drop the tables ${left.join(', ')} of "${database}"`);
      tables = left;
    }
  } finally {
    await db.destroy();
  }
}

export async function seedCalendar(options: SeedOptions): Promise<SeedReport> {
  const n = Math.round(options.events);
  const random = rng(options.seed ?? 42);
  const started = Date.now();
  process.stderr.write(`seeding ${n.toLocaleString('en')} events into ${describeUrl(options.databaseUrl)}\n`);
  await resetDatabase(options);
  const { db, target } = openDatabase(options.databaseUrl);
  let rows = 0;
  try {
    await migrateLatest(db);
    if (target.engine === 'sqlite') {
      // Bulk load: a bigger page cache; the file is rebuilt from scratch anyway on failure.
      await db.raw('PRAGMA cache_size = -262144');
    }
    const { user: admin } = await new UserRepository(db).add(BENCH_ADMIN.login, 'administrator', BENCH_ADMIN.secret);
    const authorId = admin.id;

    const venues = Math.max(10, Math.round(n * 0.02));
    const organizers = Math.max(10, Math.round(n * 0.02));
    const images = Math.max(10, Math.round(n * 0.005));
    const firstVenue = 1;
    const firstOrganizer = firstVenue + venues;
    const firstImage = firstOrganizer + organizers;
    const firstEvent = firstImage + images;

    const now = Date.now();
    const nowSql = sqlDate(now);
    const past = (maxDays: number) => sqlDate(now - Math.floor(random() * maxDays * DAY) - HOUR);
    const sentence = (subject: string) => pick(random, SENTENCES).replace('{s}', subject);
    const paragraph = (subject: string, count: number) => Array.from({ length: count }, () => sentence(subject)).join(' ');

    // Terms: 6 parent categories with 4 children each (ids 1-30), then 100 tags (ids 31-130).
    const termRows: Record<string, unknown>[] = [];
    for (const [parentName, children] of CATEGORY_TREE) {
      const parentId = termRows.length + 1;
      termRows.push({
        id: parentId,
        taxonomy: 'tribe_events_cat',
        name: parentName,
        slug: slugify(parentName),
        description: `${parentName} events.`,
        parent: 0,
        name_key: parentName.toLowerCase(),
      });
      for (const child of children) {
        termRows.push({
          id: termRows.length + 1,
          taxonomy: 'tribe_events_cat',
          name: child,
          slug: slugify(child),
          description: '',
          parent: parentId,
          name_key: child.toLowerCase(),
        });
      }
    }
    const categoryIds = termRows.map((t) => Number(t.id));
    const tagIds: number[] = [];
    for (const suffix of TAG_SUFFIXES) {
      for (const word of TAG_WORDS) {
        const name = `${word}${suffix}`;
        const id = termRows.length + 1;
        tagIds.push(id);
        termRows.push({ id, taxonomy: 'post_tag', name, slug: slugify(name), description: '', parent: 0, name_key: name.toLowerCase() });
      }
    }

    const venueRows: Record<string, unknown>[] = [];
    const organizerRows: Record<string, unknown>[] = [];
    const imageRows: Record<string, unknown>[] = [];
    const headPosts: Record<string, unknown>[] = [];
    const post = (id: number, type: string, status: string, title: string, description: string, excerpt: string, imageId: number | null, date: string, modified = date) => ({
      id,
      type,
      status,
      author_id: authorId,
      slug: `${slugify(title) || type}-${id}`,
      title,
      description,
      excerpt,
      password: null,
      image_id: imageId,
      date,
      date_utc: date,
      modified,
      modified_utc: modified,
    });
    for (let i = 0; i < images; i++) {
      const id = firstImage + i;
      const url = `https://images.example.org/bench/poster-${i + 1}.jpg`;
      headPosts.push(post(id, 'image', 'publish', `poster-${i + 1}.jpg`, '', '', null, past(1200)));
      imageRows.push({ post_id: id, url, url_hash: crypto.createHash('sha256').update(url).digest('hex'), extension: 'jpg', width: 1200, height: 800 });
    }
    for (let i = 0; i < venues; i++) {
      const id = firstVenue + i;
      const place = pick(random, CITIES);
      const name = `${pick(random, ADJECTIVES)} ${pick(random, VENUE_WORDS)}`;
      const located = random() < 0.7;
      headPosts.push(
        post(
          id,
          'venue',
          random() < 0.03 ? 'draft' : 'publish',
          name,
          random() < 0.5 ? paragraph('music', 2) : '',
          '',
          random() < 0.1 ? firstImage + Math.floor(random() * images) : null,
          past(1100),
        ),
      );
      venueRows.push({
        post_id: id,
        address: `${1 + Math.floor(random() * 999)} ${pick(random, STREETS)}`,
        city: place.city,
        country: place.country,
        province: place.province,
        state: place.state,
        zip: place.zip,
        phone: random() < 0.6 ? `+1 555 ${String(1000 + Math.floor(random() * 9000))}` : '',
        stateprovince: ['', 'US', 'United States'].includes(place.country) ? place.state : place.province,
        website: random() < 0.5 ? `https://venues.example.org/${id}` : '',
        show_map: true,
        show_map_link: random() < 0.9,
        geo_lat: located ? round(place.lat + (random() - 0.5) * 0.2, 6) : null,
        geo_lng: located ? round(place.lng + (random() - 0.5) * 0.2, 6) : null,
      });
    }
    for (let i = 0; i < organizers; i++) {
      const id = firstOrganizer + i;
      const name = `${capitalise(pick(random, SUBJECTS))} ${pick(random, ORG_WORDS)} of ${pick(random, CITIES).city}`;
      headPosts.push(post(id, 'organizer', random() < 0.03 ? 'draft' : 'publish', name, random() < 0.4 ? paragraph('community', 1) : '', '', null, past(1100)));
      organizerRows.push({
        post_id: id,
        phone: random() < 0.7 ? `+1 555 ${String(1000 + Math.floor(random() * 9000))}` : '',
        website: random() < 0.5 ? `https://organizers.example.org/${id}` : '',
        email: random() < 0.8 ? `contact${id}@organizers.example.org` : '',
      });
    }

    const headBar = progress('venues, organizers, images, terms', headPosts.length + termRows.length);
    await db.transaction(async (trx) => {
      await db.batchInsert('posts', headPosts, BATCH).transacting(trx);
      headBar.tick(headPosts.length);
      await db.batchInsert('venues', venueRows, BATCH).transacting(trx);
      await db.batchInsert('organizers', organizerRows, BATCH).transacting(trx);
      await db.batchInsert('images', imageRows, BATCH).transacting(trx);
      await db.batchInsert('terms', termRows, BATCH).transacting(trx);
    });
    rows += headPosts.length + venueRows.length + organizerRows.length + imageRows.length + termRows.length;
    headBar.done();

    // Costs: the service's own parser, once per shape.
    const costs = COST_INPUTS.map(([input, weight]) => {
      const cost = parseCost(input);
      return {
        weight,
        columns: {
          cost_raw: JSON.stringify(cost.raw),
          cost_values: JSON.stringify(cost.values),
          cost_min: cost.min,
          cost_max: cost.max,
          currency_symbol: cost.symbol,
          currency_position: cost.position,
          currency_code: cost.symbol === '€' ? 'EUR' : cost.symbol.includes('$') ? 'USD' : '',
        },
      };
    });
    const totalWeight = costs.reduce((sum, c) => sum + c.weight, 0);
    const pickCost = () => {
      let r = random() * totalWeight;
      for (const cost of costs) if ((r -= cost.weight) < 0) return cost.columns;
      return costs[0].columns;
    };

    // Events over 3 years centred on today, in chunks of one transaction each.
    const span = Math.round(3 * 365.25);
    const firstDay = Math.floor((now - (span / 2) * DAY) / DAY) * DAY;
    const chunk = options.chunk ?? 10_000;
    const bar = progress('events', n);
    for (let from = 0; from < n; from += chunk) {
      const count = Math.min(chunk, n - from);
      const posts: Record<string, unknown>[] = [];
      const events: Record<string, unknown>[] = [];
      const eventVenues: Record<string, unknown>[] = [];
      const eventOrganizers: Record<string, unknown>[] = [];
      const eventTerms: Record<string, unknown>[] = [];
      for (let i = from; i < from + count; i++) {
        const id = firstEvent + i;
        const subject = pick(random, SUBJECTS);
        const title = `${pick(random, ADJECTIVES)} ${capitalise(subject)} ${pick(random, FORMATS)}`;
        const day = firstDay + Math.floor(random() * span) * DAY;
        const allDay = random() < 0.12;
        const extraDays = random() < 0.1 ? 1 + Math.floor(random() * 6) : 0;
        let start: number;
        let end: number;
        if (allDay) {
          start = day;
          end = day + extraDays * DAY + DAY - 1000;
        } else {
          start = day + (8 + Math.floor(random() * 14)) * HOUR + pick(random, [0, 15, 30, 45]) * 60_000;
          end = start + extraDays * DAY + (1 + Math.floor(random() * 4)) * HOUR + (random() < 0.3 ? 30 * 60_000 : 0);
        }
        // Published some days before it starts, never in the future (that would be `future`).
        const published = Math.min(start - (1 + Math.floor(random() * 120)) * DAY, now - HOUR - Math.floor(random() * 30 * DAY));
        // Modified up to 10 days after publication, spread up to a minute ago (not piled up at the cap),
        // so that a recent `modified_after` finds a few events whatever the calendar's size.
        const modified = published + Math.floor(random() * Math.max(0, Math.min(10 * DAY, now - 60_000 - published)));
        const status = random() < 0.05 ? 'draft' : 'publish';
        const [description, excerpt] = [paragraph(subject, 2 + Math.floor(random() * 3)), random() < 0.5 ? '' : sentence(subject)];
        posts.push(
          post(id, 'event', status, title, description, excerpt, random() < 0.2 ? firstImage + Math.floor(random() * images) : null, sqlDate(published), sqlDate(modified)),
        );
        const startSql = sqlDate(start);
        const endSql = sqlDate(end);
        events.push({
          post_id: id,
          ...eventCopiesOf({ status, date_utc: sqlDate(published), modified_utc: sqlDate(modified) }),
          start_local: startSql,
          end_local: endSql,
          start_utc: startSql,
          end_utc: endSql,
          timezone: 'UTC',
          all_day: allDay,
          ...pickCost(),
          website: random() < 0.3 ? `https://tickets.example.org/e/${id}` : '',
          show_map: true,
          show_map_link: true,
          hide_from_listings: random() < 0.01,
          sticky: random() < 0.01,
          featured: random() < 0.03,
          post_parent: null,
        });
        eventVenues.push({ event_id: id, venue_id: firstVenue + skewed(random, venues), position: 0 });
        const organizerCount = random() < 0.3 ? 2 : 1;
        const chosenOrganizers = new Set<number>();
        while (chosenOrganizers.size < organizerCount) chosenOrganizers.add(firstOrganizer + skewed(random, organizers));
        [...chosenOrganizers].forEach((organizerId, position) => eventOrganizers.push({ event_id: id, organizer_id: organizerId, position }));
        // 1-3 terms: a category (sometimes two), then tags up to three terms in all.
        const terms = new Set<number>([categoryIds[skewed(random, categoryIds.length, 1.5)]]);
        if (random() < 0.15) terms.add(pick(random, categoryIds));
        const tagCount = Math.floor(random() * 3);
        for (let t = 0; t < tagCount && terms.size < 3; t++) terms.add(tagIds[skewed(random, tagIds.length, 1.5)]);
        // Term links carry their event's local start and end (src/repositories/term-link-times.ts).
        for (const termId of terms) eventTerms.push({ event_id: id, term_id: termId, start_local: startSql, end_local: endSql });
      }
      await db.transaction(async (trx) => {
        await db.batchInsert('posts', posts, BATCH).transacting(trx);
        await db.batchInsert('events', events, BATCH).transacting(trx);
        await db.batchInsert('event_venues', eventVenues, BATCH).transacting(trx);
        await db.batchInsert('event_organizers', eventOrganizers, BATCH).transacting(trx);
        await db.batchInsert('event_terms', eventTerms, BATCH).transacting(trx);
      });
      rows += posts.length + events.length + eventVenues.length + eventOrganizers.length + eventTerms.length;
      bar.tick(from + count);
    }
    bar.done(`(${rows.toLocaleString('en')} rows so far)`);

    // Denormalised columns the service keeps up to date on every write must be filled here too,
    // since the seeder bypasses the repositories: the terms' published-event counts (when the
    // schema has them).
    const step = async (label: string, work: () => Promise<unknown>) => {
      const began = Date.now();
      await work();
      process.stderr.write(`${label}: ${((Date.now() - began) / 1000).toFixed(1)}s\n`);
    };
    if (await db.schema.hasColumn('terms', 'published_count')) {
      const count = "select count(*) from event_terms ec join posts pc on pc.id = ec.event_id where pc.status = 'publish' and ec.term_id = terms.id";
      await step('terms.published_count', () => db.raw(`update terms set published_count = (${count})`));
    }
    // The search index (docs/contract.md §15): SQLite's triggers indexed every event as it was
    // inserted; MySQL's shared texts are written by the repositories, so here in one pass.
    if (target.engine === 'mysql') await step('search index', () => fillSearchTexts(db, MIGRATION_TOOLS));
    // The rendered forms of every description and excerpt (src/db/rendered-texts.ts), which the
    // repositories write with each text: here in one pass, as the migration fills a database.
    await step('rendered texts', () => fillRenderedTexts(db, MIGRATION_TOOLS));
    // The plain forms of titles, names, address lines and costs (src/text/plain-forms.ts), likewise.
    await step('plain texts', () => fillPlainTexts(db, MIGRATION_TOOLS));
    // The forms of the events' times (src/dates/event-times.ts), likewise.
    await step('time forms', () => fillTimeForms(db, MIGRATION_TOOLS));

    // The change feed starts with one change per seeded record (the migration ran on empty tables).
    // (explicit numbers: the auto-increment continues after the highest)
    await fillChanges(db, nowSql);

    // Fresh statistics for the planners, as a long-running site would have.
    await step(`analyze (now ${nowSql} UTC)`, async () => {
      if (target.engine === 'mysql')
        return db.raw('ANALYZE TABLE search_text_grams, post_search_texts, posts, events, venues, organizers, images, terms, event_terms, event_venues, event_organizers');
      await db.raw('ANALYZE');
      await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
    });
    const seconds = round((Date.now() - started) / 1000, 1);
    process.stderr.write(`seeded ${rows.toLocaleString('en')} rows in ${seconds}s\n`);
    return { events: n, venues, organizers, images, categories: categoryIds.length, tags: tagIds.length, rows, seconds, adminId: authorId };
  } finally {
    await db.destroy();
  }
}

// The command line: `node --import tsx scripts/bench/seed.ts [--events 100000] [--database URL] [--seed 42] [--force]`.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  process.env.TZ = 'UTC';
  const o = options(process.argv.slice(2), { events: ['number', 100_000, 100, 5_000_000], database: ['string'], seed: ['number', 42], force: ['boolean'] }, import.meta.url);
  const databaseUrl = o.database ?? defaultSqliteUrl(o.events);
  seedCalendar({ events: o.events, databaseUrl, seed: o.seed, force: o.force }).then(
    (report) => process.stdout.write(`${JSON.stringify({ database: describeUrl(databaseUrl), ...report, admin: BENCH_ADMIN.login })}\n`),
    (err: unknown) => {
      process.stderr.write(`seed failed: ${(err as Error).stack ?? err}\n`);
      process.exit(1);
    },
  );
}
