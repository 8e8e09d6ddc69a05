import { can, type Capability, type User } from '../auth/capabilities.js';
import { forbidden, invalidParam, RestError } from '../core/errors.js';
import { sameSecret } from '../auth/constant-time.js';
import type { ProtectedTextScope, Reader, ReadScope } from '../repositories/read-scope.js';

/**
 * Who may do what to events, venues and organizers: every rule, in one place. The three types share
 * WordPress's post capability family (docs/plugin-behaviour.md §4.1), so one policy serves them all.
 *
 * The operation table (src/operations/handlers.ts) names the action of each operation (`read`, `list`,
 * `create`, `edit`, `remove`); the request pipeline (operations/shared/operation.ts) runs it after the input is
 * parsed (400) and the record loaded (404), so its 403 never reveals more than those did. The other
 * rules here are consulted where a decision shapes a value rather than refusing the request: masking,
 * the statuses a write stores, what a list may show (`readScope`, the same read rule as a query filter).
 */

/** What a rule needs to know about an event, venue or organizer. */
export interface PostFacts {
  type: string;
  status: string;
  authorId: number | null;
  /** Set when the record is password-protected. */
  password?: string | null;
  /** While trashed: the status it had before (WordPress's `_wp_trash_meta_status`). */
  trashedFrom?: string | null;
}

/** What `status=any` and an absent `status` mean for a caller who may edit: everything but the trash. */
export const ANY_STATUS = ['publish', 'future', 'draft', 'pending', 'private'];

function isOwn(user: User | undefined, record: PostFacts): boolean {
  // A record without an author (null) is nobody's own: null never equals a user id.
  return user !== undefined && record.authorId === user.id;
}

/**
 * WordPress `map_meta_cap` for `edit_post` / `delete_post`: own published or scheduled →
 * `edit_published_posts`; own in any other status (draft, pending, private) → `edit_posts`; someone
 * else's → `edit_others_posts`, plus `edit_published_posts` when published or scheduled and
 * `edit_private_posts` when private. A trashed record is judged by the status it had before the
 * trash, as WordPress does. (So a contributor may edit its own private record, which an editor made
 * private or gave it: WordPress asks nothing more of the owner of a private post.)
 */
function ownershipRule(user: User | undefined, record: PostFacts, verb: 'edit' | 'delete'): boolean {
  // Stryker disable next-line StringLiteral: any unpublished stand-in decides the same as 'draft'.
  const status = record.status === 'trash' ? (record.trashedFrom ?? 'draft') : record.status;
  const needed: Capability[] = [];
  if (isOwn(user, record)) {
    needed.push(status === 'publish' || status === 'future' ? `${verb}_published_posts` : `${verb}_posts`);
  } else {
    needed.push(`${verb}_others_posts`);
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral,LogicalOperator: every role with `*_others_posts` also has `*_published_posts` (auth/capabilities.ts).
    if (status === 'publish' || status === 'future') needed.push(`${verb}_published_posts`);
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: every role with `*_others_posts` also has `*_private_posts`.
    if (status === 'private') needed.push(`${verb}_private_posts`);
  }
  return needed.every((capability) => can(user, capability));
}

/** May the caller change this record? */
export function mayEdit(user: User | undefined, record: PostFacts): boolean {
  return ownershipRule(user, record, 'edit');
}

/** May the caller trash or delete this record? */
export function mayDelete(user: User | undefined, record: PostFacts): boolean {
  return ownershipRule(user, record, 'delete');
}

/**
 * `read_post`: published → anyone; private → own or `read_private_posts`; trashed → editors and
 * administrators only (docs/contract.md §5); drafts, pending and scheduled → their author from
 * contributor up, others' by the edit rule (editors). `readScope` is this rule as a list filter.
 */
export function mayRead(user: User | undefined, record: PostFacts): boolean {
  switch (record.status) {
    case 'publish':
      return true;
    case 'private':
      return isOwn(user, record) ? can(user, 'read') : can(user, 'read_private_posts');
    case 'trash':
      return can(user, 'edit_others_posts');
    default:
      return isOwn(user, record) ? can(user, 'edit_posts') : mayEdit(user, record);
  }
}

/** A venue or organizer an event may link to: readable, not trashed. */
export function mayReference(user: User | undefined, record: PostFacts): boolean {
  return record.status !== 'trash' && mayRead(user, record);
}

/**
 * An event a list may be filtered by (`categories?event=`, `venues?event=`, ...): any event the caller
 * may read, trashed ones included for those who read the trash. Which of its links show is decided
 * by the list's own read rule.
 */
export function mayFilterByEvent(user: User | undefined, event: PostFacts): boolean {
  return mayRead(user, event);
}

/**
 * Password-protected text (description, excerpt, details, links) is shown only to callers who may
 * edit the record; others see the record masked (docs/contract.md §5) unless a single read carries the
 * password.
 */
export function maySeeProtectedText(user: User | undefined, record: PostFacts): boolean {
  return !record.password || mayEdit(user, record);
}

