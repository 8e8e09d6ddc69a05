import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import { invalidParam, RestError } from '../../core/errors.js';

/** Replies up to this size are sent in one piece (and may be remembered); larger ones are streamed. */
export const STREAM_ABOVE_BYTES = 1024 * 1024;

/** Bytes written to the socket at a time when streaming. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Nesting levels serialised piece by piece: a list envelope and its list (a single record: its
 * fields and their lists). Deeper values, each record of a list above all, are one `JSON.stringify`
 * call each, bounded by what one record can hold; the running size is checked after each.
 */
const PIECEWISE_LEVELS = 2;

/** A reply body as JSON, in pieces whose concatenation is exactly `JSON.stringify(body)`. */
export interface SerializedReply {
  pieces: string[];
  /** UTF-8 bytes of the pieces (counted once serialising is done; an estimate while it runs). */
  bytes: number;
  /** False when serialising stopped because the body is larger than the limit. */
  complete: boolean;
  /** The pieces joined, once asked for (small replies are sent as one string). */
  text?: string;
  /**
   * The JSON as UTF-8 bytes, once the reply is remembered (`keepAsBytes`): then `pieces` is empty
   * and `text` unset.
   */
  buffer?: Buffer;
}

/** The JSON of a serialised reply, for hashing or sending: its bytes when kept as bytes, else its pieces. */
export function jsonParts(reply: SerializedReply): Array<string | Buffer> {
  return reply.buffer ? [reply.buffer] : reply.pieces;
}

/**
 * Keeps a complete serialised reply as its UTF-8 bytes only, outside V8's heap: what is sent, and
 * exactly what it weighs. Kept as strings it took three to six times as much (the pieces and their
 * joined text, each two bytes a character once one character is outside Latin-1).
 */
export function keepAsBytes(reply: SerializedReply): void {
  // A reply streamed in pieces (over STREAM_ABOVE_BYTES) is never remembered: it keeps its pieces.
  if (!reply.complete || reply.buffer || reply.bytes > STREAM_ABOVE_BYTES) return;
  reply.buffer = Buffer.from((reply.text ??= reply.pieces.join('')), 'utf8');
  reply.pieces = [];
  reply.text = undefined;
}

/**
 * Serialises a reply body piece by piece, counting its bytes, and stops as soon as it passes
 * `limit`: a reply too large to send never exists whole in memory.
 */
export function serializeReply(body: unknown, limit: number): SerializedReply {
  const out: SerializedReply = { pieces: [], bytes: 0, complete: true };
  // Characters while serialising (cheap, and what the pieces weigh in memory); a character is at
  // least one UTF-8 byte, so passing the limit in characters passes it in bytes. Bytes are counted
  // exactly once the whole body is written.
  let characters = 0;
  const emit = (piece: string): boolean => {
    out.pieces.push(piece);
    characters += piece.length;
    if (characters > limit) out.complete = false;
    return out.complete;
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
  write(body, 0, false);
  if (out.complete) {
    out.text = out.pieces.join('');
    out.bytes = Buffer.byteLength(out.text);
    if (out.bytes > limit) out.complete = false;
  } else {
    out.bytes = characters;
  }
  return out;
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
  if (reply.bytes <= STREAM_ABOVE_BYTES) {
    res.send(reply.buffer ?? (reply.text ??= reply.pieces.join('')));
    return;
  }
  // Express's weak ETag (the `etag` package: size in hex and the SHA-1 of the bytes), piece by piece.
  if (req.app.get('etag') && !res.get('ETag')) {
    const hash = crypto.createHash('sha1');
    for (const piece of jsonParts(reply)) hash.update(piece);
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
  let chunk = '';
  for (const piece of reply.pieces) {
    chunk += piece;
    if (chunk.length < CHUNK_BYTES) continue;
    if (!(await writeChunk(res, chunk))) return;
    chunk = '';
  }
  if (chunk !== '') await writeChunk(res, chunk);
  res.end();
}

/** Writes a chunk and waits for the socket to drain; false when the client has gone. */
async function writeChunk(res: Response, chunk: string): Promise<boolean> {
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
