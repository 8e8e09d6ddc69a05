import { chunks } from './posts.js';
import { loopTurn } from '../core/loop-turns.js';

/**
 * The sizes of the bulk statements of series writes, and the turns of the event loop between them:
 * a series write over a thousand occurrences is a handful of short statements, and the service keeps
 * answering while it runs (docs/limits.md).
 */

/** Rows per multi-row INSERT: SQLite limits the bound variables of one statement. */
export const INSERT_CHUNK = 100;

/** Rows per bulk UPDATE or DELETE of a series write: each statement stays short, so the loop gets its turns between them. */
export const WRITE_CHUNK = 100;

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
