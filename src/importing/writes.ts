import { RestError } from '../core/errors.js';
import { commonColumns, type Body } from '../domain/posts/writes.js';
import { parseLinkedInput } from '../domain/linked/writes.js';
import { LINKED_POST_KINDS } from '../domain/linked/post-kind.js';
import { EVENTS } from '../domain/events/post-kind.js';
import { parseEventBody } from '../domain/events/input.js';
import { eventColumns, writeEvent, writeLinks } from '../domain/events/writes.js';
import type { EventRow } from '../repositories/events.js';
import { readerOf } from '../policies/posts.js';
import { checkParent, checkUpdateClashes, cleanTermInput, insertTerm, updateTerm, type TermInput } from '../domain/terms/writes.js';
import type { PostColumns, PostRow } from '../repositories/posts.js';
import type { Repositories } from '../repositories/registry.js';
import { ORGANIZERS, VENUES, type LinkedKind } from '../repositories/linked-kinds.js';
import { CATEGORIES, TAGS, type Taxonomy } from '../repositories/taxonomies.js';
import type { TermRow } from '../repositories/terms.js';
import type { RecordKind, SourceImage } from './records.js';
import { sanitizeSlug } from '../text/slugs.js';
import { authored, documentProblems, imageIdOf, problemsOf, stamped, type ImportWriter, type Prepared } from './write-context.js';
import { rewriteSeries, seriesPlan, startImportedSeries, type ReadyEvent } from './series.js';

export { imageProblem, problemsOf, type ImportWriter } from './write-context.js';

/**
 * How the engine writes each kind of record: through the same domain functions as the API's writes
 * (domain/), so an imported record passes the same checks (limits, HTML bounds and cleaning, dates)
 * and its writes reach the change feed like any other. Each kind is checked (`prepare`, reads only:
 * what a dry run does) and then written (`create` or `update`) in the caller's transaction.
 */

interface KindWrites {
  /** The local record, or undefined when it is gone. */
  find(repositories: Repositories, id: number): Promise<PostRow | TermRow | undefined>;
  prepare(body: Body, existing: PostRow | TermRow | undefined, writer: ImportWriter): Promise<Prepared>;
  create(repositories: Repositories, ready: unknown, writer: ImportWriter, image: SourceImage | undefined, id: number | undefined): Promise<number>;
  update(repositories: Repositories, ready: unknown, existing: PostRow | TermRow, writer: ImportWriter, image: SourceImage | undefined): Promise<void>;
  remove(repositories: Repositories, existing: PostRow | TermRow): Promise<void>;
  /** The local record of the same name as the body's, for a record that may be matched (importing/records.ts `match`). */
  match?(repositories: Repositories, body: Body): Promise<number | undefined>;
}

function linkedWrites(kind: LinkedKind): KindWrites {
  const postKind = LINKED_POST_KINDS[kind.type];
  return {
    find: (repositories, id) => postKind.findById(repositories, id),
    async prepare(body, existing, writer) {
      const problems = documentProblems(body);
      if (!existing && (body[kind.nameField] === undefined || body[kind.nameField] === '')) problems[kind.nameField] = `${kind.nameField} is required.`;
      const parsed = await parseLinkedInput(kind, body, existing as never, writer, problems);
      return Object.keys(problems).length ? { problems } : { ready: parsed };
    },
    async create(repositories, ready, writer, image, id) {
      const { common, own } = ready as Awaited<ReturnType<typeof parseLinkedInput>>;
      const columns = authored(stamped(commonColumns(common, undefined, writer), writer), writer);
      const imageId = await imageIdOf(repositories, image, writer);
      return repositories.linked(kind).create({ ...(columns as PostColumns), image_id: imageId }, common.slug ?? (sanitizeSlug(common.title ?? '') || kind.type), own, id);
    },
    async update(repositories, ready, existing, writer, image) {
      const { common, own } = ready as Awaited<ReturnType<typeof parseLinkedInput>>;
      const columns = authored(stamped(commonColumns(common, existing as PostRow, writer), writer), writer);
      columns.image_id = await imageIdOf(repositories, image, writer);
      await repositories.linked(kind).update(existing as never, columns, common.slug, own);
    },
    remove: (repositories, existing) => postKind.destroy(repositories, existing as never),
    async match(repositories, body) {
      const title = String(body[kind.nameField] ?? '');
      const reader = readerOf({ id: 0, login: 'import', role: 'administrator' });
      // An organizer is the same person by e-mail first, else by name.
      const email = typeof body.email === 'string' && body.email !== '' ? body.email : undefined;
      const found = (email && (await repositories.linked(kind).findByOwnField('email', email, reader))) || (await repositories.linked(kind).findDuplicate(title, {}, reader));
      return found ? found.id : undefined;
    },
  };
}

