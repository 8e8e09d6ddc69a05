import type { Knex } from 'knex';
import type { components } from '../../generated/openapi.js';
import type { User } from '../auth/capabilities.js';
import { canEditRecord, canReadRecord } from '../auth/permissions.js';
import type { Urls } from '../http/urls.js';
import { loadImages, type ImageRecord } from '../posts/images.js';
import { autoParagraph, plainText } from '../text/html.js';
import { ORGANIZERS, VENUES } from '../linked/kinds.js';
import { LinkedRepository, type LinkedRow } from '../linked/repository.js';
import { toOrganizerRecord, toVenueRecord } from '../linked/mapper.js';
import { TermRepository, type TermRow } from '../terms/repository.js';
import { toEmbeddedTerm } from '../terms/mapper.js';
import { CATEGORIES, TAGS } from '../terms/taxonomies.js';
import { formatCost } from './cost.js';
import { dateDetails, isoInZone, timezoneAbbreviation } from './dates.js';
import { EventRepository, type EventRow } from './repository.js';

type EventRecord = components['schemas']['Event'];

/** Everything the records of a page of events refer to, loaded in a fixed number of queries. */
interface Related {
  venueIds: Map<number, number[]>;
  organizerIds: Map<number, number[]>;
  termIds: Map<number, number[]>;
  linked: Map<number, LinkedRow>;
  terms: Map<number, TermRow>;
  counts: Map<number, number>;
  images: Map<number, ImageRecord>;
}

async function loadRelated(db: Knex, rows: EventRow[]): Promise<Related> {
  const events = new EventRepository(db);
  const ids = rows.map((row) => row.id);
  const { venues: venueIds, organizers: organizerIds } = await events.linkedIds(ids);
  const termIds = await events.termIds(ids);
  const linkedRows = [
    ...(await new LinkedRepository(db, VENUES).findByIds([...new Set([...venueIds.values()].flat())])),
    ...(await new LinkedRepository(db, ORGANIZERS).findByIds([...new Set([...organizerIds.values()].flat())])),
  ];
  const allTermIds = [...new Set([...termIds.values()].flat())];
  const termRepo = new TermRepository(db);
  const terms = new Map((await termRepo.findByIds(allTermIds)).map((term) => [term.id, term]));
  const images = await loadImages(db, [...rows.map((row) => row.imageId), ...linkedRows.map((row) => row.imageId)]);
  return {
    venueIds,
    organizerIds,
    termIds,
    linked: new Map(linkedRows.map((row) => [row.id, row])),
    terms,
    counts: new Map([...terms.values()].map((term) => [term.id, term.publishedCount])),
    images,
  };
}

export interface RecordOptions {
  /** Single-record GET: `json_ld` on the event and on its embedded venue and organizers. */
  single: boolean;
}

/**
 * Event records (plugin-behaviour §1.1, contract §3) for some rows, with their terms, venues,
 * organizers and images loaded in batches. Embedded venues and organizers appear only when the
 * caller may read them, masked when password-protected; a protected event is masked in lists for
 * callers who may not edit it (§1.10).
 */
export async function eventRecords(db: Knex, rows: EventRow[], user: User | undefined, urls: Urls, options: RecordOptions): Promise<EventRecord[]> {
  const related = await loadRelated(db, rows);
  return rows.map((row) => {
    const masked = !options.single && row.password !== null && !canEditRecord(user, row);
    return toEventRecord(row, related, user, urls, options.single, masked);
  });
}

function embedded(related: Related, ids: number[] | undefined, user: User | undefined, urls: Urls, single: boolean) {
  return (ids ?? [])
    .map((id) => related.linked.get(id))
    .filter((row): row is LinkedRow => row !== undefined && row.status !== 'trash' && canReadRecord(user, row))
    .map((row) => {
      const masked = row.password !== null && !canEditRecord(user, row);
      return row.type === 'venue'
        ? toVenueRecord(row, VENUES, urls, related.images, { single, masked })
        : toOrganizerRecord(row, ORGANIZERS, urls, related.images, { single, masked });
    });
}

function toEventRecord(row: EventRow, related: Related, user: User | undefined, urls: Urls, single: boolean, masked: boolean): EventRecord {
  const globalId = urls.globalId(row.id);
  const terms = (related.termIds.get(row.id) ?? [])
    .map((id) => related.terms.get(id))
    .filter((term): term is TermRow => term !== undefined)
    .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id);
  const embedTerms = (taxonomy: typeof CATEGORIES) =>
    terms.filter((term) => term.taxonomy === taxonomy.name).map((term) => toEmbeddedTerm(term, taxonomy, related.counts.get(term.id) ?? 0, urls));
  const venues = embedded(related, related.venueIds.get(row.id), user, urls, single);
  const organizers = embedded(related, related.organizerIds.get(row.id), user, urls, single);
  const image = row.imageId === null ? false : related.images.get(row.imageId) ?? false;
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
    description: masked ? '' : autoParagraph(row.description),
    excerpt: masked ? '' : autoParagraph(row.excerpt),
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
    timezone_abbr: timezoneAbbreviation(row.timezone, row.startUtc),
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
    // One venue: an object; several: an array; none: [] (plugin-behaviour §1.7).
    venue: masked || venues.length === 0 ? [] : venues.length === 1 ? venues[0] : venues,
    organizer: masked ? [] : organizers,
  } as EventRecord;
  if (single) {
    const venue = venues[0] as { json_ld?: Record<string, unknown> } | undefined;
    const organizer = organizers[0] as { json_ld?: Record<string, unknown> } | undefined;
    const jsonLd: Record<string, unknown> = {
      '@context': 'http://schema.org',
      '@type': 'Event',
      name: row.title,
      description: plainText(row.excerpt || row.description),
      image: image ? image.url : undefined,
      url,
      eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
      eventStatus: 'https://schema.org/EventScheduled',
      startDate: isoInZone(row.startLocal, row.timezone),
      endDate: isoInZone(row.endLocal, row.timezone),
      location: venue?.json_ld ? withoutContext(venue.json_ld) : undefined,
      organizer: organizer?.json_ld ? withoutContext(organizer.json_ld) : undefined,
      offers: row.costValues.some((v) => /^\d/.test(v))
        ? {
            '@type': 'Offer',
            price: row.costValues.find((v) => /^\d/.test(v)),
            priceCurrency: row.currencyCode || 'USD',
            url,
            category: 'primary',
            availability: 'inStock',
            validFrom: `${row.dateUtc.replace(' ', 'T')}+00:00`,
          }
        : undefined,
      performer: 'Organization',
    };
    record.json_ld = Object.fromEntries(Object.entries(jsonLd).filter(([, v]) => v !== undefined)) as EventRecord['json_ld'];
  }
  return record;
}

function withoutContext(jsonLd: Record<string, unknown>): Record<string, unknown> {
  const { '@context': _context, ...rest } = jsonLd;
  return rest;
}
