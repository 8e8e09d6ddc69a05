/**
 * An offline check of schema.org data (docs/contract.md §12): a small table of the schema.org types
 * our JSON-LD uses, the properties each allows (its own and those it inherits, from schema.org's
 * vocabulary), the types each property's value may have, and the enumeration members; plus the
 * properties Google's event rich-result guidelines require or recommend. It cannot prove what a
 * search engine does, only that every object names a known type, every key is a property of that
 * type, every nested object has a type the property takes, and every date is ISO 8601 with an offset.
 */

type Json = Record<string, unknown>;

const THING = ['name', 'description', 'url', 'image', 'sameAs', 'identifier', 'alternateName'];
const CONTACT = ['telephone', 'email'];
const OFFER = ['price', 'priceCurrency', 'availability', 'url', 'validFrom', 'validThrough', 'category', 'priceValidUntil', 'priceSpecification', 'seller', 'inventoryLevel'];

/** Type → the properties it allows (schema.org, own and inherited), by the names our data can use. */
export const TYPES: Record<string, string[]> = {
  ItemList: [...THING, 'numberOfItems', 'itemListElement', 'itemListOrder'],
  ListItem: [...THING, 'position', 'item', 'nextItem', 'previousItem'],
  Event: [
    ...THING,
    'startDate',
    'endDate',
    'doorTime',
    'duration',
    'location',
    'organizer',
    'offers',
    'performer',
    'eventStatus',
    'eventAttendanceMode',
    'previousStartDate',
    'inLanguage',
    'isAccessibleForFree',
    'keywords',
  ],
  Place: [...THING, 'address', 'geo', 'telephone', 'hasMap', 'latitude', 'longitude'],
  VirtualLocation: [...THING],
  PostalAddress: [...THING, ...CONTACT, 'streetAddress', 'addressLocality', 'addressRegion', 'postalCode', 'addressCountry', 'postOfficeBoxNumber'],
  GeoCoordinates: [...THING, 'latitude', 'longitude', 'elevation', 'address', 'addressCountry', 'postalCode'],
  Person: [...THING, ...CONTACT, 'address', 'jobTitle', 'affiliation'],
  Organization: [...THING, ...CONTACT, 'address', 'logo'],
  Offer: [...THING, ...OFFER],
  AggregateOffer: [...THING, ...OFFER, 'lowPrice', 'highPrice', 'offerCount', 'offers'],
};

/**
 * Property → the types an object value may have. A string is accepted wherever schema.org takes Text
 * or URL, and (as schema.org allows) where it expects a thing: then it is only text.
 */
const RANGES: Record<string, string[]> = {
  itemListElement: ['ListItem'],
  item: ['Event'],
  location: ['Place', 'VirtualLocation', 'PostalAddress'],
  organizer: ['Person', 'Organization'],
  performer: ['Person', 'Organization'],
  offers: ['Offer', 'AggregateOffer'],
  address: ['PostalAddress'],
  geo: ['GeoCoordinates'],
};

/** Properties whose value is a member of an enumeration, written as its full URL. */
const ENUMERATIONS: Record<string, string[]> = {
  eventStatus: ['EventScheduled', 'EventCancelled', 'EventPostponed', 'EventRescheduled', 'EventMovedOnline'],
  eventAttendanceMode: ['OfflineEventAttendanceMode', 'OnlineEventAttendanceMode', 'MixedEventAttendanceMode'],
  availability: ['InStock', 'SoldOut', 'PreOrder', 'OutOfStock', 'LimitedAvailability', 'OnlineOnly', 'InStoreOnly', 'Discontinued', 'BackOrder', 'PreSale'],
};

const NUMBERS = ['latitude', 'longitude'];
const INTEGERS = ['numberOfItems', 'position'];
const DATES = ['startDate', 'endDate', 'validFrom'];
const PRICES = ['price', 'lowPrice', 'highPrice'];

/**
 * Google's event rich results (developers.google.com/search/docs/appearance/structured-data/event):
 * what an Event must have, and what it should have; what its location, offers and organizer need.
 */
export const GOOGLE_EVENT = {
  required: ['name', 'startDate', 'location'],
  recommended: ['description', 'endDate', 'eventAttendanceMode', 'eventStatus', 'image', 'offers', 'organizer', 'performer'],
  place: ['name', 'address'],
  address: ['streetAddress', 'addressLocality', 'addressRegion', 'postalCode', 'addressCountry'],
  virtualLocation: ['url'],
  offer: ['price', 'priceCurrency', 'availability', 'url', 'validFrom'],
  organizer: ['name', 'url'],
};

