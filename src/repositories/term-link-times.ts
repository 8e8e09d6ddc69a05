import type { Knex } from 'knex';
import { chunks } from './posts.js';

/**
 * Term links (`event_terms`) keep a copy of their event's local start and end: the `events` columns
 * the list's date window compares (repository.ts whereInWindow), in the same form. With the index on
 * (term, start, end, event) a list filtered by categories or tags and a window then reads only the
 * window's part of each term's links. The rule, kept here alone: a link's copy is its event's value,
 * written with the link and written again by every write that moves the event's times.
 */

/** The copied columns of a new link of `eventId`, read from the event's row by the insert itself. */
export function linkTimesOf(db: Knex, eventId: number): { start_local: Knex.QueryBuilder; end_local: Knex.QueryBuilder } {
  const ofEvent = (column: string) => db('events').select(column).where('post_id', eventId);
  return { start_local: ofEvent('start_local'), end_local: ofEvent('end_local') };
}

/** Copies the events' current times onto every term link of theirs (after a write moved them). */
export async function refreshLinkTimes(db: Knex, eventIds: number[]): Promise<void> {
  const ofEvent = (column: string) => db('events').select(column).whereRaw('events.post_id = event_terms.event_id');
  for (const part of chunks(eventIds))
    await db('event_terms')
      .whereIn('event_id', part)
      .update({ start_local: ofEvent('start_local'), end_local: ofEvent('end_local') });
}

/** Whether a write of `events` columns moves the event's times (and so the copy). */
export function movesTimes(columns: Record<string, unknown>): boolean {
  return columns.start_local !== undefined || columns.end_local !== undefined;
}
