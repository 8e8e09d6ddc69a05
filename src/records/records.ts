import type { User } from '../auth/capabilities.js';
import type { Urls } from '../core/urls.js';
import type { Repositories } from '../repositories/registry.js';
import { mayReference, maySeeProtectedText, readerKey } from '../policies/posts.js';
import { jsonLdParts, toEventRecord, type EmbeddedLinked, type EventRecord, type EventRelations } from './events/mapper.js';
import type { EventLink, EventRow } from '../repositories/events.js';
import type { Knex } from 'knex';
import { Recent, relatedRows, roughBytes } from './related-rows.js';
import { stampDigest } from '../db/versioned-cache.js';
import type { LinkedRow } from '../repositories/linked.js';
import { feedEntry, type FeedEntry } from './events/ical.js';
import { eventJsonLd } from './events/json-ld.js';
import { mapInTurns } from '../core/loop-turns.js';
import type { JsonLdObject } from './linked/json-ld.js';
import type { LinkedKind } from '../repositories/linked-kinds.js';
import { toOrganizerRecord, toVenueRecord, type OrganizerRecord, type VenueRecord } from './linked/mapper.js';
import type { TermRow } from '../repositories/terms.js';
import type { Taxonomy } from '../repositories/taxonomies.js';
import { toTermRecord } from './terms/mapper.js';
import { REMEMBERED_EMBEDS } from './embedded-records.js';

/**
 * Records as a caller sees them: the related rows are loaded here in a fixed number of queries, the
 * policy decides what the caller may see of them (policies/posts.ts), and the mappers, pure functions
 * of those rows, build the records.
 */

export interface RecordOptions {
  /** Single-record GET: `json_ld` on the record and on what it embeds. */
  single: boolean;
}

/**
 * Event records for some rows. Embedded venues and organizers appear only when the caller may read
 * them, masked when their text is protected from the caller; a protected event is masked in lists
 * (a single read has passed the password check of policies/posts.ts `read`).
 */
export async function eventRecords(
  repositories: Repositories,
  rows: EventRow[],
  user: User | undefined,
  urls: Urls,
  options: RecordOptions & {
    /** The rows' links when they were read with them (`EventRepository.findWithLinks`): not read again. */
    links?: EventLink[];
  },
): Promise<EventRecord[]> {
  const links = options.links ?? (await repositories.events.links(rows.map((row) => row.id)));
  const linksOf = new Map<number, EventLink[]>();
  for (const link of links) {
    const list = linksOf.get(link.eventId);
    if (list) list.push(link);
    else linksOf.set(link.eventId, [link]);
  }
  const built = builtFor(repositories.db);
  const records: EventRecord[] = [];
  const missing: Array<{ at: number; key: string; stamp: string; masked: boolean }> = [];
  rows.forEach((row, at) => {
    const masked = !options.single && !maySeeProtectedText(user, row);
    const key = JSON.stringify([row.id, options.single, masked, urls.restRoot, urls.site, readerKey(user)]);
    // Kept as its digest: the stamp is the whole row (db/versioned-cache.ts `stampDigest`).
    const stamp = stampDigest(stampOf(row, linksOf.get(row.id) ?? []));
    const known = built.get(key);
    if (known?.stamp === stamp) records[at] = known.record;
    else missing.push({ at, key, stamp, masked });
  });
  if (missing.length) {
    const missingRows = missing.map(({ at }) => rows[at]);
    const related = await relationsFrom(
      repositories,
      missingRows,
      missingRows.flatMap((row) => linksOf.get(row.id) ?? []),
      user,
    );
    await mapInTurns(missing, ({ at, key, stamp, masked }) => {
      const record = toEventRecord(rows[at], related, urls, { single: options.single, masked });
      built.set(key, { stamp, record });
      records[at] = record;
    });
  }
  return records;
}

/**
 * What an event's record is built from, as read for this request: its row and, for everything it
 * embeds, that record's version and a term's count (docs/contract.md §16). Equal stamps, equal records
 * (for one caller's rights and one URL base).
 */
