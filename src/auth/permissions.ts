import { can, type Capability, type User } from './capabilities.js';
import { forbidden } from '../http/errors.js';

/** What a per-record rule needs to know about an event, venue or organizer. */
export interface OwnedRecord {
  status: string;
  authorId: number | null;
  /** While trashed: the status it had before (WordPress's `_wp_trash_meta_status`). */
  trashedFrom?: string | null;
}

const PUBLISHED = new Set(['publish', 'private', 'future']);

function isOwn(user: User | undefined, record: OwnedRecord): boolean {
  return user !== undefined && record.authorId !== null && record.authorId === user.id;
}

/**
 * WordPress `map_meta_cap` for `edit_post` / `delete_post` (plugin-behaviour §4.1): own unpublished →
 * `edit_posts`; own published → `edit_published_posts`; someone else's → `edit_others_posts`, plus
 * `edit_published_posts` when published and `edit_private_posts` when private. A trashed record
 * is judged by the status it had before the trash, as WordPress does.
 */
function ownershipRule(user: User | undefined, record: OwnedRecord, verb: 'edit' | 'delete'): boolean {
  const status = record.status === 'trash' ? (record.trashedFrom ?? 'draft') : record.status;
  const needed: Capability[] = [];
  if (isOwn(user, record)) {
    needed.push(PUBLISHED.has(status) ? `${verb}_published_posts` : `${verb}_posts`);
  } else {
    needed.push(`${verb}_others_posts`);
    if (status === 'publish' || status === 'future') needed.push(`${verb}_published_posts`);
    if (status === 'private') needed.push(`${verb}_private_posts`);
  }
  return needed.every((capability) => can(user, capability));
}

export function canEditRecord(user: User | undefined, record: OwnedRecord): boolean {
  return ownershipRule(user, record, 'edit');
}

export function canDeleteRecord(user: User | undefined, record: OwnedRecord): boolean {
  return ownershipRule(user, record, 'delete');
}

/**
 * `read_post`: published → anyone; private → own or `read_private_posts`; trashed → editors and
 * administrators only (contract §5); drafts, pending and scheduled → their author from contributor
 * up (contract §5, as lists show them: posts/visibility.ts), others' by the edit rule (editors).
 */
export function canReadRecord(user: User | undefined, record: OwnedRecord): boolean {
  switch (record.status) {
    case 'publish':
      return true;
    case 'private':
      return isOwn(user, record) ? can(user, 'read') : can(user, 'read_private_posts');
    case 'trash':
      return can(user, 'edit_others_posts');
    default:
      return isOwn(user, record) ? can(user, 'edit_posts') : canEditRecord(user, record);
  }
}

/** Throws `rest_forbidden` (401 anonymous, 403 otherwise) unless the caller holds the capability. */
export function requireCapability(user: User | undefined, capability: Capability): void {
  if (!can(user, capability)) throw forbidden(user !== undefined);
}
