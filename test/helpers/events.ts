import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import type { Config } from '../../src/core/config.js';
import { NS, testApp, type TestApp, type TestUser } from './app.js';
import { expectStatus } from './assertions.js';
import { openTestDatabase } from './database.js';

/**
 * Shared fixtures for the events endpoints (`/events`, `/events/{id}`, `/events/by-slug/{slug}`).
 */

/** The public URL every events test app runs with, so absolute URLs are predictable. */
export const PUBLIC_URL = 'http://api.test';

/** The moment the peer captures were taken (peer:07, peer:15): a Saturday evening, UTC. */
export const NOW = '2026-11-21T21:18:07Z';

/** Event record keys in wire order (docs/plugin-behaviour.md §1.1, without `custom_fields`); `json_ld` follows on single GETs. */
export const EVENT_KEYS = [
  'id',
  'global_id',
  'global_id_lineage',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'title',
  'description',
  'excerpt',
  'slug',
  'image',
  'all_day',
  'start_date',
  'start_date_details',
  'end_date',
  'end_date_details',
  'utc_start_date',
  'utc_start_date_details',
  'utc_end_date',
  'utc_end_date_details',
  'timezone',
  'timezone_abbr',
  'cost',
  'cost_details',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'categories',
  'tags',
  'venue',
  'organizer',
  'series_id',
  'managed_by',
];

/** A record as the API returns it (loosely typed: tests look at the wire). */
export type Rec = Record<string, any>;
export type Body = Record<string, unknown>;
export type Http = TestApp['http'];
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

const apps = new Map<string, TestApp>();

/**
 * An app with PUBLIC_URL and a clock fixed at `at` (NOW by default). Memoised per settings and
 * clock, because compiling the validator costs a few hundred milliseconds; the database is shared.
 */
export async function eventsApp(overrides: Partial<Config> = {}, at: string = NOW): Promise<TestApp> {
  const key = JSON.stringify([overrides, at]);
  let app = apps.get(key);
  if (!app) {
    const fixed = new Date(at);
    app = await testApp({ publicUrl: PUBLIC_URL, ...overrides }, () => new Date(fixed));
    apps.set(key, app);
  }
  return app;
}

export const eventsPath = `${NS}/events`;
export const eventPath = (id: number | string): string => `${NS}/events/${id}`;
export const eventSlugPath = (slug: string): string => `${NS}/events/by-slug/${encodeURIComponent(slug)}`;

/** A request with an optional user and JSON body. */
export function call(http: Http, method: Method, path: string, as?: TestUser, body?: unknown) {
  let req = http()[method](path);
  if (as) req = req.set('Authorization', as.authorization);
  if (body !== undefined) req = req.send(body as object);
  return req;
}

/** A valid create body: a two-hour event on 1 May 2030 (site zone), plus `extra`. */
export function eventBody(extra: Body = {}): Body {
  return { title: 'Event', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00', ...extra };
}

/** Creates an event through the API (asserting 201) and returns the record. */
export async function createEvent(http: Http, as: TestUser, extra: Body = {}): Promise<Rec> {
  const res = await call(http, 'post', eventsPath, as, eventBody(extra));
  expectStatus(res, 201);
  return res.body as Rec;
}

/** Creates a venue through the venues API (asserting 201). */
export async function createVenue(http: Http, as: TestUser, body: Body): Promise<Rec> {
  const res = await call(http, 'post', `${NS}/venues`, as, body);
  expectStatus(res, 201);
  return res.body as Rec;
}

/** Creates an organizer through the organizers API (asserting 201). */
export async function createOrganizer(http: Http, as: TestUser, body: Body): Promise<Rec> {
  const res = await call(http, 'post', `${NS}/organizers`, as, body);
  expectStatus(res, 201);
  return res.body as Rec;
}

/** GET one event by id (as `as`, anonymous by default), asserting 200. */
export async function readEvent(http: Http, id: number, as?: TestUser): Promise<Rec> {
  const res = await call(http, 'get', eventPath(id), as);
  expectStatus(res, 200);
  return res.body as Rec;
}

/** GET /events with a query (raw string or name → value), as `as` (anonymous by default). */
export function listEvents(http: Http, query: string | Record<string, string> = '', as?: TestUser): Promise<Response> {
  const qs = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  return call(http, 'get', `${eventsPath}${qs ? `?${qs}` : ''}`, as) as unknown as Promise<Response>;
}

/** The titles in a list answer, in order (asserting 200). */
export function titlesOf(res: Response): string[] {
  expectStatus(res, 200);
  return (res.body.events as Rec[]).map((event) => event.title);
}

/** The path and query of an absolute URL, to request it from the test app. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** Rows per table that writes touch, to prove a refused write stored nothing. */
export async function tableCounts(): Promise<Record<string, number>> {
  const { db } = await openTestDatabase();
  const counts: Record<string, number> = {};
  for (const table of ['posts', 'events', 'venues', 'organizers', 'images', 'terms', 'event_terms', 'event_venues', 'event_organizers']) {
    const [{ n }] = await db(table).count({ n: '*' });
    counts[table] = Number(n);
  }
  return counts;
}

/** Asserts a refused write changed no table. */
export async function expectNothingStored(before: Record<string, number>, label = ''): Promise<void> {
  assert.deepEqual(await tableCounts(), before, `rows changed by a refused write ${label}`);
}

/** The names of the bad parameters of a 400 `rest_invalid_param`. */
export function badParams(res: Response): string[] {
  assert.equal(res.status, 400, `expected 400, got ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, 'rest_invalid_param', JSON.stringify(res.body));
  return Object.keys(res.body.data.params as object);
}

/** Asserts the body is a WordPress error envelope whose `data.status` is the HTTP status. */
export function expectEnvelope(res: Response, label = ''): void {
  const body = res.body as Rec;
  assert.equal(typeof body.code, 'string', `${label} no code: ${JSON.stringify(body)}`);
  assert.equal(typeof body.message, 'string', `${label} no message: ${JSON.stringify(body)}`);
  assert.equal(typeof body.data, 'object', `${label} no data: ${JSON.stringify(body)}`);
  assert.equal(body.data.status, res.status, `${label} data.status: ${JSON.stringify(body)}`);
  const text = JSON.stringify(body);
  assert.ok(
    !/\bat \S+ \(\S+:\d+|\bSQLITE_[A-Z]+|\bER_[A-Z_]+|\bknex\b/.test(text) && !/\b(select|insert into|update|delete from) .*\b(from|set|values|where)\b/i.test(text),
    `${label} leaks internals: ${text}`,
  );
}