function stampOf(row: EventRow, links: EventLink[]): string {
  return JSON.stringify([row, links.map((link) => [link.kind, link.id, link.position, link.version, link.count])]);
}

const MAX_BUILT_RECORDS = 500;
const builtByHandle = new WeakMap<Knex, Recent<{ stamp: string; record: EventRecord }, string>>();

/**
 * Event records already built, per database handle, by event, kind of record (single or list item,
 * masked or not), URL base and caller's rights, with the stamp they were built at: a list computed
 * again after a write rebuilds only the records that write changed. Records are shared between
 * replies and never changed once built. A transaction builds its own (it may see uncommitted rows).
 */
function builtFor(db: Knex): Recent<{ stamp: string; record: EventRecord }, string> {
  return perHandle(builtByHandle, db, () => new Recent(MAX_BUILT_RECORDS));
}

/**
 * What `byHandle` keeps for `db`, made on first use. A transaction is a handle of its own (the map is
 * keyed by handle): what it builds dies with it.
 */
function perHandle<V>(byHandle: WeakMap<Knex, V>, db: Knex, make: () => V): V {
  let value = byHandle.get(db);
  if (value === undefined) byHandle.set(db, (value = make()));
  return value;
}

/**
 * What the iCalendar feed shows of some rows (records/events/ical.ts): the relations the caller may see and
 * the masking of eventRecords (a single read has passed the password check); a series' first event
 * with the span of its stored occurrences.
 */
export async function eventFeedEntries(repositories: Repositories, rows: EventRow[], user: User | undefined, options: RecordOptions): Promise<FeedEntry[]> {
  const related = await loadEventRelations(repositories, rows, user);
  const entries = rows.map((row) => feedEntry(row, related, !options.single && !maySeeProtectedText(user, row)));
  const masters = rows.filter((row) => row.seriesId === row.id).map((row) => row.id);
  if (masters.length) {
    const ends = await repositories.series.lastEndUtc(masters);
    for (const entry of entries) if (entry.row.seriesId === entry.row.id) entry.seriesEndUtc = ends.get(entry.row.id);
  }
  return entries;
}

/**
 * The schema.org `Event` of each row for the JSON-LD feed (records/events/json-ld.ts): the relations the
 * caller may see and the masking of eventRecords' list items.
 */
export async function eventJsonLds(repositories: Repositories, rows: EventRow[], user: User | undefined, urls: Urls): Promise<JsonLdObject[]> {
  const related = await loadEventRelations(repositories, rows, user);
  return mapInTurns(rows, (row) => eventJsonLd(row, jsonLdParts(row, related, urls), urls, !maySeeProtectedText(user, row)));
}

async function loadEventRelations(repositories: Repositories, rows: EventRow[], user: User | undefined): Promise<EventRelations> {
  return relationsFrom(repositories, rows, await repositories.events.links(rows.map((row) => row.id)), user);
}

/** The relations of some events from their links (the rows they point to mostly remembered: records/related-rows.ts). */
async function relationsFrom(repositories: Repositories, rows: EventRow[], links: EventLink[], user: User | undefined): Promise<EventRelations> {
  const { linked, terms, images } = await relatedRows(
    repositories,
    links,
    rows.map((row) => row.imageId),
  );
  const venues = new Map<number, EmbeddedLinked[]>();
  const organizers = new Map<number, EmbeddedLinked[]>();
  const termsOf = new Map<number, TermRow[]>();
  const counts = new Map<number, number>();
  const add = <T>(map: Map<number, T[]>, eventId: number, item: T) => {
    const list = map.get(eventId);
    if (list) list.push(item);
    else map.set(eventId, [item]);
  };
  // Links come in link order (EventRepository.links); what the caller may not see is left out.
  for (const link of links) {
    if (link.kind === 'term') {
      const term = terms.get(link.id);
      if (!term) continue;
      add(termsOf, link.eventId, term);
      // The count as the links read it now: it moves without the term's version.
      counts.set(term.id, link.count);
      continue;
    }
    const row = linked.get(link.id);
    if (row === undefined || row.type !== link.kind || !mayReference(user, row)) continue;
    add(link.kind === 'venue' ? venues : organizers, link.eventId, { row, masked: !maySeeProtectedText(user, row) });
  }
  return { venues, organizers, terms: termsOf, counts, images, embeds: REMEMBERED_EMBEDS };
}

