import crypto from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import type { User } from '../auth/capabilities.js';
import type { ChangeType } from '../db/change-log.js';
import type { ChangeRow, ChangeRepository, CursorKey, FeedState, PositionWaits } from '../repositories/changes.js';
import { formatUtc } from '../dates/storage.js';
import { RestError, invalidParam } from '../core/errors.js';
import { mayFollow } from '../policies/posts.js';
import { inWriteTransaction, type Repositories } from '../repositories/registry.js';
import { ORGANIZERS, VENUES } from '../repositories/linked-kinds.js';
import { CATEGORIES, TAGS } from '../repositories/taxonomies.js';
import type { Urls } from '../core/urls.js';
import { eventRecords, linkedRecords, termRecords } from './records.js';
import { slicesInTurns, TurnClock } from '../core/loop-turns.js';
import { Slots } from '../core/slots.js';
import { engineOf } from '../db/engine.js';

/**
 * The change feed, `GET /changes` (docs/contract.md §9): cursors, pages of changes as this caller
 * sees them, the wait for the next change, and the purge of old tombstones.
 */

export type Change = components['schemas']['Change'];
export type ChangeFeed = components['schemas']['ChangeFeed'];

const COLLECTIONS: Record<ChangeType, string> = { event: 'events', venue: 'venues', organizer: 'organizers', category: 'categories', tag: 'tags' };

// ---------------------------------------------------------------------------------------------
// Cursors: `{position in base 36}.{HMAC}` signed with the secret kept in the feed's row (change_sequence), so every
// process signs alike and a cursor cannot be forged or edited (a position nobody was given is 400). After a
// restore the cursor also names its history: `{position}.{history}.{HMAC}` (docs/durability.md "The change
// feed after a restore"); the original history keeps the first form, so cursors given out before
// histories existed stay valid.

function mac(secret: string, position: number, history: string): string {
  const signed = history === '' ? `tec-changes:${position}` : `tec-changes:${history}:${position}`;
  return crypto.createHmac('sha256', secret).update(signed).digest('base64url').slice(0, 22);
}

export function encodeCursor(key: CursorKey, position: number): string {
  const history = key.history === '' ? '' : `.${key.history}`;
  return `${position.toString(36)}${history}.${mac(key.secret, position, key.history)}`;
}

const CURSOR = /^([0-9a-z]{1,11})(?:\.([0-9a-z]{1,16}))?\.([A-Za-z0-9_-]{22})$/;

/** The position and history a cursor stands for, or undefined when it is malformed or was not signed here. */
function decodeCursor(secret: string, cursor: string): { position: number; history: string } | undefined {
  const match = CURSOR.exec(cursor);
  if (!match) return undefined;
  // Past the safe integers the position is rounded, and no cursor was given out there: its signature does not match.
  const position = parseInt(match[1], 36);
  const history = match[2] ?? '';
  // CURSOR fixes the signature's length (22 ASCII characters), as timingSafeEqual needs.
  return crypto.timingSafeEqual(Buffer.from(match[3]), Buffer.from(mac(secret, position, history))) ? { position, history } : undefined;
}

/** The feed's position now, as a cursor: what lists send in `X-TEC-Change-Cursor`, read before their page. */
export async function currentCursor(repositories: Repositories): Promise<string> {
  return encodeCursor(await repositories.changes.cursorKey(), await repositories.changes.cachedPosition());
}

// ---------------------------------------------------------------------------------------------
// Pages

interface FeedRequest {
  /** The `after` cursor as sent; undefined: from the oldest change kept. */
  after: string | undefined;
  types: readonly ChangeType[];
  perPage: number;
  waitSeconds: number;
  retentionDays: number;
  now: Date;
  /** True once the client has gone (the wait stops). */
  gone: () => boolean;
  /** Bytes the page's JSON may take (REPLY_LIMIT): a page is cut short before it passes them. */
  replyLimit: number;
}

