import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Reads take turns; writes go first (docs/contract.md §17).
 *
 * Node serves every request of one process on one thread. Under load each turn of the event loop
 * picks up every request whose bytes have arrived, and a read whose work needs no I/O on the way
 * (SQLite, a remembered reply) runs to its end at once: with 32 busy readers a turn takes 32 reads'
 * work (tens of milliseconds), and a write that arrives meanwhile waits for the whole turn, then for
 * a turn per step that waits on I/O. So at most READS_PER_TURN reads start per turn; the others wait
 * in arrival order and start a few at a time between turns (`setImmediate`), which lets the loop read
 * new requests in between. Writes (and every method but GET, HEAD and OPTIONS) are never held. A read
 * waits no longer in all than it would have in the loop: the same work is done in the same order, in
 * smaller turns.
 */

/** Reads started per turn of the event loop: a few reads' work (a few milliseconds) between two looks at new requests. */
export const READS_PER_TURN = 4;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface ReadTurns {
  middleware: RequestHandler;
  /** Reads waiting for their turn (for tests and metrics). */
  waiting(): number;
}

export function readTurns(perTurn = READS_PER_TURN): ReadTurns {
  /** Waiting reads; each starts its read and says whether it did (not when it no longer needs to). */
  const queue: Array<() => boolean> = [];
  let startedThisTurn = 0;
  let scheduled = false;

  const drain = () => {
    scheduled = false;
    startedThisTurn = 0;
    while (startedThisTurn < perTurn && queue.length) if (queue.shift()!()) startedThisTurn++;
    if (queue.length) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  };

  const middleware = (req: Request, res: Response, next: NextFunction) => {
    if (!READ_METHODS.has(req.method)) return next();
    if (startedThisTurn < perTurn && queue.length === 0) {
      startedThisTurn++;
      // The count starts again after this turn, whether or not anything waits.
      schedule();
      return next();
    }
    queue.push(() => {
      // Answered meanwhile (the request's timeout) or the client has gone: nothing to start.
      if (res.headersSent || res.writableEnded || req.socket.destroyed) return false;
      next();
      return true;
    });
    schedule();
  };
  return { middleware, waiting: () => queue.length };
}
