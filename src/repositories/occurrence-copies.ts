import type { Knex } from 'knex';
import { requireTransaction } from '../db/transactions.js';
import { noteChange } from '../db/change-log.js';
import { chunks, POST_COLUMNS, searchedFieldsOf } from './posts.js';
import { indexSearchText } from '../db/search-index.js';
import { namedRenderedTexts, releaseRenderedTexts, textFieldsOf, textKeyColumns } from '../db/rendered-texts.js';
import type { EventTimes } from '../dates/event-times.js';
import { timeColumnsOf } from './event-rows.js';
import { plainColumnsOf } from '../text/plain-forms.js';
import { linkTimesOf, movesTimes, refreshLinkTimes } from './term-link-times.js';
import { INSERT_CHUNK, inTurns, rowsWithin, textBytesOf } from './write-chunks.js';

/** A new occurrence: the local start the rules give it, and its times. */
interface NewOccurrence {
  recurrenceStart: string;
  times: EventTimes;
}

/** `posts` columns an occurrence copies from the first event: everything but its identity and version. */
const COPIED_POST_COLUMNS = POST_COLUMNS.filter((c) => !['id', 'type', 'slug', 'version'].includes(c));
/** `events` columns an occurrence copies from the first event (everything but its times and identity). */
const COPIED_EVENT_COLUMNS = [
  'timezone',
  'all_day',
  'cost_raw',
  'cost_values',
  'cost_min',
  'cost_max',
  'cost_plain',
  'currency_symbol',
  'currency_position',
  'currency_code',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'post_status',
  'post_date_utc',
  'post_modified_utc',
  // The subscription that manages the series (docs/importing.md "Subscribing to a calendar").
  'managed_subscription',
  'managed_source_id',
];

const LINK_TABLES = [
  { table: 'event_venues', column: 'venue_id', ordered: true },
  { table: 'event_organizers', column: 'organizer_id', ordered: true },
  { table: 'event_terms', column: 'term_id', ordered: false },
] as const;

/**
 * The occurrences of a series as copies of its first event (each an ordinary event: posts + events
 * rows, links copied from the first event): materialising new ones, and copying a change of the first
 * event to those that follow the series, in bulk statements, so that a two-year weekly series is a
 * handful of statements, not hundreds. Every occurrence written is noted for the change feed
 * (db/change-log.ts).
 */
export class OccurrenceCopyRepository {
  constructor(private readonly db: Knex) {}

  /**
   * Inserts occurrences of a series as copies of its first event (content, flags, venues, organizers,
   * terms) with their own times and slugs (`{first slug}-{date}`, made unique among events). Returns
   * the new ids in the order given. Term counts are the caller's (TermRepository.recount).
   */
  async insertOccurrences(firstId: number, occurrences: NewOccurrence[]): Promise<number[]> {
    if (occurrences.length === 0) return [];
    const trx = requireTransaction(this.db);
    const post = await trx('posts')
      .where('id', firstId)
      .first(['slug', ...COPIED_POST_COLUMNS]);
    const event = await trx('events').where('post_id', firstId).first(COPIED_EVENT_COLUMNS);
    const slugs = await this.freeSlugs(
      String(post.slug),
      occurrences.map((o) => o.recurrenceStart),
    );
    // The first event's rendered texts (db/rendered-texts.ts), held for the copies: found, not rendered again.
    const postColumns = { ...Object.fromEntries(COPIED_POST_COLUMNS.map((c) => [c, post[c]])), ...(await textKeyColumns(trx, post)) };
    const ids = new Map<string, number>();
    // As many copies per INSERT as their text allows (write-chunks.ts): a copy of a 16 KB description is 16 KB to index.
    for await (const part of inTurns(
      occurrences.map((o, i) => ({ ...postColumns, type: 'event', slug: slugs[i] })),
      rowsWithin(textBytesOf(postColumns), INSERT_CHUNK),
    )) {
      await trx('posts').insert(part);
      const found = await trx('posts')
        .where('type', 'event')
        .whereIn(
          'slug',
          part.map((row) => row.slug),
        )
        .select('id', 'slug');
      for (const row of found) ids.set(String(row.slug), Number(row.id));
    }
    const newIds = slugs.map((slug) => ids.get(slug)!);
    const eventRows = occurrences.map((o, i) => ({
      ...event,
      post_id: newIds[i],
      ...timeColumnsOf(o.times),
      series_id: firstId,
      recurrence_start: o.recurrenceStart,
      exception: false,
      post_parent: firstId,
    }));
    for await (const part of inTurns(eventRows, INSERT_CHUNK)) await trx('events').insert(part);
    await indexSearchText(trx, newIds, searchedFieldsOf(post), true);
    await this.copyLinks(firstId, newIds, true);
    for (const id of newIds) noteChange(trx, 'event', id);
    return newIds;
  }

