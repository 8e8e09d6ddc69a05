import type { Knex } from 'knex';
import { invalidParams, RestError } from '../../core/errors.js';
import { mayDelete, mayEdit, postPolicy } from '../../policies/posts.js';
import type { User } from '../../auth/capabilities.js';
import type { PostColumns } from '../../repositories/posts.js';
import { commonColumns, modifiedNow, type Body, type WriteContext } from '../posts/writes.js';
import { endBefore, exdateLine, startFrom } from '../../dates/recurrence-rewrites.js';
import { shiftLocal } from '../../dates/wall-clock.js';
import { inWriteTransaction, type Repositories } from '../../repositories/registry.js';
import { loopTurn } from '../../core/loop-turns.js';
import { checkDateOrder, parseEventBody, type ParsedEvent } from './input.js';
import { timeColumnsOf, type EventColumns, type EventRow } from '../../repositories/events.js';
import type { OccurrenceRow, SeriesRow } from '../../repositories/series.js';
import { asRecurrenceInput, occurrenceStarts, occurrenceTimes, startSeries, syncOccurrences, type RecurrenceSettings, type SeriesTemplate } from './occurrences.js';
import { copiedEventColumns, eventColumns, eventWriteLocks, writeEvent } from './writes.js';

/**
 * Updates and deletes of events that belong to a recurring series (docs/contract.md §14), by
 * `scope`: `this` occurrence (it becomes an exception; a delete adds an EXDATE), this and the
 * `following` ones (a split: the series ends before it, a new one starts there), or `all` of them.
 * Each is one transaction; the rules are expanded (and refused with 400) before it starts.
 *
 * Rights: the caller needs the right on the event in the path (the request's policy) and, for a
 * write beyond it, on the series' first event (its rules are stored with it; `seriesOf`). Every
 * other occurrence is written only when the caller may edit it (an update) or delete it (a delete);
 * the others are left as they are and reported (`Skipped`; docs/contract.md §14).
 */

export type Scope = 'this' | 'following' | 'all';
/** What a write applies to: a single event, or a scope of a series. */
type ResolvedScope = Scope | 'single';

/** The scope of a write: `all` by default on the first event (where `following` is `all` too), `this` on a later occurrence. */
export function resolveScope(requested: Scope | undefined, row: EventRow): ResolvedScope {
  if (row.seriesId === null) return 'single';
  if (row.seriesId === row.id) return requested === 'this' ? 'this' : 'all';
  return requested ?? 'this';
}

/**
 * The ids of the occurrences a series write left as they were because the caller may not edit (or
 * delete) them, in series order: the answer's `skipped_occurrences`.
 */
export type Skipped = number[];

/**
 * The occurrences among `occurrences` the caller may not edit (`edit`) or delete (`remove`), by the
 * post rules of policies/posts.ts: a series write leaves them alone.
 */
function keptFrom(user: User | undefined, occurrences: OccurrenceRow[], action: 'edit' | 'remove'): Set<number> {
  const may = action === 'edit' ? mayEdit : mayDelete;
  return new Set(occurrences.filter((occurrence) => !may(user, occurrence)).map((occurrence) => occurrence.id));
}

/** What a series write needs besides the event and its body. */
interface SeriesWriteContext {
  db: Knex;
  writer: WriteContext;
  settings: RecurrenceSettings;
}

/** Whether a body changes the event's venues, organizers or terms. */
function changesLinks(parsed: ParsedEvent): boolean {
  return parsed.venues !== undefined || parsed.organizers !== undefined || parsed.categories !== undefined || parsed.tags !== undefined;
}

/** The series and its first event, with the caller's right to edit (or delete) the first event checked. */
async function seriesOf(c: SeriesWriteContext, row: EventRow, action: 'edit' | 'remove', parsed?: ParsedEvent) {
  const series = await c.writer.repositories.series.find(row.seriesId!);
  const first = row.id === row.seriesId ? row : await c.writer.repositories.events.findById(row.seriesId!);
  if (!series || !first) throw new RestError(404, 'rest-event-not-found', `Event with ID ${row.seriesId} does not exist.`);
  if (action === 'edit') postPolicy.edit(c.writer.user, first, { status: parsed?.common.status, authorId: parsed?.common.authorId });
  else postPolicy.remove(c.writer.user, first);
  const template: SeriesTemplate = { id: first.id, lines: series.rules, timezone: first.timezone, startLocal: first.startLocal, endLocal: first.endLocal };
  return { series, first, template, stillAsPlanned: (repositories: Repositories) => expectAsPlanned(repositories, series, first) };
}

