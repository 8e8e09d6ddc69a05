import { RestError } from '../core/errors.js';
import { commonColumns, modifiedNow } from '../domain/posts/writes.js';
import { parseEventBody, type ParsedEvent } from '../domain/events/input.js';
import { copiedEventColumns, eventColumns, writeEvent } from '../domain/events/writes.js';
import { occurrenceStarts, occurrenceTimes, startSeries, syncOccurrences, type SeriesTemplate } from '../domain/events/occurrences.js';
import type { EventRow } from '../repositories/events.js';
import type { PostColumns } from '../repositories/posts.js';
import type { Repositories } from '../repositories/registry.js';
import type { SourceImage } from './records.js';
import { authored, documentProblems, imageIdOf, imageProblem, problemsOf, stamped, type ImportWriter, type Note, type Prepared } from './write-context.js';

/**
 * Recurring events from a source (docs/importing.md "Importing a calendar file"): the series its
 * rules give, with the source's changed occurrences (iCalendar RECURRENCE-ID overrides) applied as
 * `PATCH /events/{occurrence}?scope=this` applies a change to one occurrence (it becomes an exception,
 * docs/contract.md §14). Importing a changed series again rewrites the series an import made: its
 * rules and times as the source has them now (occurrences keep their ids where they still fall on
 * an occurrence), every occurrence back to the series' content, then the source's overrides.
 * Everything here runs in the record's transaction.
 */

/** A changed occurrence checked and ready. */
interface ReadyOverride {
  recurrenceStart: string;
  parsed: ParsedEvent;
  modifiedUtc?: string;
  image?: SourceImage;
}

/** An event checked and ready, with the occurrences its `recurrence` gives and its changed occurrences. */
export interface ReadyEvent {
  parsed: ParsedEvent;
  series?: { template: Omit<SeriesTemplate, 'id'>; starts: string[]; horizon: string };
  overrides: ReadyOverride[];
}

/**
 * The occurrences of an event's `recurrence` (docs/contract.md §14), checked as the API's create
 * checks them, and its changed occurrences checked as updates of one occurrence. An override whose
 * RECURRENCE-ID is none of the occurrences stored here (not in the rules, or past the horizon), or
 * that names the first occurrence (whose times are the series' start), or that breaks the API's
 * checks, is left out and noted; the series is imported all the same.
 */
export async function seriesPlan(parsed: ParsedEvent, existing: EventRow | undefined, writer: ImportWriter): Promise<Prepared> {
  const lines = parsed.recurrence ?? [];
  const startLocal = parsed.times?.startLocal ?? existing?.startLocal;
  const endLocal = parsed.times?.endLocal ?? existing?.endLocal;
  if (lines.length === 0 || !startLocal || !endLocal) return { ready: { parsed, overrides: [] } satisfies ReadyEvent };
  const template = { lines, timezone: parsed.timezone ?? existing?.timezone ?? writer.siteTimezone, startLocal, endLocal };
  let plan: { starts: string[]; horizon: string };
  try {
    plan = await occurrenceStarts(template, writer.now, writer.recurrence);
  } catch (err) {
    if (!(err instanceof RestError)) throw err;
    return { problems: problemsOf(err) };
  }
  const starts = new Set(plan.starts);
  const notes: Note[] = [];
  const overrides: ReadyOverride[] = [];
  for (const override of writer.overrides ?? []) {
    const { sourceId, recurrenceStart } = override;
    if (recurrenceStart === startLocal) {
      notes.push({ sourceId, reason: "it changes the series' first occurrence, whose times and content are the series' own: left out." });
      continue;
    }
    if (!starts.has(recurrenceStart)) {
      notes.push({
        sourceId,
        reason: `its RECURRENCE-ID (${recurrenceStart}) is no occurrence of the series here (not in its rules, or past the stored horizon ${plan.horizon.slice(0, 10)}): left out.`,
      });
      continue;
    }
    const problems = documentProblems(override.body);
    const overrideParsed = await parseEventBody(override.body, undefined, writer, problems);
    const image = await imageProblem(writer, override.image);
    if (image) problems.image = image;
    if (Object.keys(problems).length) {
      notes.push({ sourceId, reason: `left out: ${Object.values(problems).join(' ')}` });
      continue;
    }
    overrides.push({ recurrenceStart, parsed: overrideParsed, modifiedUtc: override.modifiedUtc, image: override.image });
  }
  return { ready: { parsed, series: { template, ...plan }, overrides } satisfies ReadyEvent, notes };
}