/** Tombstones purged per request at most. */
const PURGE_BATCH = 1000;

/**
 * The starting position of a request: 400 for a malformed, forged or future cursor; 410 when changes
 * after it have been purged. Purges tombstones past the retention first (a bounded batch), so a
 * cursor older than the retention answers 410 once such a tombstone exists after it.
 */
async function startPosition(repositories: Repositories, request: FeedRequest): Promise<{ after: number; key: CursorKey; position: number }> {
  const repo = repositories.changes;
  let state = await repo.state();
  const cursor = request.after === undefined ? { position: 0, history: state.history } : decodeCursor(state.secret, request.after);
  const position = await repo.position();
  if (cursor === undefined) throw invalidParam('after', 'after is not a cursor this feed gave out.');
  const after = cursor.position;
  if (cursor.history !== state.history) await checkEarlierHistory(repo, cursor.history, after);
  else if (after > position) throw invalidParam('after', 'after is not a cursor this feed gave out.');
  const cutoff = formatUtc(new Date(request.now.getTime() - request.retentionDays * 86_400_000));
  const oldest = await repo.oldestTombstone(state.purged);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; purge forgets only tombstones before the cutoff itself.
  if (oldest && oldest.changedUtc < cutoff) {
    await inWriteTransaction(repositories.db, (trx) => trx.changes.purge(cutoff, PURGE_BATCH));
    state = await repo.state();
  }
  if (request.after !== undefined && cursorExpired(after, state)) {
    throw new RestError(410, 'rest_cursor_expired', 'Changes after this cursor are no longer kept. Read the lists again, then follow the feed from their X-TEC-Change-Cursor.');
  }
  return { after, key: { secret: state.secret, history: state.history }, position };
}

/**
 * Whether changes after position `after` have been purged, so the feed can no longer give them
 * exactly: `GET /changes` answers 410, a webhook expires (webhooks/worker.ts).
 */
export function cursorExpired(after: number, state: FeedState): boolean {
  return after < state.purged;
}

/**
 * A cursor signed here but of another history (docs/durability.md): valid when this database was
 * restored from a copy of that history taken after the cursor was given out; 410 when it was given
 * out after the copy (the changes it had seen are not here), or by a history this one does not
 * descend from.
 */
async function checkEarlierHistory(repo: ChangeRepository, history: string, after: number): Promise<void> {
  const fence = await repo.fence(history);
  if (fence === undefined || after > fence) {
    throw new RestError(
      410,
      'rest_cursor_expired',
      'The data was restored from a copy taken before this cursor was given out. Read the lists again, then follow the feed from their X-TEC-Change-Cursor.',
    );
  }
}

/**
 * Up to `perPage` changes after `after`, up to the committed position read before them (a change past
 * it may be followed by one not yet committed, so it waits for the next page: db/change-log.ts).
 */
async function readPage(
  repo: ChangeRepository,
  after: number,
  types: readonly ChangeType[],
  perPage: number,
  known?: number,
): Promise<{ rows: ChangeRow[]; position: number; hasMore: boolean }> {
  const position = known ?? (await repo.position());
  const rows = await repo.page(after, position, types, perPage + 1);
  return { rows: rows.slice(0, perPage), position, hasMore: rows.length > perPage };
}

/**
 * The rows of up to `limit` changes of `types` after `after`, up to the committed position `upTo`,
 * unbuilt: webhooks read them so, and build each change once for every webhook that sees it alike
 * (webhooks/builds.ts, with `changesOfRows`).
 */
export async function feedRowsAfter(
  repositories: Repositories,
  after: number,
  options: { types: readonly ChangeType[]; limit: number; upTo: number },
): Promise<{ rows: ChangeRow[]; position: number; hasMore: boolean }> {
  return readPage(repositories.changes, after, options.types, options.limit, options.upTo);
}