/**
 * Thrown inside a series write's transaction when the series or its first event changed after the
 * write read them to plan its occurrences (a concurrent series write, or the horizon extension):
 * the transaction rolls back and the write is planned again from what is committed now.
 */
class SeriesChanged extends Error {}

/**
 * The first statements of a series write's transaction: locks the series row (on MySQL; SQLite runs
 * one write transaction at a time) and checks that it and its first event are still what the plan
 * was made from.
 */
async function expectAsPlanned(repositories: Repositories, series: SeriesRow, first: EventRow): Promise<void> {
  const seriesNow = await repositories.series.findLocked(series.id);
  const firstNow = await repositories.events.findById(first.id);
  if (!seriesNow || !firstNow || JSON.stringify(seriesNow) !== JSON.stringify(series) || firstNow.version !== first.version) throw new SeriesChanged();
}

/**
 * Runs a series write on the event in the path, and again (bounded) while a concurrent write changed
 * the series under it: each new plan starts from that event as committed now.
 */
async function replanned<T>(c: SeriesWriteContext, row: EventRow, write: (current: EventRow) => Promise<T>): Promise<T> {
  let current = row;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(current);
    } catch (err) {
      if (!(err instanceof SeriesChanged) || attempt >= 8) throw err;
      current = (await c.writer.repositories.events.findById(row.id)) ?? row;
    }
  }
}

/**
 * Marks the occurrences a series update leaves alone as exceptions: from now on they differ from the
 * series, as an occurrence edited on its own does (they keep their own content and times when the
 * series changes again, and iCalendar feeds write them with their own content).
 */
async function leaveAlone(repositories: Repositories, occurrences: OccurrenceRow[], kept: ReadonlySet<number>): Promise<void> {
  await repositories.occurrenceWrites.markExceptions(
    occurrences.filter((o) => kept.has(o.id) && !o.exception).map((o) => o.id),
    true,
  );
}

/** Copies a change of the series' content to its occurrences that follow it (and a status change to its exceptions too). */
async function copyChange(
  repositories: Repositories,
  sourceId: number,
  occurrences: Array<{ id: number; exception: boolean }>,
  columns: Partial<PostColumns>,
  own: EventColumns,
  parsed: ParsedEvent,
) {
  const followers = occurrences.filter((o) => !o.exception).map((o) => o.id);
  const exceptions = occurrences.filter((o) => o.exception).map((o) => o.id);
  await repositories.occurrenceCopies.copyColumns(followers, columns, copiedEventColumns(own));
  if (columns.status !== undefined)
    await repositories.occurrenceCopies.copyColumns(exceptions, { status: columns.status, modified: columns.modified, modified_utc: columns.modified_utc }, {});
  if (changesLinks(parsed)) await repositories.occurrenceCopies.copyLinks(sourceId, followers);
}

/**
 * An update of an event under a scope (docs/contract.md §14). `expected`: the version an If-Match
 * named for the event in the path (docs/contract.md §10); for `all` from a later occurrence it is
 * compared with that occurrence, whose version every series write grows.
 */
export async function updateInScope(c: SeriesWriteContext, row: EventRow, body: Body, parsed: ParsedEvent, scope: ResolvedScope, expected: number | undefined): Promise<Skipped> {
  if (scope === 'single') return updateSingle(c, row, body, parsed, expected).then(() => []);
  if (scope === 'this') return updateThis(c, row, body, parsed, expected).then(() => []);
  if (scope === 'all') return replanned(c, row, (current) => updateAll(c, current, body, parsed, expected));
  return replanned(c, row, (current) => updateFollowing(c, current, body, parsed, expected));
}

/** The series an event starts once an update is applied: its zone and times as sent, else as stored. */
function templateAfter(event: EventRow, lines: string[], parsed: ParsedEvent): SeriesTemplate {
  return {
    id: event.id,
    lines,
    timezone: parsed.timezone ?? event.timezone,
    startLocal: parsed.times?.startLocal ?? event.startLocal,
    endLocal: parsed.times?.endLocal ?? event.endLocal,
  };
}

