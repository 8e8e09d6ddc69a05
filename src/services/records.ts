import type { User } from '../auth/capabilities.js';
import type { Urls } from '../urls.js';
import type { Repositories } from '../repositories.js';
import { mayReference, maySeeProtectedText } from '../policies/posts.js';
import { jsonLdParts, toEventRecord, type EmbeddedLinked, type EventRecord, type EventRelations } from '../events/mapper.js';
import type { EventRow } from '../events/repository.js';
import { feedEntry, type FeedEntry } from '../events/ical.js';
import { eventJsonLd } from '../events/json-ld.js';
import type { JsonLdObject } from '../linked/json-ld.js';
import type { LinkedKind } from '../linked/kinds.js';
import type { LinkedRow } from '../linked/repository.js';
import { toOrganizerRecord, toVenueRecord, type OrganizerRecord, type VenueRecord } from '../linked/mapper.js';
import type { TermRow } from '../terms/repository.js';
import type { Taxonomy } from '../terms/taxonomies.js';
import { toTermRecord } from '../terms/mapper.js';

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
export async function eventRecords(repositories: Repositories, rows: EventRow[], user: User | undefined, urls: Urls, options: RecordOptions): Promise<EventRecord[]> {
  const related = await loadEventRelations(repositories, rows, user);
  return rows.map((row) => toEventRecord(row, related, urls, { single: options.single, masked: !options.single && !maySeeProtectedText(user, row) }));
}

/**
 * What the iCalendar feed shows of some rows (events/ical.ts): the relations the caller may see and
 * the masking of eventRecords (a single read has passed the password check).
 */
export async function eventFeedEntries(repositories: Repositories, rows: EventRow[], user: User | undefined, options: RecordOptions): Promise<FeedEntry[]> {
  const related = await loadEventRelations(repositories, rows, user);
  return rows.map((row) => feedEntry(row, related, !options.single && !maySeeProtectedText(user, row)));
}

/**
 * The schema.org `Event` of each row for the JSON-LD feed (events/json-ld.ts): the relations the
 * caller may see and the masking of eventRecords' list items.
 */
export async function eventJsonLds(repositories: Repositories, rows: EventRow[], user: User | undefined, urls: Urls): Promise<JsonLdObject[]> {
  const related = await loadEventRelations(repositories, rows, user);
  return rows.map((row) => eventJsonLd(row, jsonLdParts(row, related), urls, !maySeeProtectedText(user, row)));
}

async function loadEventRelations(repositories: Repositories, rows: EventRow[], user: User | undefined): Promise<EventRelations> {
  const ids = rows.map((row) => row.id);
  const { venues: venueIds, organizers: organizerIds } = await repositories.events.linkedIds(ids);
  const termIds = await repositories.events.termIds(ids);
  const linkedRows = [
    ...(await repositories.venues.findByIds([...new Set([...venueIds.values()].flat())])),
    ...(await repositories.organizers.findByIds([...new Set([...organizerIds.values()].flat())])),
  ];
  const linked = new Map(linkedRows.map((row) => [row.id, row]));
  const terms = new Map((await repositories.terms.findByIds([...new Set([...termIds.values()].flat())])).map((term) => [term.id, term]));
  const images = await repositories.posts.loadImages([...rows.map((row) => row.imageId), ...linkedRows.map((row) => row.imageId)]);

  const visible = (links: Map<number, number[]>) =>
    new Map(
      [...links].map(([eventId, linkedIds]): [number, EmbeddedLinked[]] => [
        eventId,
        linkedIds
          .map((id) => linked.get(id))
          .filter((row): row is LinkedRow => row !== undefined && mayReference(user, row))
          .map((row) => ({ row, masked: !maySeeProtectedText(user, row) })),
      ]),
    );
  return {
    venues: visible(venueIds),
    organizers: visible(organizerIds),
    terms: new Map([...termIds].map(([eventId, list]) => [eventId, list.map((id) => terms.get(id)).filter((term): term is TermRow => term !== undefined)])),
    counts: new Map([...terms.values()].map((term) => [term.id, term.publishedCount])),
    images,
  };
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
  return rows.map((row) => toRecord(row, kind, urls, images, { single: options.single, masked: !options.unmasked && !maySeeProtectedText(user, row) }));
}

/** Category or tag records for some rows of one taxonomy (terms are public: nothing is masked). */
export async function termRecords(repositories: Repositories, taxonomy: Taxonomy, rows: TermRow[], urls: Urls, knownCounts?: Map<number, number>) {
  const repo = repositories.terms;
  const counts = knownCounts ?? (await repo.countsFor(rows.map((row) => row.id)));
  const ancestors = taxonomy.hierarchical ? await repo.ancestorsOf(rows) : new Map<number, TermRow>();
  return rows.map((row) => toTermRecord(row, taxonomy, counts.get(row.id) ?? 0, ancestors, urls));
}
