import type { Knex } from 'knex';
import { VersionedCache } from '../../db/versioned-cache.js';
import { sentQueryNames } from './paging.js';
import type { Reader } from '../../repositories/read-scope.js';
import type { ReadRequest } from '../../policies/posts.js';
import type { OperationContext, CachedBy, Reply } from './operation.js';
import { serializeReply, STREAM_ABOVE_BYTES, type SerializedReply } from './reply-body.js';

/** Bytes the cached replies may hold in all (6 MiB): what they send, kept as Buffers (see `replyWeight`). */
const MAX_REPLY_BYTES = 6_291_456;

declare const readerInKey: unique symbol;

/**
 * The key of a cached reply. Only `replyKey` makes one, and it takes the caller's read scope, so two
 * callers who may see different records never share an entry: no key can be made without it.
 */
type ReplyKey = string & { readonly [readerInKey]: true };

/** The cache of whole replies to reads (`REPLY_CACHE`), one per app (http/app.ts `createApp`). */
export type ReplyCache = VersionedCache<Reply, ReplyKey>;

/**
 * Replies to reads, kept while the data version stays the same (db/versioned-cache.ts): a repeated
 * read costs one version lookup instead of the queries and the record mapping. Bounded in bytes,
 * because a reply can be a whole page of records; a reply too large to be sent in one piece
 * (operations/shared/reply-body.ts) is not kept, so one large reply cannot push all others out. A
 * reply is serialised when it is stored, to weigh it; app.ts sends that JSON.
 */
export function createReplyCache(db: Knex, replyLimit: number): ReplyCache {
  return new VersionedCache<Reply, ReplyKey>(db, {
    maxEntries: 4096,
    maxWeight: MAX_REPLY_BYTES,
    maxEntryWeight: STREAM_ABOVE_BYTES,
    weigh: (reply) => replyWeight(reply, replyLimit),
  });
}

/**
 * The weight of a reply about to be cached: the bytes it sends, which is all it keeps (outside
 * V8's heap, as a Buffer). A text reply (an iCalendar feed) keeps its UTF-8 bytes. A JSON reply keeps
 * its serialised JSON (a Buffer, outside V8's heap: operations/shared/reply-body.ts), and lets go of the objects it was serialised
 * from (they took two to three times the memory of the JSON); the rare request that needs them again
 * (`_fields`, response validation) decodes the bytes back.
 */
function replyWeight(reply: Reply, limit: number): number {
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
 * The key of a read's reply: who asks (`reader`: what they may read, and who they are), the operation
 * and the URL base of its links, and what the request asked (`parts`, which must name everything
 * else the reply depends on).
 */
export function replyKey(reader: Reader, ctx: Pick<OperationContext, 'operationId' | 'urls'>, parts: unknown): ReplyKey {
  return JSON.stringify([reader.scope, reader.protectedText, reader.key, ctx.operationId, ctx.urls.restRoot, ctx.urls.site, parts]) as ReplyKey;
}

/** `remember` of reads whose reply depends only on the request's path and query, who asks and the data. */
export function byRequest(ctx: OperationContext): CachedBy {
  return { parts: [ctx.path, ctx.query, sentQueryNames(ctx.req)] };
}

/**
 * `cache` of single reads: by request, unless a password is sent. Password attempts are counted,
 * and the right one too is refused once a client guessed wrong too often (docs/settings.md
 * PASSWORD_FAILURE_LIMIT), so such a read runs every stage.
 */
export function bySingleRead(ctx: OperationContext, input: ReadRequest): CachedBy | undefined {
  return input.password === undefined ? byRequest(ctx) : undefined;
}
