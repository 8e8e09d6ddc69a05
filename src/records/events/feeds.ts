import type { User } from '../../auth/capabilities.js';
import { mayRead } from '../../policies/posts.js';
import type { EventRow } from '../../repositories/events.js';
import type { Repositories } from '../../repositories/registry.js';
import type { TermRow } from '../../repositories/terms.js';
import { storedPlain } from '../../text/plain-forms.js';
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

/** A single event's feed name: the site's name, "Events", and the event's title as plain text (stored when written: text/plain-forms.ts). */
export function eventFeedName(site: string, row: EventRow): string {
  return `${site} Events: ${storedPlain(row.titlePlain, row.title)}`;
}

/**
 * A row a calendar writes, and its place among its series' VEVENTs (docs/contract.md §14): `master`,
 * a series' first event with the rules; `override`, an exception with its RECURRENCE-ID; neither, a
 * VEVENT of its own (a single event, or an occurrence written without its series, under its own UID).
 */
export interface FeedRow {
  row: EventRow;
  part?: 'master' | 'override';
  /** A master: the RECURRENCE-IDs of its exceptions the caller may not read (EXDATEs: they are not in the caller's calendar). */
  excluded?: string[];
}

/**
 * The rows a feed writes (docs/contract.md §14): a series appears once, whole, wherever one of its
 * events is listed: its first event with the rules (at the place of its first listed occurrence, also
 * when the first event itself falls outside the list), then every exception the caller may read, each
 * with its RECURRENCE-ID (listed or not: a calendar app would otherwise show the rule's time and
 * content), and an EXDATE for each exception the caller may not read. The other occurrences follow
 * from the rules. An occurrence of a series whose first event the caller may not read is written on
 * its own, under its own UID. At most `max` VEVENTs: the feed is cut (`cut`) before a series whose
 * overrides do not fit, unless it comes first (it then keeps the overrides that fit).
 */
export async function feedRows(repositories: Repositories, user: User | undefined, rows: EventRow[], max: number): Promise<{ rows: FeedRow[]; cut: boolean }> {
  const listed = new Map(rows.map((row) => [row.id, row]));
  const wanted = [...new Set(rows.map((row) => row.seriesId).filter((id): id is number => id !== null && !listed.has(id)))];
  const readable = (row: EventRow) => mayRead(user, row) && row.status !== 'trash';
  const masters = new Map((await repositories.events.findByIds(wanted)).filter(readable).map((row) => [row.id, row]));
  for (const row of rows) if (row.seriesId === row.id) masters.set(row.id, row);
  // What the feed writes, in order: a row of its own, or a series (by its first event).
  const items: Array<EventRow | { master: EventRow }> = [];
  const placed = new Set<number>();
  for (const row of rows) {
    const master = row.seriesId === null ? undefined : masters.get(row.seriesId);
    if (!master) items.push(row);
    else if (!placed.has(master.id)) {
      placed.add(master.id);
      items.push({ master });
    }
  }
  const counts = await repositories.series.exceptionCounts([...placed]);
  let written = 0;
  let cut = false;
  const fitting = new Map<number, number>();
  for (const [index, item] of items.entries()) {
    const overrides = 'master' in item ? (counts.get(item.master.id) ?? 0) : 0;
    if (written + 1 + overrides > max && index > 0) {
      items.length = index;
      cut = true;
      break;
    }
    if ('master' in item) fitting.set(item.master.id, Math.min(overrides, max - 1 - written));
    written += 1 + overrides;
  }
  const exceptions = new Map<number, EventRow[]>();
  const ids = (await repositories.series.exceptionIds([...fitting.keys()])).filter(([seriesId]) => {
    const left = fitting.get(seriesId)!;
    fitting.set(seriesId, left - 1);
    return left > 0;
  });
  const found = new Map((await repositories.events.findByIds(ids.map(([, id]) => id))).map((row) => [row.id, row]));
  for (const [seriesId, id] of ids) {
    const row = found.get(id);
    if (!row) continue;
    const list = exceptions.get(seriesId);
    if (list) list.push(row);
    else exceptions.set(seriesId, [row]);
  }
  const out: FeedRow[] = [];
  for (const item of items) {
    if (!('master' in item)) {
      out.push({ row: item });
      continue;
    }
    const own = exceptions.get(item.master.id) ?? [];
    const excluded = own.filter((row) => !readable(row)).map((row) => row.recurrenceStart!);
    out.push({ row: item.master, part: 'master', excluded });
    for (const row of own) if (readable(row)) out.push({ row, part: 'override' });
  }
  return { rows: out, cut };
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
