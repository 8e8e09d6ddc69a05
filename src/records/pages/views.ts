import { isEmail } from '../../text/fields.js';
import type { EventRecord } from '../events/mapper.js';
import type { OrganizerRecord, VenueRecord } from '../linked/mapper.js';
import { withoutContext, type JsonLdObject } from '../linked/json-ld.js';
import type { PageText, SeriesNote, UpcomingPage } from './read.js';
import type { PlainTexts } from '../plain-texts.js';
import { escapeHtml, webcalUrl, type PageParts } from './layout.js';

/**
 * The content of each public page (docs/contract.md §13), from the records the API itself returns:
 * pure functions of a record and the URLs the handler computed. Stored plain text is shown in the
 * plain form stored when written (records/plain-texts.ts, by the record's id; shown only where the
 * record shows the field) through `escapeHtml`, descriptions as `sanitizePageHtml` cleaned them when
 * written (records/pages/read.ts `PageText`, db/rendered-texts.ts), URLs through `escapeHtml` in
 * quoted attributes. Nothing is decoded here.
 */

/** A record read by field name (venues and organizers differ in their fields). */
type Fields = { [key: string]: unknown };

/** URLs a page links to besides the record's own. */
interface FeedLinks {
  /** The `.ics` to add (an event) or subscribe to (a filtered list). */
  ics: string;
  /** The REST URL of what the page shows. */
  api: string;
}

/** A list page's place in its pages. */
export interface Paging {
  page: number;
  totalPages: number;
  /** The list's first page, e.g. `{site}/events/`; others are `?page=N`. */
  baseUrl: string;
}

const eventCount = (n: number) => (n === 1 ? '1 event' : `${n} events`);

/**
 * When an event happens, in its own zone: "Sunday 10 January 2027, 10:00 – 12:00 CET"; all-day and
 * multi-day forms. `days`: its start's and end's days as stored when written (records/plain-texts.ts);
 * the hours are the stored times' own digits.
 */
export function whenText(event: Pick<EventRecord, 'start_date' | 'end_date' | 'all_day' | 'timezone_abbr'>, days: { start: string; end: string }): string {
  const time = (local: string) => local.slice(11, 16);
  const zone = event.timezone_abbr ? ` ${event.timezone_abbr}` : '';
  const sameDay = event.start_date.slice(0, 10) === event.end_date.slice(0, 10);
  if (event.all_day) return sameDay ? `${days.start} (all day)` : `${days.start} – ${days.end} (all day)`;
  if (sameDay) return `${days.start}, ${time(event.start_date)} – ${time(event.end_date)}${zone}`;
  return `${days.start}, ${time(event.start_date)} – ${days.end}, ${time(event.end_date)}${zone}`;
}

/** `<time>` of the event's start, machine-readable as a local date and time. */
function whenHtml(event: EventRecord, plain: PlainTexts): string {
  return `<time datetime="${escapeHtml(event.start_date.replace(' ', 'T'))}">${escapeHtml(whenText(event, plain.days(event.id)))}</time>`;
}

/** A list of items, as one value: the record's `venue` (object, list or `[]`). */
function asList<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function link(url: string, label: string): string {
  return `<a href="${escapeHtml(url)}">${label}</a>`;
}

/** A venue's address as one line of text: the fields its record shows, in their plain forms. */
function addressOf(venue: Fields, plain: PlainTexts): string {
  const parts = ['address', 'city', 'stateprovince', 'zip', 'country'].map((key) => (venue[key] ? plain.field(Number(venue.id), key) : '')).filter((part) => part !== '');
  return escapeHtml(parts.join(', '));
}

/** The record's image URL, when it has one on http(s). */
function imageOf(record: { image?: unknown }): string | undefined {
  const image = record.image as { url?: string } | false | undefined;
  return image && typeof image.url === 'string' && /^https?:\/\//.test(image.url) ? image.url : undefined;
}

/** The description shown on a page: its HTML as stored for pages (records/pages/read.ts `PageText`), or nothing. */
function descriptionHtml(text: PageText): string {
  return text.html ? `<div class="description">\n${text.html}\n</div>` : '';
}

