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

/** Probes and metrics answer at once: a load balancer must not take a busy process for a dead one. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** Pooled connections kept free of reads on MySQL, for writes (docs/contract.md §17). */
export const CONNECTIONS_FOR_WRITES = 4;

/** How many reads may be in flight for a database engine and its pool size (see `readTurns`). */
export function readsInFlightFor(engine: 'sqlite' | 'mysql', poolMax: number): number {
  return engine === 'mysql' ? Math.max(1, poolMax - CONNECTIONS_FOR_WRITES) : Infinity;
}

export interface ReadTurns {
  middleware: RequestHandler;
  /** Reads waiting for their turn (for tests and metrics). */
  waiting(): number;
}

/**
 * `inFlightAtMost`: reads started and not yet answered, at most (MySQL: fewer than the pool's
 * connections, so that one is always free for a write; unbounded on SQLite, whose reads run to their
 * end in the turn they start). A read that waits on purpose (`GET /changes?wait=`) is let through
 * like a write.
 */
export function readTurns(perTurn = READS_PER_TURN, inFlightAtMost = Infinity): ReadTurns {
  /** Waiting reads; each starts its read and says whether it did (not when it no longer needs to). */
  const queue: Array<() => boolean> = [];
  let startedThisTurn = 0;
  let inFlight = 0;
  let scheduled = false;

  const mayStart = () => startedThisTurn < perTurn && inFlight < inFlightAtMost;
  const drain = () => {
    scheduled = false;
    startedThisTurn = 0;
    while (mayStart() && queue.length) if (queue.shift()!()) startedThisTurn++;
    if (queue.length && inFlight < inFlightAtMost) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  };
  const start = (req: Request, res: Response, next: NextFunction) => {
    if (inFlightAtMost !== Infinity) {
      inFlight++;
      let done = false;
      const finished = () => {
        if (done) return;
        done = true;
        inFlight--;
        // A place is free: the next waiting read may start (in a later turn).
        if (queue.length) schedule();
      };
      res.once('finish', finished);
      res.once('close', finished);
    }
    next();
  };

  const middleware = (req: Request, res: Response, next: NextFunction) => {
    // Writes, probes, and long polls (they hold their request open on purpose) never wait here.
    if (!READ_METHODS.has(req.method) || PROBES.has(req.path) || waitsOnPurpose(req)) return next();
    if (mayStart() && queue.length === 0) {
      startedThisTurn++;
      // The count starts again after this turn, whether or not anything waits.
      schedule();
      return start(req, res, next);
    }
    queue.push(() => {
      // Answered meanwhile (the request's timeout) or the client has gone: nothing to start.
      if (res.headersSent || res.writableEnded || req.socket.destroyed) return false;
      start(req, res, next);
      return true;
    });
    schedule();
  };
  return { middleware, waiting: () => queue.length };
}

/** A long poll (`wait` in the query) holds its request open on purpose: it must neither wait nor hold a place. */
function waitsOnPurpose(req: Request): boolean {
  // Without a query string there is no `wait` (and Express parses `req.query` on every read of it).
  if (!req.url.includes('?')) return false;
  const wait = (req.query as Record<string, unknown> | undefined)?.wait;
  return wait !== undefined && wait !== '0' && wait !== 0;
}
