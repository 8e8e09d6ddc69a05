import type { Knex } from 'knex';
import { can, type User } from '../auth/capabilities.js';
import { invalidParam } from '../http/errors.js';

/** Statuses a record can have (WordPress's registered post statuses, less the internal ones). */
export const STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const;
/** What `status=any` and an absent `status` mean for a caller who may edit: everything but the trash. */
const ANY = ['publish', 'future', 'draft', 'pending', 'private'];

/**
 * The per-record read rule (auth/permissions.ts canReadRecord) as SQL, so lists show exactly what a
 * single GET would: published records to everybody; the caller's own private records; their own
 * drafts, pending and scheduled records to contributors and up; everything to editors. `statusColumn`
 * names another copy of the status (events keep one); the author is always `{alias}.author_id`.
 */
export function whereReadable(query: Knex.QueryBuilder, alias: string, user: User | undefined, statusColumn = `${alias}.status`): void {
  if (can(user, 'edit_others_posts') && can(user, 'read_private_posts')) return;
  query.where((q) => {
    q.where(statusColumn, 'publish');
    if (user) {
      const own = can(user, 'edit_posts') ? ['private', 'draft', 'pending', 'future'] : ['private'];
      q.orWhere((mine) => mine.where(`${alias}.author_id`, user.id).whereIn(statusColumn, own));
    }
  });
}

/**
 * Who asks, as far as what they may read goes (whereReadable): the key under which results computed
 * for one caller are remembered (list totals, replies), so no caller is ever shown another's.
 */
export function readerKey(user: User | undefined): [number, string] | null {
  return user ? [user.id, user.role] : null;
}

export interface StatusFilter {
  statuses: string[];
  /** The value paging URLs carry: the requested list, or `publish` / `any` as the plugin writes it. */
  urlValue: string;
}

/**
 * The `status` list parameter (plugin-behaviour §4.3): absent → `publish` for callers who may not
 * edit, everything but the trash for those who may; present → callers who may not edit may ask for
 * exactly `publish` (anything else is 400), others for any statuses, `any` included.
 */
export function statusFilter(requested: string[] | undefined, user: User | undefined): StatusFilter {
  const mayEdit = can(user, 'edit_posts');
  if (!requested || requested.length === 0) return mayEdit ? { statuses: ANY, urlValue: 'any' } : { statuses: ['publish'], urlValue: 'publish' };
  if (!mayEdit && requested.some((status) => status !== 'publish')) {
    throw invalidParam('status', 'status other than publish needs the right to edit.');
  }
  const statuses = [...new Set(requested.flatMap((status) => (status === 'any' ? ANY : [status])))];
  return { statuses, urlValue: requested.join(',') };
}

/**
 * The condition "this record's protected text is hidden from the caller" (it has a password and the
 * caller may not edit it), or undefined when nothing is hidden from this caller (editors).
 */
export function protectedTextHidden(db: Knex, alias: string, user: User | undefined): ((q: Knex.QueryBuilder) => void) | undefined {
  if (can(user, 'edit_others_posts')) return undefined;
  return (q) => {
    q.whereNotNull(`${alias}.password`).whereNot(`${alias}.password`, '');
    if (user && can(user, 'edit_posts')) q.whereNot(`${alias}.author_id`, user.id);
  };
}
