import type { Knex } from 'knex';
import { VersionedCache } from '../db/versioned-cache.js';
import type { OperationContext, Reply } from './operation.js';

/**
 * Replies to reads, remembered while the data version stays the same (db/versioned-cache.ts): a
 * repeated read costs one version lookup instead of the queries and the record mapping. Bounded in
 * number, because a reply can be a whole page of records.
 */
export function replyCache(db: Knex): VersionedCache<Reply> {
  return new VersionedCache<Reply>(db, 256);
}

/**
 * The key of a read's reply: the operation, what the request asked (`parts`, which must name
 * everything the reply depends on), who asks (what they may read) and the URL base of its links.
 */
export function replyKey(ctx: OperationContext, parts: unknown): string {
  return JSON.stringify([ctx.operationId, ctx.urls.restRoot, ctx.urls.site, ctx.user ? [ctx.user.id, ctx.user.role] : null, parts]);
}