  /**
   * Replaces the venue, organizer and term links of `targetIds` with the first event's (`isNew`: they
   * have none yet).
   */
  async copyLinks(firstId: number, targetIds: number[], isNew = false): Promise<void> {
    if (targetIds.length === 0) return;
    const trx = requireTransaction(this.db);
    for (const { table, column, ordered } of LINK_TABLES) {
      if (!isNew) for await (const part of inTurns(targetIds)) await trx(table).whereIn('event_id', part).delete();
      const links = await trx(table)
        .where('event_id', firstId)
        .select(ordered ? [column, 'position'] : [column]);
      if (links.length === 0) continue;
      // Term links carry their own event's times (term-link-times.ts), not the first event's.
      const rows = targetIds.flatMap((id) => links.map((link: Record<string, unknown>) => ({ ...link, event_id: id, ...(table === 'event_terms' ? linkTimesOf(trx, id) : {}) })));
      for await (const part of inTurns(rows, INSERT_CHUNK * 2)) await trx(table).insert(part);
    }
    for (const id of targetIds) noteChange(trx, 'event', id);
  }

  /**
   * Writes `posts` and `events` columns to several occurrences at once (a change of the whole
   * series), growing each one's version; the events' copies of the post columns follow.
   */
  async copyColumns(targetIds: number[], postColumns: Record<string, unknown>, eventColumns: Record<string, unknown>): Promise<void> {
    if (targetIds.length === 0) return;
    const trx = requireTransaction(this.db);
    const copies: Record<string, unknown> = {};
    if (postColumns.status !== undefined) copies.post_status = postColumns.status;
    if (postColumns.date_utc !== undefined) copies.post_date_utc = postColumns.date_utc;
    if (postColumns.modified_utc !== undefined) copies.post_modified_utc = postColumns.modified_utc;
    // New texts are rendered once for every occurrence; the ones they named before are let go at the end (db/rendered-texts.ts).
    const texts = textFieldsOf(postColumns);
    const keys = await textKeyColumns(trx, postColumns);
    const before = new Set<string>();
    for await (const part of inTurns(targetIds, rowsWithin(textBytesOf(postColumns)))) {
      if (texts.length) for (const key of await namedRenderedTexts(trx, 'posts', part, texts)) before.add(key);
      await trx('posts')
        .whereIn('id', part)
        .update({ ...postColumns, ...plainColumnsOf('posts', postColumns), ...keys, version: trx.raw('version + 1') });
      await indexSearchText(trx, part, searchedFieldsOf(postColumns));
      if (Object.keys({ ...eventColumns, ...copies }).length)
        await trx('events')
          .whereIn('post_id', part)
          .update({ ...eventColumns, ...copies });
      if (movesTimes(eventColumns)) await refreshLinkTimes(trx, part);
    }
    await releaseRenderedTexts(trx, 'posts', before, Object.values(keys));
    for (const id of targetIds) noteChange(trx, 'event', id);
  }

  /**
   * Slugs for new occurrences: `{base}-{YYYY-MM-DD}` (with `-HHMMSS` when the series has several
   * occurrences that day), then `-2`, `-3`, … where an event already has it. A concurrent create
   * taking one first makes the insert fail on the unique slug, and the transaction runs again.
   */
  private async freeSlugs(base: string, starts: string[]): Promise<string[]> {
    const perDay = new Map<string, number>();
    for (const start of starts) perDay.set(start.slice(0, 10), (perDay.get(start.slice(0, 10)) ?? 0) + 1);
    const wanted = starts.map((start) => `${base}-${start.slice(0, 10)}${perDay.get(start.slice(0, 10))! > 1 ? `-${start.slice(11).replace(/:/g, '')}` : ''}`.slice(0, 200));
    const taken = new Set<string>();
    for (const part of chunks(wanted)) for (const slug of await this.db('posts').where('type', 'event').whereIn('slug', part).pluck('slug')) taken.add(String(slug));
    const out: string[] = [];
    for (const slug of wanted) {
      let candidate = slug;
      for (let n = 2; taken.has(candidate); n++) {
        candidate = `${slug}-${n}`;
        if (!taken.has(candidate) && (await this.db('posts').where({ type: 'event', slug: candidate }).first('id'))) taken.add(candidate);
      }
      taken.add(candidate);
      out.push(candidate);
    }
    return out;
  }
}
