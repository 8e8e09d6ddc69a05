import type { User } from '../auth/capabilities.js';
import type { Urls } from '../core/urls.js';
import type { Repositories } from '../repositories/registry.js';
import { mayReference, maySeeProtectedText } from '../policies/posts.js';
import { BUILT_EACH_TIME, jsonLdParts, toEventRecord, type EmbeddedLinked, type EventRecord, type EventRelations } from './events/mapper.js';
import type { EventLink, EventRow } from '../repositories/events.js';
import { relatedRows } from './related-rows.js';
import type { LinkedRow } from '../repositories/linked.js';
import { feedEntry, type FeedEntry } from './events/ical.js';
import type { FeedRow } from './events/feeds.js';
import { eventJsonLd } from './events/json-ld.js';
import { mapInTurns } from '../core/loop-turns.js';
import type { JsonLdObject } from './linked/json-ld.js';
import type { LinkedKind } from '../repositories/linked-kinds.js';
import { toOrganizerRecord, toVenueRecord, type OrganizerRecord, type VenueRecord } from './linked/mapper.js';
import type { TermRow } from '../repositories/terms.js';
import type { Taxonomy } from '../repositories/taxonomies.js';
import { toTermRecord } from './terms/mapper.js';
import type { RenderedForms } from '../text/rendered-forms.js';
import type { PlainTexts } from './plain-texts.js';

/**
 * Records as a caller sees them: the related rows are loaded here in a fixed number of queries, the
 * policy decides what the caller may see of them (policies/posts.ts), and the mappers, pure functions
 * of those rows, build the records. The forms of their texts were rendered when written
 * (db/rendered-texts.ts): each build loads the forms it shows of the texts it shows, in one query.
 */

interface RecordOptions {
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
    /** Given by a page: filled with the plain forms of the rows the records show (records/plain-texts.ts). */
    plain?: PlainTexts;
  },
): Promise<EventRecord[]> {
  const links = options.links ?? (await repositories.events.links(rows.map((row) => row.id)));
  const related = await relationsFrom(repositories, rows, links, user, options.single ? ['paragraphs', 'embedded', 'plain'] : ['paragraphs', 'embedded']);
  options.plain?.addEvents(rows, related);
  return mapInTurns(rows, (row) => toEventRecord(row, related, urls, { single: options.single, masked: !options.single && !maySeeProtectedText(user, row) }));
}

/**
 * What the iCalendar feed shows of some rows (records/events/ical.ts): the relations the caller may see and
 * the masking of eventRecords (a single read has passed the password check); a series' first event
 * with the span of its stored occurrences.
 */
export async function eventFeedEntries(repositories: Repositories, feedRows: FeedRow[], user: User | undefined, options: RecordOptions): Promise<FeedEntry[]> {
  const rows = feedRows.map((feedRow) => feedRow.row);
  const related = await loadEventRelations(repositories, rows, user, ['text']);
  // A single read opened its event (a password, if any, was checked): the others it carries (a series' overrides) are masked as in lists.
  const entries = feedRows.map(({ row, part, excluded }, index) => ({
    ...feedEntry(row, related, !(options.single && index === 0) && !maySeeProtectedText(user, row)),
    part,
    excluded,
  }));
  const masters = feedRows.filter((feedRow) => feedRow.part === 'master').map((feedRow) => feedRow.row.id);
  if (masters.length) {
    const ends = await repositories.series.lastEndUtc(masters);
    for (const entry of entries) if (entry.part === 'master') entry.seriesEndUtc = ends.get(entry.row.id);
  }
  return entries;
}

/**
 * The schema.org `Event` of each row for the JSON-LD feed (records/events/json-ld.ts): the relations the
 * caller may see and the masking of eventRecords' list items.
 */
export async function eventJsonLds(repositories: Repositories, rows: EventRow[], user: User | undefined, urls: Urls): Promise<JsonLdObject[]> {
  const related = await loadEventRelations(repositories, rows, user, ['plain']);
  return mapInTurns(rows, (row) => eventJsonLd(row, jsonLdParts(row, related, urls), urls, !maySeeProtectedText(user, row)));
}

async function loadEventRelations(repositories: Repositories, rows: EventRow[], user: User | undefined, forms: Array<keyof RenderedForms>): Promise<EventRelations> {
  return relationsFrom(repositories, rows, await repositories.events.links(rows.map((row) => row.id)), user, forms);
}

/**
 * The relations of some events from their links (the rows they point to: records/related-rows.ts),
 * with the stored `forms` of the texts of the events and of the venues and organizers they show.
 */
async function relationsFrom(repositories: Repositories, rows: EventRow[], links: EventLink[], user: User | undefined, forms: Array<keyof RenderedForms>): Promise<EventRelations> {
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
  const shown = [...rows, ...[...venues.values(), ...organizers.values()].flat().map((item) => item.row)];
  // The iCalendar feed shows the events' descriptions only.
  const keys = forms.length === 1 && forms[0] === 'text' ? rows.map((row) => row.descriptionHash) : shown.flatMap((row) => [row.descriptionHash, row.excerptHash]);
  const texts = await repositories.posts.renderedTexts(keys, forms);
  return { venues, organizers, terms: termsOf, counts, images, embeds: BUILT_EACH_TIME, texts };
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
  const texts = await repositories.posts.renderedTexts(
    rows.flatMap((row) => [row.descriptionHash, row.excerptHash]),
    options.single ? ['paragraphs', 'plain'] : ['paragraphs'],
  );
  const toRecord = kind.type === 'venue' ? toVenueRecord : toOrganizerRecord;
  return mapInTurns(rows, (row) => toRecord(row, kind, urls, images, { single: options.single, masked: !options.unmasked && !maySeeProtectedText(user, row), texts }));
}

/** Category or tag records for some rows of one taxonomy (terms are public: nothing is masked). */
export async function termRecords(repositories: Repositories, taxonomy: Taxonomy, rows: TermRow[], urls: Urls, knownCounts?: Map<number, number>) {
  const repo = repositories.terms;
  const counts = knownCounts ?? (await repo.countsFor(rows.map((row) => row.id)));
  const ancestors = taxonomy.hierarchical ? await repo.ancestorsOf(rows) : new Map<number, TermRow>();
  return rows.map((row) => toTermRecord(row, taxonomy, counts.get(row.id) ?? 0, ancestors, urls));
}
