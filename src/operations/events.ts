import type { OperationContext, OperationTable, Reply } from './shared/operation.js';
import { noTarget, operation, queryInput, typeProblemsOf, writerOf } from './shared/operation.js';
import { bySingleRead } from './shared/replies.js';
import { checkIfMatch, conditionalWrite, tagOfBody, versionOf } from './shared/conditional.js';
import { createRecord } from './shared/idempotency.js';
import { singleReadInput } from './shared/password-guesses.js';
import { invalidParams } from '../core/errors.js';
import { RecordGone } from '../db/errors.js';
import { postPolicy, type WriteRequest } from '../policies/posts.js';
import { commonColumns, modifiedNow, resolveImage, type Body } from '../domain/posts/writes.js';
import type { PreparedCreate } from '../domain/linked/writes.js';
import { sanitizeSlug } from '../text/slugs.js';
import { eventRecords } from '../records/records.js';
import type { EventRecord } from '../records/events/mapper.js';
import { findRecord, removeRecord, type PostKind } from '../domain/posts/post-kind.js';
import { EVENTS } from '../domain/events/post-kind.js';
import type { EventRow, EventWithLinks } from '../repositories/events.js';
import { checkDateOrder, parseEventBody, type ParsedEvent } from '../domain/events/input.js';
import { occurrenceStarts, startSeries, type RecurrenceSettings } from '../domain/events/occurrences.js';
import { eventColumns, eventWriteLocks, writeLinks } from '../domain/events/writes.js';
import { removeInScope, resolveScope, updateInScope } from '../domain/events/series-writes.js';

type ReadOp = 'getEvent' | 'getEventBySlug';
type UpdateOp = 'updateEvent' | 'putEvent' | 'patchEvent' | 'updateEventBySlug' | 'putEventBySlug' | 'patchEventBySlug';
type DeleteOp = 'deleteEvent' | 'deleteEventBySlug';

async function record(ctx: OperationContext, row: EventRow, single = false) {
  const [built] = await eventRecords(ctx.repositories, [row], ctx.user, ctx.urls, { single });
  return built;
}

/**
 * An event just written and its record, read with its links in one statement
 * (`EventRepository.findWithLinks`) rather than the row and then its links: a write's answer.
 */
async function writtenRecord(ctx: OperationContext, id: number, repositories = ctx.repositories): Promise<{ row: EventRow; built: EventRecord }> {
  const found = await repositories.events.findWithLinks(id);
  if (!found) throw new RecordGone('event', id);
  const { links, ...row } = found;
  const [built] = await eventRecords(repositories, [row], ctx.user, ctx.urls, { single: false, links });
  return { row, built };
}

/** The `ETag` a GET of the event by this caller would get now (a 412's answer: operations/shared/conditional.ts). */
async function currentTag(ctx: OperationContext, id: number): Promise<string | undefined> {
  const row = await EVENTS.findById(ctx.repositories, id);
  return row && tagOfBody(versionOf('event', row), await record(ctx, row, true));
}

/** What an event write asks for that needs rights: its own status and author, and those of the venues and organizers it creates. */
function writeRequests(parsed: ParsedEvent): { own: WriteRequest; nested: WriteRequest[] } {
  const nested = [...(parsed.venues ?? []), ...(parsed.organizers ?? [])]
    .filter((item): item is { prepared: PreparedCreate } => 'prepared' in item)
    .map(({ prepared }) => ({ status: prepared.parsed.status, authorId: prepared.parsed.authorId }));
  return { own: { status: parsed.common.status, authorId: parsed.common.authorId }, nested };
}

/** The policy of an event write: the event's own action, and `create` for each venue or organizer it creates. */
function authorizeWrite(action: 'create' | 'edit') {
  return (user: OperationContext['user'], target: EventRow | undefined, input: { parsed: ParsedEvent }): void => {
    const { own, nested } = writeRequests(input.parsed);
    if (action === 'create' || !target) postPolicy.create(user, undefined, own);
    else postPolicy.edit(user, target, own);
    for (const request of nested) postPolicy.create(user, undefined, request);
  };
}

