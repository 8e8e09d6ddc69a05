import type { components } from '../../../generated/openapi.js';
import type { Urls } from '../../core/urls.js';
import type { ImageRecord } from '../../repositories/posts.js';
import type { RenderedTexts } from '../../text/rendered-forms.js';
import type { LinkedRow } from '../../repositories/linked.js';
import { toEmbeddedRecord, type OrganizerRecord, type VenueRecord } from '../linked/mapper.js';
import { embeddedJsonLd, type JsonLdObject } from '../linked/json-ld.js';
import type { TermRow } from '../../repositories/terms.js';
import { toEmbeddedTerm } from '../terms/mapper.js';
import { CATEGORIES, TAGS } from '../../repositories/taxonomies.js';
import { formatCost } from '../../domain/events/cost.js';
import { dateDetails } from '../../dates/storage.js';
import type { EventRow } from '../../repositories/events.js';
import { eventJsonLd, type EventJsonLdParts } from './json-ld.js';

export type EventRecord = components['schemas']['Event'];

/**
 * What the records of a page of events refer to, loaded beforehand (records/records.ts) and already
 * narrowed to what the caller may see: each event's venues and organizers (readable ones, in link
 * order, with whether their protected text is masked), terms, term counts and images.
 */
export interface EventRelations {
  venues: Map<number, EmbeddedLinked[]>;
  organizers: Map<number, EmbeddedLinked[]>;
  terms: Map<number, TermRow[]>;
  counts: Map<number, number>;
  images: Map<number, ImageRecord>;
  /** How the venue and organizer records and JSON-LD they embed are made (records/records.ts passes BUILT_EACH_TIME). */
  embeds: EmbeddedBuilds;
  /** The stored forms of the events' and embedded records' texts (db/rendered-texts.ts): nothing is rendered on a read. */
  texts: RenderedTexts;
}

/** A venue or organizer as embedded in an event, with the caller's masking decided. */
export interface EmbeddedLinked {
  row: LinkedRow;
  masked: boolean;
}

/**
 * What an event embeds of a venue or organizer, each a pure function of its arguments: the record
 * (`toEmbeddedRecord`) and the schema.org object of its `json_ld` (`embeddedJsonLd`). Shared between
 * records, so never changed once made.
 */
interface EmbeddedBuilds {
  record(item: EmbeddedLinked, urls: Urls, images: Map<number, ImageRecord>, single: boolean, texts: RenderedTexts): VenueRecord | OrganizerRecord;
  jsonLd(item: EmbeddedLinked, urls: Urls, texts: RenderedTexts): JsonLdObject;
}

/** `EmbeddedBuilds` that make everything anew each time. */
export const BUILT_EACH_TIME: EmbeddedBuilds = {
  record: ({ row, masked }, urls, images, single, texts) => toEmbeddedRecord(row, urls, images, { single, masked, texts }),
  jsonLd: ({ row, masked }, urls, texts) => embeddedJsonLd(row, urls, masked, texts),
};

interface EventMapOptions {
  /** Single-record GET: `json_ld` on the event and on its embedded venue and organizers. */
  single: boolean;
  /** Password-protected and the caller may not see its text: protected fields are emptied (docs/contract.md §5). */
  masked: boolean;
}

function embedded(related: EventRelations, items: EmbeddedLinked[] | undefined, urls: Urls, single: boolean) {
  return (items ?? []).map((item) => related.embeds.record(item, urls, related.images, single, related.texts));
}

