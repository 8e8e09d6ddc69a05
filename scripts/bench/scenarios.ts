/**
 * The benchmark's scenarios, as data: what each sends (drawn from the samples of the seeded calendar)
 * and how the run drives it. Every mode and probe draws its requests from here.
 */
import type { Knex } from 'knex';
import { openDatabase } from '../../src/db/knex.js';
import { DAY, JSON_WRITE, api, day, pick } from './common.js';
import type { BenchRequest } from './load.js';
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

export type Make = (s: Samples, r: () => number) => BenchRequest;

export interface Scenario {
  name: string;
  /** The scenario as the table of docs/performance.md "Current figures" names it. */
  label: string;
  request: Make;
  /** List scenarios are the ones `--scale` runs at 10k, 100k and 1M events. */
  list?: boolean;
  write?: boolean;
  /** Measured on a second service process started with these added to its environment, on the same database. */
  serviceEnv?: Record<string, string>;
  /** Measured on this engine only (a setting the other engine ignores). */
  onlyOn?: 'sqlite' | 'mysql';
  /** A second client sending these requests open-loop at `perSecond` while the scenario is measured. */
  background?: { perSecond: number; request: Make };
  /** Also compares the reads alone and beside the second client in alternating windows (run.ts `pairedWithWriter`). */
  pairedAlone?: boolean;
}

const get = (path: string): BenchRequest => ({ method: 'GET', path: api(path) });
const query = (path: string, q: Record<string, string>) => get(`${path}?${new URLSearchParams(q)}`);
/** A window of `days` days somewhere in the seeded three years. */
const window = (s: Samples, r: () => number, days: number) => {
  const from = s.firstDay + Math.floor(r() * Math.max(1, (s.lastDay - s.firstDay) / DAY - days)) * DAY;
  return { start_date: day(from), end_date: day(from + (days === 5 ? 4 : days) * DAY) };
};
const phrase = (r: () => number) => `"${pick(r, ADJECTIVES)} ${pick(r, SUBJECTS)} ${pick(r, FORMATS)}"`;
const randomEvent: Make = (s, r) => get(`/events/${pick(r, s.events).id}`);

/** A published event with a venue, an organizer, a category and a tag (one transaction), titled `title`. */
export function eventBody(
  s: Samples,
  r: () => number,
  title = `Bench ${pick(r, SUBJECTS)} evening ${Math.floor(r() * 1e9).toString(36)}`,
  extra: Record<string, unknown> = {},
): string {
  const start = Date.now() + Math.floor(1 + r() * 300) * DAY;
  const [venue, organizer, category, tag] = [pick(r, s.venueIds), pick(r, s.organizerIds), pick(r, s.categoryIds), pick(r, s.tagIds)];
  const description = 'Created by the benchmark: a venue, an organizer, a category and a tag, in one transaction.';
  return JSON.stringify({
    title,
    description,
    status: 'publish',
    start_date: `${day(start)} 19:00:00`,
    end_date: `${day(start)} 22:00:00`,
    cost: '$15',
    venue,
    organizer,
    categories: [category],
    tags: [tag],
    ...extra,
  });
}

export const createEvent: Make = (s, r) => ({ method: 'POST', path: api('/events'), headers: JSON_WRITE, body: eventBody(s, r) });
/** An update of a random event's title and cost. */
export const patchEvent: Make = (s, r) => ({
  method: 'PATCH',
  path: api(`/events/${pick(r, s.events).id}`),
  headers: JSON_WRITE,
  body: JSON.stringify({ title: `Updated ${pick(r, SUBJECTS)} night`, cost: `$${5 + Math.floor(r() * 40)}` }),
});

