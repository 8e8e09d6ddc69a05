/**
 * The benchmark scenarios and the samples they draw random ids, slugs and terms from.
 * Shared by run.ts (load) and explain.ts (query plans), so both look at the same requests.
 */
import type { Knex } from 'knex';
import { openDatabase } from '../../src/db/knex.js';
import { BENCH_ADMIN, NAMESPACE_PATH, pick } from './common.js';
import { ADJECTIVES, FORMATS, SUBJECTS } from './seed.js';

export interface Samples {
  events: Array<{ id: number; slug: string }>;
  categorySlugs: string[];
  categoryIds: number[];
  tagIds: number[];
  venueIds: number[];
  organizerIds: number[];
  /** First and last start day of the seeded events, as epoch ms (UTC midnight). */
  firstDay: number;
  lastDay: number;
  /** A recent `modified_after` (RFC 3339): the modification time of the 100th most recently modified published event. */
  recentModified: string;
}

export interface BenchRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Scenario {
  name: string;
  /** The scenario as the table of docs/performance.md "Current figures" names it. */
  label: string;
  /** List scenarios are the ones `--scale` runs at 10k, 100k and 1M events. */
  list: boolean;
  write: boolean;
  request(samples: Samples, random: () => number): BenchRequest;
  /**
   * Settings of its own: the scenario is measured on a second service process started with these
   * added to its environment, on the same database (run.ts `measureApart`), so that one run compares
   * two settings side by side.
   */
  serviceEnv?: Record<string, string>;
  /** Measured on this engine only (a setting the other engine ignores); skipped with a note elsewhere. */
  onlyOn?: 'sqlite' | 'mysql';
  /** A second client that sends these requests at a fixed rate while the scenario is measured (run.ts `background`). */
  background?: { perSecond: number; request(samples: Samples, random: () => number): BenchRequest };
  /**
   * Also compares the scenario's reads alone and beside its second client in alternating windows
   * (run.ts `pairedWithWriter`): the figure the target "reads keep 0.85 × their figure alone" uses.
   */
  pairedAlone?: boolean;
}

const DAY = 86_400_000;
const AUTH = `Basic ${Buffer.from(`${BENCH_ADMIN.login}:${BENCH_ADMIN.secret}`).toString('base64')}`;
const JSON_WRITE = { 'content-type': 'application/json', authorization: AUTH };
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const api = (path: string) => `${NAMESPACE_PATH}${path}`;

