import { DateTime } from 'luxon';
import { ANY_STATUS } from '../policies/posts.js';
import type { RestError } from '../core/errors.js';
import { formatUtc, toStorage } from '../dates/storage.js';
import { zoneOf } from '../dates/parse.js';
import type { Body, WriteContext } from '../domain/posts/writes.js';
import { checkImageInput, importedImage } from '../domain/posts/images.js';
import type { User } from '../auth/capabilities.js';
import type { RecurrenceSettings } from '../domain/events/occurrences.js';
import type { PostColumns } from '../repositories/posts.js';
import type { Repositories } from '../repositories/registry.js';
import type { SourceImage } from './records.js';

/**
 * What every kind's import write shares (importing/writes.ts, importing/series.ts): the writer's
 * context, the columns an imported record is stamped with, its image, and the checks the API's
 * document makes before the domain sees a body.
 */

/** What a record's write needs besides its body. */
export interface ImportWriter extends WriteContext {
  user: User;
  /** The local author (undefined: none). */
  authorId: number | undefined;
  modifiedUtc: string | undefined;
  /** Whether new records and images keep their source ids (when free). */
  keepIds: boolean;
  recurrence: RecurrenceSettings;
  /** A recurring event's changed occurrences, their links resolved (importing/series.ts). */
  overrides?: LinkedOverride[];
}

/** A changed occurrence with its write body's links as local ids (importing/records.ts `OccurrenceOverride`). */
interface LinkedOverride {
  recurrenceStart: string;
  sourceId: string;
  body: Body;
  modifiedUtc?: string;
  image?: SourceImage;
}

/** What a write leaves out of a record and tells in the report's `skipped` (a changed occurrence that matches no occurrence). */
export interface Note {
  sourceId: string;
  reason: string;
}

/** A record checked and ready to be written, or the reasons it cannot be. */
export type Prepared = { problems: Record<string, string> } | { ready: unknown; notes?: Note[] };

/** The `modified` columns of an imported record: the source's time, else now (as every write). */
export function stamped(columns: Partial<PostColumns>, writer: ImportWriter): Partial<PostColumns> {
  if (writer.modifiedUtc === undefined) return columns;
  const moment = DateTime.fromSQL(writer.modifiedUtc, { zone: 'utc' });
  if (!moment.isValid) return columns;
  return { ...columns, modified: toStorage(moment.setZone(zoneOf(writer.siteTimezone) ?? 'UTC')), modified_utc: formatUtc(moment.toJSDate()) };
}

/** The author column: the record's local author, or none. */
export function authored(columns: Partial<PostColumns>, writer: ImportWriter): Partial<PostColumns> {
  return { ...columns, author_id: writer.authorId ?? null };
}

export async function imageIdOf(repositories: Repositories, image: SourceImage | undefined, writer: ImportWriter): Promise<number | null> {
  if (!image) return null;
  const id = writer.keepIds && image.id !== undefined && (await repositories.importOrigins.freeIds('posts', [image.id])).size ? image.id : undefined;
  // The image's author is the record's (the importer itself is no user).
  const author = writer.authorId === undefined ? undefined : { ...writer.user, id: writer.authorId };
  return importedImage(repositories.posts, image.url, author, { id, width: image.width, height: image.height });
}

/**
 * What the API's document checks of a post's write body before the domain sees it
 * (openapi/shared/schemas.yaml `PostFields`, `EventFields`): the status one of those a write may
 * set, and the lengths of the fields the domain does not bound as stored.
 */
export function documentProblems(body: Body): Record<string, string> {
  const problems: Record<string, string> = {};
  if (body.status !== undefined && !ANY_STATUS.includes(String(body.status))) problems.status = `status must be one of ${ANY_STATUS.join(', ')}.`;
  for (const [field, limit] of [
    ['slug', 200],
    ['timezone', 64],
    ['website', 2048],
  ] as const) {
    if (typeof body[field] === 'string' && (body[field] as string).length > limit) problems[field] = `${field} must be at most ${limit} characters long.`;
  }
  return problems;
}

/** A refusal's reasons, by parameter (the WordPress envelope's `params`), or its message. */
export function problemsOf(err: RestError): Record<string, string> {
  const params = (err.data as { params?: Record<string, string> } | undefined)?.params;
  return params && Object.keys(params).length ? params : { [err.code]: err.message };
}

/** An image's URL checked as a write's `image` (undefined: fine). */
export function imageProblem(writer: ImportWriter, image: SourceImage | undefined): Promise<string | undefined> {
  return image ? checkImageInput(writer.repositories.posts, image.url, writer.user) : Promise.resolve(undefined);
}
