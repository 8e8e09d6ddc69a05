import { RestError } from '../../core/errors.js';
import type { Urls } from '../../core/urls.js';
import type { Repositories } from '../../repositories/registry.js';
import { maySeeProtectedText, postPolicy, readerOf } from '../../policies/posts.js';
import { eventRecords, linkedRecords, termRecords } from '../records.js';
import type { EventRecord } from '../events/mapper.js';
import type { EventRow } from '../../repositories/events.js';
import { listBounds } from '../../domain/events/list-window.js';
import type { LinkedKind } from '../../repositories/linked-kinds.js';
import type { LinkedRow } from '../../repositories/linked.js';
import type { OrganizerRecord, VenueRecord } from '../linked/mapper.js';
import type { Taxonomy } from '../../repositories/taxonomies.js';
import type { PostRow } from '../../repositories/posts.js';
import { describeRecurrence } from '../../dates/recurrence-text.js';
import { PlainTexts } from '../plain-texts.js';
import { storedPlain } from '../../text/plain-forms.js';

/**
 * What the public pages read (docs/contract.md §13). Pages are anonymous: every read here is the
 * read of a caller without credentials, judged by the same policy as the API's single GETs and lists
 * (policies/posts.ts), and built by the same record service (records/records.ts).
 */

/**
 * What a page shows of a record's text, stored when written: the description's HTML and the meta
 * description (db/rendered-texts.ts), and the plain forms of the plain-text fields of the record and
 * of what it embeds (records/plain-texts.ts).
 */
export interface PageText {
  html: string;
  summary: string;
  plain: PlainTexts;
}

/** A single record as a page may show it: not there (404), protected (its title only, as plain text), or shown. */
type PageRecord<Rec> = { state: 'missing' } | { state: 'protected'; title: string; id: number; seriesId?: number | null } | { state: 'shown'; record: Rec; text: PageText };

/** A post's page text: its description's, and the summary of its excerpt, or of its description without one (as its record shows them). */
async function pageText(repositories: Repositories, row: PostRow, record: { excerpt?: string }, plain: PlainTexts): Promise<PageText> {
  const texts = await repositories.posts.renderedTexts([row.descriptionHash, row.excerptHash], ['pageHtml', 'summary']);
  const description = texts.of('description', row.descriptionHash, row.description);
  return { html: description.pageHtml, summary: record.excerpt ? texts.of('excerpt', row.excerptHash, row.excerpt).summary : description.summary, plain };
}

/** A protected record's page: its title's plain form only. */
function protectedState(row: PostRow & { seriesId?: number | null }): PageRecord<never> {
  return { state: 'protected', title: storedPlain(row.titlePlain, row.title), id: row.id, seriesId: row.seriesId };
}

/**
 * The anonymous single-read rule: `postPolicy.read` without credentials or password. Refused for
 * drafts, private, scheduled and trashed records (a page says "not found" for all of them, as
 * WordPress does for visitors); a password-protected record is "protected".
 */
function anonymousRead(row: PostRow): 'shown' | 'protected' | 'missing' {
  try {
    postPolicy.read(undefined, row, {});
    return 'shown';
  } catch (err) {
    if (err instanceof RestError && err.code === `${row.type}-password-protected`) return 'protected';
    if (err instanceof RestError) return 'missing';
    throw err;
  }
}

/** The event at `{site}/event/{slug}/`, as `GET /events/by-slug/{slug}` answers an anonymous caller (with `json_ld`). */
export async function eventBySlug(repositories: Repositories, urls: Urls, slug: string): Promise<PageRecord<EventRecord>> {
  const row = await repositories.events.findBySlug(slug);
  if (!row) return { state: 'missing' };
  const state = anonymousRead(row);
  if (state !== 'shown') return state === 'missing' ? { state } : protectedState(row);
  const plain = new PlainTexts();
  const [record] = await eventRecords(repositories, [row], undefined, urls, { single: true, plain });
  return { state, record: record!, text: await pageText(repositories, row, record!, plain) };
}

