import type { components } from '../../../generated/openapi.js';
import type { Urls } from '../../core/urls.js';
import type { RenderedTexts } from '../../text/rendered-forms.js';
import type { ImageRecord } from '../../repositories/posts.js';
import { ORGANIZERS, VENUES, type LinkedKind } from '../../repositories/linked-kinds.js';
import type { LinkedRow } from '../../repositories/linked.js';
import { personJsonLd, placeJsonLd } from './json-ld.js';

export type VenueRecord = components['schemas']['Venue'];
export type OrganizerRecord = components['schemas']['Organizer'];

interface MapOptions {
  /** Single-record GET: adds `json_ld` (docs/plugin-behaviour.md §1.9). */
  single: boolean;
  /** Password-protected and the caller may not see it: protected fields are emptied (docs/contract.md §5). */
  masked: boolean;
  /** Embedded in an event: the description and excerpt are cut shorter there (text/limits.ts `embedded`). */
  embedded?: boolean;
  /** The stored forms of the records' texts (db/rendered-texts.ts): nothing is rendered on a read. */
  texts: RenderedTexts;
}

/**
 * Fields emptied when a record is masked. Names stay visible and `state` is masked too (the plugin
 * blanks the names and forgets `state`).
 */
const MASKED: Record<string, unknown> = {
  description: '',
  excerpt: '',
  image: false,
  address: '',
  city: '',
  country: '',
  province: '',
  state: '',
  zip: '',
  phone: '',
  website: '',
  stateprovince: '',
  email: '',
  geo_lat: 0,
  geo_lng: 0,
};

/** The plugin builds these records and then drops every empty value (`""`, `"0"`, `false`). */
function withoutEmpty(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== '' && value !== '0' && value !== false && value !== null && value !== undefined));
}

function mask(record: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(record)) if (key in MASKED) record[key] = MASKED[key];
  return record;
}

function head(row: LinkedRow, kind: LinkedKind, urls: Urls, texts: RenderedTexts, embedded = false): Record<string, unknown> {
  // Embedded in an event: the text cut shorter (text/limits.ts `embedded`), as stored.
  const form = (text: { paragraphs: string; embedded: string }) => (embedded ? text.embedded : text.paragraphs);
  return {
    id: row.id,
    author: row.authorId === null ? '' : String(row.authorId),
    status: row.status,
    date: row.date,
    date_utc: row.dateUtc,
    modified: row.modified,
    modified_utc: row.modifiedUtc,
    url: urls.permalink(kind.type, row.slug),
    [kind.nameField]: row.title,
    description: form(texts.of('description', row.descriptionHash, row.description)),
    excerpt: form(texts.of('excerpt', row.excerptHash, row.excerpt)),
    slug: row.slug,
    image: row.imageId === null ? false : undefined,
  };
}

function globalIds(row: LinkedRow, urls: Urls): { global_id: string; global_id_lineage: string[] } {
  const id = urls.globalId(row.id);
  return { global_id: id, global_id_lineage: [id] };
}

/** A venue record (docs/plugin-behaviour.md §1.2). */
export function toVenueRecord(row: LinkedRow, kind: LinkedKind, urls: Urls, images: Map<number, ImageRecord>, options: MapOptions): VenueRecord {
  const f = row.fields;
  const hasGeo = row.geoLat !== null && row.geoLng !== null;
  let record = withoutEmpty({
    ...head(row, kind, urls, options.texts, options.embedded),
    image: row.imageId === null ? false : (images.get(row.imageId) ?? false),
    address: f.address,
    city: f.city,
    country: f.country,
    province: f.province,
    state: f.state,
    zip: f.zip,
    phone: f.phone,
    website: f.website,
    stateprovince: f.stateprovince,
    geo_lat: hasGeo ? row.geoLat : undefined,
    geo_lng: hasGeo ? row.geoLng : undefined,
  });
  if (options.masked) record = mask(record);
  if (options.single) record.json_ld = placeJsonLd(row, urls, options.masked, options.texts);
  return { ...record, show_map: row.showMap, show_map_link: row.showMapLink, ...globalIds(row, urls) } as VenueRecord;
}

/** An organizer record (docs/plugin-behaviour.md §1.3). */
export function toOrganizerRecord(row: LinkedRow, kind: LinkedKind, urls: Urls, images: Map<number, ImageRecord>, options: MapOptions): OrganizerRecord {
  const f = row.fields;
  let record = withoutEmpty({
    ...head(row, kind, urls, options.texts, options.embedded),
    image: row.imageId === null ? false : (images.get(row.imageId) ?? false),
    phone: f.phone,
    website: f.website,
    email: f.email,
  });
  if (options.masked) record = mask(record);
  if (options.single) record.json_ld = personJsonLd(row, urls, options.masked, options.texts);
  return { ...record, ...globalIds(row, urls) } as OrganizerRecord;
}

/**
 * A venue or organizer as an event embeds it (docs/plugin-behaviour.md §1.7): its own record, with
 * its description and excerpt cut shorter (text/limits.ts `embedded`).
 */
export function toEmbeddedRecord(row: LinkedRow, urls: Urls, images: Map<number, ImageRecord>, options: Omit<MapOptions, 'embedded'>): VenueRecord | OrganizerRecord {
  return row.type === 'venue'
    ? toVenueRecord(row, VENUES, urls, images, { ...options, embedded: true })
    : toOrganizerRecord(row, ORGANIZERS, urls, images, { ...options, embedded: true });
}