async function parseWrite(ctx: OperationContext<'createEvent' | UpdateOp>): Promise<{ body: Body; parsed: ParsedEvent }> {
  const body: Body = ctx.body ?? {};
  const problems: Record<string, string> = {};
  // Input that is wrong whatever the record is comes first (400), then the record (404), then the
  // right (403); checks that need the record (an end before the stored start) come last, so that a
  // caller who may not edit the record learns nothing of its dates from them.
  const parsed = await parseEventBody(body, undefined, writerOf(ctx), problems);
  if (Object.keys(problems).length) throw invalidParams(problems);
  // Booleans that are no booleans come before our own date check, as in WordPress (http/param-stages.ts).
  const typeProblems = typeProblemsOf(ctx);
  if (typeProblems) throw typeProblems;
  checkDateOrder(parsed, problems);
  if (Object.keys(problems).length) throw invalidParams(problems);
  return { body, parsed };
}

function recurrenceSettings(ctx: OperationContext): RecurrenceSettings {
  return { maxOccurrences: ctx.config.recurrenceMaxOccurrences, horizonDays: ctx.config.recurrenceHorizonDays };
}

/** A create's body, and the occurrences its `recurrence` gives (400 naming the line, before anything else is looked at). */
async function parseCreate(ctx: OperationContext<'createEvent'>) {
  const { body, parsed } = await parseWrite(ctx);
  const lines = parsed.recurrence ?? [];
  if (lines.length === 0 || !parsed.times) return { body, parsed, series: undefined };
  const timezone = parsed.timezone ?? ctx.config.siteTimezone;
  const template = { lines, timezone, startLocal: parsed.times.startLocal, endLocal: parsed.times.endLocal };
  return { body, parsed, series: { template, ...(await occurrenceStarts(template, ctx.now(), recurrenceSettings(ctx))) } };
}

const create = operation({
  parse: parseCreate,
  load: noTarget,
  authorize: authorizeWrite('create'),
  async execute(ctx: OperationContext<'createEvent'>, { body, parsed, series }) {
    const writer = writerOf(ctx);
    const columns = commonColumns(parsed.common, undefined, writer);
    // The event, its new venues, organizers, terms and image, and its links: one transaction.
    return createRecord(
      ctx,
      async (repositories) => {
        const imageId = await resolveImage(repositories, body.image, ctx.user);
        const eventId = await repositories.events.create(
          { ...(columns as Required<typeof columns>), image_id: imageId ?? null },
          parsed.common.slug ?? (sanitizeSlug(parsed.common.title ?? '') || 'event'),
          eventColumns(parsed, true, writer.siteTimezone),
        );
        // A new event counts for its terms when it is published: what is written, not read again.
        await writeLinks(repositories, eventId, parsed, writer, { isNew: true, counting: columns.status === 'publish' ? { add: true } : 'none' });
        // A series: its other occurrences are copies of this first event, in the same transaction.
        if (series) await startSeries(repositories, { id: eventId, ...series.template }, series.starts, series.horizon);
        return eventId;
      },
      async (repositories, id) => {
        const { row, built } = await writtenRecord(ctx, id, repositories);
        return { status: 201, body: built, headers: { Location: ctx.urls.item('events', id) }, version: versionOf('event', row) };
      },
      eventWriteLocks(parsed),
    );
  },
});

/** Events found with their links, for single reads (the 404 and 400 of `findRecord` as for any event). */
const EVENTS_WITH_LINKS: PostKind<EventWithLinks> = {
  ...EVENTS,
  findById: (repositories, id) => repositories.events.findWithLinks(id),
  findBySlug: (repositories, slug) => repositories.events.findBySlugWithLinks(slug),
};

/** A single read: the row and its links in one statement, and the record built from them. */
const get = operation({
  parse: (ctx: OperationContext<ReadOp>) => singleReadInput(ctx),
  cache: bySingleRead,
  load: (ctx: OperationContext<ReadOp>) => findRecord(EVENTS_WITH_LINKS, ctx.repositories, ctx.path),
  authorize: postPolicy.read,
  async execute(ctx: OperationContext<ReadOp>, _query, found): Promise<Reply<ReadOp>> {
    const { links, ...row } = found;
    const [built] = await eventRecords(ctx.repositories, [row], ctx.user, ctx.urls, { single: true, links });
    return { status: 200, body: built, version: versionOf('event', row) };
  },
});

/**
 * The answer of a write of an event of a series: the event's record, and the occurrences the write
 * left as they were because the caller may not change them (docs/contract.md §14).
 */