function termWrites(taxonomy: Taxonomy): KindWrites {
  return {
    async find(repositories, id) {
      const term = await repositories.terms.findById(id);
      return term?.taxonomy === taxonomy.name ? term : undefined;
    },
    async prepare(body, existing, writer) {
      try {
        const input = cleanTermInput(taxonomy, body as TermInput);
        if (input.parent !== undefined) await checkParent(writer.repositories, taxonomy, input.parent, existing?.id);
        if (existing) await checkUpdateClashes(writer.repositories, taxonomy, existing as TermRow, input);
        return { ready: input };
      } catch (err) {
        if (!(err instanceof RestError)) throw err;
        return { problems: problemsOf(err) };
      }
    },
    create: (repositories, ready, _writer, _image, id) => insertTerm(repositories, taxonomy, ready as TermInput, id),
    update: (repositories, ready, existing) => updateTerm(repositories, taxonomy, existing as TermRow, ready as TermInput),
    remove: (repositories, existing) => repositories.terms.delete(existing as TermRow),
    match: async (repositories, body) => (await repositories.terms.findByNameAnyLevel(taxonomy, String(body.name ?? '')))?.id,
  };
}

const EVENT_WRITES: KindWrites = {
  find: (repositories, id) => EVENTS.findById(repositories, id),
  async prepare(body, existing, writer) {
    const problems = documentProblems(body);
    if (!existing && (body.title === undefined || body.title === '')) problems.title = 'title is required.';
    if (!existing && (body.start_date === undefined || body.end_date === undefined)) problems.start_date = 'start_date and end_date are required.';
    const parsed = await parseEventBody(body, existing as never, writer, problems);
    if (Object.keys(problems).length) return { problems };
    return seriesPlan(parsed, existing as EventRow | undefined, writer);
  },
  async create(repositories, ready, writer, image, id) {
    const { parsed, series } = ready as ReadyEvent;
    const columns = authored(stamped(commonColumns(parsed.common, undefined, writer), writer), writer);
    const imageId = await imageIdOf(repositories, image, writer);
    const eventId = await repositories.events.create(
      { ...(columns as PostColumns), image_id: imageId },
      parsed.common.slug ?? (sanitizeSlug(parsed.common.title ?? '') || 'event'),
      eventColumns(parsed, true, writer.siteTimezone),
      id,
    );
    await writeLinks(repositories, eventId, parsed, writer, { isNew: true, counting: columns.status === 'publish' ? { add: true } : 'none' });
    // A recurring event: its other occurrences are copies of this first event, as the API's create makes them, then its changed occurrences.
    if (series) await startImportedSeries(repositories, eventId, ready as ReadyEvent, writer);
    return eventId;
  },
  async update(repositories, ready, existing, writer, image) {
    const { parsed, series } = ready as ReadyEvent;
    const columns = authored(stamped(commonColumns(parsed.common, existing as PostRow, writer), writer), writer);
    columns.image_id = await imageIdOf(repositories, image, writer);
    const row = existing as EventRow;
    await writeEvent(repositories, row, parsed, columns, {}, writer);
    // A series here is rewritten as the source now has it; a single event that became recurring starts one.
    if (row.seriesId === row.id) await rewriteSeries(repositories, row, ready as ReadyEvent, columns, writer);
    else if (series && row.seriesId === null) await startImportedSeries(repositories, row.id, ready as ReadyEvent, writer);
  },
  async remove(repositories, existing) {
    const row = existing as EventRow;
    if (row.seriesId !== row.id) return EVENTS.destroy(repositories, row);
    // A series an import created goes whole, as a DELETE with force of its first event (scope all) does.
    const termsBefore = await repositories.series.termIds(row.id);
    const occurrences = await repositories.series.occurrences(row.id);
    await repositories.occurrenceWrites.deleteOccurrences(occurrences.map((occurrence) => occurrence.id));
    await repositories.series.forget(row.id);
    await repositories.terms.recount(termsBefore);
  },
};

/** Each kind's writes. */
export const KIND_WRITES: Record<RecordKind, KindWrites> = {
  category: termWrites(CATEGORIES),
  tag: termWrites(TAGS),
  venue: linkedWrites(VENUES),
  organizer: linkedWrites(ORGANIZERS),
  event: EVENT_WRITES,
};