/** ISO 8601 date and time with seconds and an explicit offset (`Z` or `±hh:mm`), a real instant. */
export function isIsoWithOffset(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
}

/**
 * The problems of a schema.org object against the vocabulary above, with a JSON path each: unknown
 * types, properties a type does not have, nested objects of a type the property does not take,
 * enumeration values that are not members, dates without an offset, malformed numbers and prices.
 */
export function vocabularyProblems(value: unknown, path = '$', expected?: string[]): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => vocabularyProblems(item, `${path}[${index}]`, expected));
  if (value === null || typeof value !== 'object') return [];
  const object = value as Json;
  const type = object['@type'];
  if (typeof type !== 'string') return [`${path}: no @type`];
  const allowed = TYPES[type];
  if (!allowed) return [`${path}: unknown type ${type}`];
  const problems: string[] = [];
  if (expected && !expected.includes(type)) problems.push(`${path}: a ${type} where ${expected.join(' or ')} is expected`);
  for (const [key, item] of Object.entries(object)) {
    const at = `${path}.${key}`;
    if (key === '@type') continue;
    if (key === '@context') {
      if (!/^https?:\/\/schema\.org\/?$/.test(String(item))) problems.push(`${at}: context ${String(item)}`);
      continue;
    }
    if (!allowed.includes(key)) {
      problems.push(`${at}: ${type} has no property ${key}`);
      continue;
    }
    if (ENUMERATIONS[key]) {
      const member = String(item).replace(/^https?:\/\/schema\.org\//, '');
      if (!/^https?:\/\/schema\.org\//.test(String(item)) || !ENUMERATIONS[key].includes(member)) problems.push(`${at}: ${String(item)} is not a member of ${key}'s enumeration`);
    }
    if (DATES.includes(key) && !isIsoWithOffset(item)) problems.push(`${at}: ${String(item)} is not ISO 8601 with an offset`);
    if (NUMBERS.includes(key) && typeof item !== 'number') problems.push(`${at}: not a number`);
    if (INTEGERS.includes(key) && !Number.isInteger(item)) problems.push(`${at}: not an integer`);
    if (PRICES.includes(key) && !/^\d+(\.\d+)?$/.test(String(item))) problems.push(`${at}: ${String(item)} is not a price (digits and a . decimal point)`);
    if (key === 'priceCurrency' && !/^[A-Z]{3}$/.test(String(item))) problems.push(`${at}: ${String(item)} is not an ISO 4217 code`);
    if (item !== null && typeof item === 'object') problems.push(...vocabularyProblems(item, at, RANGES[key] ?? []));
  }
  return problems;
}

const present = (object: Json, key: string) => object[key] !== undefined && object[key] !== '' && object[key] !== null;
const missing = (object: Json | undefined, keys: string[], at: string) => keys.filter((key) => !object || !present(object, key)).map((key) => `${at}.${key} missing`);

/**
 * What an Event lacks for Google's rich results: the required and recommended properties, a
 * `Place` with its name and full address or a `VirtualLocation` with its URL, offers with price,
 * currency, availability, URL and start of sale, an organizer with name and URL, and an end that is
 * not before the start.
 */
export function richResultProblems(event: Json, path = '$'): string[] {
  const problems = [...missing(event, GOOGLE_EVENT.required, path), ...missing(event, GOOGLE_EVENT.recommended, path)];
  const location = event.location as Json | undefined;
  if (location?.['@type'] === 'Place') {
    problems.push(...missing(location, GOOGLE_EVENT.place, `${path}.location`), ...missing(location.address as Json | undefined, GOOGLE_EVENT.address, `${path}.location.address`));
  } else if (location) {
    problems.push(...missing(location, GOOGLE_EVENT.virtualLocation, `${path}.location`));
  }
  const mode = String(event.eventAttendanceMode ?? '');
  if (location?.['@type'] === 'VirtualLocation' && !mode.endsWith('/OnlineEventAttendanceMode')) problems.push(`${path}: a virtual location with ${mode}`);
  if (location?.['@type'] === 'Place' && !mode.endsWith('/OfflineEventAttendanceMode')) problems.push(`${path}: a place with ${mode}`);
  if (event.offers) problems.push(...missing(event.offers as Json, GOOGLE_EVENT.offer, `${path}.offers`));
  if (event.organizer && typeof event.organizer === 'object') problems.push(...missing(event.organizer as Json, GOOGLE_EVENT.organizer, `${path}.organizer`));
  if (isIsoWithOffset(event.startDate) && isIsoWithOffset(event.endDate) && Date.parse(String(event.endDate)) < Date.parse(String(event.startDate))) {
    problems.push(`${path}: ends before it starts`);
  }
  return problems;
}
