import type { operations } from '../../../generated/openapi.js';
import type { User } from '../../auth/capabilities.js';
import { invalidParams } from '../../core/errors.js';
import { readerOf, statusFilter } from '../../policies/posts.js';
import { eventFilter } from '../posts/event-filter.js';
import type { Repositories } from '../../repositories/registry.js';
import type { LinkedListFilter } from '../../repositories/linked.js';
import type { ModifiedRange } from '../../repositories/list-order.js';

/** The validated query of `GET /venues` or `GET /organizers`. */
type LinkedListQuery = NonNullable<operations['listVenues']['parameters']['query']> | NonNullable<operations['listOrganizers']['parameters']['query']>;

/** What a venue or organizer list needs besides its query: who asks, and what was made of the query before. */
interface LinkedListScope {
  user: User | undefined;
  /** The statuses the caller may list (policies/posts.ts statusFilter). */
  statuses: string[];
  modified: ModifiedRange;
  /** `only_with_upcoming`: the UTC time an event must start at or after. */
  upcomingFrom: string | undefined;
  page: { perPage: number; offset: number };
}

/** What a venue or organizer list selects; an `event` that is no event is 400 (domain/posts/event-filter.ts). */
export async function linkedListFilter(repositories: Repositories, query: LinkedListQuery, scope: LinkedListScope): Promise<LinkedListFilter> {
  const { user, page } = scope;
  const problems: Record<string, string> = {};
  const byEvent = query.event !== undefined ? await eventFilter(repositories, 'event', query.event, user, problems) : undefined;
  if (Object.keys(problems).length) throw invalidParams(problems);
  return {
    statuses: scope.statuses,
    reader: readerOf(user),
    search: query.search,
    eventId: query.event,
    eventHidden: byEvent?.eventHidden,
    hasEvents: query.has_events,
    upcomingFrom: scope.upcomingFrom,
    upcomingStatuses: statusFilter(undefined, user).statuses,
    modified: scope.modified,
    orderBy: query.orderby,
    direction: query.order,
    limit: page.perPage,
    offset: page.offset,
  };
}
