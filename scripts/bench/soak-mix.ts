/**
 * The request mix of the soak (soak.ts): every kind of read, writes, idempotent creates and series
 * edits, with their weights and the answer each must get. Reads reuse the benchmark's scenarios
 * (scenarios.ts). Writes touch only records the soak created itself (apart from updates of seeded
 * events' cost), so reads of the seeded samples never meet a deleted record. A record with a request
 * in flight is "busy": no other write or delete picks it, so that no answer depends on a race.
 */
import crypto from 'node:crypto';
import { BENCH_ADMIN, NAMESPACE_PATH, pick } from './common.js';
import { SCENARIOS, type Samples } from './scenarios.js';
import { SUBJECTS } from './seed.js';

export interface SoakRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The record this request holds busy until its answer (released by the sender). */
  lock?: number;
  /** For an idempotent create: its key and body, remembered for replays once it succeeded. */
  idempotent?: { key: string; body: string };
}

export interface SoakState {
  samples: Samples;
  /** Events the soak created (single ones), oldest first; deletes take from the front. */
  created: number[];
  /** First events of the series the soak created. */
  series: number[];
  /** Idempotency keys whose first create succeeded, with the body sent (replays send the same). */
  keys: Array<{ key: string; body: string }>;
  busy?: Set<number>;
}

export interface Kind {
  name: string;
  /** Relative share of the requests. */
  weight: number;
  /** The next request, or undefined when there is nothing to do it on yet (no record created). */
  request(state: SoakState): SoakRequest | undefined;
  /** What is wrong with the answer (undefined when it is the expected one); may record what it created. */
  check(res: Response, text: string, request: SoakRequest, state: SoakState): string | undefined;
}

const DAY = 86_400_000;
const AUTH = `Basic ${Buffer.from(`${BENCH_ADMIN.login}:${BENCH_ADMIN.secret}`).toString('base64')}`;
const JSON_WRITE = { 'content-type': 'application/json', authorization: AUTH };
/** At most this many created events and remembered keys are kept to pick from (older ones are forgotten, not deleted). */
const KEEP = 5000;
const api = (route: string) => `${NAMESPACE_PATH}${route}`;

function status(expected: number): Kind['check'] {
  return (res) => (res.status === expected ? undefined : `expected ${expected}`);
}

/** A read of the benchmark's scenario of that name. */
function read(name: string, scenario: string, weight: number): Kind {
  const found = SCENARIOS.find((s) => s.name === scenario);
  if (!found) throw new Error(`no scenario ${scenario}`);
  return { name, weight, request: (s) => found.request(s.samples, Math.random), check: status(200) };
}

/** A record of `list` that no other request holds, marked busy; undefined if none is free. */
function take(state: SoakState, list: number[], from: 'oldest' | 'any'): number | undefined {
  state.busy ??= new Set();
  for (let attempt = 0; attempt < 5 && list.length; attempt++) {
    const id = from === 'oldest' ? list[attempt] : list[Math.floor(Math.random() * list.length)];
    if (id !== undefined && !state.busy.has(id)) {
      state.busy.add(id);
      return id;
    }
  }
  return undefined;
}

function remember(list: number[], id: number): void {
  list.push(id);
  if (list.length > KEEP) list.shift();
}

function newEventBody(state: SoakState, recurrence?: string[]): string {
  const start = Date.now() + Math.floor(1 + Math.random() * 300) * DAY;
  const day = new Date(start).toISOString().slice(0, 10);
  const body: Record<string, unknown> = {
    title: `Soak ${pick(Math.random, SUBJECTS)} ${recurrence ? 'series' : 'evening'} ${crypto.randomBytes(4).toString('hex')}`,
    description: 'Created by the soak benchmark.',
    status: 'publish',
    start_date: `${day} 19:00:00`,
    end_date: `${day} 21:00:00`,
    venue: pick(Math.random, state.samples.venueIds),
    organizer: pick(Math.random, state.samples.organizerIds),
    categories: [pick(Math.random, state.samples.categoryIds)],
    tags: [pick(Math.random, state.samples.tagIds)],
  };
  if (recurrence) body.recurrence = recurrence;
  return JSON.stringify(body);
}

