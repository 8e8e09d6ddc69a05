import type { Urls } from '../../core/urls.js';
import type { RenderedTexts } from '../../text/rendered-forms.js';
import { isEmail } from '../../text/fields.js';
import type { LinkedRow } from '../../repositories/linked.js';

/**
 * The schema.org data of a venue (`Place`) and of an organizer (`Person`), as the plugin builds it
 * (docs/plugin-behaviour.md §1.8): in the `json_ld` of their single reads, and as an event's
 * `location` and `organizer` (records/events/json-ld.ts). A protected record the reader may not see is named
 * only: its name and its permalink (docs/contract.md §5).
 */

export type JsonLdObject = Record<string, unknown>;

/** The object without its empty values (`""`, `undefined`, `null`), as the plugin drops them. */
function compact(values: JsonLdObject): JsonLdObject {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '' && v !== undefined && v !== null));
}

/** A venue's postal address: every part the venue has, empty ones dropped. */
function postalAddress(row: LinkedRow): JsonLdObject {
  const f = row.fields;
  return {
    '@type': 'PostalAddress',
    ...compact({ streetAddress: f.address, addressLocality: f.city, addressRegion: f.stateprovince || f.state || f.province, postalCode: f.zip, addressCountry: f.country }),
  };
}

/** A venue as a schema.org `Place` (with `@context`: the top of a venue's `json_ld`). */
export function placeJsonLd(row: LinkedRow, urls: Urls, masked: boolean, texts: RenderedTexts): JsonLdObject {
  const url = urls.permalink('venue', row.slug);
  if (masked) return compact({ '@context': 'http://schema.org', '@type': 'Place', name: row.title, url });
  const f = row.fields;
  const hasGeo = row.geoLat !== null && row.geoLng !== null;
  return compact({
    '@context': 'http://schema.org',
    '@type': 'Place',
    name: row.title,
    description: texts.of('description', row.descriptionHash, row.description).plain,
    url,
    address: postalAddress(row),
    geo: hasGeo ? { '@type': 'GeoCoordinates', latitude: row.geoLat, longitude: row.geoLng } : undefined,
    telephone: f.phone,
    sameAs: f.website,
  });
}

/** An organizer as a schema.org `Person` (with `@context`: the top of an organizer's `json_ld`). */
export function personJsonLd(row: LinkedRow, urls: Urls, masked: boolean, texts: RenderedTexts): JsonLdObject {
  const permalink = urls.permalink('organizer', row.slug);
  if (masked) return compact({ '@context': 'http://schema.org', '@type': 'Person', name: row.title, url: permalink });
  const f = row.fields;
  return compact({
    '@context': 'http://schema.org',
    '@type': 'Person',
    name: row.title,
    description: texts.of('description', row.descriptionHash, row.description).plain,
    url: f.website || permalink,
    telephone: f.phone,
    // Organizer e-mail is free text (the plugin does not check it): schema.org gets addresses only.
    email: isEmail(f.email) ? f.email : undefined,
    sameAs: f.website,
  });
}

/** The object without its `@context` (nested in another object that has one). */
export function withoutContext(jsonLd: JsonLdObject): JsonLdObject {
  const { '@context': _context, ...rest } = jsonLd;
  return rest;
}

/** A venue as an event's `location` (a `Place`), an organizer as its `organizer` (a `Person`): without `@context`. */
export function embeddedJsonLd(row: LinkedRow, urls: Urls, masked: boolean, texts: RenderedTexts): JsonLdObject {
  return withoutContext(row.type === 'venue' ? placeJsonLd(row, urls, masked, texts) : personJsonLd(row, urls, masked, texts));
}
