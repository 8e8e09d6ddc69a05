import type { PostKind } from '../posts/post-kind.js';
import type { EventRow } from '../../repositories/events.js';

/** Events as the shared record service (domain/posts/post-kind.ts) sees them. */
export const EVENTS: PostKind<EventRow> = {
  type: 'event',
  label: 'event',
  Label: 'Event',
  findById: (repositories, id) => repositories.events.findById(id),
  findBySlug: (repositories, slug) => repositories.events.findBySlug(slug),
  // A trashed or deleted event no longer counts for its terms.
  async trash(repositories, row, modified, expected) {
    const countedBefore = await repositories.events.countedTerms(row.id);
    await repositories.posts.trash(row, modified, expected);
    await repositories.terms.shiftCounts(countedBefore, []);
  },
  async destroy(repositories, row, expected) {
    const countedBefore = await repositories.events.countedTerms(row.id);
    await repositories.posts.destroy(row, expected);
    await repositories.terms.shiftCounts(countedBefore, []);
  },
};