/** The changes of these rows as `user` sees them, one per row, in order: what `GET /changes` gives that caller for them. */
export async function changesOfRows(repositories: Repositories, user: User | undefined, urls: Urls, rows: ChangeRow[]): Promise<Change[]> {
  return changesAsSeenBy(repositories, user, urls, rows, await repositories.changes.cursorKey());
}

/**
 * Pages built at once in this process on SQLite; the others wait for one of them to be done. A page
 * of 100 records holds them and their JSON (about 0.6 MB for the benchmark's events) until it is
 * sent, so 32 followers building pages together held the largest live heap of any scenario; built
 * two at a time, they take the same processor time in all, since on SQLite a page is the service's
 * own work on the event loop (docs/performance.md "Memory"). On MySQL a page mostly waits on the
 * server, and a statement that never answers would hold its slot: there pages are not queued.
 */
const PAGE_BUILDS = new Slots(2);

/** One page of the feed for this caller, waiting up to `waitSeconds` for a change when none follows the cursor. */
export async function changeFeed(repositories: Repositories, user: User | undefined, urls: Urls, request: FeedRequest): Promise<ChangeFeed> {
  const { after, key, position } = await startPosition(repositories, request);
  const deadline = Date.now() + request.waitSeconds * 1000;
  let page = await readPage(repositories.changes, after, request.types, request.perPage, position);
  // Stryker disable next-line EqualityOperator: `<=` differs only in the deadline's own millisecond.
  while (page.rows.length === 0 && Date.now() < deadline && !request.gone()) {
    // Nothing follows the cursor: wait for the committed position to move (a change committed), then read again.
    if (await changeAfter(repositories.changes, page.position)) page = await readPage(repositories.changes, after, request.types, request.perPage);
  }
  const build = async () => {
    // A client that left while the page waited for its slot gets nothing built (nobody reads it).
    const seen = request.gone() ? [] : await changesAsSeenBy(repositories, user, urls, page.rows, key);
    const changes = await withinBytes(seen, pageBytes(request.replyLimit));
    return { changes, cut: changes.length < seen.length };
  };
  const { changes, cut } = engineOf(repositories.db) === 'sqlite' ? await PAGE_BUILDS.run(build) : await build();
  // An empty page may move the cursor to the position read before it: every change up to there had
  // committed, and none of them follows the cursor (for the types asked).
  const next = changes.length ? page.rows[changes.length - 1].seq : Math.max(after, page.position);
  return { changes, next_cursor: encodeCursor(key, next), has_more: page.hasMore || cut };
}

/**
 * What the changes of one page may weigh: REPLY_LIMIT less room for the envelope, and at most
 * 2 MiB, so that serialising a page stays short work for the event loop. The feed is read by
 * cursor, so a shorter page only means one more request.
 */
export function pageBytes(replyLimit: number): number {
  return Math.min(replyLimit - 4096, 2 * 1024 * 1024);
}

/**
 * The first changes whose JSON fits in `budget` bytes, and always the first one: a record is far
 * smaller than any page (docs/limits.md), so the feed moves past every position, whatever a record
 * holds. Weighed in turns of the event loop: 500 changes of long records are megabytes of JSON.
 */
async function withinBytes(changes: Change[], budget: number): Promise<Change[]> {
  const clock = new TurnClock();
  let bytes = 0;
  for (let i = 0; i < changes.length; i++) {
    if (clock.due) await clock.turn();
    bytes += Buffer.byteLength(JSON.stringify(changes[i])) + 1;
    if (bytes > budget && i > 0) return changes.slice(0, i);
  }
  return changes;
}

/**
 * Records read and built per slice of a page, with a turn of the event loop between slices once they
 * have held it for TURN_BUDGET_MS (docs/limits.md "Large pages are read in slices"): on SQLite,
 * whose driver reads on the loop, a page of 500 events with long descriptions is then several short
 * holds rather than one of a hundred milliseconds or more.
 */
const RECORDS_PER_SLICE = 100;

