import type { User } from '../../auth/capabilities.js';
import { mayPublish } from '../../policies/posts.js';
import type { PostColumns } from '../../repositories/posts.js';
import { resolveImage, type Body, type WriteContext } from '../posts/writes.js';
import { createOrReuse, duplicateLocks } from '../linked/writes.js';
import { TermNameTaken, type TaxonomyTerm } from '../../repositories/terms.js';
import { ORGANIZERS, VENUES, type LinkedKind } from '../../repositories/linked-kinds.js';
import { isMissingReference } from '../../db/errors.js';
import { invalidParams, type RestError } from '../../core/errors.js';
import { CATEGORIES, TAGS, type Taxonomy } from '../../repositories/taxonomies.js';
import { sanitizeSlug } from '../../text/slugs.js';
import { plainCostOf } from '../../text/plain-forms.js';
import type { Repositories } from '../../repositories/registry.js';
import { TIME_COLUMNS, timeColumnsOf, type EventColumns, type EventRow } from '../../repositories/events.js';
import type { LinkedItem, ParsedEvent, TermsInput } from './input.js';

/** The writes of one event from a parsed body, shared by the single-event and series paths. */

/** The `events` columns a parsed body sets. */
export function eventColumns(parsed: ParsedEvent, creating: boolean, siteTimezone: string): EventColumns {
  const own: EventColumns = {};
  if (parsed.times) Object.assign(own, timeColumnsOf(parsed.times));
  if (parsed.timezone !== undefined) own.timezone = parsed.timezone;
  else if (creating) own.timezone = siteTimezone;
  if (parsed.allDay !== undefined) own.all_day = parsed.allDay;
  const cost = parsed.cost ?? (creating ? { raw: [], values: [], min: null, max: null, symbol: '', position: '' as const } : undefined);
  if (cost) {
    own.cost_raw = JSON.stringify(cost.raw);
    own.cost_values = JSON.stringify(cost.values);
    own.cost_min = cost.min;
    own.cost_max = cost.max;
    own.currency_symbol = cost.symbol;
    own.currency_position = cost.position;
    // What pages show of the cost, written with it (text/plain-forms.ts).
    own.cost_plain = plainCostOf(cost.raw, cost.values, cost.symbol, cost.position);
  }
  if (parsed.website !== undefined) own.website = parsed.website;
  else if (creating) own.website = '';
  // The plugin's REST create stores the map flags it was not sent as false (docs/contract.md §6);
  // the columns' default, true, is what an event written outside the API without them reads.
  if (creating) Object.assign(own, { show_map: false, show_map_link: false });
  Object.assign(own, parsed.flags);
  return own;
}

/** The `events` columns a series copies to its occurrences: all but the times (which the rules give). */
export function copiedEventColumns(own: EventColumns): Record<string, unknown> {
  return Object.fromEntries(Object.entries(own).filter(([column]) => !TIME_COLUMNS.has(column)));
}

/**
 * The write locks (db/write-locks.ts) of an event write whose body creates venues or organizers: their
 * duplicate checks (docs/contract.md §6). Every transaction that runs `writeLinks` takes them first.
 */
export function eventWriteLocks(parsed: ParsedEvent): string[] {
  const created = [...(parsed.venues ?? []), ...(parsed.organizers ?? [])].flatMap((item) => ('prepared' in item ? [item.prepared] : []));
  return duplicateLocks(created);
}

/**
 * How a write's terms' published counts move, for `writeLinks`: `add`, a new published event counts
 * for its terms (their counts go up by one here); `lock`, the counts move after the links are written
 * (`shiftCounts`), so the terms are locked first: those linked and those the event counted for before
 * (`counted`); `none`, they do not move.
 *
 * Why before the links: on MySQL, replacing an update's links reads the terms of the old ones under
 * shared locks (the statement that deletes them checks each one's taxonomy), inserting a link takes a shared
 * lock on its term's row (the foreign key check), and a count moved after that needs the row's
 * exclusive lock. Two writes touching one term would each hold the shared lock the other waits for:
 * a deadlock on every concurrent pair, undone by retries. Locking first, in id order, makes them
 * wait their turn instead (docs/mysql-and-cluster.md "Lock order").
 */
export type TermCounting = { add: true } | { lock: true; counted: number[] } | 'none';

/**
 * Writes the venue/organizer/term links of a parsed body, creating what it asks to create.
 * @returns the terms written (of the taxonomies the body sent), with their taxonomy.
 */