/** "Add to calendar" / "Subscribe" links: the https `.ics` and its `webcal://` form. */
function calendarActions(ics: string, label: string, subscribe: boolean): string {
  const verb = subscribe ? 'Subscribe in a calendar app' : 'Add to calendar';
  return `<ul class="actions">
<li><a class="button primary" href="${escapeHtml(subscribe ? webcalUrl(ics) : ics)}" aria-label="${escapeHtml(`${verb}: ${label}`)}">${verb}</a></li>
<li><a class="button" href="${escapeHtml(subscribe ? ics : webcalUrl(ics))}" aria-label="${escapeHtml(`${subscribe ? 'Download the iCalendar feed' : 'Open in a calendar app'}: ${label}`)}">${subscribe ? 'iCalendar feed (.ics)' : 'Open in calendar app'}</a></li>
</ul>`;
}

/** "Recurring event. Every week, 6 times, until 9 July 2027. See all dates" under an occurrence's date. */
function recurrenceHtml(series: SeriesNote, title: string): string {
  const rule = series.rule ? ` ${escapeHtml(series.rule)}.` : '';
  return `<p class="recurrence">Recurring event.${rule} <a href="${escapeHtml(series.datesUrl)}" aria-label="${escapeHtml(`See all dates: ${title}`)}">See all dates</a></p>`;
}