/** A single event: its own update, and a new series when `recurrence` has lines. */
async function updateSingle(c: SeriesWriteContext, row: EventRow, body: Body, parsed: ParsedEvent, expected: number | undefined): Promise<void> {
  const { writer } = c;
  const lines = parsed.recurrence ?? [];
  const template = templateAfter(row, lines, parsed);
  const plan = lines.length ? await occurrenceStarts(template, writer.now, c.settings) : undefined;
  const columns = commonColumns(parsed.common, row, writer);
  await inWriteTransaction(
    c.db,
    async (repositories) => {
      await writeEvent(repositories, row, parsed, columns, body, writer, expected);
      if (plan) await startSeries(repositories, template, plan.starts, plan.horizon);
    },
    eventWriteLocks(parsed),
  );
}

/** One occurrence: it becomes an exception (the series' later changes leave it alone). */
async function updateThis(c: SeriesWriteContext, row: EventRow, body: Body, parsed: ParsedEvent, expected: number | undefined): Promise<void> {
  if (parsed.recurrence !== undefined) throw invalidParams({ recurrence: 'recurrence belongs to the series: send it with scope=all or scope=following.' });
  const isFirst = row.id === row.seriesId;
  if (isFirst && parsed.times)
    throw invalidParams({ scope: "the first event's times are the series' start: change them with scope=all (or split the series with scope=following on a later occurrence)." });
  const columns = commonColumns(parsed.common, row, c.writer);
  await inWriteTransaction(
    c.db,
    async (repositories) => {
      await writeEvent(repositories, row, parsed, columns, body, c.writer, expected);
      if (!isFirst) await repositories.occurrenceWrites.markException(row.id, true);
    },
    eventWriteLocks(parsed),
  );
}

/**
 * The whole series: the first event takes the change (a time change sent on a later occurrence moves
 * the first event by the same wall-clock shift), the occurrences that follow the series copy it, and
 * the occurrences are regenerated when the rules or times changed. `recurrence: []` ends the series.
 */
async function updateAll(c: SeriesWriteContext, row: EventRow, body: Body, parsed: ParsedEvent, expected: number | undefined): Promise<Skipped> {
  const { writer } = c;
  const { series, first, stillAsPlanned } = await seriesOf(c, row, 'edit', parsed);
  let firstParsed = parsed;
  if (first.id !== row.id && parsed.times) {
    const start = shiftLocal(first.startLocal, row.startLocal, parsed.times.startLocal);
    const end = shiftLocal(start, parsed.times.startLocal, parsed.times.endLocal);
    const problems: Record<string, string> = {};
    const timesOnly: Body = { start_date: start, end_date: end };
    if (body.timezone !== undefined) timesOnly.timezone = body.timezone;
    if (body.all_day !== undefined) timesOnly.all_day = body.all_day;
    const moved = await parseEventBody(timesOnly, first, writer, problems);
    checkDateOrder(moved, problems);
    if (Object.keys(problems).length) throw invalidParams(problems);
    firstParsed = { ...parsed, times: moved.times };
  }
  const lines = parsed.recurrence ?? series.rules;
  const template = templateAfter(first, lines, firstParsed);
  const rulesChanged = JSON.stringify(lines) !== JSON.stringify(series.rules);
  const timesChanged = template.startLocal !== first.startLocal || template.endLocal !== first.endLocal || template.timezone !== first.timezone;
  const plan = lines.length && (rulesChanged || timesChanged) ? await occurrenceStarts(template, writer.now, c.settings) : undefined;
  const columns = commonColumns(parsed.common, first, writer);
  const own = eventColumns(firstParsed, false, writer.siteTimezone);
  const modified = modifiedNow(writer.now, writer.siteTimezone);
  // The plan (the rules expanded) took a while: the loop gets a turn before the transaction's statements.
  await loopTurn();
  return inWriteTransaction(
    c.db,
    async (repositories) => {
      await stillAsPlanned(repositories);
      if (row.id !== first.id) await repositories.occurrenceWrites.expectVersion(row.id, expected);
      const termsBefore = await repositories.series.termIds(first.id);
      await writeEvent(repositories, first, firstParsed, columns, body, writer, row.id === first.id ? expected : undefined, own);
      const occurrences = (await repositories.series.occurrences(first.id)).filter((o) => o.id !== first.id);
      const kept = keptFrom(writer.user, occurrences, 'edit');
      const written = occurrences.filter((o) => !kept.has(o.id));
      if (lines.length === 0) {
        // No rules any more: the first event stays, a single event; the other occurrences go, but
        // those the caller may not change stay too, as single events.
        await repositories.occurrenceWrites.deleteOccurrences(written.map((o) => o.id));
        await repositories.occurrenceWrites.detachOccurrences([...kept], modified);
        await repositories.series.dissolve(first.id);
      } else {
        await leaveAlone(repositories, occurrences, kept);
        await copyChange(repositories, first.id, written, columns, own, parsed);
        if (plan) {
          await repositories.series.update(first.id, { rules: lines, materialisedUntil: plan.horizon });
          await syncOccurrences(repositories, template, plan.starts, first.startLocal, modified, kept);
        }
        if (rulesChanged) await repositories.occurrenceWrites.touchAll(first.id, modified);
      }
      // Counts move only when occurrences come or go, or their status or terms change.
      if (lines.length === 0 || plan || columns.status !== undefined || changesLinks(parsed)) {
        await repositories.terms.recount([...termsBefore, ...(await repositories.series.termIds(first.id))]);
      }
      return [...kept];
    },
    eventWriteLocks(parsed),
  );
}