/**
 * A single event's record as `GET /events/{id}` shows it (docs/contract.md §16), with a stamp that changes whenever the
 * record could: the event's row as read, and the version of everything it embeds (term counts too), its
 * `links` as read with the row (`EventRepository.findWithLinks`).
 * Replies remembered under the stamp stay valid through writes of unrelated records (operations/shared/replies.ts
 * `recordReplies`). The caller has passed the read policy (a single read is never masked).
 */
export function singleEventRecord(
  repositories: Repositories,
  row: EventRow,
  links: EventLink[],
  user: User | undefined,
  urls: Urls,
): { stamp: string; build: () => Promise<EventRecord> } {
  const stamp = stampOf(row, links);
  return {
    stamp,
    build: async () => toEventRecord(row, await relationsFrom(repositories, [row], links, user), urls, { single: true, masked: false }),
  };
}

/**
 * Venue and organizer records already built, per database handle, as `builtFor` keeps events': by
 * record, kind of record, masking and URL base, with the stamp they were built from, the whole row
 * and its image (a record is a function of those alone). A page of the change feed or a list read
 * again builds none of them anew (a record with its `json_ld` is about 10 KB of garbage). Bounded by
 * entries and by `roughBytes` of the records, as a description can be long.
 */
type BuiltLinked = { stamp: string; record: VenueRecord | OrganizerRecord };
const MAX_BUILT_LINKED = 2000;
const MAX_BUILT_LINKED_BYTES = 2_097_152;
const builtLinkedByHandle = new WeakMap<Knex, Recent<BuiltLinked, string>>();

function builtLinkedFor(db: Knex): Recent<BuiltLinked, string> {
  return perHandle(builtLinkedByHandle, db, () => new Recent(MAX_BUILT_LINKED, { maxBytes: MAX_BUILT_LINKED_BYTES, weigh: (entry) => roughBytes(entry.record) }));
}

/** Venue or organizer records for some rows, masked where their protected text is hidden from the caller. */
export async function linkedRecords(
  repositories: Repositories,
  kind: LinkedKind,
  rows: LinkedRow[],
  user: User | undefined,
  urls: Urls,
  options: RecordOptions & { unmasked?: boolean },
): Promise<Array<VenueRecord | OrganizerRecord>> {
  const images = await repositories.posts.loadImages(rows.map((row) => row.imageId));
  const toRecord = kind.type === 'venue' ? toVenueRecord : toOrganizerRecord;
  const built = builtLinkedFor(repositories.db);
  return mapInTurns(rows, (row) => {
    const masked = !options.unmasked && !maySeeProtectedText(user, row);
    const key = JSON.stringify([kind.type, row.id, options.single, masked, urls.restRoot, urls.site]);
    const image = row.imageId === null ? null : (images.get(row.imageId) ?? null);
    const stamp = stampDigest(JSON.stringify([row, image]));
    const known = built.get(key);
    if (known?.stamp === stamp) return known.record;
    const record = toRecord(row, kind, urls, images, { single: options.single, masked });
    built.set(key, { stamp, record });
    return record;
  });
}

/** Category or tag records for some rows of one taxonomy (terms are public: nothing is masked). */
export async function termRecords(repositories: Repositories, taxonomy: Taxonomy, rows: TermRow[], urls: Urls, knownCounts?: Map<number, number>) {
  const repo = repositories.terms;
  const counts = knownCounts ?? (await repo.countsFor(rows.map((row) => row.id)));
  const ancestors = taxonomy.hierarchical ? await repo.ancestorsOf(rows) : new Map<number, TermRow>();
  return rows.map((row) => toTermRecord(row, taxonomy, counts.get(row.id) ?? 0, ancestors, urls));
}
