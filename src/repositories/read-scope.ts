import type { Knex } from 'knex';

/**
 * Who may read what, as the repositories need it for lists (the rules themselves are in
 * policies/posts.ts, which builds these values): `ReadScope` is the read rule, `ProtectedTextScope`
 * whose password-protected text the caller may not search.
 */
export type ReadScope = { everything: true } | { everything: false; ownerId?: number; ownStatuses: string[] };

/** `undefined`: nothing is hidden; otherwise every protected record's text but the `exceptAuthor`'s own. */
export type ProtectedTextScope = undefined | { exceptAuthor?: number; ownOnlyUnpublished?: boolean };

/** The caller as list queries see them: the two scopes and the key their cached results are filed under. */
export interface Reader {
  scope: ReadScope;
  protectedText: ProtectedTextScope;
  key: [number, string] | null;
}

/**
 * The read rule of policies/posts.ts (`readScope`) as SQL: published records, plus the caller's own in
 * the statuses the scope names; nothing added for editors. `statusColumn` names another copy of the
 * status (events keep one); the author is always `{alias}.author_id`.
 */
export function whereReadable(query: Knex.QueryBuilder, alias: string, scope: ReadScope, statusColumn = `${alias}.status`): void {
  if (scope.everything) return;
  query.where((q) => {
    q.where(statusColumn, 'publish');
    if (scope.ownerId !== undefined) {
      q.orWhere((mine) => mine.where(`${alias}.author_id`, scope.ownerId).whereIn(statusColumn, scope.ownStatuses));
    }
  });
}

/**
 * The condition "this record's protected text is hidden from the caller" (policies/posts.ts
 * `protectedTextScope`), or undefined when nothing is hidden from this caller.
 */
export function protectedTextHidden(alias: string, scope: ProtectedTextScope): ((q: Knex.QueryBuilder) => void) | undefined {
  if (scope === undefined) return undefined;
  return (q) => {
    q.whereNotNull(`${alias}.password`).whereNot(`${alias}.password`, '');
    if (scope.exceptAuthor === undefined) return;
    // A record without an author is nobody's own: `whereNotNull` keeps the condition false (never NULL)
    // there, so a NOT around it (a search's excluded words) cannot drop the record.
    q.whereNot((own) => {
      own.whereNotNull(`${alias}.author_id`).where(`${alias}.author_id`, scope.exceptAuthor);
      if (!scope.ownOnlyUnpublished) return;
      // A trashed record counts by the status it had before the trash (policies/posts.ts mayEdit);
      // an owner's private record is no published one there.
      const published = ['publish', 'future'];
      own.where((unpublished) =>
        unpublished
          .whereNotIn(`${alias}.status`, [...published, 'trash'])
          .orWhere((trashed) =>
            trashed.where(`${alias}.status`, 'trash').where((before) => before.whereNull(`${alias}.trashed_from`).orWhereNotIn(`${alias}.trashed_from`, published)),
          ),
      );
    });
  };
}