/** An event page; `site` is the site URL, for the term archives' links; `series` when the event is an occurrence of a series. */
export function eventPage(event: EventRecord, text: PageText, links: FeedLinks, site: string, series?: SeriesNote): PageParts {
  const { plain } = text;
  const title = plain.title(event.id);
  const image = imageOf(event);
  const venues = asList(event.venue as Fields | Fields[] | undefined);
  const organizers = asList(event.organizer as Fields | Fields[] | undefined);
  const facts: string[] = [];
  const fact = (term: string, value: string) => facts.push(`<dt>${term}</dt><dd>${value}</dd>`);
  for (const venue of venues) {
    const address = addressOf(venue, plain);
    fact('Venue', `${link(String(venue.url), escapeHtml(plain.title(Number(venue.id))))}${address ? `<br>${address}` : ''}`);
  }
  for (const organizer of organizers) fact('Organizer', link(String(organizer.url), escapeHtml(plain.title(Number(organizer.id)))));
  if (event.cost) fact('Cost', escapeHtml(plain.cost(event.id)));
  if (event.website && /^https?:\/\//.test(event.website)) fact('Website', link(event.website, escapeHtml(event.website)));
  const terms = (list: Array<{ id: number; slug: string }>, url: (slug: string) => string) =>
    list.map((term) => link(url(term.slug), escapeHtml(plain.termName(term.id)))).join(', ');
  // Embedded terms carry no permalink: a child category's `/events/category/{slug}/` redirects to its full path.
  if (event.categories.length)
    fact(
      'Categories',
      terms(event.categories, (slug) => `${site}/events/category/${encodeURIComponent(slug)}/`),
    );
  if (event.tags.length)
    fact(
      'Tags',
      terms(event.tags, (slug) => `${site}/tag/${encodeURIComponent(slug)}/`),
    );
  const main = `<article>
<p class="kicker">Event</p>
<h1>${escapeHtml(title)}</h1>
<p class="when">${whenHtml(event, plain)}</p>
${series ? `${recurrenceHtml(series, title)}\n` : ''}${calendarActions(links.ics, title, false)}
${image ? `<img class="feature" src="${escapeHtml(image)}" alt="" loading="lazy">` : ''}
${descriptionHtml(text)}
${facts.length ? `<h2>Details</h2>\n<dl class="facts">\n${facts.join('\n')}\n</dl>` : ''}
</article>`;
  return { title, description: text.summary, url: event.url, type: 'article', image, apiUrl: links.api, jsonLd: event.json_ld, main };
}

/** The page of a password-protected event, venue or organizer: its title (plain text, records/pages/read.ts) and a notice, never its text. */
export function protectedPage(label: string, plain: string, url: string, apiUrl: string): PageParts {
  const main = `<article>
<p class="kicker">${escapeHtml(label)}</p>
<h1>${escapeHtml(plain)}</h1>
<p class="notice">This ${escapeHtml(label.toLowerCase())} is password-protected. Its details are not public.</p>
</article>`;
  return { title: plain, description: '', url, type: 'article', apiUrl, main };
}

/** The events of a list page, with its pager; each event's title a heading of `level`, below the page's own headings. */
function eventList(upcoming: UpcomingPage, paging: Paging, empty: string, level: 2 | 3, count = eventCount): string {
  if (upcoming.events.length === 0) return `<p>${escapeHtml(empty)}</p>`;
  const { plain } = upcoming;
  const items = upcoming.events.map((event) => {
    const venue = asList(event.venue as Fields | Fields[] | undefined)[0];
    const where = venue ? `<p>${escapeHtml(plain.title(Number(venue.id)))}${venue.city ? `, ${escapeHtml(plain.field(Number(venue.id), 'city'))}` : ''}</p>` : '';
    return `<li><article>
<h${level}>${link(event.url, escapeHtml(plain.title(event.id)))}</h${level}>
<p>${whenHtml(event, plain)}</p>
${where}</article></li>`;
  });
  return `<p>${count(upcoming.total)} coming up${paging.totalPages > 1 ? `, page ${paging.page} of ${paging.totalPages}` : ''}.</p>
<ol class="events">
${items.join('\n')}
</ol>
${pager(paging)}`;
}

/** `?page=N` of a list (page 1 is the list's own URL). */
function pageUrl(baseUrl: string, page: number): string {
  return page === 1 ? baseUrl : `${baseUrl}?page=${page}`;
}

function pager(paging: Paging): string {
  if (paging.totalPages <= 1) return '';
  const previous = paging.page > 1 ? `<a href="${escapeHtml(pageUrl(paging.baseUrl, paging.page - 1))}" rel="prev">← Earlier events</a>` : '<span></span>';
  const next = paging.page < paging.totalPages ? `<a href="${escapeHtml(pageUrl(paging.baseUrl, paging.page + 1))}" rel="next">Later events →</a>` : '<span></span>';
  return `<nav class="pager" aria-label="Pages of this list">${previous}${next}</nav>`;
}

/** schema.org data of a list page: an `ItemList` of the events it describes. */
function itemList(name: string, url: string, upcoming: UpcomingPage): unknown {
  return {
    '@context': 'https://schema.org',
    '@type': 'ItemList',
    name,
    url,
    numberOfItems: upcoming.jsonLd.length,
    itemListElement: upcoming.jsonLd.map((item, index) => ({ '@type': 'ListItem', position: index + 1, item: withoutContext(item as JsonLdObject) })),
  };
}

/** `/events/` (and the site root): the upcoming events. */
export function upcomingPage(siteName: string, upcoming: UpcomingPage, paging: Paging, links: FeedLinks): PageParts {
  const title = paging.page > 1 ? `Upcoming events, page ${paging.page}` : 'Upcoming events';
  const url = pageUrl(paging.baseUrl, paging.page);
  const main = `<h1>Upcoming events</h1>
${calendarActions(links.ics, `all events of ${siteName}`, true)}
${eventList(upcoming, paging, 'No upcoming events.', 2)}`;
  return { title, description: `Upcoming events of ${siteName}.`, url, type: 'website', apiUrl: links.api, jsonLd: itemList(title, url, upcoming), main };
}

/** A category or tag archive. */
export function termPage(label: 'Category' | 'Tag', term: { id: number; url: string }, text: PageText, upcoming: UpcomingPage, paging: Paging, links: FeedLinks): PageParts {
  const name = text.plain.termName(term.id);
  const url = pageUrl(paging.baseUrl, paging.page);
  const main = `<p class="kicker">${label}</p>
<h1>${escapeHtml(name)}</h1>
${descriptionHtml(text)}
${calendarActions(links.ics, `${label.toLowerCase()} ${name}`, true)}
<h2>Upcoming events</h2>
${eventList(upcoming, paging, `No upcoming events in this ${label.toLowerCase()}.`, 3)}`;
  const title = `${label}: ${name}`;
  return { title, description: text.summary || `Upcoming events in ${name}.`, url, type: 'website', apiUrl: links.api, jsonLd: itemList(title, url, upcoming), main };
}

/** A venue or organizer page: what the record says, then its upcoming events. */
export function linkedPage(
  label: 'Venue' | 'Organizer',
  record: VenueRecord | OrganizerRecord,
  text: PageText,
  upcoming: UpcomingPage,
  paging: Paging,
  links: FeedLinks,
): PageParts {
  const data = record as unknown as Fields;
  const { plain } = text;
  const id = Number(data.id);
  const name = plain.title(id);
  const image = imageOf(record);
  const facts: string[] = [];
  const fact = (term: string, value: string) => facts.push(`<dt>${term}</dt><dd>${value}</dd>`);
  if (label === 'Venue') {
    const address = addressOf(data, plain);
    if (address) fact('Address', address);
  }
  if (data.phone) fact('Phone', escapeHtml(plain.field(id, 'phone')));
  // Organizer e-mail is free text (the plugin does not check it): only an address is linked.
  if (typeof data.email === 'string' && data.email) {
    const email = plain.field(id, 'email');
    fact('E-mail', isEmail(email) ? link(`mailto:${email}`, escapeHtml(email)) : escapeHtml(email));
  }
  if (typeof data.website === 'string' && /^https?:\/\//.test(data.website)) fact('Website', link(data.website, escapeHtml(data.website)));
  const main = `<p class="kicker">${label}</p>
<h1>${escapeHtml(name)}</h1>
${image ? `<img class="feature" src="${escapeHtml(image)}" alt="" loading="lazy">` : ''}
${descriptionHtml(text)}
${facts.length ? `<dl class="facts">\n${facts.join('\n')}\n</dl>` : ''}
${calendarActions(links.ics, `events ${label === 'Venue' ? 'at' : 'by'} ${name}`, true)}
<h2>Upcoming events</h2>
${eventList(upcoming, paging, `No upcoming events ${label === 'Venue' ? 'at this venue' : 'by this organizer'}.`, 3)}`;
  return {
    title: name,
    description: text.summary,
    url: pageUrl(paging.baseUrl, paging.page),
    type: 'website',
    image,
    apiUrl: links.api,
    jsonLd: data.json_ld,
    main,
  };
}

/** `{event url}all/`: the upcoming dates of the event's series, as `GET /events/{id}/occurrences` lists them. */
export function seriesDatesPage(event: EventRecord, text: PageText, series: SeriesNote, upcoming: UpcomingPage, paging: Paging, apiUrl: string): PageParts {
  const name = text.plain.title(event.id);
  const url = pageUrl(paging.baseUrl, paging.page);
  const title = `All dates: ${name}`;
  const main = `<p class="kicker">Recurring event</p>
<h1>${escapeHtml(name)}</h1>
<p class="recurrence">${series.rule ? `${escapeHtml(series.rule)}. ` : ''}${link(event.url, 'Back to the event')}</p>
<h2>Upcoming dates</h2>
${eventList(upcoming, paging, 'No upcoming dates of this event.', 3, (n) => (n === 1 ? '1 date' : `${n} dates`))}`;
  return { title, description: `Upcoming dates of ${name}.`, url, type: 'website', apiUrl, jsonLd: itemList(title, url, upcoming), main };
}

/** The page of a URL that shows nothing (404). */
export function notFoundPage(eventsUrl: string, apiUrl: string): PageParts {
  const main = `<h1>Page not found</h1>
<p>Nothing is published at this address. It may have moved, or not be public.</p>
<p><a href="${escapeHtml(eventsUrl)}">See the upcoming events</a>.</p>`;
  return { title: 'Page not found', description: '', type: 'website', apiUrl, main };
}
