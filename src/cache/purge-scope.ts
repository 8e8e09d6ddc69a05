import type { ChangeRow } from '../repositories/changes.js';
import type { Repositories } from '../repositories/registry.js';
import type { Ids, PurgeScope } from './ban-pattern.js';

/**
 * Which single records a batch of changes can alter (docs/caching.md "Making writes visible at
 * once"), from what embeds what:
 *
 * - an event: itself (its record, `/ics`, `.ics`);
 * - a venue or organizer: itself and every event (events embed them, and trashing one unlinks it from
 *   its events without a change of theirs in the feed, so which events showed it can no longer be read);
 * - a category or tag: itself, a category's descendants (their `url` holds its slug) and the events
 *   linked to it (events embed their terms with their counts; a term whose count moved is in the feed
 *   with the event that moved it); a deleted term, every event (its links went with it).
 *
 * Lists, feeds, by-slug reads and pages are always banned (cache/ban-pattern.ts). Past MAX_IDS ids a
 * type is banned whole: the regex stays far below the cache's header limit (Varnish: 8 KB).
 */
const MAX_IDS = 300;

/** Categories whose descendants are looked up one by one; past it every category goes. */
const MAX_CATEGORY_WALKS = 50;

export async function purgeScope(repositories: Repositories, rows: readonly ChangeRow[]): Promise<PurgeScope> {
  const of = (type: ChangeRow['type']) => rows.filter((row) => row.type === type);
  const ids = (list: ChangeRow[]) => new Set(list.map((row) => row.recordId));
  const events = ids(of('event'));
  const venues = ids(of('venue'));
  const organizers = ids(of('organizer'));
  const categoryRows = of('category');
  const tagRows = of('tag');
  const terms = [...categoryRows, ...tagRows];
  let allEvents = venues.size > 0 || organizers.size > 0 || terms.some((row) => row.deleted);
  if (!allEvents && terms.length) {
    const linked = await repositories.terms.linkedEventIds(
      terms.map((row) => row.recordId),
      MAX_IDS,
    );
    for (const id of linked) events.add(id);
  }
  allEvents ||= events.size > MAX_IDS;
  const categories = ids(categoryRows);
  const walk = categoryRows.length <= MAX_CATEGORY_WALKS;
  if (walk) for (const row of categoryRows) if (!row.deleted) for (const id of await repositories.terms.descendantIds(row.recordId)) categories.add(id);
  return {
    events: allEvents ? 'all' : events,
    venues: bounded(venues),
    organizers: bounded(organizers),
    categories: walk ? bounded(categories) : 'all',
    tags: bounded(ids(tagRows)),
  };
}

function bounded(ids: Set<number>): Ids {
  return ids.size > MAX_IDS ? 'all' : ids;
}
