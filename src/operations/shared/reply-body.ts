import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import { invalidParam, RestError } from '../../core/errors.js';
import { jsonKnownFor } from '../../core/known-json.js';

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

/**
 * A reply body as JSON, written as UTF-8 bytes while it is serialised (docs/performance.md "Memory":
 * the strings of a page's records are garbage as soon as they are copied, instead of living, then
 * joined into one more string, until the reply is sent). The chunks' concatenation is exactly
 * `JSON.stringify(body)`.
 */
export interface SerializedReply {
  /** The JSON's bytes in order: one Buffer when the reply is complete and sent in one piece. */
  chunks: Buffer[];
  /** UTF-8 bytes of the JSON (when cut short: of what was written before it stopped). */
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
 * Scratch space the JSON is written into (one reply at a time: serialising never waits), then copied
 * out at its exact size. STREAM_ABOVE_BYTES, so that a reply sent in one piece is one copy; pages
 * are touched only as far as the largest reply written.
 */
let scratch: Buffer | undefined;

/**
 * Characters gathered before they are written as bytes: a record's pieces are a few hundred short
 * strings, and writing each into the Buffer on its own (`Buffer.write` being a call into C++ each
 * time) took a 5 KB event record 57 µs against 33 µs gathered (`JSON.stringify` alone: 15 µs).
 */
const GATHER_CHARS = 16 * 1024;

/** UTF-8 bytes of strings written one after another, counted as they come. */
class Utf8Writer {
  private readonly out = (scratch ??= Buffer.allocUnsafeSlow(STREAM_ABOVE_BYTES));
  private readonly full: Buffer[] = [];
  private at = 0;
  /** Text written but not yet turned into bytes (at most about GATHER_CHARS characters). */
  private gathered = '';
  /** Bytes of the text turned into bytes so far. */
  private counted = 0;

  write(text: string): void {
    this.gathered += text;
    if (this.gathered.length >= GATHER_CHARS) this.flush();
  }

  /** The UTF-8 bytes written so far, exactly. */
  get bytes(): number {
    this.flush();
    return this.counted;
  }

  /** At least `bytes` (a UTF-16 unit is at most 3 bytes), without turning the gathered text into bytes. */
  get bytesAtMost(): number {
    return this.counted + this.gathered.length * 3;
  }

  private flush(): void {
    if (this.gathered === '') return;
    const text = this.gathered;
    this.gathered = '';
    this.put(text);
  }

  private put(text: string): void {
    const room = this.out.length - this.at;
    // A UTF-16 unit is at most 3 bytes: most pieces fit without counting their bytes first.
    if (text.length * 3 <= room) {
      const written = this.out.write(text, this.at);
      this.at += written;
      this.counted += written;
      return;
    }
    const size = Buffer.byteLength(text);
    if (size > room) {
      this.spill();
      if (size > this.out.length) {
        this.full.push(Buffer.from(text, 'utf8'));
        this.counted += size;
        return;
      }
    }
    this.at += this.out.write(text, this.at);
    this.counted += size;
  }

  /** The bytes written so far, as Buffers of their own (the scratch space is free again). */
  finish(): Buffer[] {
    this.flush();
    this.spill();
    return this.full;
  }

  private spill(): void {
    if (this.at === 0) return;
    const copy = Buffer.allocUnsafe(this.at);
    this.out.copy(copy, 0, 0, this.at);
    this.full.push(copy);
    this.at = 0;
  }
}

/**
 * Serialises a reply body piece by piece into UTF-8 bytes, counting them, and stops as soon as they
 * pass `limit`: a reply too large to send never exists whole in memory.
 */
export function serializeReply(body: unknown, limit: number): SerializedReply {
  const out = new Utf8Writer();
  let complete = true;
  const emit = (piece: string): boolean => {
    out.write(piece);
    // The exact count only when the bound passes the limit: counting every piece would undo the gathering.
    if (out.bytesAtMost > limit && out.bytes > limit) complete = false;
    return complete;
  };
  const write = (value: unknown, level: number, inArray: boolean): boolean => {
    if (level >= PIECEWISE_LEVELS || value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      // The change feed's changes come with their JSON already written (core/known-json.ts).
      const json = value !== null && typeof value === 'object' ? jsonKnownFor(value) : undefined;
      // JSON.stringify's own rules: undefined, functions and symbols are `null` in arrays (and
      // skipped as object members, by the caller).
      return emit(json ?? JSON.stringify(value) ?? (inArray ? 'null' : ''));
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
  const chunks = out.finish();
  const reply: SerializedReply = { chunks, bytes: out.bytes, complete };
  if (complete && chunks.length <= 1 && out.bytes <= STREAM_ABOVE_BYTES) {
    reply.buffer = chunks[0] ?? Buffer.alloc(0);
    reply.chunks = [reply.buffer];
  }
  return reply;
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