/** The venue or organizer at `{site}/{venue|organizer}/{slug}/`, as its single GET answers an anonymous caller. */
export async function linkedBySlug(repositories: Repositories, kind: LinkedKind, urls: Urls, slug: string): Promise<PageRecord<VenueRecord | OrganizerRecord>> {
  const row: LinkedRow | undefined = await repositories.linked(kind).findBySlug(slug);
  if (!row) return { state: 'missing' };
  const state = anonymousRead(row);
  if (state !== 'shown') return state === 'missing' ? { state } : protectedState(row);
  const [record] = await linkedRecords(repositories, kind, [row], undefined, urls, { single: true });
  const plain = new PlainTexts();
  plain.addPosts([row]);
  return { state, record: record!, text: await pageText(repositories, row, record as { excerpt?: string }, plain) };
}

/** A category or tag by slug, as its GET answers (terms are public). */
export async function termBySlug(repositories: Repositories, taxonomy: Taxonomy, urls: Urls, slug: string) {
  const row = await repositories.terms.findBySlug(taxonomy, slug);
  if (!row) return undefined;
  const [record] = await termRecords(repositories, taxonomy, [row], urls);
  const forms = (await repositories.posts.renderedTexts([row.descriptionHash], ['pageHtml', 'summary'])).of('termDescription', row.descriptionHash, row.description);
  const plain = new PlainTexts();
  plain.addTerms([row]);
  return { record: record!, text: { html: forms.pageHtml, summary: forms.summary, plain } };
}

/** What an event page says of the series the event belongs to. */
export interface SeriesNote {
  /** The rule in words ("Every week, 6 times, until 9 July 2027"), when it can be put into words. */
  rule?: string;
  /** The page of the series' dates: `{site}/event/{slug}/all/`. */
  datesUrl: string;
}

/** The series of an event shown on its page, or undefined for a single event. */
export async function seriesNote(repositories: Repositories, urls: Urls, event: EventRecord): Promise<SeriesNote | undefined> {
  if (event.series_id === null || event.series_id === undefined) return undefined;
  const origin = await repositories.series.origin(event.series_id);
  const rule = origin && event.recurrence ? await describeRecurrence(event.recurrence, origin) : undefined;
  return { rule, datesUrl: urls.permalink('event', event.slug, 'all') };
}

/** Which events a list page shows: all upcoming ones, or those of one term, venue, organizer or series. */
export interface UpcomingFilter {
  termId?: number;
  venueId?: number;
  organizerId?: number;
  /** The series of this event (as `GET /events/{id}/occurrences`). */
  seriesOf?: { seriesId: number; eventId: number };
}

/** One page of a list: the events as list records, the schema.org data of those the page may describe in full, and the total. */
export interface UpcomingPage {
  events: EventRecord[];
  /** Each event's `json_ld` (single-record form), for the events whose text is public; in list order. */
  jsonLd: unknown[];
  total: number;
  /** The plain forms of the events' plain-text fields and of what they embed. */
  plain: PlainTexts;
}

/**
 * Upcoming events as anonymous `GET /events` lists them with the same filter (published, not hidden
 * from listings, the default date window from the start of today on, the plugin's order). Protected
 * events are masked, as in the API's lists, and left out of the JSON-LD.
 */
export async function upcomingEvents(
  repositories: Repositories,
  urls: Urls,
  filter: UpcomingFilter,
  { page, perPage, now, siteTimezone }: { page: number; perPage: number; now: Date; siteTimezone: string },
): Promise<UpcomingPage> {
  const { bounds } = listBounds({}, { strict: false, include: false, now, siteTimezone });
  const { rows, total } = await repositories.events.list({
    statuses: ['publish'],
    reader: readerOf(undefined),
    bounds,
    termLists: filter.termId === undefined ? [] : [[filter.termId]],
    venueIds: filter.venueId === undefined ? undefined : [filter.venueId],
    organizerIds: filter.organizerId === undefined ? undefined : [filter.organizerId],
    ofSeries: filter.seriesOf,
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  const plain = new PlainTexts();
  const events = await eventRecords(repositories, rows, undefined, urls, { single: false, plain });
  const open: EventRow[] = rows.filter((row) => maySeeProtectedText(undefined, row));
  const described = await eventRecords(repositories, open, undefined, urls, { single: true });
  return { events, jsonLd: described.map((record) => record.json_ld).filter((data) => data !== undefined), total, plain };
}