/**
 * This occurrence and the following ones: the series ends before it (an UNTIL), and a new series
 * starts at it with the change (the rest of a COUNT, or the `recurrence` sent). The following
 * occurrences move into the new series (keeping their ids where they still fall on an occurrence).
 */
async function updateFollowing(c: SeriesWriteContext, row: EventRow, body: Body, parsed: ParsedEvent, expected: number | undefined): Promise<Skipped> {
  const { writer } = c;
  const { series, first, template: firstTemplate, stillAsPlanned } = await seriesOf(c, row, 'edit', parsed);
  const splitAt = row.recurrenceStart!;
  const oldLines = endBefore(series.rules, first.timezone, splitAt);
  const oldPlan = await occurrenceStarts({ ...firstTemplate, lines: oldLines }, writer.now, c.settings);
  // Counting a COUNT's instances before the split expands the stored rule: within the same budget, and a 400 past it.
  const newLines = parsed.recurrence ?? (await asRecurrenceInput(() => startFrom(series.rules, first.timezone, first.startLocal, splitAt)));
  const times = parsed.times ?? occurrenceTimes(splitAt, firstTemplate);
  const newTemplate: SeriesTemplate = { id: row.id, lines: newLines, timezone: parsed.timezone ?? row.timezone, startLocal: times.startLocal, endLocal: times.endLocal };
  const newPlan = newLines.length ? await occurrenceStarts(newTemplate, writer.now, c.settings) : undefined;
  const columns = commonColumns(parsed.common, row, writer);
  const own: EventColumns = {
    ...eventColumns(parsed, false, writer.siteTimezone),
    ...timeColumnsOf(times),
  };
  const modified = modifiedNow(writer.now, writer.siteTimezone);
  await loopTurn();
  return inWriteTransaction(
    c.db,
    async (repositories) => {
      await stillAsPlanned(repositories);
      const termsBefore = await repositories.series.termIds(first.id);
      const following = (await repositories.series.occurrences(first.id)).filter((o) => o.recurrenceStart > splitAt);
      const kept = keptFrom(writer.user, following, 'edit');
      const written = following.filter((o) => !kept.has(o.id));
      await writeEvent(repositories, row, parsed, columns, body, writer, expected, own);
      await repositories.occurrenceWrites.markException(row.id, false);
      if (!newPlan) {
        // The occurrence ends up a single event and the following ones go, but those the caller may
        // not change stay, as single events.
        await repositories.occurrenceWrites.deleteOccurrences(written.map((o) => o.id));
        await repositories.occurrenceWrites.detachOccurrences([...kept], modified);
        await repositories.occurrenceWrites.detach(row.id);
      } else {
        // The following occurrences move into the new series, those the caller may not change as
        // exceptions, as they are.
        await repositories.series.create(row.id, newLines, newTemplate.timezone, newPlan.horizon, newTemplate.startLocal);
        await repositories.occurrenceWrites.moveToSeries(
          following.map((o) => o.id),
          row.id,
        );
        await leaveAlone(repositories, following, kept);
        await copyChange(repositories, row.id, written, columns, own, parsed);
        await syncOccurrences(repositories, newTemplate, newPlan.starts, splitAt, modified, kept);
        await repositories.occurrenceWrites.touchAll(row.id, modified);
      }
      await repositories.series.update(first.id, { rules: oldLines, materialisedUntil: oldPlan.horizon });
      await syncOccurrences(repositories, { ...firstTemplate, lines: oldLines }, oldPlan.starts, first.startLocal, modified);
      await repositories.occurrenceWrites.touchAll(first.id, modified);
      await repositories.terms.recount([...termsBefore, ...(await repositories.series.termIds(first.id)), ...(await repositories.series.termIds(row.id))]);
      return [...kept];
    },
    eventWriteLocks(parsed),
  );
}

