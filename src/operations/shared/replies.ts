import type { Knex } from 'knex';
import { VersionedCache } from '../../db/versioned-cache.js';
import { sentQueryNames } from './paging.js';
import { readerKey } from '../../policies/posts.js';
import type { OperationContext, RememberedBy, Reply } from './operation.js';
import { serializeReply, STREAM_ABOVE_BYTES, type SerializedReply } from './reply-body.js';

/** Bytes the remembered replies may hold in all (4 MiB): what they send, kept as Buffers (see `rememberedWeight`). */
const MAX_REPLY_BYTES = 4_194_304;

/**
 * Replies to reads, remembered while the data version stays the same (db/versioned-cache.ts): a
 * repeated read costs one version lookup instead of the queries and the record mapping. Bounded in
 * number and in size, because a reply can be a whole page of records; a reply too large to be sent
 * in one piece (operations/shared/reply-body.ts) is not kept, so one large reply cannot push all others out. A
 * reply is serialised when it is stored, to weigh it; app.ts sends that JSON.
 */
export function replyCache(db: Knex, replyLimit: number): VersionedCache<Reply> {
  return new VersionedCache<Reply>(db, {
    maxEntries: 1024,
    maxWeight: MAX_REPLY_BYTES,
    maxEntryWeight: STREAM_ABOVE_BYTES,
    weigh: (reply) => rememberedWeight(reply, replyLimit),
  });
}

/** Bytes the remembered single-record replies may hold in all (2 MiB). */
const MAX_RECORD_REPLY_BYTES = 2_097_152;
const recordReplyCaches = new WeakMap<Knex, VersionedCache<Reply>>();

/**
 * Replies to single-record reads, remembered under a stamp of the record (`VersionedCache.getStamped`;
 * records/records.ts builds it from the rows read for the request), one cache per database handle.
 * Unlike `replyCache` they stay valid through writes of other records.
 */
export function recordReplies(ctx: OperationContext): VersionedCache<Reply> {
  let cache = recordReplyCaches.get(ctx.db);
  // Stryker disable next-line ConditionalExpression,CallExpression: without the cache every read builds its reply again: the same reply.
  if (!cache) recordReplyCaches.set(ctx.db, (cache = recordReplyCache(ctx.db, ctx.config.replyLimit)));
  return cache;
}

function recordReplyCache(db: Knex, replyLimit: number): VersionedCache<Reply> {
  return new VersionedCache<Reply>(db, {
    maxEntries: 1024,
    maxWeight: MAX_RECORD_REPLY_BYTES,
    maxEntryWeight: STREAM_ABOVE_BYTES,
    weigh: (reply) => rememberedWeight(reply, replyLimit),
  });
}

/**
 * A single-record read's reply, remembered under `stamp` (which must change whenever the reply could)
 * for this operation, record, caller and URL base; `build` makes it on a miss.
 */
export function rememberedRecord<R extends Reply>(ctx: OperationContext, id: number, stamp: string, build: () => Promise<R>): Promise<R> {
  return recordReplies(ctx).getStamped(replyKey(ctx, [id]), stamp, build) as Promise<R>;
}

/**
 * The weight of a reply about to be remembered: the bytes it sends, which is all it keeps (outside
 * V8's heap, as a Buffer). A text reply (an iCalendar feed) keeps its UTF-8 bytes. A JSON reply keeps
 * its serialised JSON (written as bytes, outside V8's heap: operations/shared/reply-body.ts), and lets go of the objects it was serialised
 * from (they took two to three times the memory of the JSON); the rare request that needs them again
 * (`_fields`, response validation) decodes the bytes back.
 */
function rememberedWeight(reply: Reply, limit: number): number {
  // A text reply built as bytes (operations/event-feeds.ts) already keeps only them.
  if (reply.textBytes) return reply.textBytes.length;
  // Stryker disable next-line BlockStatement: memory only: without it a text reply keeps its string and sends the same bytes.
  if (typeof reply.body === 'string') {
    const bytes = Buffer.from(reply.body, 'utf8');
    reply.textBytes = bytes;
    // Stryker disable next-line all: what a request sees is the same either way (the string, or the same string decoded again): only memory differs.
    Object.defineProperty(reply, 'body', { get: () => bytes.toString('utf8'), enumerable: true, configurable: true });
    return bytes.length;
  }
  const serialized = serializedReply(reply, limit);
  // A JSON-LD reply's body is looked at for its type (app.ts); only plain JSON replies let go of it.
  // What a request sees is the same either way (the objects, or their JSON parsed back): only memory differs.
  // Stryker disable all
  const bytes = serialized.buffer;
  if (bytes && reply.contentType === undefined) {
    Object.defineProperty(reply, 'body', { get: () => JSON.parse(bytes.toString('utf8')) as unknown, enumerable: true, configurable: true });
  }
  // Stryker restore all
  return serialized.bytes;
}

/** The reply's JSON, serialised once (and only as far as `limit`: operations/shared/reply-body.ts). */
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
