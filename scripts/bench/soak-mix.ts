/**
 * The request mix of the soak (soak.ts): every kind of read (the benchmark's scenarios, scenarios.ts),
 * writes, idempotent creates and series edits, with their weights and the answer each must get. Writes
 * touch only records the soak created itself (apart from updates of seeded events' cost), so reads of
 * the seeded samples never meet a deleted record. A record with a request in flight is "busy": no other
 * write or delete picks it, so that no answer depends on a race.
 */
import crypto from 'node:crypto';
import { AUTH, DAY, JSON_WRITE, api, day, pick } from './common.js';
import type { BenchRequest } from './load.js';
import { eventBody, scenario, type Samples } from './scenarios.js';
import { SUBJECTS } from './seed.js';

export interface SoakRequest extends BenchRequest {
  kind: Kind;
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
  busy: Set<number>;
}

type Check = (status: number, text: string, headers: Record<string, string | string[] | undefined>, request: SoakRequest, state: SoakState) => string | undefined;

export interface Kind {
  name: string;
  /** Relative share of the requests. */
  weight: number;
  /** The next request, or undefined when there is nothing to do it on yet (no record created). */
  request(state: SoakState): Omit<SoakRequest, 'kind'> | undefined;
  /** What is wrong with the answer (undefined when it is the expected one); may record what it created. */
  check: Check;
}

/** At most this many created events and remembered keys are kept to pick from (older ones are forgotten, not deleted). */
const KEEP = 5000;
const r = Math.random;
const hex = () => crypto.randomBytes(4).toString('hex');
const status = (expected: number): Check => (got) => (got === expected ? undefined : `expected ${expected}`);
const get = (route: string) => ({ method: 'GET' as const, path: api(route) });

/** A read of the benchmark's scenario of that name. */
const read = (name: string, weight: number, from = name): Kind => ({ name, weight, request: (s) => scenario(from).request(s.samples, r), check: status(200) });
const simple = (name: string, weight: number, request: Kind['request']): Kind => ({ name, weight, request, check: status(200) });

/** A record of `list` that no other request holds, marked busy; undefined if none is free. */
function take(state: SoakState, list: number[], from: 'oldest' | 'any'): number | undefined {
  for (let attempt = 0; attempt < 5 && list.length; attempt++) {
    const id = from === 'oldest' ? list[attempt] : list[Math.floor(r() * list.length)];
    if (id !== undefined && !state.busy.has(id)) return (state.busy.add(id), id);
  }
  return undefined;
}

function remember<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > KEEP) list.shift();
}

/** A 201 with an id, remembered in `list` of the state. */
const created =
  (list: 'created' | 'series'): Check =>
  (got, text, _h, req, s) => {
    const id = (() => {
      try {
        return (JSON.parse(text) as { id?: unknown }).id;
      } catch {
        return undefined;
      }
    })();
    if (got !== 201 || typeof id !== 'number') return 'expected 201 with an id';
    remember(s[list], id);
    if (req.idempotent) remember(s.keys, req.idempotent);
    return undefined;
  };

const newEvent = (s: SoakState, series?: string[]) => {
  const start = Date.now() + Math.floor(1 + r() * 300) * DAY;
  const title = `Soak ${pick(r, SUBJECTS)} ${series ? 'series' : 'evening'} ${hex()}`;
  return eventBody(s.samples, r, title, { start_date: `${day(start)} 19:00:00`, end_date: `${day(start)} 21:00:00`, ...(series ? { recurrence: series } : {}) });
};
const remove = (s: SoakState, list: number[]) => {
  const id = take(s, list, 'oldest');
  if (id === undefined) return undefined;
  list.splice(list.indexOf(id), 1);
  return { method: 'DELETE' as const, path: api(`/events/${id}?force=true`), headers: { authorization: AUTH }, lock: id };
};

