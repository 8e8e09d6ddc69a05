/**
 * The regular expression of one BAN (docs/caching.md "Making writes visible at once"): every URL,
 * path and query as the cache stored it, whose answer a batch of changes can alter. Pure; the
 * records it names are worked out by cache/purge-scope.ts.
 *
 * Written in the subset that POSIX EREs, PCRE (Varnish) and JavaScript read alike: no backslashes
 * (a special character is a one-character bracket, `[.]`), no `(?i)`, no shorthand classes, no
 * spaces or quotes (the cache puts the header into a ban expression as it is). Letters are brackets
 * of both cases (`[eE]`), because the service routes paths whatever their case (Express), so
 * `/EVENT/x/` is the same page as `/event/x/`.
 */

/** Record ids to ban by, or every record of the type. */
export type Ids = ReadonlySet<number> | 'all';

/** What a batch of changes can alter, by type: the single records' ids (lists, feeds and pages always go). */
export interface PurgeScope {
  events: Ids;
  venues: Ids;
  organizers: Ids;
  categories: Ids;
  tags: Ids;
}

/** Where the service's URLs live: PUBLIC_URL's path prefix (a proxy may strip it before the cache, or not) and BASE_PATH. */
export interface UrlLayout {
  /** PUBLIC_URL's path without its trailing slash, `''` without one. */
  prefix: string;
  /** BASE_PATH (`/wp-json`, or `''`). */
  basePath: string;
  /** The namespace under BASE_PATH, `tribe/events/v1`. */
  namespace: string;
}

/** Characters written as themselves; every other one is bracketed (or escaped, for the two a bracket cannot hold). */
const PLAIN = /[0-9/_~%-]/;

/** `text` matched literally and in any case. */
export function literal(text: string): string {
  let out = '';
  for (const char of text) {
    const lower = char.toLowerCase();
    const upper = char.toUpperCase();
    if (lower !== upper) out += `[${lower}${upper}]`;
    else if (PLAIN.test(char)) out += char;
    // `^` first in a bracket negates it and `\` escapes inside PCRE's: both are escaped instead (a path has neither in practice).
    else if (char === '^' || char === '\\') out += `\\${char}`;
    else out += `[${char}]`;
  }
  return out;
}

/**
 * One path segment naming a record of `ids`. The service reads an id the way its validator coerces
 * it, so `012`, `+12`, `12.0` and `%31%32` all answer record 12: leading zeros are allowed, and any
 * segment that is not plain digits matches too (it may stand for any id). `all` is any segment.
 */
function idSegment(ids: Ids): string {
  if (ids === 'all') return '[^/?]+';
  const noncanonical = '[^/?]*[^0-9/?][^/?]*';
  if (ids.size === 0) return noncanonical;
  return `(0*(${[...ids].sort((a, b) => a - b).join('|')})|${noncanonical})`;
}

/** `x|y|z` as a group. */
function anyOf(parts: string[]): string {
  return `(${parts.join('|')})`;
}

/**
 * The BAN regex for a scope. Always: every list and feed of the namespace (a change moves what
 * lists, filters, counts and feeds show), every occurrence list, every by-slug read of the changed
 * types (the change feed does not say a record's old slug) and every public page (an event shows on
 * listing, venue, organizer, category and tag pages, again by slugs the feed does not give), and
 * `/` and `/index.php` with a query (`?rest_route=` reaches any route). By id: the scope's records,
 * with their `/ics` and `.ics` forms for events.
 */
export function banPattern(scope: PurgeScope, layout: UrlLayout): string {
  let pattern = patternOf(scope, layout);
  // Too long for the cache's header limit (Varnish: 8 KB a header): the type with most ids goes whole, until it fits.
  for (let narrowed = { ...scope }; pattern.length > MAX_PATTERN_LENGTH; pattern = patternOf(narrowed, layout)) {
    const largest = TYPES.filter((type) => narrowed[type] !== 'all').sort((a, b) => sizeOf(narrowed[b]) - sizeOf(narrowed[a]))[0];
    narrowed = { ...narrowed, [largest]: 'all' };
  }
  return pattern;
}

/** Characters of a pattern at most: below Varnish's 8 KB limit on a request header (`http_req_hdr_len`), with room to spare. */
export const MAX_PATTERN_LENGTH = 6000;

const TYPES = ['events', 'venues', 'organizers', 'categories', 'tags'] as const;

function sizeOf(ids: Ids): number {
  return ids === 'all' ? 0 : ids.size;
}

function patternOf(scope: PurgeScope, layout: UrlLayout): string {
  const L = literal;
  const namespace = [
    // The lists and feeds: `/events`, `/events.ics`, `/events.jsonld`, `/venues`, ...
    `${L('events')}([.](${L('ics')}|${L('jsonld')}))?`,
    anyOf(['venues', 'organizers', 'categories', 'tags'].map(L)),
    `${L('events/')}[^/?]+${L('/occurrences')}`,
    `${L('events/by-slug/')}[^?]*`,
    `${L('events/')}${idSegment(scope.events)}(${L('/ics')}|[.]${L('ics')})?`,
  ];
  for (const [collection, ids] of [
    ['venues', scope.venues],
    ['organizers', scope.organizers],
  ] as const) {
    if (ids !== 'all' && ids.size === 0) continue;
    namespace.push(`${L(`${collection}/by-slug/`)}[^?]*`, `${L(`${collection}/`)}${idSegment(ids)}`);
  }
  for (const [collection, ids] of [
    ['categories', scope.categories],
    ['tags', scope.tags],
  ] as const) {
    if (ids !== 'all' && ids.size === 0) continue;
    namespace.push(`${L(`${collection}/`)}${idSegment(ids)}`);
  }
  const pages = [
    // `/` (the upcoming events) and `/index.php`, with `?page=` or `?rest_route=`.
    `(${L('index.php')})?`,
    `${L('events')}(${L('/category/')}[^?]*)?`,
    `${anyOf(['event', 'venue', 'organizer', 'tag'].map(L))}/[^?]*`,
  ];
  const prefix = layout.prefix === '' ? '' : `(${L(layout.prefix)})?`;
  const namespaceRoot = L(`${layout.basePath}/${layout.namespace}/`);
  return `^${prefix}(${namespaceRoot}${anyOf(namespace)}|/${anyOf(pages)})/*([?].*)?$`;
}