export const SCENARIOS: Scenario[] = [
  {
    name: 'event-by-id',
    label: 'GET /events/{id}',
    list: false,
    write: false,
    request: (s, r) => ({ method: 'GET', path: api(`/events/${pick(r, s.events).id}`) }),
  },
  {
    // The ceiling of any single-read design on this stack: the reply is remembered (the same event
    // every time), so what is left is the row, its links, the stamp check and sending 7 KB.
    name: 'event-by-id-same',
    label: 'GET /events/{id}, the same event each time (remembered reply)',
    list: false,
    write: false,
    request: (s) => ({ method: 'GET', path: api(`/events/${s.events[0].id}`) }),
  },
  {
    name: 'event-by-slug',
    label: 'GET /events/by-slug/{slug}',
    list: false,
    write: false,
    request: (s, r) => ({ method: 'GET', path: api(`/events/by-slug/${encodeURIComponent(pick(r, s.events).slug)}`) }),
  },
  {
    name: 'events-default',
    label: 'GET /events (default window)',
    list: true,
    write: false,
    request: () => ({ method: 'GET', path: api('/events') }),
  },
  {
    name: 'events-ics',
    label: 'GET /events.ics (about 500 events)',
    list: true,
    write: false,
    request: (s, r) => {
      // A 5-day window somewhere in the seeded 3 years: about 500 events at 100,000 (docs/contract.md §11).
      const from = s.firstDay + Math.floor(r() * Math.max(1, (s.lastDay - s.firstDay) / DAY - 5)) * DAY;
      const query = new URLSearchParams({ start_date: day(from), end_date: day(from + 4 * DAY) });
      return { method: 'GET', path: api(`/events.ics?${query}`) };
    },
  },
  {
    name: 'events-jsonld',
    label: 'GET /events.jsonld?per_page=50 (a 5-day window)',
    list: true,
    write: false,
    request: (s, r) => {
      // The window of events-ics, one page of the largest size: 50 events as schema.org JSON-LD (docs/contract.md §12).
      const from = s.firstDay + Math.floor(r() * Math.max(1, (s.lastDay - s.firstDay) / DAY - 5)) * DAY;
      const query = new URLSearchParams({ start_date: day(from), end_date: day(from + 4 * DAY), per_page: '50' });
      return { method: 'GET', path: api(`/events.jsonld?${query}`) };
    },
  },
  {
    name: 'events-filtered',
    label: 'GET /events?categories&start_date&end_date&search',
    list: true,
    write: false,
    request: (s, r) => {
      // A 60-day range somewhere in the seeded 3 years, one category, one word of the titles.
      const from = s.firstDay + Math.floor(r() * Math.max(1, (s.lastDay - s.firstDay) / DAY - 60)) * DAY;
      const query = new URLSearchParams({ categories: pick(r, s.categorySlugs), start_date: day(from), end_date: day(from + 60 * DAY), search: pick(r, SUBJECTS) });
      return { method: 'GET', path: api(`/events?${query}`) };
    },
  },
  {
    // A rare phrase (one title in 16,000: about 60 events at 1M, none or one at 10k) over the default
    // window: the search alone narrows the list (docs/contract.md §15).
    name: 'events-search',
    label: 'GET /events?search="<adjective> <subject> <format>"',
    list: true,
    write: false,
    request: (s, r) => {
      const phrase = `"${pick(r, ADJECTIVES)} ${pick(r, SUBJECTS)} ${pick(r, FORMATS)}"`;
      return { method: 'GET', path: api(`/events?${new URLSearchParams({ search: phrase })}`) };
    },
  },
  {
    // Random single words over a window wider than the calendar (two years before its first day to a
    // year after its last): half common (a word of the titles: in 1 event of 20 to 1 of 40, more with
    // the descriptions), a quarter a rare whole title (1 in 16,000), a quarter a word found nowhere.
    // The common words' later pages too, so that most replies are built, not remembered.
    name: 'events-search-words',
    label: 'GET /events?search=<common or rare word>&start_date&end_date (wide window)',
    list: true,
    write: false,
    request: (s, r) => {
      const kind = r();
      const query = new URLSearchParams({ start_date: day(s.firstDay - 730 * DAY), end_date: day(s.lastDay + 365 * DAY) });
      if (kind < 0.5) {
        query.set('search', pick(r, [ADJECTIVES, SUBJECTS, FORMATS][Math.floor(r() * 3)]).toLowerCase());
        query.set('page', String(1 + Math.floor(r() * 5)));
      } else if (kind < 0.75) query.set('search', `"${pick(r, ADJECTIVES)} ${pick(r, SUBJECTS)} ${pick(r, FORMATS)}"`);
      else query.set('search', `zq${Math.floor(r() * 36 ** 5).toString(36)}`);
      return { method: 'GET', path: api(`/events?${query}`) };
    },
  },
  {
    name: 'events-per-page-50',
    label: 'GET /events?per_page=50',
    list: true,
    write: false,
    request: () => ({ method: 'GET', path: api('/events?per_page=50') }),
  },
  {
    // A sync client's page: the events changed since a recent moment (about 100 of them whatever the
    // calendar's size), in the default order; the default date window does not apply.
    name: 'events-modified-after',
    label: 'GET /events?modified_after=<recent>',
    list: true,
    write: false,
    request: (s) => ({ method: 'GET', path: api(`/events?${new URLSearchParams({ modified_after: s.recentModified })}`) }),
  },
  {
    name: 'events-modified-sync',
    label: 'GET /events?modified_after=<recent>&orderby=modified&order=asc',
    list: true,
    write: false,
    request: (s) => ({ method: 'GET', path: api(`/events?${new URLSearchParams({ modified_after: s.recentModified, orderby: 'modified', order: 'asc' })}`) }),
  },
  {
    name: 'venues-upcoming',
    label: 'GET /venues?only_with_upcoming=1',
    list: true,
    write: false,
    request: () => ({ method: 'GET', path: api('/venues?only_with_upcoming=1') }),
  },
  {
    name: 'categories',
    label: 'GET /categories',
    list: true,
    write: false,
    request: () => ({ method: 'GET', path: api('/categories') }),
  },
  {
    name: 'changes',
    label: 'GET /changes (first page of 100, as an anonymous follower)',
    list: true,
    write: false,
    request: () => ({ method: 'GET', path: api('/changes?per_page=100') }),
  },
  {
    // On SQLite with the default SQLITE_SYNCHRONOUS=full: every commit synced to the disk.
    name: 'create-event',
    label: 'POST /events (venue, organizer, 2 terms)',
    list: false,
    write: true,
    request: createEvent,
  },
  {
    // The same creates on a service that does not sync each commit (docs/settings.md "Commit durability"):
    // what durability costs, measured in the same run as the row above.
    name: 'create-event-normal',
    label: 'POST /events with SQLITE_SYNCHRONOUS=normal (commits not synced)',
    list: false,
    write: true,
    request: createEvent,
    serviceEnv: { SQLITE_SYNCHRONOUS: 'normal' },
    onlyOn: 'sqlite',
  },
  {
    name: 'patch-event',
    label: 'PATCH /events/{id}',
    list: false,
    write: true,
    request: patchEvent,
  },
  {
    name: 'event-by-id-writes',
    label: 'GET /events/{id} while another client sends 20 PATCH/s',
    list: false,
    write: true,
    request: (s, r) => ({ method: 'GET', path: api(`/events/${pick(r, s.events).id}`) }),
    background: { perSecond: 20, request: patchEvent },
    pairedAlone: true,
  },
  {
    name: 'events-default-writes',
    label: 'GET /events (default window) while another client sends 20 PATCH/s',
    list: false,
    write: true,
    request: () => ({ method: 'GET', path: api('/events') }),
    background: { perSecond: 20, request: patchEvent },
  },
];