export const SCENARIOS: Scenario[] = [
  { name: 'event-by-id', label: 'GET /events/{id}', request: randomEvent },
  // The ceiling of any single-read design: the reply is remembered (the same event every time).
  { name: 'event-by-id-same', label: 'GET /events/{id}, the same event each time (remembered reply)', request: (s) => get(`/events/${s.events[0].id}`) },
  { name: 'event-by-slug', label: 'GET /events/by-slug/{slug}', request: (s, r) => get(`/events/by-slug/${encodeURIComponent(pick(r, s.events).slug)}`) },
  { name: 'events-default', label: 'GET /events (default window)', list: true, request: () => get('/events') },
  // A 5-day window: about 500 events at 100,000 (docs/contract.md §11); the JSON-LD feed one page of 50 of it (docs/contract.md §12).
  { name: 'events-ics', label: 'GET /events.ics (about 500 events)', list: true, request: (s, r) => query('/events.ics', window(s, r, 5)) },
  {
    name: 'events-jsonld',
    label: 'GET /events.jsonld?per_page=50 (a 5-day window)',
    list: true,
    request: (s, r) => query('/events.jsonld', { ...window(s, r, 5), per_page: '50' }),
  },
  {
    name: 'events-filtered',
    label: 'GET /events?categories&start_date&end_date&search',
    list: true,
    request: (s, r) => {
      const w = window(s, r, 60);
      return query('/events', { categories: pick(r, s.categorySlugs), ...w, search: pick(r, SUBJECTS) });
    },
  },
  // A rare phrase (one title in 16,000) over the default window: the search alone narrows the list (docs/contract.md §15).
  { name: 'events-search', label: 'GET /events?search="<adjective> <subject> <format>"', list: true, request: (_s, r) => query('/events', { search: phrase(r) }) },
  {
    // Over a window wider than the calendar: half common words (their pages 1-5), a quarter a rare whole title, a quarter a word found nowhere.
    name: 'events-search-words',
    label: 'GET /events?search=<common or rare word>&start_date&end_date (wide window)',
    list: true,
    request: (s, r) => {
      const kind = r();
      const q: Record<string, string> = { start_date: day(s.firstDay - 730 * DAY), end_date: day(s.lastDay + 365 * DAY) };
      if (kind < 0.5) Object.assign(q, { search: pick(r, [ADJECTIVES, SUBJECTS, FORMATS][Math.floor(r() * 3)]).toLowerCase(), page: String(1 + Math.floor(r() * 5)) });
      else q.search = kind < 0.75 ? phrase(r) : `zq${Math.floor(r() * 36 ** 5).toString(36)}`;
      return query('/events', q);
    },
  },
  { name: 'events-per-page-50', label: 'GET /events?per_page=50', list: true, request: () => get('/events?per_page=50') },
  // A sync client's page: the events changed since a recent moment (about 100 whatever the calendar's size).
  { name: 'events-modified-after', label: 'GET /events?modified_after=<recent>', list: true, request: (s) => query('/events', { modified_after: s.recentModified }) },
  {
    name: 'events-modified-sync',
    label: 'GET /events?modified_after=<recent>&orderby=modified&order=asc',
    list: true,
    request: (s) => query('/events', { modified_after: s.recentModified, orderby: 'modified', order: 'asc' }),
  },
  { name: 'venues-upcoming', label: 'GET /venues?only_with_upcoming=1', list: true, request: () => get('/venues?only_with_upcoming=1') },
  { name: 'categories', label: 'GET /categories', list: true, request: () => get('/categories') },
  { name: 'changes', label: 'GET /changes (first page of 100, as an anonymous follower)', list: true, request: () => get('/changes?per_page=100') },
  // On SQLite with the default SQLITE_SYNCHRONOUS=full: every commit synced to the disk.
  { name: 'create-event', label: 'POST /events (venue, organizer, 2 terms)', write: true, request: createEvent },
  // The same creates on a service that does not sync each commit (docs/settings.md "Commit durability").
  {
    name: 'create-event-normal',
    label: 'POST /events with SQLITE_SYNCHRONOUS=normal (commits not synced)',
    write: true,
    request: createEvent,
    serviceEnv: { SQLITE_SYNCHRONOUS: 'normal' },
    onlyOn: 'sqlite',
  },
  { name: 'patch-event', label: 'PATCH /events/{id}', write: true, request: patchEvent },
  {
    name: 'event-by-id-writes',
    label: 'GET /events/{id} while another client sends 20 PATCH/s',
    write: true,
    request: randomEvent,
    background: { perSecond: 20, request: patchEvent },
    pairedAlone: true,
  },
  {
    name: 'events-default-writes',
    label: 'GET /events (default window) while another client sends 20 PATCH/s',
    write: true,
    request: () => get('/events'),
    background: { perSecond: 20, request: patchEvent },
  },
];

/** The floor: a primary-key lookup of a random event through the minimal stack (floor.ts). */
export const FLOOR: Scenario = { name: 'floor', label: 'floor: express+validator+knex PK lookup', request: (s, r) => ({ method: 'GET', path: `/items/${pick(r, s.events).id}` }) };

export function scenario(name: string): Scenario {
  const found = SCENARIOS.find((s) => s.name === name);
  if (!found) throw new Error(`no scenario ${name} (known: ${SCENARIOS.map((s) => s.name).join(', ')})`);
  return found;
}

/** The samples of a seeded database and its engine, over a connection of its own closed again before the service starts. */
export async function samplesOf(databaseUrl: string): Promise<{ engine: 'sqlite' | 'mysql'; samples: Samples }> {
  const { db, target } = openDatabase(databaseUrl);
  try {
    return { engine: target.engine as 'sqlite' | 'mysql', samples: await loadSamples(db) };
  } finally {
    await db.destroy();
  }
}

/** Random published events (up to 20,000, spread over the id range), terms, venues, organizers. */
export async function loadSamples(db: Knex): Promise<Samples> {
  const published = (type: string) => db('posts').where({ type, status: 'publish' });
  const [{ n }] = await published('event').count({ n: '*' });
  const step = Math.max(1, Math.ceil(Number(n) / 20_000));
  const events = (await published('event').whereRaw('id % ? = 0', [step]).select('id', 'slug').limit(20_000)).map((row: { id: number; slug: string }) => ({
    id: Number(row.id),
    slug: String(row.slug),
  }));
  const categories = await db('terms').where('taxonomy', 'tribe_events_cat').select('id', 'slug');
  const tagIds = (await db('terms').where('taxonomy', 'post_tag').pluck('id')).map(Number);
  const venueIds = (await published('venue').orderBy('id').limit(5000).pluck('id')).map(Number);
  const organizerIds = (await published('organizer').orderBy('id').limit(5000).pluck('id')).map(Number);
  const [range] = await db('events').min({ first: 'start_utc' }).max({ last: 'start_utc' });
  const midnight = (text: string) => Date.parse(`${String(text).slice(0, 10)}T00:00:00Z`);
  const recent = await published('event').orderBy('modified_utc', 'desc').offset(99).first('modified_utc');
  const categoryIds = categories.map((c: { id: number }) => Number(c.id));
  for (const [name, list] of Object.entries({ events, categories: categoryIds, tags: tagIds, venues: venueIds, organizers: organizerIds })) {
    if (list.length === 0) throw new Error(`the database has no ${name}: seed it first (drop --skip-seed)`);
  }
  return {
    events,
    categorySlugs: categories.map((c: { slug: string }) => String(c.slug)),
    categoryIds,
    tagIds,
    venueIds,
    organizerIds,
    firstDay: midnight(range.first),
    lastDay: midnight(range.last),
    recentModified: `${String(recent?.modified_utc ?? '2000-01-01 00:00:00').replace(' ', 'T')}Z`,
  };
}
