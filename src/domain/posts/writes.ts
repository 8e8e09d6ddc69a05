import { DateTime } from 'luxon';
import type { User } from '../../auth/capabilities.js';
import { invalidParams } from '../../core/errors.js';
import { mayWriteUnfilteredHtml, storedStatus } from '../../policies/posts.js';
import type { Repositories } from '../../repositories/registry.js';
import { ImageInputError, resolveImageInput } from './images.js';
import { parseDateInput, zoneOf } from '../../dates/parse.js';
import { sanitizeSlug } from '../../text/slugs.js';
import { htmlInput } from '../../text/html.js';
import type { HtmlElementBudget } from '../../text/html-structure.js';
import { formatUtc, toStorage, toStorageUtc } from '../../dates/storage.js';
import type { PostColumns, PostRow } from '../../repositories/posts.js';
import { sanitizeTextField } from '../../text/fields.js';
import { TEXT_LIMITS, tooLong } from '../../text/limits.js';

/** Who writes, and when: what a write needs besides its body. */
export interface WriteContext {
  repositories: Repositories;
  user: User | undefined;
  now: Date;
  siteTimezone: string;
  /** What the request's HTML fields may still bring, nested records included (one per request). */
  html: HtmlElementBudget;
}

/** A write body: the shared fields, and the type's own. */
export type Body = CommonInput & Record<string, unknown>;

/** `image` on a write, with a refused value reported as 400 on `image`. */
export async function resolveImage(repositories: Repositories, input: unknown, user: User | undefined): Promise<number | null | undefined> {
  try {
    return await resolveImageInput(repositories.posts, input, user);
  } catch (err) {
    if (err instanceof ImageInputError) throw invalidParams({ image: err.message });
    throw err;
  }
}

/** Body fields every post type shares. */
interface CommonInput {
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
 * `unfiltered_html`. `date` is read in the site zone and `date_utc` in UTC (docs/plugin-behaviour.md §5.2).
 */
export async function parseCommon(input: Body, titleParam: string, writer: WriteContext, problems: Record<string, string>): Promise<ParsedCommon> {
  const { user, siteTimezone, now } = writer;
  const parsed: ParsedCommon = {};
  const title = input[titleParam];
  if (title !== undefined) {
    parsed.title = sanitizeTextField(String(title));
    if (parsed.title === '') problems[titleParam] = `${titleParam} must not be empty.`;
    else checkLength(problems, titleParam, parsed.title, TEXT_LIMITS.title);
  }
  if (input.status !== undefined) parsed.status = input.status;
  if (input.author !== undefined) {
    const exists = await writer.repositories.users.findById(input.author);
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
  const cleaning = mayWriteUnfilteredHtml(user) ? 'unfiltered' : 'post';
  // Only events take an excerpt; on venues and organizers it is an output field, ignored on input.
  for (const field of titleParam === 'title' ? (['description', 'excerpt'] as const) : (['description'] as const)) {
    if (input[field] === undefined) continue;
    const html = htmlInput(field, String(input[field]), cleaning, writer.html);
    if ('problem' in html) problems[field] = html.problem;
    else parsed[field] = html.value;
  }
  if (parsed.description !== undefined) checkLength(problems, 'description', parsed.description, TEXT_LIMITS.description);
  if (parsed.excerpt !== undefined) checkLength(problems, 'excerpt', parsed.excerpt, TEXT_LIMITS.excerpt);
  if (input.slug !== undefined) {
    parsed.slug = sanitizeSlug(String(input.slug));
    if (parsed.slug === '') problems.slug = 'slug must contain a letter or a digit.';
  }
  if (input.password !== undefined) parsed.password = input.password === null || input.password === '' ? null : String(input.password);
  return parsed;
}

/** Adds a 400 on `name` when its stored text is longer than `limit` (text/limits.ts). */
export function checkLength(problems: Record<string, string>, name: string, text: string, limit: number): void {
  const problem = tooLong(name, text, limit);
  if (problem) problems[name] = problem;
}

/** `modified` (site-local) and `modified_utc` for a write happening now. */
export function modifiedNow(now: Date, siteTimezone: string): { modified: string; modified_utc: string } {
  return { modified: toStorage(DateTime.fromJSDate(now, { zone: zoneOf(siteTimezone) ?? 'UTC' })), modified_utc: formatUtc(now) };
}

/**
 * The `posts` columns of a create (no `existing`) or an update, once the caller is known to be
 * allowed to write the record with these values (policies/posts.ts `create` / `edit`).
 */
export function commonColumns(parsed: ParsedCommon, existing: PostRow | undefined, { user, now, siteTimezone }: WriteContext): Partial<PostColumns> {
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
  if (!existing || parsed.status !== undefined || parsed.published) columns.status = storedStatus(parsed.status, existing, publishedUtc > formatUtc(now), user);
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
