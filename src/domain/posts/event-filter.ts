import type { User } from '../../auth/capabilities.js';
import { mayFilterByEvent } from '../../policies/posts.js';
import type { Repositories } from '../../repositories/registry.js';

/** A list filtered by the records one event links: which event, and whether the caller may see its links. */
interface EventFilter {
  eventId: number;
  /** The caller may not read the event: the list shows none of its links. */
  eventHidden: boolean;
}

/**
 * A list's `event` (or `post`) parameter: as in the plugin, it may name any event, trashed and
 * unpublished ones too (docs/contract.md §6). One the caller may not read lists nothing, so its links
 * do not leak (the plugin lists them to anyone). An id that names no event is reported under `param`.
 */
export async function eventFilter(
  repositories: Repositories,
  param: string,
  id: number,
  user: User | undefined,
  problems: Record<string, string>,
): Promise<EventFilter | undefined> {
  const event = await repositories.posts.header(id);
  if (!event || event.type !== 'event') {
    problems[param] = `${param} ${id} is not an event.`;
    return undefined;
  }
  return { eventId: id, eventHidden: !mayFilterByEvent(user, event) };
}