/** A new series from an event just written (its first event), then its changed occurrences. */
export async function startImportedSeries(repositories: Repositories, eventId: number, ready: ReadyEvent, writer: ImportWriter): Promise<void> {
  const { series } = ready;
  if (!series) return;
  await startSeries(repositories, { id: eventId, ...series.template }, series.starts, series.horizon);
  await applyOverrides(repositories, eventId, ready.overrides, writer);
}

/** Each changed occurrence written on the occurrence of its RECURRENCE-ID, which becomes an exception. */
async function applyOverrides(repositories: Repositories, seriesId: number, overrides: ReadyOverride[], writer: ImportWriter): Promise<void> {
  if (!overrides.length) return;
  const byStart = new Map((await repositories.series.occurrences(seriesId)).map((occurrence) => [occurrence.recurrenceStart, occurrence.id]));
  for (const override of overrides) {
    const id = byStart.get(override.recurrenceStart);
    const row = id === undefined || id === seriesId ? undefined : await repositories.events.findById(id);
    if (!row) continue;
    const own = { ...writer, modifiedUtc: override.modifiedUtc };
    const columns = authored(stamped(commonColumns(override.parsed.common, row, own), own), own);
    columns.image_id = await imageIdOf(repositories, override.image, own);
    await writeEvent(repositories, row, override.parsed, columns, {}, own);
    await repositories.occurrenceWrites.markException(row.id, true);
  }
}

/**
 * Rewrites a series an import made, its first event `first` (as it was before this write) already
 * updated with `columns`: no rules any more, the other occurrences go and it is a single event;
 * otherwise the rules, zone and horizon as the source has them, the occurrences regenerated (each
 * keeps its id where its RECURRENCE-ID, moved as the first event moved, is still an occurrence),
 * every occurrence back to the series' times and content (no exception left), then the source's
 * changed occurrences.
 */
export async function rewriteSeries(repositories: Repositories, first: EventRow, ready: ReadyEvent, columns: Partial<PostColumns>, writer: ImportWriter): Promise<void> {
  const termsBefore = await repositories.series.termIds(first.id);
  const others = async () => (await repositories.series.occurrences(first.id)).filter((occurrence) => occurrence.id !== first.id);
  const { series } = ready;
  if (!series) {
    await repositories.occurrenceWrites.deleteOccurrences((await others()).map((occurrence) => occurrence.id));
    await repositories.series.dissolve(first.id);
    await repositories.terms.recount(termsBefore);
    return;
  }
  const template: SeriesTemplate = { id: first.id, ...series.template };
  const modified = modifiedNow(writer.now, writer.siteTimezone);
  await repositories.series.update(first.id, { rules: template.lines, timezone: template.timezone, materialisedUntil: series.horizon });
  await syncOccurrences(repositories, template, series.starts, first.startLocal, modified);
  const occurrences = await others();
  await repositories.occurrenceWrites.markExceptions(
    occurrences.filter((occurrence) => occurrence.exception).map((occurrence) => occurrence.id),
    false,
  );
  for (const occurrence of occurrences) {
    const times = occurrenceTimes(occurrence.recurrenceStart, template);
    if (times.startLocal !== occurrence.startLocal || times.endLocal !== occurrence.endLocal || occurrence.timezone !== template.timezone) {
      await repositories.occurrenceWrites.moveOccurrence(occurrence.id, occurrence.recurrenceStart, times, modified);
    }
  }
  const ids = occurrences.map((occurrence) => occurrence.id);
  const { slug: _slug, ...copied } = columns as Partial<PostColumns> & { slug?: unknown };
  await repositories.occurrenceCopies.copyColumns(ids, copied, copiedEventColumns(eventColumns(ready.parsed, false, writer.siteTimezone)));
  await repositories.occurrenceCopies.copyLinks(first.id, ids);
  await applyOverrides(repositories, first.id, ready.overrides, writer);
  await repositories.terms.recount([...termsBefore, ...(await repositories.series.termIds(first.id))]);
}
