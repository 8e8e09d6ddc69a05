import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import { invalidParam, RestError } from '../../core/errors.js';

/** Replies up to this size are sent in one piece (and may be cached); larger ones are streamed. */
export const STREAM_ABOVE_BYTES = 1024 * 1024;

/** Bytes written to the socket at a time when streaming. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Nesting levels serialised piece by piece: a list envelope and its list (a single record: its
 * fields and their lists). Deeper values, each record of a list above all, are one `JSON.stringify`
 * call each, bounded by what one record can hold; the running size is checked after each.
 */
const PIECEWISE_LEVELS = 2;

/** A reply body as JSON in UTF-8 bytes. */
export interface SerializedReply {
  /** The JSON's bytes in order (none when the reply is larger than the limit). */
  chunks: Buffer[];
  /** UTF-8 bytes of the JSON (when cut short: of what was serialised before it stopped). */
  bytes: number;
  /** False when serialising stopped because the body is larger than the limit. */
  complete: boolean;
  /** The whole JSON as one Buffer: set for a complete reply of up to STREAM_ABOVE_BYTES. */
  buffer?: Buffer;
}

/** The JSON of a serialised reply, for hashing or sending. */
export function jsonParts(reply: SerializedReply): Buffer[] {
  return reply.chunks;
}

/**
 * Serialises a reply body with `JSON.stringify`, a list's records one at a time, counting their
 * bytes, and stops as soon as they pass `limit`: a page too large to send is refused without
 * serialising the rest of it. (A hand-written writer of UTF-8 bytes stood here until 2026-11-30;
 * measured against this, it moved neither the CPU per request nor the heap's peak:
 * docs/architecture.md "What each performance mechanism moves".)
 */
export function serializeReply(body: unknown, limit: number): SerializedReply {
  const pieces: string[] = [];
  let bytes = 0;
  const emit = (piece: string): boolean => {
    pieces.push(piece);
    bytes += Buffer.byteLength(piece);
    return bytes <= limit;
  };
  const write = (value: unknown, level: number, inArray: boolean): boolean => {
    if (level >= PIECEWISE_LEVELS || value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      // JSON.stringify's own rules: undefined, functions and symbols are `null` in arrays (and
      // skipped as object members, by the caller).
      return emit(JSON.stringify(value) ?? (inArray ? 'null' : ''));
    }
    if (Array.isArray(value)) {
      if (!emit('[')) return false;
      for (let i = 0; i < value.length; i++) {
        if (i > 0 && !emit(',')) return false;
        if (!write(value[i], level + 1, true)) return false;
      }
      return emit(']');
    }
    if (!emit('{')) return false;
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      if (!emit(`${first ? '' : ','}${JSON.stringify(key)}:`)) return false;
      first = false;
      if (!write(item, level + 1, false)) return false;
    }
    return emit('}');
  };
  if (!write(body, 0, false)) return { chunks: [], bytes, complete: false };
  const buffer = Buffer.from(pieces.join(''), 'utf8');
  return bytes <= STREAM_ABOVE_BYTES ? { chunks: [buffer], bytes, complete: true, buffer } : { chunks: [buffer], bytes, complete: true };
}

/**
 * The reply is larger than REPLY_LIMIT: nothing of it is sent. A page of several records is the
 * caller's to make smaller: 400 on `per_page` (docs/limits.md: a default page of records within the
 * limits always fits). Anything else, a single record, can only pass a REPLY_LIMIT set below the
 * largest record (the server's configuration): 500.
 */
export function replyTooLarge(limit: number, perPage?: unknown): RestError {
  if (typeof perPage === 'number' && perPage > 1) {
    return invalidParam(
      'per_page',
      `per_page is too large for these records: the page would be larger than ${limit} bytes. Ask for fewer records per page.`,
      'rest_response_too_large',
    );
  }
  return new RestError(500, 'rest_response_too_large', 'The answer is larger than this service sends. Ask for fewer records per page (per_page).', { limit });
}

/**
 * Sends a serialised reply (status and headers already set): in one piece when it is small (what
 * `res.send` does: `Content-Length`, weak `ETag`, 304 for a matching `If-None-Match`), otherwise
 * streamed in chunks as the client reads them, with the same `ETag` computed over the pieces.
 */
export async function sendSerialized(req: Request, res: Response, reply: SerializedReply): Promise<void> {
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json; charset=utf-8');
  if (reply.buffer) {
    res.send(reply.buffer);
    return;
  }
  // Express's weak ETag (the `etag` package: size in hex and the SHA-1 of the bytes), chunk by chunk.
  if (req.app.get('etag') && !res.get('ETag')) {
    const hash = crypto.createHash('sha1');
    for (const chunk of reply.chunks) hash.update(chunk);
    res.set('ETag', `W/"${reply.bytes.toString(16)}-${hash.digest('base64').substring(0, 27)}"`);
  }
  if (req.fresh) {
    res.removeHeader('Content-Type');
    res.status(304).end();
    return;
  }
  // A request timeout may have answered already (http/timeouts.ts): then this answer is dropped.
  if (res.headersSent) return;
  res.set('Content-Length', String(reply.bytes));
  for (const chunk of reply.chunks) {
    for (let at = 0; at < chunk.length; at += CHUNK_BYTES) {
      if (!(await writeChunk(res, chunk.subarray(at, at + CHUNK_BYTES)))) return;
    }
  }
  res.end();
}

/** Writes a chunk and waits for the socket to drain; false when the client has gone. */
async function writeChunk(res: Response, chunk: Buffer): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(chunk)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
  return !res.destroyed;
}
