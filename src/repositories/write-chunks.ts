import { chunks } from './posts.js';
import { loopTurn } from '../core/loop-turns.js';

/**
 * The sizes of the bulk statements of series writes, and the turns of the event loop between them:
 * a series write over a thousand occurrences is a few dozen short statements, and the service keeps
 * answering while it runs (docs/limits.md "Series writes and other people's occurrences").
 */

/** Rows per multi-row INSERT: SQLite limits the bound variables of one statement. */
export const INSERT_CHUNK = 100;

/** Rows per bulk UPDATE or DELETE of a series write: each statement stays short, so the loop gets its turns between them. */
const WRITE_CHUNK = 100;

/**
 * Bytes of text one statement of a series write may carry (a multi-row INSERT of copies, an UPDATE
 * of their description): SQLite indexes every byte for the search in the statement's triggers, on
 * the event loop, so a statement's time grows with its text, not with its rows. 64 KiB is a few
 * milliseconds there: 4 occurrences with a description of the largest length, 100 with short texts.
 */
const CHUNK_TEXT_BYTES = 64 * 1024;

/** Rows per statement when each row carries `textBytes` of text: at most `rows`, and at most CHUNK_TEXT_BYTES of text (at least one row). */
export function rowsWithin(textBytes: number, rows = WRITE_CHUNK): number {
  return Math.max(1, Math.min(rows, Math.floor(CHUNK_TEXT_BYTES / Math.max(1, textBytes))));
}

/** The text a row carries (its string values' UTF-16 length, a close enough measure of their bytes). */
export function textBytesOf(columns: Record<string, unknown>): number {
  let bytes = 0;
  for (const value of Object.values(columns)) if (typeof value === 'string') bytes += value.length;
  return bytes;
}

/**
 * The chunks of `items`, in order, with a turn of the event loop before a chunk once the work has held
 * it for a while (loop-turns.ts): a series write over a thousand occurrences keeps the service
 * answering (docs/limits.md).
 */
export async function* inTurns<T>(items: T[], size = WRITE_CHUNK): AsyncGenerator<T[]> {
  for (const part of chunks(items, size)) {
    await loopTurn();
    yield part;
  }
}
