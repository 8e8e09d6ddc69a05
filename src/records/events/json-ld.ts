import type { Urls } from '../../core/urls.js';
import type { ImageRecord } from '../../repositories/posts.js';
import type { JsonLdObject } from '../linked/json-ld.js';
import { currencyCode, numericValue, plainNumber } from '../../domain/events/cost.js';
import type { EventRow } from '../../repositories/events.js';

/**
 * An event's schema.org `Event` (docs/plugin-behaviour.md §1.8 for the plugin's keys, docs/contract.md
 * §12 for what we add to meet Google's event rich-result guidelines): the `json_ld` of a single read
 * and an item of the JSON-LD feed. A pure function of the rows, already narrowed to what the caller
 * may see.
 */

/**
 * What the event's data refers to: its first visible venue as a `Place` and organizer as a `Person`
 * (each as the caller may see it, without `@context`: records/linked/json-ld.ts `embeddedJsonLd`), its image and its text.
 */
export interface EventJsonLdParts {
  /** The plain text of the excerpt, or of the description without one (stored when written: db/rendered-texts.ts). */
  description: string;
  place: JsonLdObject | undefined;
  person: JsonLdObject | undefined;
  image: ImageRecord | false;
}

const SCHEMA = 'https://schema.org/';

/** A trashed event is withdrawn (only editors still read it); any other is on as planned. */
function eventStatus(row: EventRow): string {
  return `${SCHEMA}${row.status === 'trash' ? 'EventCancelled' : 'EventScheduled'}`;
}

/** An http(s) URL, or undefined: a website that could be where an online event takes place. */
function webAddress(text: string): string | undefined {
  return /^https?:\/\/[^\s/]+/i.test(text) ? text : undefined;
}

/**
 * Where the event happens: at its venue (offline, a `Place` with its address); without a venue but
 * with a website, online at that website (a `VirtualLocation`); with neither, the plugin's offline
 * mode and no location (there is none to name).
 */
function whereAndHow(row: EventRow, parts: EventJsonLdParts): { mode: string; location?: JsonLdObject } {
  if (parts.place) return { mode: `${SCHEMA}OfflineEventAttendanceMode`, location: parts.place };
  const online = webAddress(row.website);
  if (online) return { mode: `${SCHEMA}OnlineEventAttendanceMode`, location: { '@type': 'VirtualLocation', url: online } };
  return { mode: `${SCHEMA}OfflineEventAttendanceMode` };
}

/**
 * The tickets, from the cost: one price → an `Offer`; a range → an `AggregateOffer` with `lowPrice`
 * and `highPrice` (and `price`, the lowest, as the plugin's `Offer` has); `Free` (or a cost of 0) →
 * price `0`; only other words (`Donation`) or no cost → none.
 */
function offersOf(row: EventRow, url: string): JsonLdObject | undefined {
  const numbers = row.costValues.filter((value) => /^\d/.test(value));
  if (numbers.length === 0 && !row.costValues.includes('free')) return undefined;
  // Prices as schema.org wants them: digits and a `.` decimal point (`1,000` → `1000`).
  const low = numbers.length ? plainNumber(numbers[0]) : '0';
  const high = numbers.length ? plainNumber(numbers[numbers.length - 1]) : '0';
  const isRange = numericValue(low) !== numericValue(high);
  const range = isRange ? { lowPrice: low, highPrice: high } : {};
  const currency = currencyCode(row.currencyCode, row.currencySymbol);
  return {
    '@type': isRange ? 'AggregateOffer' : 'Offer',
    price: low,
    ...range,
    ...(currency !== undefined && { priceCurrency: currency }),
    url,
    category: 'primary',
    availability: `${SCHEMA}InStock`,
    validFrom: `${row.dateUtc.replace(' ', 'T')}+00:00`,
  };
}

/**
 * The event's `json_ld`. A masked event (password-protected, the caller may not see its text) keeps
 * only what its masked record shows: name, permalink, times and status; its mode is the constant
 * offline one, so that not even whether it has a venue shows.
 */
export function eventJsonLd(row: EventRow, parts: EventJsonLdParts, urls: Urls, masked: boolean): JsonLdObject {
  const url = urls.permalink('event', row.slug);
  const { mode, location } = masked ? { mode: `${SCHEMA}OfflineEventAttendanceMode`, location: undefined } : whereAndHow(row, parts);
  const jsonLd: JsonLdObject = {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: row.title,
    description: masked ? undefined : parts.description,
    image: !masked && parts.image ? parts.image.url : undefined,
    url,
    eventAttendanceMode: mode,
    eventStatus: eventStatus(row),
    startDate: row.startIso,
    endDate: row.endIso,
    location,
    organizer: masked ? undefined : parts.person,
    offers: masked ? undefined : offersOf(row, url),
    performer: 'Organization',
  };
  return Object.fromEntries(Object.entries(jsonLd).filter(([, v]) => v !== undefined));
}
