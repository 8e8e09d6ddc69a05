import type { Knex } from 'knex';
import type { User } from '../../../src/auth/capabilities.js';
import { inWriteTransaction, Repositories } from '../../../src/repositories/registry.js';
import { openTestDatabase } from '../../helpers/database.js';
import type { PostColumns } from '../../../src/repositories/posts.js';
import type { EventColumns } from '../../../src/repositories/events.js';
import type { EventListFilter } from '../../../src/repositories/event-lists.js';
import type { KindColumns } from '../../../src/repositories/linked.js';
import type { LinkedKind } from '../../../src/repositories/linked-kinds.js';
import type { Taxonomy } from '../../../src/repositories/taxonomies.js';
import { readerOf } from '../../../src/policies/posts.js';

/**
 * Rows for the repository tier, written through the repositories themselves (one transaction each),
 * on the run's test database (test/hooks.ts empties it before every test).
 */

export async function database(): Promise<Knex> {
  return (await openTestDatabase()).db;
}

/** Reads outside any transaction, as a request's handlers do. */
export function reads(db: Knex): Repositories {
  return new Repositories(db);
}

const STAMP = '2026-01-01 00:00:00';

/** The shared post columns, published, no author, dated STAMP; `overrides` win. */
export function postColumns(overrides: Partial<PostColumns> = {}): PostColumns {
  return {
    status: 'publish',
    author_id: null,
    title: 'Untitled',
    description: '',
    excerpt: '',
    password: null,
    image_id: null,
    date: STAMP,
    date_utc: STAMP,
    modified: STAMP,
    modified_utc: STAMP,
    ...overrides,
  };
}

export interface EventSpec extends Partial<PostColumns> {
  slug?: string;
  /** Local start and end (`YYYY-MM-DD HH:MM:SS`; the end defaults to the start), stored as UTC too (time zone UTC). */
  start?: string;
  end?: string;
  own?: EventColumns;
  venueIds?: number[];
  organizerIds?: number[];
  /** Term ids, each stored under its own taxonomy. */
  categoryIds?: number[];
  tagIds?: number[];
}

/** Creates an event (posts + events rows, its copies, links and terms); returns its id. */
export async function createEvent(db: Knex, spec: EventSpec = {}): Promise<number> {
  const { slug, start = '2026-06-01 10:00:00', end, own = {}, venueIds = [], organizerIds = [], categoryIds = [], tagIds = [], ...columns } = spec;
  const title = columns.title ?? 'Event';
  const ends = end ?? start;
  return inWriteTransaction(db, async (repos) => {
    const id = await repos.events.create(postColumns({ title, ...columns }), slug ?? 'event', {
      start_local: start,
      end_local: ends,
      start_utc: start,
      end_utc: ends,
      timezone: 'UTC',
      cost_raw: '[]',
      cost_values: '[]',
      website: '',
      ...own,
    });
    await repos.events.setLinks(id, 'event_venues', 'venue_id', venueIds, true);
    await repos.events.setLinks(id, 'event_organizers', 'organizer_id', organizerIds, true);
    await repos.events.setTerms(id, 'tribe_events_cat', categoryIds, true);
    await repos.events.setTerms(id, 'post_tag', tagIds, true);
    return id;
  });
}

export interface LinkedSpec extends Partial<PostColumns> {
  slug?: string;
  own?: KindColumns;
}

/** Creates a venue or organizer; returns its id. */
export async function createLinked(db: Knex, kind: LinkedKind, spec: LinkedSpec = {}): Promise<number> {
  const { slug, own = {}, ...columns } = spec;
  const website = { website: '' };
  return inWriteTransaction(db, (repos) => repos.linked(kind).create(postColumns({ title: kind.Label, ...columns }), slug ?? kind.type, { ...website, ...own }));
}

/** Creates a term (unique name at its level unless `sharesName`); returns its id. */
export async function createTerm(db: Knex, taxonomy: Taxonomy, name: string, options: { parent?: number; slug?: string; sharesName?: boolean } = {}): Promise<number> {
  const slug = options.slug ?? name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return inWriteTransaction(db, (repos) => repos.terms.insert(taxonomy, { name, description: '', parent: options.parent ?? 0 }, slug, options.sharesName ?? false));
}

/** Users of each role (ids in creation order), through the repository that the command-line tool uses. */
export async function createUsers(db: Knex): Promise<{ administrator: User; editor: User; author: User; contributor: User; otherContributor: User; subscriber: User }> {
  const users = reads(db).users;
  return {
    administrator: (await users.add('admin', 'administrator')).user,
    editor: (await users.add('editor', 'editor')).user,
    author: (await users.add('author', 'author')).user,
    contributor: (await users.add('contributor', 'contributor')).user,
    otherContributor: (await users.add('contributor2', 'contributor')).user,
    subscriber: (await users.add('subscriber', 'subscriber')).user,
  };
}

/** Everything `status=any` stands for, plus the trash. */
export const ALL_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];

/** An events list filter: every status, no bounds, one page of 100; `overrides` win. */
export function eventFilter(user: User | undefined, overrides: Partial<EventListFilter> = {}): EventListFilter {
  return { statuses: ALL_STATUSES, reader: readerOf(user), bounds: {}, termLists: [], limit: 100, offset: 0, ...overrides };
}

/** The rows of an events list as titles, in list order. */
export async function eventTitles(db: Knex, filter: EventListFilter): Promise<string[]> {
  return (await reads(db).events.list(filter)).rows.map((row) => row.title);
}

/** `EventRepository.links` grouped per event: the ids of each kind asked for, in link order. */
async function linkedIdsOf(db: Knex, eventIds: number[], kinds: Array<'venue' | 'organizer' | 'term'>): Promise<Map<number, number[]>[]> {
  const links = await reads(db).events.links(eventIds);
  return kinds.map((kind) => {
    const map = new Map<number, number[]>();
    for (const link of links.filter((l) => l.kind === kind)) map.set(link.eventId, [...(map.get(link.eventId) ?? []), link.id]);
    return map;
  });
}

/** The venue and organizer ids of some events (`EventRepository.links`). */
export async function linkedIds(db: Knex, eventIds: number[]) {
  const [venues, organizers] = await linkedIdsOf(db, eventIds, ['venue', 'organizer']);
  return { venues, organizers };
}

/** The term ids of some events (`EventRepository.links`). */
export async function termIdsOf(db: Knex, eventIds: number[]) {
  const [terms] = await linkedIdsOf(db, eventIds, ['term']);
  return terms;
}
