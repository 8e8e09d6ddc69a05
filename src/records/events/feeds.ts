import type { User } from '../../auth/capabilities.js';
import { mayRead } from '../../policies/posts.js';
import type { EventRow } from '../../repositories/events.js';
import type { Repositories } from '../../repositories/registry.js';
import type { TermRow } from '../../repositories/terms.js';
import { htmlToText } from '../../text/html.js';
import { withoutContext, type JsonLdObject } from '../linked/json-ld.js';

/**
 * What the event feeds are made of beyond the records: their names, the rows an iCalendar feed
 * writes (docs/contract.md §11, §14) and the JSON-LD list (docs/contract.md §12).
 */

/** The site as feeds name it: its configured name, or its host. */
export function siteOf(siteName: string | undefined, siteUrl: string): string {
  return siteName ?? feedHost(siteUrl);
}

/** The host of the site's URL: feeds' UIDs end with it. */
export function feedHost(siteUrl: string): string {
  return new URL(siteUrl).hostname;
}

/** A list feed's name: the site's name, "Events", and the categories (or tags) the request filters by. */
export function listFeedName(site: string, categories: TermRow[], tags: TermRow[]): string {
  const terms = [...categories, ...tags].map((term) => term.name);
  return `${site} Events${terms.length ? `: ${[...new Set(terms)].join(', ')}` : ''}`;
}

/** A single event's feed name: the site's name, "Events", and the event's title as plain text. */
export function eventFeedName(site: string, row: EventRow): string {
  return `${site} Events: ${htmlToText(row.title)}`;
}

/**
 * The rows a feed writes (docs/contract.md §14): a series appears once, as its first event with the
 * rules (at the place of its first listed occurrence, also when the first event itself falls outside
 * the list), plus each listed exception with its RECURRENCE-ID; the other occurrences follow from the
 * rules. A series whose first event the caller may not read shows its listed occurrences one by one.
 */
export async function feedRows(repositories: Repositories, user: User | undefined, rows: EventRow[]): Promise<EventRow[]> {
  const listed = new Map(rows.map((row) => [row.id, row]));
  const wanted = [...new Set(rows.map((row) => row.seriesId).filter((id): id is number => id !== null && !listed.has(id)))];
  const masters = new Map((await repositories.events.findByIds(wanted)).filter((row) => mayRead(user, row) && row.status !== 'trash').map((row) => [row.id, row]));
  for (const row of rows) if (row.seriesId === row.id) masters.set(row.id, row);
  const written = new Set<number>();
  const out: EventRow[] = [];
  for (const row of rows) {
    const master = row.seriesId === null ? undefined : masters.get(row.seriesId);
    if (!master) {
      out.push(row);
      continue;
    }
    if (!written.has(master.id)) {
      written.add(master.id);
      out.push(master);
    }
    if (row.id !== master.id && row.exception) out.push(row);
  }
  return out;
}

/**
 * The JSON-LD feed's body: a schema.org `ItemList` of the events' `Event`s, each positioned in the
 * whole list (`offset`: the page's first position less one).
 */
export function eventItemList(name: string, url: string, total: number, offset: number, events: JsonLdObject[]) {
  return {
    '@context': 'http://schema.org',
    '@type': 'ItemList',
    name,
    url,
    numberOfItems: total,
    // The list carries the context; its items do not repeat it.
    itemListElement: events.map((event, index) => ({ '@type': 'ListItem', position: offset + index + 1, item: withoutContext(event) })),
  };
}
