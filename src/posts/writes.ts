import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { can, type User } from '../auth/capabilities.js';
import { forbidden } from '../http/errors.js';
import { parseDateInput, toStorage, toStorageUtc, zoneOf } from '../dates/parse.js';
import { sanitizeSlug } from '../text/slugs.js';
import { sanitizeUserHtml } from '../text/html.js';
import { formatUtc } from '../db/dates.js';
import type { PostColumns, PostRow } from './repository.js';
import { sanitizeTextField } from './fields.js';

/** Body fields every post type shares. */
export interface CommonInput {
  status?: string;
  author?: number;
  date?: string;
  date_utc?: string;
  description?: string;
  excerpt?: string;
  slug?: string;
  password?: string | null;
}

/** The shared fields, checked and parsed, before the record is looked at. */
export interface ParsedCommon {
  title?: string;
  status?: string;
  authorId?: number;
  /** Publication moment, when `date` or `date_utc` was sent. */
  published?: { local: string; utc: string };
  description?: string;
  excerpt?: string;
  slug?: string;
  password?: string | null;
}

/**
 * Checks and parses the shared fields (the 400s, collected into `problems` so that every bad
 * parameter is named at once). `titleParam` is the body name of the title (`title`, `venue`,
 * `organizer`). Names are plain text; descriptions are HTML, cleaned for users without
 * `unfiltered_html`. `date` is read in the site zone and `date_utc` in UTC (plugin-behaviour §5.2).
 */
export async function parseCommon(
  db: Knex,
  input: CommonInput & Record<string, unknown>,
  titleParam: string,
  user: User | undefined,
  siteTimezone: string,
  now: Date,
  problems: Record<string, string>,
): Promise<ParsedCommon> {
  const parsed: ParsedCommon = {};
  const title = input[titleParam];
  if (title !== undefined) {
    parsed.title = sanitizeTextField(String(title));
    if (parsed.title === '') problems[titleParam] = `${titleParam} must not be empty.`;
  }
  if (input.status !== undefined) parsed.status = input.status;
  if (input.author !== undefined) {
    const exists = await db('users').where('id', input.author).first('id');
    if (!exists) problems.author = `author ${input.author} is not an existing user ID.`;
    else parsed.authorId = Number(input.author);
  }
  const siteZone = zoneOf(siteTimezone) ?? zoneOf('UTC')!;
  let moment: DateTime | undefined;
  if (input.date !== undefined) {
    moment = parseDateInput(input.date, siteZone, now);
    if (!moment) problems.date = 'date is not a date this service understands.';
  }
  if (input.date_utc !== undefined) {
    const utc = parseDateInput(input.date_utc, zoneOf('UTC')!, now);
    if (!utc) problems.date_utc = 'date_utc is not a date this service understands.';
    else moment = utc.setZone(siteZone);
  }
  if (moment) parsed.published = { local: toStorage(moment), utc: toStorageUtc(moment) };
  const mayWriteHtml = can(user, 'unfiltered_html');
  if (input.description !== undefined) parsed.description = mayWriteHtml ? String(input.description) : sanitizeUserHtml(String(input.description));
  // Only events take an excerpt; on venues and organizers it is an output field, ignored on input.
  if (titleParam === 'title' && input.excerpt !== undefined) parsed.excerpt = mayWriteHtml ? String(input.excerpt) : sanitizeUserHtml(String(input.excerpt));
  if (input.slug !== undefined) {
    parsed.slug = sanitizeSlug(String(input.slug));
    if (parsed.slug === '') problems.slug = 'slug must contain a letter or a digit.';
  }
  if (input.password !== undefined) parsed.password = input.password === null || input.password === '' ? null : String(input.password);
  return parsed;
}

/**
 * The status a write stores (plugin-behaviour §5.10, contract §5). Callers who may publish get what
 * they ask for (`publish` when creating without one). Contributors cannot publish: `publish` and
 * `future` become `pending`, no status on create becomes `draft`, and `private` is refused (403).
 * A publication date in the future turns `publish` into `future`, and a past one `future` into
 * `publish`, as WordPress schedules posts.
 */
function decideStatus(requested: string | undefined, existing: PostRow | undefined, publishedUtc: string, user: User | undefined, now: Date): string {
  let status = requested ?? existing?.status ?? 'publish';
  if (!can(user, 'publish_posts') && requested !== undefined) {
    if (requested === 'private') throw forbidden(user !== undefined);
    if (requested === 'publish' || requested === 'future') status = 'pending';
  }
  if (!can(user, 'publish_posts') && !existing && requested === undefined) status = 'draft';
  const inFuture = publishedUtc > formatUtc(now);
  if (status === 'publish' && inFuture) status = 'future';
  else if (status === 'future' && !inFuture) status = 'publish';
  return status;
}

/** `modified` (site-local) and `modified_utc` for a write happening now. */
export function modifiedNow(now: Date, siteTimezone: string): { modified: string; modified_utc: string } {
  return { modified: toStorage(DateTime.fromJSDate(now, { zone: zoneOf(siteTimezone) ?? 'UTC' })), modified_utc: formatUtc(now) };
}

/**
 * The `posts` columns of a create (no `existing`) or an update, once the caller is known to be
 * allowed to write the record. Raises the permission errors that depend on the values: `private`
 * for contributors, and `author` set to another user without `edit_others_posts` (403).
 */
export function commonColumns(parsed: ParsedCommon, existing: PostRow | undefined, user: User | undefined, now: Date, siteTimezone: string): Partial<PostColumns> {
  if (parsed.authorId !== undefined && parsed.authorId !== user?.id && parsed.authorId !== existing?.authorId && !can(user, 'edit_others_posts')) {
    throw forbidden(user !== undefined);
  }
  const { modified: localStamp, modified_utc: stamp } = modifiedNow(now, siteTimezone);
  const columns: Partial<PostColumns> = { modified: localStamp, modified_utc: stamp };
  if (parsed.title !== undefined) columns.title = parsed.title;
  if (parsed.description !== undefined) columns.description = parsed.description;
  if (parsed.excerpt !== undefined) columns.excerpt = parsed.excerpt;
  if (parsed.password !== undefined) columns.password = parsed.password;
  if (parsed.authorId !== undefined) columns.author_id = parsed.authorId;
  if (parsed.published) {
    columns.date = parsed.published.local;
    columns.date_utc = parsed.published.utc;
  }
  const publishedUtc = parsed.published?.utc ?? existing?.dateUtc ?? stamp;
  if (!existing || parsed.status !== undefined || parsed.published) columns.status = decideStatus(parsed.status, existing, publishedUtc, user, now);
  if (!existing) {
    columns.author_id = parsed.authorId ?? user?.id ?? null;
    columns.title ??= '';
    columns.description ??= '';
    columns.excerpt ??= '';
    columns.password ??= null;
    columns.image_id ??= null;
    columns.date ??= localStamp;
    columns.date_utc ??= stamp;
  }
  return columns;
}
