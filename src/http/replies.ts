import type { Knex } from 'knex';
import { VersionedCache } from '../db/versioned-cache.js';
import { sentQueryNames } from './paging.js';
import { readerKey } from '../policies/posts.js';
import type { OperationContext, RememberedBy, Reply } from './operation.js';
import { serializeReply, STREAM_ABOVE_BYTES, type SerializedReply } from './reply-body.js';

/** Bytes of JSON the remembered replies may hold in all (their objects take about twice as much). */
// Stryker disable next-line ArithmeticOperator: a bound on memory; with any bound every reply is right, fewer are remembered.
const MAX_REPLY_BYTES = 8 * 1024 * 1024;

/**
 * Replies to reads, remembered while the data version stays the same (db/versioned-cache.ts): a
 * repeated read costs one version lookup instead of the queries and the record mapping. Bounded in
 * number and in size, because a reply can be a whole page of records; a reply too large to be sent
 * in one piece (http/reply-body.ts) is not kept, so one large reply cannot push all others out. A
 * reply is serialised when it is stored, to weigh it; app.ts sends that JSON.
 */
export function replyCache(db: Knex, replyLimit: number): VersionedCache<Reply> {
  return new VersionedCache<Reply>(db, {
    maxEntries: 1024,
    maxWeight: MAX_REPLY_BYTES,
    maxEntryWeight: STREAM_ABOVE_BYTES,
    weigh: (reply) => serializedReply(reply, replyLimit).bytes,
  });
}

/** The reply's JSON, serialised once (and only as far as `limit`: http/reply-body.ts). */
export function serializedReply(reply: Reply, limit: number): SerializedReply {
  return (reply.serialized ??= serializeReply(reply.body, limit));
}

/**
 * The key of a read's reply: the operation, what the request asked (`parts`, which must name
 * everything the reply depends on), who asks (what they may read) and the URL base of its links.
 */
export function replyKey(ctx: OperationContext, parts: unknown): string {
  return JSON.stringify([ctx.operationId, ctx.urls.restRoot, ctx.urls.site, readerKey(ctx.user), parts]);
}

/** `remember` of reads whose reply depends only on the request's path and query, who asks and the data. */
export function byRequest(ctx: OperationContext): RememberedBy {
  return { parts: [ctx.path, ctx.query, sentQueryNames(ctx.req)] };
}
