import type { Knex } from 'knex';
import { VersionedCache, type Moving } from '../db/versioned-cache.js';
import { sentQueryNames } from './paging.js';
import { readerKey } from '../posts/visibility.js';
import type { OperationContext, Reply } from './operation.js';

/** Bytes of JSON the remembered replies may hold in all (their objects take about twice as much). */
const MAX_REPLY_BYTES = 8 * 1024 * 1024;

/**
 * Replies to reads, remembered while the data version stays the same (db/versioned-cache.ts): a
 * repeated read costs one version lookup instead of the queries and the record mapping. Bounded in
 * number and in size, because a reply can be a whole page of records. A reply is serialised when it
 * is stored, to weigh it; app.ts sends that JSON.
 */
export function replyCache(db: Knex): VersionedCache<Reply> {
  return new VersionedCache<Reply>(db, {
    maxEntries: 1024,
    maxWeight: MAX_REPLY_BYTES,
    weigh: (reply) => (reply.serialized ??= JSON.stringify(reply.body)).length,
  });
}

/**
 * The key of a read's reply: the operation, what the request asked (`parts`, which must name
 * everything the reply depends on), who asks (what they may read) and the URL base of its links.
 */
export function replyKey(ctx: OperationContext, parts: unknown): string {
  return JSON.stringify([ctx.operationId, ctx.urls.restRoot, ctx.urls.site, readerKey(ctx.user), parts]);
}

/**
 * A read whose reply depends only on the request's path and query, who asks and the data: it is
 * remembered under those. (Reads that also depend on the clock pass `moving`, or build their own key.)
 */
export function rememberedRead<Ctx extends OperationContext>(handler: (ctx: Ctx) => Promise<Reply>, moving?: (ctx: Ctx) => Moving | undefined) {
  return (ctx: Ctx): Promise<Reply> => ctx.replies.get(replyKey(ctx, [ctx.path, ctx.query, sentQueryNames(ctx.req)]), () => handler(ctx), moving?.(ctx));
}