/** An event record (docs/plugin-behaviour.md §1.1, docs/contract.md §3): a pure function of the loaded rows. */
export function toEventRecord(row: EventRow, related: EventRelations, urls: Urls, { single, masked }: EventMapOptions): EventRecord {
  const globalId = urls.globalId(row.id);
  const terms = [...(related.terms.get(row.id) ?? [])].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id);
  const embedTerms = (taxonomy: typeof CATEGORIES) =>
    terms.filter((term) => term.taxonomy === taxonomy.name).map((term) => toEmbeddedTerm(term, taxonomy, related.counts.get(term.id) ?? 0, urls));
  const venues = embedded(related, related.venues.get(row.id), urls, single);
  const organizers = embedded(related, related.organizers.get(row.id), urls, single);
  const image = row.imageId === null ? false : (related.images.get(row.imageId) ?? false);
  const cost = formatCost(row.costRaw, row.costValues, row.currencySymbol, row.currencyPosition);
  const url = urls.permalink('event', row.slug);
  const record: EventRecord = {
    id: row.id,
    global_id: globalId,
    global_id_lineage: [globalId],
    author: row.authorId === null ? '0' : String(row.authorId),
    status: row.status,
    date: row.date,
    date_utc: row.dateUtc,
    modified: row.modified,
    modified_utc: row.modifiedUtc,
    url,
    rest_url: urls.item('events', row.id),
    title: row.title,
    description: masked ? '' : related.texts.of('description', row.descriptionHash, row.description).paragraphs,
    excerpt: masked ? '' : related.texts.of('excerpt', row.excerptHash, row.excerpt).paragraphs,
    slug: row.slug,
    image: masked ? false : image,
    all_day: masked ? null : row.allDay,
    start_date: row.startLocal,
    start_date_details: dateDetails(row.startLocal),
    end_date: row.endLocal,
    end_date_details: dateDetails(row.endLocal),
    utc_start_date: row.startUtc,
    utc_start_date_details: dateDetails(row.startUtc),
    utc_end_date: row.endUtc,
    utc_end_date_details: dateDetails(row.endUtc),
    timezone: row.timezone,
    timezone_abbr: row.zoneAbbr,
    cost: masked ? '' : cost,
    cost_details: masked
      ? { currency_symbol: '', currency_position: '', currency_code: '', values: [] }
      : { currency_symbol: row.currencySymbol, currency_code: row.currencyCode, currency_position: row.currencyPosition, values: row.costValues },
    website: masked ? '' : row.website,
    show_map: masked ? null : row.showMap,
    show_map_link: masked ? null : row.showMapLink,
    hide_from_listings: masked ? null : row.hideFromListings,
    sticky: masked ? null : row.sticky,
    featured: masked ? null : row.featured,
    categories: masked ? [] : embedTerms(CATEGORIES),
    tags: masked ? [] : embedTerms(TAGS),
    // One venue: an object; several: an array; none: [] (docs/plugin-behaviour.md §1.7).
    venue: masked || venues.length === 0 ? [] : venues.length === 1 ? venues[0] : venues,
    organizer: masked ? [] : organizers,
    ...seriesFields(row),
    managed_by: row.managedBy,
  } as EventRecord;
  if (single) record.json_ld = eventJsonLd(row, jsonLdParts(row, related, urls), urls, masked) as EventRecord['json_ld'];
  return record;
}

/** What an event's `json_ld` refers to: its first visible venue and organizer, and its image. */
export function jsonLdParts(row: EventRow, related: EventRelations, urls: Urls): EventJsonLdParts {
  const venue = related.venues.get(row.id)?.[0];
  const organizer = related.organizers.get(row.id)?.[0];
  // schema.org's description: the excerpt's text, or the description's without an excerpt.
  const text = row.excerpt ? related.texts.of('excerpt', row.excerptHash, row.excerpt) : related.texts.of('description', row.descriptionHash, row.description);
  return {
    description: text.plain,
    place: venue && related.embeds.jsonLd(venue, urls, related.texts),
    person: organizer && related.embeds.jsonLd(organizer, urls, related.texts),
    image: row.imageId === null ? false : (related.images.get(row.imageId) ?? false),
  };
}

/**
 * `series_id` on every event, the series' `recurrence` on its occurrences, and on the series' first
 * event `recurrence_horizon_error` when the rolling horizon could not extend it (docs/contract.md §14).
 */
function seriesFields(row: EventRow): Pick<EventRecord, 'series_id' | 'recurrence' | 'recurrence_horizon_error'> {
  if (row.seriesId === null) return { series_id: null };
  const stalled = row.id === row.seriesId && row.horizonError !== null ? { recurrence_horizon_error: row.horizonError } : {};
  return { series_id: row.seriesId, recurrence: row.recurrence ?? [], ...stalled };
}
