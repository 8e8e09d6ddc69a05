import type { Knex } from 'knex';
import { inWriteTransaction } from '../../src/repositories/registry.js';
import { textKeyColumns } from '../../src/db/rendered-texts.js';

/**
 * Events written straight into the database, for tests of the venue and organizer filters
 * (`event`, `has_events`, `only_with_upcoming`) while the events API does not exist yet. Only for
 * tests: no validation, local times equal UTC times, time zone `UTC`.
 */
export interface EventRow {
  title: string;
  /** Post status, `publish` by default. */
  status?: string;
  /** Author user id, none by default. */
  authorId?: number | null;
  /** Start and end in UTC, `YYYY-MM-DD HH:MM:SS`. */
  startUtc: string;
  endUtc: string;
  /** Linked venues and organizers, in order. */
  venueIds?: number[];
  organizerIds?: number[];
}

let counter = 0;

/** Inserts a `posts` row (type `event`), its `events` row and its link rows; returns the event id. */
export async function insertEvent(db: Knex, event: EventRow): Promise<number> {
  const { title, status = 'publish', authorId = null, startUtc, endUtc, venueIds = [], organizerIds = [] } = event;
  counter += 1;
  const slug = `${
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'event'
  }-row-${process.pid}-${counter}`;
  const stamp = '2026-01-01 00:00:00';
  // Through the service's own write path (a transaction, the repositories, the events' copies).
  return inWriteTransaction(db, async (repositories) => {
    const id = await repositories.events.create(
      { status, author_id: authorId, title, description: '', excerpt: '', password: null, image_id: null, date: stamp, date_utc: stamp, modified: stamp, modified_utc: stamp },
      slug,
      { start_local: startUtc, end_local: endUtc, start_utc: startUtc, end_utc: endUtc, timezone: 'UTC', cost_raw: '[]', cost_values: '[]', website: '' },
    );
    await repositories.events.setLinks(id, 'event_venues', 'venue_id', venueIds, true);
    await repositories.events.setLinks(id, 'event_organizers', 'organizer_id', organizerIds, true);
    return id;
  });
}

/**
 * Writes a post's description or excerpt straight into its row, past every check (a row written
 * before the limits or bounds), with its rendered forms as migration 20261207000101 fills them for
 * such a row (src/db/rendered-texts.ts): reads then show the stored forms, as they do for every row.
 */
export async function storeRawText(db: Knex, id: number, columns: { description?: string; excerpt?: string }): Promise<void> {
  // The service's own write transaction (its retries; on SQLite it begins as a writer).
  await inWriteTransaction(db, async ({ db: trx }) => {
    await trx('posts')
      .where({ id })
      .update({ ...columns, ...(await textKeyColumns(trx, columns)) });
  });
}