function withSkipped<T extends object>(built: T, skipped: number[]): T & { skipped_occurrences: number[] } {
  return { ...built, skipped_occurrences: skipped };
}

const update = operation({
  parse: parseWrite,
  permit: postPolicy.mayTryEdit,
  load: (ctx: OperationContext<UpdateOp>) => findRecord(EVENTS, ctx.repositories, ctx.path),
  authorize: authorizeWrite('edit'),
  async execute(ctx: OperationContext<UpdateOp>, { body }, row: EventRow) {
    // A stale If-Match (412) before the checks against the stored record (docs/contract.md §10).
    await checkIfMatch(ctx, versionOf('event', row), () => currentTag(ctx, row.id));
    const writer = writerOf(ctx);
    const problems: Record<string, string> = {};
    const parsed = await parseEventBody(body, row, writer, problems);
    checkDateOrder(parsed, problems);
    if (Object.keys(problems).length) throw invalidParams(problems);
    // A single event, or the scope of a series it belongs to (docs/contract.md §14).
    const scope = resolveScope(ctx.query.scope, row);
    const skipped = await conditionalWrite(
      ctx,
      versionOf('event', row),
      () => currentTag(ctx, row.id),
      (expected) => updateInScope({ db: ctx.db, writer, settings: recurrenceSettings(ctx) }, row, body, parsed, scope, expected),
    );
    const { row: updated, built } = await writtenRecord(ctx, row.id).catch((err: unknown) => {
      // A series write may remove the occurrence in the path (`recurrence: []`, or rules that no
      // longer hold its start): the answer is then the series' first event, as the write left it (§14).
      if (err instanceof RecordGone && scope === 'all' && row.seriesId !== null && row.seriesId !== row.id) return writtenRecord(ctx, row.seriesId);
      throw err;
    });
    return { status: 200, body: scope === 'single' ? built : withSkipped(built, skipped), version: versionOf('event', updated) };
  },
});

const remove = operation({
  parse: (ctx: OperationContext<DeleteOp>) => queryInput(ctx),
  permit: postPolicy.mayTryRemove,
  load: (ctx: OperationContext<DeleteOp>) => findRecord(EVENTS, ctx.repositories, ctx.path),
  authorize: postPolicy.remove,
  async execute(ctx: OperationContext<DeleteOp>, query, row) {
    const modified = modifiedNow(ctx.now(), ctx.config.siteTimezone);
    // An event of a series: on the first event the whole series, else the scope asked (docs/contract.md §14).
    const scope = row.seriesId === row.id ? 'all' : resolveScope(query.scope, row);
    if (scope !== 'single') {
      const before = await record(ctx, row);
      const skipped = await conditionalWrite(
        ctx,
        versionOf('event', row),
        () => currentTag(ctx, row.id),
        (expected) => removeInScope({ db: ctx.db, writer: writerOf(ctx), settings: recurrenceSettings(ctx) }, row, scope, query.force === true, expected),
      );
      // The record as it is now, or as it was when it is gone (deleted for good, as `force` answers).
      const after = await EVENTS.findById(ctx.repositories, row.id);
      return { status: 200, body: withSkipped(after ? await record(ctx, after) : before, skipped), version: versionOf('event', after ?? row) };
    }
    const removed = await conditionalWrite(
      ctx,
      versionOf('event', row),
      () => currentTag(ctx, row.id),
      (expected) => removeRecord(EVENTS, ctx.repositories, row, { force: query.force === true, modified, expected }, (current) => record(ctx, current)),
    );
    return { status: 200, body: removed.record, version: versionOf('event', removed.row) };
  },
});

/**
 * The reads and writes of one event, by id or by slug, and the policy action each is judged by
 * (policies/posts.ts). The lists are in operations/event-lists.ts, the feeds in event-feeds.ts and a
 * series' occurrences in event-occurrences.ts.
 */
export const eventOperations = {
  createEvent: create,
  getEvent: get,
  updateEvent: update,
  putEvent: update,
  patchEvent: update,
  deleteEvent: remove,
  getEventBySlug: get,
  updateEventBySlug: update,
  putEventBySlug: update,
  patchEventBySlug: update,
  deleteEventBySlug: remove,
} satisfies Partial<OperationTable>;
