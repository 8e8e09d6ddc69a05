import { DateTime } from 'luxon';
import type { ImportSource } from './engine.js';
import type { ImportRecord, RecordKind, SourceAuthor, SourceImage } from './records.js';
import { pages, SiteError, type Site } from './tec-site-http.js';

/**
 * A site running The Events Calendar as an import source (docs/importing.md "Moving from WordPress"):
 * its categories (parents first), tags, venues, organizers and events, read through the plugin's own
 * REST API a page at a time and normalised to the service's write bodies. Events its list leaves out
 * (those hidden from listings) are found through WordPress's own list of event ids and read one by one.
 */

interface TecSiteOptions {
  /** Records per page (the plugin allows at most 50 for events). */
  perPage?: number;
}

const NS = '/tribe/events/v1';
/** Every status a signed-in reader may list (the plugin's lists take them comma-separated). */
const STATUSES = 'publish,future,draft,pending,private';
/** The widest window the plugin's event list takes: every event, past and future. */
const WINDOW = `start_date=${encodeURIComponent('1000-01-01 00:00:00')}&end_date=${encodeURIComponent('9999-12-31 23:59:59')}`;
const NO_DATE = '0000-00-00 00:00:00';

type Json = Record<string, unknown>;

/** The source of one site. `site` is opened (tec-site-http.ts `openSite`). */
export function tecSiteSource(site: Site, options: TecSiteOptions = {}): ImportSource {
  const perPage = options.perPage ?? 50;
  return {
    key: `tec-site:${site.home}`,
    type: 'tec-site',
    location: site.home,
    numericIds: true,
    records: () => siteRecords(site, perPage),
  };
}

async function* siteRecords(site: Site, perPage: number): AsyncGenerator<ImportRecord> {
  const logins = await authorLogins(site);
  const read = new Reader(site, logins);
  const status = site.authenticated ? `status=${STATUSES}&` : '';
  for (const [kind, collection] of [
    ['category', 'categories'],
    ['tag', 'tags'],
  ] as const) {
    // Terms are few: read whole, so that every parent comes before its children.
    const terms: Json[] = [];
    for await (const page of pages(site, `${NS}/${collection}?hide_empty=0`, collection, perPage)) terms.push(...page);
    for (const term of parentsFirst(terms)) yield read.term(kind, term);
  }
  for (const [kind, collection] of [
    ['venue', 'venues'],
    ['organizer', 'organizers'],
  ] as const) {
    for await (const page of pages(site, `${NS}/${collection}${site.authenticated ? `?status=${STATUSES}` : ''}`, collection, perPage)) {
      for (const item of page) yield* read.linked(kind, item);
    }
  }
  for await (const page of pages(site, `${NS}/events?${status}${WINDOW}`, 'events', perPage)) {
    for (const event of page) yield* read.event(event);
  }
  yield* hiddenEvents(site, read);
}

/**
 * Events hidden from listings are not in the plugin's list: WordPress's own list of event ids names
 * them, and each is read by id. A site that does not offer that list (404) has none to add.
 */
async function* hiddenEvents(site: Site, read: Reader): AsyncGenerator<ImportRecord> {
  try {
    for await (const page of pages(site, `/wp/v2/tribe_events?_fields=id${site.authenticated ? `&status=${STATUSES}` : ''}`, undefined, 100)) {
      for (const { id } of page) {
        if (read.seen('event', String(id))) continue;
        const { body } = await site.get(`${NS}/events/${id}`);
        yield* read.event(body as Json);
      }
    }
  } catch (err) {
    if (!(err instanceof SiteError && err.status === 404)) throw err;
  }
}

/** The login of each author id, from WordPress's users (slugs); none when the site hides them. */
async function authorLogins(site: Site): Promise<Map<string, string>> {
  const logins = new Map<string, string>();
  try {
    for await (const page of pages(site, `/wp/v2/users?_fields=id,slug${site.authenticated ? '&context=edit' : ''}`, undefined, 100)) {
      for (const user of page) logins.set(String(user.id), String(user.slug));
    }
  } catch (err) {
    if (!(err instanceof SiteError)) throw err;
  }
  return logins;
}

/** Terms ordered so that a parent comes before its children (a parent the list lacks counts as none). */
function parentsFirst(terms: Json[]): Json[] {
  const ids = new Set(terms.map((term) => String(term.id)));
  const out: Json[] = [];
  const placed = new Set<string>();
  let pending = terms;
  while (pending.length) {
    const next = pending.filter((term) => {
      const parent = String(term.parent ?? 0);
      if (parent !== '0' && ids.has(parent) && !placed.has(parent)) return true;
      out.push(term);
      placed.add(String(term.id));
      return false;
    });
    if (next.length === pending.length) return [...out, ...next];
    pending = next;
  }
  return out;
}

/** Normalises the plugin's records (its answers' fields) into the engine's records. */
class Reader {
  private readonly seenIds = new Map<RecordKind, Set<string>>();

  constructor(
    private readonly site: Site,
    private readonly logins: Map<string, string>,
  ) {}

  seen(kind: RecordKind, id: string): boolean {
    return this.seenIds.get(kind)?.has(id) ?? false;
  }

  private note(kind: RecordKind, id: string): void {
    let set = this.seenIds.get(kind);
    if (!set) this.seenIds.set(kind, (set = new Set()));
    set.add(id);
  }

  term(kind: 'category' | 'tag', term: Json): ImportRecord {
    const parent = String(term.parent ?? 0);
    return {
      kind,
      sourceId: String(term.id),
      id: Number(term.id),
      body: { name: String(term.name), slug: term.slug, description: String(term.description ?? '') },
      links: kind === 'category' ? { parent: parent === '0' ? undefined : parent } : undefined,
    };
  }