function createdId(text: string): number | undefined {
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Weights: about 75 % reads, 25 % writes; creates and deletes balance so the calendar keeps its size. */
export const MIX: Kind[] = [
  read('event-by-id', 'event-by-id', 14),
  read('event-by-slug', 'event-by-slug', 6),
  {
    name: 'event-ics',
    weight: 2,
    request: (s) => ({ method: 'GET', path: api(`/events/${pick(Math.random, s.samples.events).id}/ics`) }),
    check: status(200),
  },
  read('events-default', 'events-default', 5),
  read('events-filtered', 'events-filtered', 5),
  read('events-search', 'events-search', 4),
  {
    // Later pages of the default list.
    name: 'events-page',
    weight: 4,
    request: () => ({ method: 'GET', path: api(`/events?page=${2 + Math.floor(Math.random() * 4)}&per_page=20`) }),
    check: status(200),
  },
  read('events-jsonld', 'events-jsonld', 3),
  read('events-ics', 'events-ics', 2),
  read('events-modified-after', 'events-modified-after', 2),
  {
    name: 'venue-by-id',
    weight: 3,
    request: (s) => ({ method: 'GET', path: api(`/venues/${pick(Math.random, s.samples.venueIds)}`) }),
    check: status(200),
  },
  {
    name: 'organizer-by-id',
    weight: 2,
    request: (s) => ({ method: 'GET', path: api(`/organizers/${pick(Math.random, s.samples.organizerIds)}`) }),
    check: status(200),
  },
  read('venues-upcoming', 'venues-upcoming', 2),
  read('categories', 'categories', 2),
  { name: 'tags', weight: 1, request: () => ({ method: 'GET', path: api('/tags?per_page=50') }), check: status(200) },
  read('changes-page', 'changes', 1),
  {
    name: 'series-occurrences',
    weight: 2,
    request: (s) => {
      const id = take(s, s.series, 'any');
      return id === undefined ? undefined : { method: 'GET', path: api(`/events/${id}/occurrences?per_page=10`), lock: id };
    },
    check: status(200),
  },
  {
    name: 'create',
    weight: 4,
    request: (s) => ({ method: 'POST', path: api('/events'), headers: JSON_WRITE, body: newEventBody(s) }),
    check: (res, text, _req, s) => {
      const id = createdId(text);
      if (res.status !== 201 || id === undefined) return 'expected 201 with an id';
      remember(s.created, id);
      return undefined;
    },
  },
  {
    // The cost of a seeded event, or the title of one the soak created.
    name: 'update',
    weight: 5,
    request: (s) => {
      const own = Math.random() < 0.5 ? take(s, s.created, 'any') : undefined;
      const body = own === undefined ? { cost: `$${5 + Math.floor(Math.random() * 40)}` } : { title: `Soak updated ${crypto.randomBytes(4).toString('hex')}`, cost: '$12' };
      const id = own ?? pick(Math.random, s.samples.events).id;
      return { method: 'PATCH', path: api(`/events/${id}`), headers: JSON_WRITE, body: JSON.stringify(body), lock: own };
    },
    check: status(200),
  },
  {
    name: 'delete',
    weight: 5,
    request: (s) => {
      const id = take(s, s.created, 'oldest');
      if (id === undefined) return undefined;
      s.created.splice(s.created.indexOf(id), 1);
      return { method: 'DELETE', path: api(`/events/${id}?force=true`), headers: { authorization: AUTH }, lock: id };
    },
    check: status(200),
  },
  {
    name: 'idempotent-new',
    weight: 2,
    request: (s) => {
      const key = crypto.randomUUID();
      const body = newEventBody(s);
      return { method: 'POST', path: api('/events'), headers: { ...JSON_WRITE, 'idempotency-key': key }, body, idempotent: { key, body } };
    },
    check: (res, text, req, s) => {
      const id = createdId(text);
      if (res.status !== 201 || id === undefined) return 'expected 201 with an id';
      remember(s.created, id);
      s.keys.push(req.idempotent!);
      if (s.keys.length > KEEP) s.keys.shift();
      return undefined;
    },
  },
  {
    // A retry of an earlier create: the stored answer again, nothing created (also when the event was deleted since).
    name: 'idempotent-replay',
    weight: 2,
    request: (s) => {
      if (!s.keys.length) return undefined;
      const { key, body } = pick(Math.random, s.keys);
      return { method: 'POST', path: api('/events'), headers: { ...JSON_WRITE, 'idempotency-key': key }, body };
    },
    check: (res) => (res.status === 201 && res.headers.get('idempotent-replayed') === 'true' ? undefined : 'expected 201 with Idempotent-Replayed: true'),
  },
  {
    name: 'series-create',
    weight: 0.4,
    request: (s) => ({ method: 'POST', path: api('/events'), headers: JSON_WRITE, body: newEventBody(s, ['RRULE:FREQ=WEEKLY;COUNT=8']) }),
    check: (res, text, _req, s) => {
      const id = createdId(text);
      if (res.status !== 201 || id === undefined) return 'expected 201 with an id';
      remember(s.series, id);
      return undefined;
    },
  },
  {
    // A change of the whole series (the first event: scope `all`), copied to every occurrence.
    name: 'series-edit',
    weight: 1,
    request: (s) => {
      const id = take(s, s.series, 'any');
      const body = { title: `Soak series renamed ${crypto.randomBytes(4).toString('hex')}`, cost: `$${Math.floor(Math.random() * 30)}` };
      return id === undefined ? undefined : { method: 'PATCH', path: api(`/events/${id}`), headers: JSON_WRITE, body: JSON.stringify(body), lock: id };
    },
    check: status(200),
  },
  {
    name: 'series-delete',
    weight: 0.3,
    request: (s) => {
      // Keep a few series to edit: delete only beyond 20.
      if (s.series.length <= 20) return undefined;
      const id = take(s, s.series, 'oldest');
      if (id === undefined) return undefined;
      s.series.splice(s.series.indexOf(id), 1);
      return { method: 'DELETE', path: api(`/events/${id}?force=true`), headers: { authorization: AUTH }, lock: id };
    },
    check: status(200),
  },
];