/**
 * A record the change feed sends in full (docs/contract.md §9): one a single GET without a password
 * shows this caller, not trashed. Any other is reported as deleted, without its content.
 */
export function mayFollow(user: User | undefined, record: PostFacts): boolean {
  return record.status !== 'trash' && mayRead(user, record) && maySeeProtectedText(user, record);
}

/** Creating an event, venue or organizer (standalone or nested in an event): contributors and up. */
export function mayCreate(user: User | undefined): boolean {
  return can(user, 'edit_posts');
}

/** Recording a new image from a URL: authors and up (WordPress `upload_files`); others use image ids. */
export function mayRecordImageFromUrl(user: User | undefined): boolean {
  return can(user, 'upload_files');
}

/** Writing HTML as given, without cleaning (WordPress `unfiltered_html`). */
export function mayWriteUnfilteredHtml(user: User | undefined): boolean {
  return can(user, 'unfiltered_html');
}

/** May the caller publish events, venues and organizers (`publish_posts`: authors and up)? */
export function mayPublish(user: User | undefined): boolean {
  return can(user, 'publish_posts');
}

/** Asking a list for statuses other than `publish` (drafts, pending, ...): callers who may edit. */
export function mayListUnpublished(user: User | undefined): boolean {
  return can(user, 'edit_posts');
}

/**
 * The status a write stores (docs/plugin-behaviour.md §5.10, docs/contract.md §5). Callers who may
 * publish get what they ask for (`publish` when creating without one). Contributors cannot publish:
 * `publish` and `future` become `pending`, no status on create becomes `draft` (`private` is refused
 * by `authorizeWrite`). A publication date in the future turns `publish` into `future`, and a past one
 * `future` into `publish`, as WordPress schedules posts.
 */
export function storedStatus(requested: string | undefined, existing: PostFacts | undefined, publishedInFuture: boolean, user: User | undefined): string {
  let status = requested ?? existing?.status ?? 'publish';
  const mayPublish = can(user, 'publish_posts');
  if (!mayPublish && (requested === 'publish' || requested === 'future')) status = 'pending';
  if (!mayPublish && !existing && requested === undefined) status = 'draft';
  if (status === 'publish' && publishedInFuture) status = 'future';
  else if (status === 'future' && !publishedInFuture) status = 'publish';
  return status;
}

/** What a write asks for that some callers may not: a status and an author. */
export interface WriteRequest {
  status?: string;
  authorId?: number;
}

/**
 * The rights a write's values need: `private` needs the right to publish, and giving the record to
 * another user needs `edit_others_posts` (403).
 */
function authorizeWrite(user: User | undefined, input: WriteRequest): void {
  // Only callers who passed mayCreate or mayEdit (signed in: 403) get here.
  if (input.status === 'private' && !can(user, 'publish_posts')) throw forbidden(true);
  // Keeping someone else's author is giving it too: editing their record already needed `edit_others_posts`.
  const reassigns = input.authorId !== undefined && input.authorId !== user?.id;
  if (reassigns && !can(user, 'edit_others_posts')) throw forbidden(true);
}

/** What a list filters on before anything else: the statuses the caller may ask for. */
interface StatusFilter {
  statuses: string[];
  /** The value paging URLs carry: the requested list, or `publish` / `any` as the plugin writes it. */
  urlValue: string;
}

/**
 * The `status` list parameter (docs/plugin-behaviour.md §4.3): absent → `publish` for callers who may
 * not edit, everything but the trash for those who may; present → callers who may not edit may ask
 * for exactly `publish` (anything else is 400, as in the plugin), others for any statuses, `any` included.
 */
export function statusFilter(requested: string[] | undefined, user: User | undefined): StatusFilter {
  const mayEditAny = mayListUnpublished(user);
  if (!requested || requested.length === 0) return mayEditAny ? { statuses: ANY_STATUS, urlValue: 'any' } : { statuses: ['publish'], urlValue: 'publish' };
  if (!mayEditAny && requested.some((status) => status !== 'publish')) {
    throw invalidParam('status', 'status other than publish needs the right to edit.');
  }
  const statuses = [...new Set(requested.flatMap((status) => (status === 'any' ? ANY_STATUS : [status])))];
  return { statuses, urlValue: requested.join(',') };
}

/**
 * `mayRead` as a description a repository turns into SQL (repositories/read-scope.ts), so lists show exactly
 * what a single GET would: everything to editors; otherwise published records, plus the caller's own
 * records in `ownStatuses`.
 */
export function readScope(user: User | undefined): ReadScope {
  // Stryker disable next-line LogicalOperator: no role has one of the two rights without the other.
  if (can(user, 'edit_others_posts') && can(user, 'read_private_posts')) return { everything: true };
  if (!user) return { everything: false, ownStatuses: [] };
  return { everything: false, ownerId: user.id, ownStatuses: can(user, 'edit_posts') ? ['private', 'draft', 'pending', 'future'] : ['private'] };
}

