import type { RecordKind } from './records.js';

/** The local ids of what a record refers to (importing/engine.ts resolves them from source ids). */
export interface LinkIds {
  parent?: number[];
  venues?: number[];
  organizers?: number[];
  categories?: number[];
  tags?: number[];
}

/**
 * A record's write body with its links and author as the API takes them: a category's `parent`, an
 * event's `venue`, `organizer`, `categories` and `tags` by local id, and `author`. A link the source
 * sent as empty is sent empty (it removes what an earlier import linked), but for the local category
 * ids the body itself names.
 */
export function linkedBody(kind: RecordKind, body: Record<string, unknown>, ids: LinkIds, authorId: number | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  // A category without a parent is at the top (an update moves it there); tags have no parent.
  if (kind === 'category') out.parent = ids.parent?.[0] ?? 0;
  if (kind === 'category' || kind === 'tag') return out;
  if (authorId !== undefined) out.author = authorId;
  if (kind !== 'event') return out;
  if (ids.venues) out.venue = ids.venues;
  if (ids.organizers) out.organizer = ids.organizers;
  // Categories the body already names by local id (a subscription's `categories`) are kept beside the source's.
  const given = Array.isArray(body.categories) ? (body.categories as unknown[]).filter((id): id is number => typeof id === 'number') : [];
  if (ids.categories) out.categories = [...new Set([...ids.categories, ...given])];
  if (ids.tags) out.tags = ids.tags;
  return out;
}
