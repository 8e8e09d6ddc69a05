import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import { createUser, createUsers, NS, type TestUser } from '../helpers/app.js';
import { eventsApp, type Http } from '../helpers/events.js';

/**
 * Fixtures shared by the security tests (authorization matrix, leak test, XSS): the three post
 * kinds, every caller, and records seeded through the API with a chosen owner and status.
 */

export { NS, type Http };

/** Every caller of the matrix, weakest first; `anonymous` sends no credentials. */
export const CALLERS = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'] as const;
export type Caller = (typeof CALLERS)[number];

/**
 * The record states of the matrix: WordPress's statuses, plus a published record with a password
 * (`password`) and a trashed one (`trash`, trashed from a draft so the owner's rights do not depend
 * on what it was before).
 */
export const STATES = ['publish', 'password', 'future', 'draft', 'pending', 'private', 'trash'] as const;
export type State = (typeof STATES)[number];

export type Owner = 'own' | 'others';

export const PASSWORD = 'open-sesame-42';

export interface Kind {
  type: 'event' | 'venue' | 'organizer';
  collection: 'events' | 'venues' | 'organizers';
  /** The body field that names the record. */
  nameField: 'title' | 'venue' | 'organizer';
  /** A minimal valid create body for a record called `name`. */
  body: (name: string) => Record<string, unknown>;
}

/** Event dates inside the default list window of the fixed clock (helpers/events.ts NOW, 2026-11-21). */
export const EVENT_DATES = { start_date: '2027-01-10 10:00:00', end_date: '2027-01-10 12:00:00' };

export const KINDS: Kind[] = [
  { type: 'event', collection: 'events', nameField: 'title', body: (name) => ({ title: name, ...EVENT_DATES }) },
  { type: 'venue', collection: 'venues', nameField: 'venue', body: (name) => ({ venue: name }) },
  { type: 'organizer', collection: 'organizers', nameField: 'organizer', body: (name) => ({ organizer: name }) },
];

export const collectionPath = (kind: Kind): string => `${NS}/${kind.collection}`;
export const itemPath = (kind: Kind, id: number): string => `${NS}/${kind.collection}/${id}`;
export const slugPath = (kind: Kind, slug: string): string => `${NS}/${kind.collection}/by-slug/${encodeURIComponent(slug)}`;

export interface World {
  http: Http;
  /** One user per role, keyed by caller (`anonymous` is undefined). */
  users: Record<Caller, TestUser | undefined>;
  admin: TestUser;
  /** The owner of "someone else's" records: an author nobody else is. */
  someone: TestUser;
}

/** The events test app (fixed clock, PUBLIC_URL) and one user of every role plus `someone`. */
export async function world(): Promise<World> {
  const { http } = await eventsApp();
  const roles = await createUsers();
  const someone = await createUser('author', 'someone');
  return { http, users: { anonymous: undefined, ...roles }, admin: roles.administrator, someone };
}

/** A request as `as` (anonymous when undefined) with an optional JSON body. */
export function send(http: Http, method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, as?: TestUser, body?: object) {
  let req = http()[method](path);
  if (as) req = req.set('Authorization', as.authorization);
  if (body !== undefined) req = req.send(body);
  return req;
}

export interface Seeded {
  id: number;
  slug: string;
}

/**
 * Creates a record of `kind` owned by `owner`, in `state`, as the administrator (who may set any
 * author and status), with `extra` body fields; trashes it for `trash`.
 */
export async function seed(w: World, kind: Kind, owner: TestUser, state: State, name: string, extra: Record<string, unknown> = {}): Promise<Seeded> {
  const status: Record<State, Record<string, unknown>> = {
    publish: { status: 'publish' },
    password: { status: 'publish', password: PASSWORD },
    future: { status: 'future', date: '2030-01-01 10:00:00' },
    draft: { status: 'draft' },
    pending: { status: 'pending' },
    private: { status: 'private' },
    trash: { status: 'draft' },
  };
  const res = await send(w.http, 'post', collectionPath(kind), w.admin, { ...kind.body(name), ...status[state], author: owner.id, ...extra });
  assert.equal(res.status, 201, `seeding ${kind.type} ${name}: ${res.status} ${res.text}`);
  const expectedStatus = state === 'password' ? 'publish' : state === 'trash' ? 'draft' : state;
  assert.equal(res.body.status, expectedStatus, `seeded ${kind.type} ${name} status`);
  if (state === 'trash') {
    const trashed = await send(w.http, 'delete', itemPath(kind, res.body.id), w.admin);
    assert.equal(trashed.status, 200, `trashing ${kind.type} ${name}: ${trashed.text}`);
  }
  return { id: res.body.id, slug: res.body.slug };
}

/** The whole raw response (status line, headers, body) as text, for leak checks. */
export function rawText(res: Response): string {
  return `${res.status}\n${JSON.stringify(res.headers)}\n${res.text ?? ''}`;
}

export const an = (word: string): string => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