/**
 * A delete under a scope, for an event of a series (docs/contract.md §14): `all` (the default on the
 * first event) trashes the whole series, or deletes it for good with `force` (410 when the first event
 * is already in the trash); `this` (the default on a later occurrence) adds an EXDATE for it and deletes
 * it; `following` ends the series before it and deletes it and the following ones. Occurrences the
 * caller may not delete stay as they are: in the series when it stays (a trash), as single events when
 * the series no longer holds them (its first event deleted for good, or its rules ended before them).
 */
export async function removeInScope(c: SeriesWriteContext, row: EventRow, scope: Exclude<ResolvedScope, 'single'>, force: boolean, expected: number | undefined): Promise<Skipped> {
  return replanned(c, row, (current) => removeOnce(c, current, scope, force, expected));
}

async function removeOnce(c: SeriesWriteContext, row: EventRow, scope: Exclude<ResolvedScope, 'single'>, force: boolean, expected: number | undefined): Promise<Skipped> {
  const { writer } = c;
  const { series, first, stillAsPlanned } = await seriesOf(c, row, 'remove');
  const modified = modifiedNow(writer.now, writer.siteTimezone);
  if (scope === 'all') {
    if (!force && first.status === 'trash') throw new RestError(410, 'event-is-in-trash', 'The event is already trashed');
    return inWriteTransaction(c.db, async (repositories) => {
      await stillAsPlanned(repositories);
      await repositories.occurrenceWrites.expectVersion(row.id, expected);
      const termsBefore = await repositories.series.termIds(first.id);
      const occurrences = await repositories.series.occurrences(first.id);
      const kept = keptFrom(writer.user, occurrences, 'remove');
      const removed = occurrences.filter((o) => !kept.has(o.id)).map((o) => o.id);
      if (force) {
        await repositories.occurrenceWrites.deleteOccurrences(removed);
        // The series goes with its first event.
        await repositories.occurrenceWrites.detachOccurrences([...kept], modified);
        await repositories.series.forget(first.id);
      } else await repositories.occurrenceWrites.trashOccurrences(removed, modified);
      await repositories.terms.recount(termsBefore);
      return [...kept];
    });
  }
  const at = row.recurrenceStart!;
  const lines = scope === 'this' ? [...series.rules, exdateLine(first.timezone, at)] : endBefore(series.rules, first.timezone, at);
  return inWriteTransaction(c.db, async (repositories) => {
    await stillAsPlanned(repositories);
    await repositories.occurrenceWrites.expectVersion(row.id, expected);
    const termsBefore = await repositories.series.termIds(first.id);
    const occurrences = await repositories.series.occurrences(first.id);
    const following = scope === 'this' ? [] : occurrences.filter((o) => o.recurrenceStart > at && o.id !== first.id);
    const kept = keptFrom(writer.user, following, 'remove');
    await repositories.occurrenceWrites.deleteOccurrences([row.id, ...following.filter((o) => !kept.has(o.id)).map((o) => o.id)]);
    // The rules end before the occurrences kept: they leave the series, as single events.
    await repositories.occurrenceWrites.detachOccurrences([...kept], modified);
    await repositories.series.update(first.id, { rules: lines });
    await repositories.occurrenceWrites.touchAll(first.id, modified);
    await repositories.terms.recount(termsBefore);
    return [...kept];
  });
}