export async function writeLinks(
  repositories: Repositories,
  eventId: number,
  parsed: ParsedEvent,
  writer: WriteContext,
  { isNew = false, counting = 'none' }: { isNew?: boolean; counting?: TermCounting } = {},
): Promise<TaxonomyTerm[]> {
  const events = repositories.events;
  const linked: LinkedIds = [];
  const ids = async (kind: LinkedKind, items: LinkedItem[]) => {
    const out: number[] = [];
    for (const item of items) out.push('id' in item ? item.id : await createOrReuse(repositories, item.prepared, writer));
    linked.push([kind, out]);
    return out;
  };
  try {
    if (parsed.venues) await events.setLinks(eventId, 'event_venues', 'venue_id', await ids(VENUES, parsed.venues), isNew);
    if (parsed.organizers) await events.setLinks(eventId, 'event_organizers', 'organizer_id', await ids(ORGANIZERS, parsed.organizers), isNew);
    const resolved: Array<[Taxonomy, number[]]> = [];
    for (const [taxonomy, input] of [
      [CATEGORIES, parsed.categories],
      [TAGS, parsed.tags],
    ] as Array<[Taxonomy, TermsInput | undefined]>) {
      if (input) resolved.push([taxonomy, await termIdsOf(repositories, taxonomy, input)]);
    }
    linked.push(...resolved);
    const written = resolved.flatMap(([taxonomy, termIds]) => termIds.map((id) => ({ id, taxonomy: taxonomy.name })));
    // The terms' rows are locked (or their counts raised) before any link to them takes its shared lock.
    if (counting !== 'none' && 'add' in counting) await repositories.terms.countNewEvent(written);
    if (counting !== 'none' && 'lock' in counting && resolved.length) await repositories.terms.lockForCounting([...written.map((term) => term.id), ...counting.counted]);
    for (const [taxonomy, termIds] of resolved) await events.setTerms(eventId, taxonomy.name, termIds, isNew);
    return written;
  } catch (err) {
    if (!isMissingReference(err)) throw err;
    throw (await goneLinkProblem(repositories, linked)) ?? err;
  }
}

/** The records a write links, by kind: venues and organizers, or a taxonomy's terms. */
type LinkedIds = Array<[LinkedKind | Taxonomy, number[]]>;

/**
 * A link to a record that another request deleted after the body was checked: the 400 the check
 * gives for a record that does not exist (domain/events/input.ts), and the write rolls back
 * (docs/contract.md §4). Undefined when every linked record still exists.
 */
async function goneLinkProblem(repositories: Repositories, linked: LinkedIds): Promise<RestError | undefined> {
  for (const [kind, ids] of linked) {
    const present = await ('nameField' in kind ? repositories.posts : repositories.terms).presentNow(ids);
    const gone = ids.find((id) => !present.has(id));
    if (gone === undefined) continue;
    return 'nameField' in kind
      ? invalidParams({ [kind.nameField]: `${kind.nameField} ${gone} is not a ${kind.label}.` })
      : invalidParams({ [kind.collection]: `${kind.collection} contains unknown ${kind.collection}: ${gone}.` });
  }
  return undefined;
}

/** The ids of the terms a body names in one taxonomy: those given, and those named, found or created. */
async function termIdsOf(repositories: Repositories, taxonomy: Taxonomy, input: TermsInput): Promise<number[]> {
  const termIds = [...input.ids];
  for (const name of input.create) {
    const existing = await repositories.terms.findByName(taxonomy, 0, name);
    if (existing) {
      termIds.push(existing.id);
      continue;
    }
    try {
      termIds.push(await repositories.terms.insert(taxonomy, { name, description: '', parent: 0 }, sanitizeSlug(name) || taxonomy.fallbackSlug, false));
    } catch (err) {
      if (!(err instanceof TermNameTaken)) throw err;
      termIds.push(err.existing.id);
    }
  }
  return termIds;
}

/**
 * Publishes the draft, pending and scheduled venues and organizers an event links, as the plugin does
 * on every write that leaves an event published (its `publishAssociatedTypes`, docs/contract.md §6):
 * those linked before this write, since the plugin publishes them before it saves the new links. A
 * create does not (the plugin's links are not saved yet then), nor a caller who may not publish. The
 * records keep their modification date, as WordPress's `wp_publish_post` does.
 */
async function publishLinkedDrafts(repositories: Repositories, eventId: number): Promise<void> {
  const drafts = await repositories.posts.unpublishedLinkedTo(eventId);
  for (const post of drafts) await repositories.posts.update(post, { status: 'publish' });
}

/**
 * Writes an update of one event in the caller's transaction: its image, columns, links and the
 * counts of its terms. `expected`: the version an If-Match named (docs/contract.md §10).
 */
export async function writeEvent(
  repositories: Repositories,
  row: EventRow,
  parsed: ParsedEvent,
  columns: Partial<PostColumns>,
  body: Body,
  writer: WriteContext & { user: User | undefined },
  expected?: number,
  own: EventColumns = eventColumns(parsed, false, writer.siteTimezone),
): Promise<void> {
  const imageId = await resolveImage(repositories, body.image, writer.user);
  if (imageId !== undefined) columns.image_id = imageId;
  // The terms an event counts for change only with its status or its terms; otherwise they are read
  // neither before nor after the update (two statements each).
  const countsMayMove = columns.status !== undefined || parsed.categories !== undefined || parsed.tags !== undefined;
  if ((columns.status ?? row.status) === 'publish' && mayPublish(writer.user)) await publishLinkedDrafts(repositories, row.id);
  const countedBefore = countsMayMove ? await repositories.events.countedTerms(row.id) : [];
  await repositories.events.update(row, columns, parsed.common.slug, own, expected);
  // The terms whose counts move are locked before the links are replaced (`TermCounting`): those the
  // event counted for, and when a draft is published with new links, every term it keeps too.
  const publishing = countsMayMove && (columns.status ?? row.status) === 'publish';
  const replacesTerms = parsed.categories !== undefined || parsed.tags !== undefined;
  const counted = replacesTerms && publishing && countedBefore.length === 0 ? await repositories.events.linkedTermIds(row.id) : countedBefore;
  const countsMove = countedBefore.length > 0 || publishing;
  await writeLinks(repositories, row.id, parsed, writer, { counting: countsMove ? { lock: true, counted } : 'none' });
  if (countsMayMove) await repositories.terms.shiftCounts(countedBefore, await repositories.events.countedTerms(row.id));
}