/**
 * The changes as this caller sees them now: an upsert carries the record as a single GET without a
 * password returns it; a record that no longer exists, or that this caller may not read in full
 * (trashed, unpublished, protected), is a delete without content.
 */
async function changesAsSeenBy(repositories: Repositories, user: User | undefined, urls: Urls, rows: ChangeRow[], key: CursorKey): Promise<Change[]> {
  // The ids to read per type (a tombstone's record is looked for too: it no longer exists).
  const idsOf: Record<ChangeType, number[]> = { event: [], venue: [], organizer: [], category: [], tag: [] };
  for (const row of rows) idsOf[row.type].push(row.recordId);
  const records = new Map<string, Change['record']>();
  const put = (type: ChangeType, id: number, record: Change['record']) => records.set(`${type}:${id}`, record);

  await slicesInTurns(idsOf.event, RECORDS_PER_SLICE, async (part) => {
    const events = (await repositories.events.findByIds(part)).filter((row) => mayFollow(user, row));
    const built = await eventRecords(repositories, events, user, urls, { single: true });
    events.forEach((row, i) => put('event', row.id, built[i]));
  });
  for (const kind of [VENUES, ORGANIZERS]) {
    await slicesInTurns(idsOf[kind.type], RECORDS_PER_SLICE, async (part) => {
      const linked = (await repositories.linked(kind).findByIds(part)).filter((row) => mayFollow(user, row));
      // mayFollow required that the caller may see their protected text: nothing is masked.
      const built = await linkedRecords(repositories, kind, linked, user, urls, { single: true });
      linked.forEach((row, i) => put(kind.type, row.id, built[i]));
    });
  }
  for (const [type, taxonomy] of [
    ['category', CATEGORIES],
    ['tag', TAGS],
  ] as const) {
    // A change's type is its term's taxonomy (db/change-log.ts), so these are terms of this taxonomy.
    const terms = await repositories.terms.findByIds(idsOf[type]);
    const built = await termRecords(repositories, taxonomy, terms, urls);
    terms.forEach((term, i) => put(type, term.id, built[i]));
  }

  return rows.map((row): Change => {
    const record = records.get(`${row.type}:${row.recordId}`);
    const change: Change = {
      cursor: encodeCursor(key, row.seq),
      type: row.type,
      id: row.recordId,
      action: record ? 'upsert' : 'delete',
      modified_utc: row.changedUtc,
      rest_url: urls.item(COLLECTIONS[row.type], row.recordId),
      // Left out of the JSON when undefined (a delete).
      record,
    };
    return change;
  });
}

// ---------------------------------------------------------------------------------------------
// Waiting: one poll of the committed position per app (its ChangeFeedCache) and 250 ms, whatever the
// number of waiting requests, so the wait works across processes (it is read from the database) and
// stays cheap.

const POLL_MS = 250;

/** At the next poll of the committed position: true when it passed `position`, false otherwise. */
function changeAfter(repo: ChangeRepository, position: number): Promise<boolean> {
  // A reader without a cache polls for itself.
  const shared: PositionWaits = repo.cache?.waits ?? { waiters: new Set(), timer: undefined };
  return new Promise((resolve) => {
    // Each poll answers: the loop in changeFeed reads again when the position moved, and otherwise
    // waits again unless the deadline passed or the client has gone.
    const waiter = (current: number) => resolve(current > position);
    shared.waiters.add(waiter);
    const tick = async () => {
      // A failed poll counts as "nothing yet" (no position is below 0); the next one tries again.
      let current = 0;
      try {
        current = await repo.position();
      } catch {
        // See above.
      }
      // Every waiter answers now; those that wait on ask again, which starts the next poll.
      const waking = shared.waiters;
      shared.waiters = new Set();
      shared.timer = undefined;
      for (const wake of waking) wake(current);
    };
    shared.timer ??= setTimeout(tick, POLL_MS);
  });
}
