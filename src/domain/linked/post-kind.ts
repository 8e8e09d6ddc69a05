import type { PostKind } from '../posts/post-kind.js';
import { ORGANIZERS, VENUES, type LinkedKind } from '../../repositories/linked-kinds.js';
import type { LinkedRow } from '../../repositories/linked.js';

/** A venue or organizer kind as the shared record service (domain/posts/post-kind.ts) sees it. */
function linkedPostKind(kind: LinkedKind): PostKind<LinkedRow> {
  return {
    type: kind.type,
    label: kind.label,
    Label: kind.Label,
    findById: (repositories, id) => repositories.linked(kind).findById(id),
    findBySlug: (repositories, slug) => repositories.linked(kind).findBySlug(slug),
    trash: (repositories, row, modified, expected) => repositories.linked(kind).trash(row, modified, expected),
    destroy: (repositories, row, expected) => repositories.posts.destroy(row, expected),
  };
}

/** Venues and organizers as the shared record service sees them, by type. */
export const LINKED_POST_KINDS: Record<LinkedKind['type'], PostKind<LinkedRow>> = {
  venue: linkedPostKind(VENUES),
  organizer: linkedPostKind(ORGANIZERS),
};