  /** A venue or organizer, unless already given (events embed them). */
  *linked(kind: 'venue' | 'organizer', item: Json): Generator<ImportRecord> {
    const sourceId = String(item.id);
    if (this.seen(kind, sourceId)) return;
    this.note(kind, sourceId);
    const fields = kind === 'venue' ? VENUE_FIELDS : ORGANIZER_FIELDS;
    const body: Json = { ...this.postBody(item), [kind]: String(item[kind] ?? '') };
    for (const field of fields) if (item[field] !== undefined) body[field] = item[field];
    yield { ...this.postRecord(kind, item), body };
  }

  *event(event: Json): Generator<ImportRecord> {
    const sourceId = String(event.id);
    if (this.seen('event', sourceId)) return;
    this.note('event', sourceId);
    const venues = listOf(event.venue);
    const organizers = listOf(event.organizer);
    for (const venue of venues) yield* this.linked('venue', venue);
    for (const organizer of organizers) yield* this.linked('organizer', organizer);
    const details = (event.cost_details ?? {}) as { values?: unknown[]; currency_symbol?: unknown };
    const body: Json = {
      ...this.postBody(event),
      title: String(event.title ?? ''),
      excerpt: event.excerpt ?? '',
      start_date: event.start_date,
      end_date: event.end_date,
      all_day: Boolean(event.all_day),
      timezone: event.timezone,
      cost: costOf(String(event.cost ?? ''), (details.values ?? []).map(String), String(details.currency_symbol ?? '')),
      website: websiteOf(event.website, event.url),
    };
    for (const flag of ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured']) if (typeof event[flag] === 'boolean') body[flag] = event[flag];
    yield {
      ...this.postRecord('event', event),
      body,
      links: {
        venues: venues.map((venue) => String(venue.id)),
        organizers: organizers.map((organizer) => String(organizer.id)),
        categories: listOf(event.categories).map((term) => String(term.id)),
        tags: listOf(event.tags).map((term) => String(term.id)),
      },
    };
  }

  /** What every post kind shares: its status, slug, description and publication date. */
  private postBody(item: Json): Json {
    const body: Json = { status: item.status, description: item.description ?? '' };
    if (typeof item.slug === 'string' && item.slug !== '') body.slug = item.slug;
    const published = this.utcOf(item.date_utc, item.date);
    if (published) body.date_utc = published;
    return body;
  }

  private postRecord(kind: RecordKind, item: Json): Omit<ImportRecord, 'body'> {
    return {
      kind,
      sourceId: String(item.id),
      id: Number(item.id),
      modifiedUtc: this.utcOf(item.modified_utc, item.modified),
      author: this.authorOf(item.author),
      image: imageOf(item.image),
    };
  }

  private authorOf(id: unknown): SourceAuthor | undefined {
    if (id === undefined || id === null || id === '' || String(id) === '0') return undefined;
    const sourceId = String(id);
    return { sourceId, login: this.logins.get(sourceId) ?? `author-${sourceId}` };
  }

  /** A UTC date of the plugin's answer; WordPress leaves it `0000-00-00 00:00:00` on drafts: then the local one, in the site's zone. */
  private utcOf(utc: unknown, local: unknown): string | undefined {
    if (typeof utc === 'string' && utc !== '' && utc !== NO_DATE) return utc;
    if (typeof local !== 'string' || local === '' || local === NO_DATE) return undefined;
    const zone = typeof this.site.timezone === 'string' ? this.site.timezone : `UTC${this.site.timezone >= 0 ? '+' : ''}${this.site.timezone}`;
    const moment = DateTime.fromSQL(local, { zone });
    return moment.isValid ? moment.toUTC().toFormat('yyyy-MM-dd HH:mm:ss') : undefined;
  }
}

const VENUE_FIELDS = ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince', 'show_map', 'show_map_link', 'geo_lat', 'geo_lng'];
const ORGANIZER_FIELDS = ['phone', 'website', 'email'];

/**
 * An event's website as stored: the plugin answers it HTML-escaped, and answers the event's own
 * permalink when none was ever stored (docs/plugin-behaviour.md §1.1): that is no website.
 */
function websiteOf(answered: unknown, permalink: unknown): string {
  if (typeof answered !== 'string' || answered === permalink) return '';
  return answered.replace(/&#0*38;|&amp;/g, '&');
}

/** The plugin answers one linked record as an object, several as a list, none as `[]`. */
function listOf(value: unknown): Json[] {
  if (Array.isArray(value)) return value.filter((item): item is Json => item !== null && typeof item === 'object');
  return value !== null && typeof value === 'object' ? [value as Json] : [];
}

function imageOf(value: unknown): SourceImage | undefined {
  if (!value || typeof value !== 'object' || typeof (value as Json).url !== 'string') return undefined;
  const image = value as Json;
  const size = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return { url: String(image.url), id: typeof image.id === 'number' ? image.id : undefined, width: size(image.width), height: size(image.height) };
}

/**
 * The cost to write: the plugin answers it formatted (`$15`, with the site's default symbol when the
 * cost had none) and its values, never as written. A cost written with a symbol (its `currency_symbol`
 * is set) or with words (`Free`) is written as formatted; numbers alone as the values (the default
 * symbol of the formatting would otherwise be stored as the event's own).
 */
function costOf(formatted: string, values: string[], symbol: string): string | string[] {
  if (symbol === '' && values.length && values.every((value) => /^[0-9.,]+$/.test(value))) return values;
  return formatted;
}