/** Weights: about 75 % reads, 25 % writes; creates and deletes balance so the calendar keeps its size. */
export const MIX: Kind[] = [
  read('event-by-id', 14),
  read('event-by-slug', 6),
  simple('event-ics', 2, (s) => get(`/events/${pick(r, s.samples.events).id}/ics`)),
  read('events-default', 5),
  read('events-filtered', 5),
  read('events-search', 4),
  simple('events-page', 4, () => get(`/events?page=${2 + Math.floor(r() * 4)}&per_page=20`)),
  read('events-jsonld', 3),
  read('events-ics', 2),
  read('events-modified-after', 2),
  simple('venue-by-id', 3, (s) => get(`/venues/${pick(r, s.samples.venueIds)}`)),
  simple('organizer-by-id', 2, (s) => get(`/organizers/${pick(r, s.samples.organizerIds)}`)),
  read('venues-upcoming', 2),
  read('categories', 2),
  simple('tags', 1, () => get('/tags?per_page=50')),
  read('changes-page', 1, 'changes'),
  simple('series-occurrences', 2, (s) => {
    const id = take(s, s.series, 'any');
    return id === undefined ? undefined : { ...get(`/events/${id}/occurrences?per_page=10`), lock: id };
  }),
  { name: 'create', weight: 4, request: (s) => ({ method: 'POST', path: api('/events'), headers: JSON_WRITE, body: newEvent(s) }), check: created('created') },
  // The cost of a seeded event, or the title of one the soak created.
  simple('update', 5, (s) => {
    const own = r() < 0.5 ? take(s, s.created, 'any') : undefined;
    const body = own === undefined ? { cost: `$${5 + Math.floor(r() * 40)}` } : { title: `Soak updated ${hex()}`, cost: '$12' };
    return { method: 'PATCH', path: api(`/events/${own ?? pick(r, s.samples.events).id}`), headers: JSON_WRITE, body: JSON.stringify(body), lock: own };
  }),
  simple('delete', 5, (s) => remove(s, s.created)),
  {
    name: 'idempotent-new',
    weight: 2,
    request: (s) => {
      const [key, body] = [crypto.randomUUID(), newEvent(s)];
      return { method: 'POST', path: api('/events'), headers: { ...JSON_WRITE, 'idempotency-key': key }, body, idempotent: { key, body } };
    },
    check: created('created'),
  },
  {
    // A retry of an earlier create: the stored answer again, nothing created (also when the event was deleted since).
    name: 'idempotent-replay',
    weight: 2,
    request: (s) => {
      if (!s.keys.length) return undefined;
      const { key, body } = pick(r, s.keys);
      return { method: 'POST', path: api('/events'), headers: { ...JSON_WRITE, 'idempotency-key': key }, body };
    },
    check: (got, _t, headers) => (got === 201 && headers['idempotent-replayed'] === 'true' ? undefined : 'expected 201 with Idempotent-Replayed: true'),
  },
  { name: 'series-create', weight: 0.4, request: (s) => ({ method: 'POST', path: api('/events'), headers: JSON_WRITE, body: newEvent(s, ['RRULE:FREQ=WEEKLY;COUNT=8']) }), check: created('series') },
  // A change of the whole series (the first event: scope `all`), copied to every occurrence.
  simple('series-edit', 1, (s) => {
    const id = take(s, s.series, 'any');
    const body = { title: `Soak series renamed ${hex()}`, cost: `$${Math.floor(r() * 30)}` };
    return id === undefined ? undefined : { method: 'PATCH', path: api(`/events/${id}`), headers: JSON_WRITE, body: JSON.stringify(body), lock: id };
  }),
  // Keep a few series to edit: delete only beyond 20.
  simple('series-delete', 0.3, (s) => (s.series.length <= 20 ? undefined : remove(s, s.series))),
];

/** A kind drawn by weight. */
export function pickKind(): Kind {
  let left = r() * MIX.reduce((sum, k) => sum + k.weight, 0);
  for (const kind of MIX) if ((left -= kind.weight) < 0) return kind;
  return MIX[MIX.length - 1];
}