/** A published event with a venue, an organizer, a category and a tag, in one transaction. */
function createEvent(s: Samples, r: () => number): BenchRequest {
  const start = Date.now() + Math.floor(1 + r() * 300) * DAY;
  const startText = `${day(start)} 19:00:00`;
  const body = {
    title: `Bench ${pick(r, SUBJECTS)} evening ${Math.floor(r() * 1e9).toString(36)}`,
    description: 'Created by the benchmark: a venue, an organizer, a category and a tag, in one transaction.',
    status: 'publish',
    start_date: startText,
    end_date: `${day(start)} 22:00:00`,
    cost: '$15',
    venue: pick(r, s.venueIds),
    organizer: pick(r, s.organizerIds),
    categories: [pick(r, s.categoryIds)],
    tags: [pick(r, s.tagIds)],
  };
  return { method: 'POST', path: api('/events'), headers: JSON_WRITE, body: JSON.stringify(body) };
}

/** An update of a random event's title and cost. */
function patchEvent(s: Samples, r: () => number): BenchRequest {
  const body = { title: `Updated ${pick(r, SUBJECTS)} night`, cost: `$${5 + Math.floor(r() * 40)}` };
  return { method: 'PATCH', path: api(`/events/${pick(r, s.events).id}`), headers: JSON_WRITE, body: JSON.stringify(body) };
}

/** The floor: a primary-key lookup of a random event through the minimal stack (floor.ts). */
export const FLOOR: Scenario = {
  name: 'floor',
  label: 'floor: express+validator+knex PK lookup',
  list: false,
  write: false,
  request: (s, r) => ({ method: 'GET', path: `/items/${pick(r, s.events).id}` }),
};

/**
 * The samples of a seeded database and its engine, read over a connection of its own that is closed
 * again before the service under test starts (the long-running benchmarks: soak, webhooks, cache).
 */
export async function samplesOf(databaseUrl: string): Promise<{ engine: string; samples: Samples }> {
  const { db, target } = openDatabase(databaseUrl);
  try {
    return { engine: target.engine, samples: await loadSamples(db) };
  } finally {
    await db.destroy();
  }
}

/** Random published events (up to 20,000, spread over the id range), terms, venues, organizers. */
export async function loadSamples(db: Knex): Promise<Samples> {
  const [{ n }] = await db('posts').where({ type: 'event', status: 'publish' }).count({ n: '*' });
  const step = Math.max(1, Math.ceil(Number(n) / 20_000));
  const events = (await db('posts').where({ type: 'event', status: 'publish' }).whereRaw('id % ? = 0', [step]).select('id', 'slug').limit(20_000)).map(
    (row: { id: number; slug: string }) => ({ id: Number(row.id), slug: String(row.slug) }),
  );
  const categories = await db('terms').where('taxonomy', 'tribe_events_cat').select('id', 'slug');
  const tagIds = (await db('terms').where('taxonomy', 'post_tag').pluck('id')).map(Number);
  const published = (type: string) => db('posts').where({ type, status: 'publish' }).orderBy('id').limit(5000).pluck('id');
  const venueIds = (await published('venue')).map(Number);
  const organizerIds = (await published('organizer')).map(Number);
  const [range] = await db('events').min({ first: 'start_utc' }).max({ last: 'start_utc' });
  const midnight = (text: string) => Date.parse(`${String(text).slice(0, 10)}T00:00:00Z`);
  const recent = await db('posts').where({ type: 'event', status: 'publish' }).orderBy('modified_utc', 'desc').offset(99).first('modified_utc');
  const samples: Samples = {
    events,
    categorySlugs: categories.map((c: { slug: string }) => String(c.slug)),
    categoryIds: categories.map((c: { id: number }) => Number(c.id)),
    tagIds,
    venueIds,
    organizerIds,
    firstDay: midnight(range.first),
    lastDay: midnight(range.last),
    recentModified: `${String(recent?.modified_utc ?? '2000-01-01 00:00:00').replace(' ', 'T')}Z`,
  };
  for (const [name, list] of Object.entries({ events, categories: samples.categoryIds, tags: tagIds, venues: venueIds, organizers: organizerIds })) {
    if (list.length === 0) throw new Error(`the database has no ${name}: seed it first (drop --skip-seed)`);
  }
  return samples;
}
