import assert from 'node:assert/strict';
import qs from 'qs';
import type { Response } from 'supertest';
import { ROLES, type Role } from '../../src/auth/capabilities.js';
import { createUsers, NS, type TestApp } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import type { Collection } from './operations.js';

/**
 * The records a generated request can refer to, seeded through the API before each operation is
 * exercised, so generated ids and slugs often name real records and requests reach past the 404.
 */

export type Caller = Role | 'anonymous';
export const CALLERS: Caller[] = ['anonymous', ...ROLES];

export interface World {
  /** The Authorization header of each caller (none for the anonymous visitor). */
  authorization: Record<Caller, string | undefined>;
  userIds: number[];
  ids: Record<Collection | 'images', number[]>;
  slugs: Record<'events' | 'venues' | 'organizers', string[]>;
  /** Names and slugs of seeded terms (events take terms by name or slug too). */
  termWords: string[];
}

type Http = TestApp['http'];
type Rec = Record<string, any>;

async function create(http: Http, auth: string, collection: string, body: Rec): Promise<Rec> {
  const res = await http().post(`${NS}/${collection}`).set('Authorization', auth).send(body);
  assert.equal(res.status, 201, `seeding ${collection} ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Rec;
}

/**
 * One user per role, two categories (a child under a parent), a tag, three venues and organizers and
 * four events in different states: published with every link and an image, a contributor's draft, an
 * author's password-protected event and a trashed one.
 */
export async function seedWorld(http: Http): Promise<World> {
  const users = await createUsers();
  const admin = users.administrator.authorization;
  const music = await create(http, admin, 'categories', { name: 'Music', description: 'Live music' });
  const jazz = await create(http, admin, 'categories', { name: 'Jazz', parent: music.id });
  const outdoor = await create(http, admin, 'tags', { name: 'Outdoor' });
  const hall = await create(http, admin, 'venues', { venue: 'Concert Hall', city: 'Paris', country: 'France', geo_lat: 48.85, geo_lng: 2.35 });
  const barn = await create(http, users.contributor.authorization, 'venues', { venue: 'Old Barn', status: 'draft' });
  const club = await create(http, users.author.authorization, 'venues', { venue: 'Jazz Club', password: 'secret' });
  const band = await create(http, admin, 'organizers', { organizer: 'The Band', email: 'band@example.org', website: 'https://band.example.org' });
  const crew = await create(http, users.contributor.authorization, 'organizers', { organizer: 'Crew', status: 'pending' });
  const host = await create(http, users.author.authorization, 'organizers', { organizer: 'Host', password: 'secret' });
  const concert = await create(http, admin, 'events', {
    title: 'Concert',
    start_date: 'tomorrow 8pm',
    end_date: 'tomorrow 11pm',
    status: 'publish',
    venue: hall.id,
    organizer: [band.id],
    categories: [music.id, jazz.id],
    tags: [outdoor.id],
    image: 'https://img.example.org/concert.jpg',
    cost: '$15',
    timezone: 'Europe/Paris',
  });
  const draft = await create(http, users.contributor.authorization, 'events', {
    title: 'Draft jam',
    start_date: '+3 days 9am',
    end_date: '+3 days 5pm',
    venue: barn.id,
    organizer: [crew.id],
  });
  const hidden = await create(http, users.author.authorization, 'events', {
    title: 'Private party',
    start_date: '+5 days 7pm',
    end_date: '+5 days 11pm',
    status: 'publish',
    password: 'secret',
    venue: club.id,
    organizer: [host.id],
  });
  // Both ends at fixed times of day: '+2 days' (now's time) would end after '+2 days 2pm' every afternoon.
  const trashed = await create(http, users.editor.authorization, 'events', { title: 'Cancelled', start_date: '+2 days 9am', end_date: '+2 days 2pm', status: 'publish' });
  const trash = await http().delete(`${NS}/events/${trashed.id}`).set('Authorization', users.editor.authorization);
  assert.equal(trash.status, 200, `seeding the trashed event: ${trash.status}`);
  // A webhook (docs/webhooks.md), at a public address written as one: nothing is resolved, and no
  // delivery runs in these tests.
  const webhook = await create(http, admin, 'webhooks', { url: 'https://93.184.216.34/property', types: ['event'] });
  // A subscription (docs/importing.md "Subscribing to a calendar"): no scheduler runs in these tests.
  const subscription = await create(http, admin, 'subscriptions', { url: 'https://93.184.216.34/property.ics', type: 'ical' });
  return {
    authorization: { anonymous: undefined, ...Object.fromEntries(ROLES.map((role) => [role, users[role].authorization])) } as Record<Caller, string | undefined>,
    userIds: ROLES.map((role) => users[role].id),
    ids: {
      events: [concert.id, draft.id, hidden.id, trashed.id],
      venues: [hall.id, barn.id, club.id],
      organizers: [band.id, crew.id, host.id],
      categories: [music.id, jazz.id],
      tags: [outdoor.id],
      webhooks: [webhook.id],
      subscriptions: [subscription.id],
      images: [concert.image.id],
    },
    slugs: {
      events: [concert.slug, draft.slug, hidden.slug, trashed.slug],
      venues: [hall.slug, barn.slug, club.slug],
      organizers: [band.slug, crew.slug, host.slug],
    },
    termWords: [music.name, jazz.slug, outdoor.name, outdoor.slug],
  };
}

/** A request the generators produce: an operation, concrete path, query, caller and body. */
export interface ApiRequest {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path relative to the namespace, with the path parameter filled in and URL-encoded. */
  path: string;
  query: Record<string, unknown>;
  caller: Caller;
  body?: { kind: 'json' | 'form'; value: unknown } | { kind: 'raw'; contentType: string; text: string };
  /** For a deliberately invalid request: what was broken. */
  mutation?: string;
  /** A `Host` header to send instead of supertest's own. */
  host?: string;
}

/** The query string the request sends (qs, repeated keys for lists, everything URL-encoded). */
export function queryString(query: Record<string, unknown>): string {
  return qs.stringify(query, { arrayFormat: 'repeat' });
}

/** The raw body and Content-Type the request sends, if any. */
export function rawBody(req: ApiRequest): { contentType: string; text: string } | undefined {
  if (!req.body) return undefined;
  if (req.body.kind === 'raw') return { contentType: req.body.contentType, text: req.body.text };
  if (req.body.kind === 'json') return { contentType: 'application/json', text: JSON.stringify(req.body.value) };
  return { contentType: 'application/x-www-form-urlencoded', text: qs.stringify(req.body.value) };
}

export async function send(http: Http, world: World, req: ApiRequest): Promise<Response> {
  const search = queryString(req.query);
  const url = `${NS}${req.path}${search ? `?${search}` : ''}`;
  const agent = http() as unknown as Record<string, (url: string) => import('supertest').Test>;
  let test = agent[req.method.toLowerCase()](url);
  const authorization = world.authorization[req.caller];
  if (authorization) test = test.set('Authorization', authorization);
  if (req.host !== undefined) test = test.set('Host', req.host);
  const body = rawBody(req);
  if (body) test = test.set('Content-Type', body.contentType).send(body.text);
  return await test;
}

/** Shortens long values so that a failing request can be shown (and replayed by its seed). */
function shorten(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** One line that says exactly what was sent. */
export function describeRequest(req: ApiRequest): string {
  const search = queryString(req.query);
  const body = rawBody(req);
  return [
    `${req.method} ${NS}${req.path}${search ? `?${shorten(search)}` : ''}`,
    `as ${req.caller}`,
    body ? `Content-Type: ${body.contentType}, body: ${shorten(body.text)}` : undefined,
    req.mutation ? `(invalid: ${req.mutation})` : undefined,
    req.host !== undefined ? `Host: ${shorten(JSON.stringify(req.host), 60)}` : undefined,
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * Tables a rejected request may change by design, left out of the snapshot: a wrong record password
 * is counted even though the read is refused (the shared guess limit, docs/production.md), and
 * running services renew their lease on a timer (docs/durability.md).
 */
const NOT_RECORDS = new Set(['password_guesses', 'service_leases']);

/** Every other table with its rows, to prove that a rejected request stored nothing (updates included). */
export async function databaseSnapshot(): Promise<string> {
  const { db, target } = await openTestDatabase();
  const tables: string[] =
    target.engine === 'mysql'
      ? ((await db.raw(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()`))[0] as Rec[]).map((r) => r.name ?? r.NAME)
      : ((await db.raw(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)) as Rec[]).map((r) => r.name);
  const dump: Record<string, string[]> = {};
  for (const table of tables.filter((t) => !t.startsWith('knex_') && !NOT_RECORDS.has(t)).sort()) {
    dump[table] = ((await db(table).select('*')) as Rec[]).map((row) => JSON.stringify(row)).sort();
  }
  return JSON.stringify(dump);
}