/**
 * `maySeeProtectedText` as a description for searches: whose protected text is hidden from the
 * caller. `undefined`: nobody's (editors); otherwise every protected record's but the caller's own
 * when `exceptAuthor` is set (contributors and authors edit their own).
 */
export function protectedTextScope(user: User | undefined): ProtectedTextScope {
  if (can(user, 'edit_others_posts')) return undefined;
  if (!user || !can(user, 'edit_posts')) return {};
  // mayEdit on the caller's own records: contributors only while unpublished, authors always.
  return { exceptAuthor: user.id, ownOnlyUnpublished: !can(user, 'edit_published_posts') };
}

/**
 * Who asks, as far as what they may read goes: part of the key under which results computed for one
 * caller are cached (list totals, replies), so no caller is ever shown another's.
 */
export function readerKey(user: User | undefined): Reader['key'] {
  return user ? [user.id, user.role] : null;
}

/**
 * One attempt at a record's password, counted against its client (operations/shared/password-guesses.ts):
 * told whether the password was right, it resolves when the attempt may be answered and rejects with
 * 429 once the client has guessed wrong too often on this record (a wrong attempt counts itself first).
 */
export type PasswordAttempt = (recordId: number, right: boolean) => Promise<void>;

/** What a single read sends: the record's password, and the guard of attempts at it on a record. */
export interface ReadRequest {
  password?: string;
  passwordAttempt?: PasswordAttempt;
}

/**
 * The actions of the operation table. Each throws the answer the caller gets when refused:
 * `rest_forbidden` (401 anonymous, 403 otherwise) unless noted.
 */
export const postPolicy = {
  /** Lists: anyone; asking for unpublished statuses needs the edit right (400, as in the plugin). */
  list(user: User | undefined, _target: unknown, input: { status?: string[] }): void {
    statusFilter(input.status, user);
  },

  /**
   * A single record (docs/contract.md §4-§5): trashed records only for editors (403
   * `{type}-no-longer-available`), others by the read rule (403 `{type}-not-accessible`), then the
   * password unless the caller may edit the record (403 `{type}-password-protected`; a password sent
   * is an attempt, 429 once the client has guessed wrong too often on this record).
   */
  read(user: User | undefined, record: PostFacts & { id: number }, input: ReadRequest): void | Promise<void> {
    const label = record.type;
    if (!mayRead(user, record)) {
      if (record.status === 'trash') throw new RestError(403, `${label}-no-longer-available`, `This ${label} is no longer available`);
      throw new RestError(403, `${label}-not-accessible`, `The requested ${label} is not accessible`);
    }
    if (maySeeProtectedText(user, record)) return;
    const refused = () => new RestError(403, `${label}-password-protected`, `The requested ${label} is not accessible without a password`);
    if (input.password === undefined) throw refused();
    // Stryker disable next-line StringLiteral: unreachable fallback, a record whose text is hidden has a password.
    const right = sameSecret(input.password, record.password ?? '');
    // The count is asked only when a password was sent (asynchronously: it is shared by every process).
    const counted = input.passwordAttempt?.(record.id, right);
    if (counted === undefined) {
      if (!right) throw refused();
      return;
    }
    return counted.then(() => {
      if (!right) throw refused();
    });
  },

  /** Creating: contributors and up, with the rights its values need. */
  create(user: User | undefined, _target: unknown, input: WriteRequest): void {
    if (!mayCreate(user)) throw forbidden(user !== undefined);
    authorizeWrite(user, input);
  },

  /**
   * Before a change or a delete is looked up: a caller whose role may change (or delete) no record of
   * the type (a subscriber) is refused at once, as the plugin's permission check runs before its
   * handler looks for the record (docs/contract.md §4).
   */
  mayTryEdit(user: User | undefined): void {
    if (!can(user, 'edit_posts')) throw forbidden(user !== undefined);
  },
  mayTryRemove(user: User | undefined): void {
    if (!can(user, 'delete_posts')) throw forbidden(user !== undefined);
  },

  /** Changing: the edit rule on the record, with the rights its values need. */
  edit(user: User | undefined, record: PostFacts, input: WriteRequest): void {
    if (!mayEdit(user, record)) throw forbidden(user !== undefined);
    authorizeWrite(user, input);
  },

  /** Importing a calendar (POST /events/import): editors and administrators, who may edit others' events. */
  import(user: User | undefined): void {
    if (!can(user, 'edit_others_posts')) throw forbidden(user !== undefined);
  },

  /** Trashing or deleting: the delete rule on the record. */
  remove(user: User | undefined, record: PostFacts): void {
    if (!mayDelete(user, record)) throw forbidden(user !== undefined);
  },
};

/** Everything a list query needs to know about who asks: the read rule, the protected-text rule, the cache key. */
export function readerOf(user: User | undefined): Reader {
  return { scope: readScope(user), protectedText: protectedTextScope(user), key: readerKey(user) };
}
