import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * A queue for reads, so that writes go first (docs/architecture.md "The read queue", docs/contract.md §17).
 *
 * Node serves every request of one process on one thread. Under load each iteration of the event
 * loop picks up every request whose bytes have arrived, and a read whose work needs no I/O on the
 * way (SQLite, a cached reply) runs to its end at once: with 32 busy readers one iteration takes 32
 * reads' work (tens of milliseconds), and a write that arrives meanwhile waits for all of it, then
 * again for each step of its own that waits on I/O. So at most READS_PER_ITERATION reads start per
 * iteration; the others wait in arrival order and start a few at a time in later iterations
 * (`setImmediate`), which lets the loop pick up new requests in between. On MySQL a semaphore also
 * keeps reads to the pool's connections less CONNECTIONS_FOR_WRITES, so that a write finds a free
 * connection. Writes (and every method but GET, HEAD and OPTIONS) never wait here.
 *
 * What it moves (`npm run bench`, 10,000 events, a writer sending 20 PATCH/s beside 32 connections
 * reading single events, with and without the queue alternately): the writer's p99 1.0–3.9 s
 * with it against 5.2–7.5 s without on SQLite, 2.9–3.5 s against 6.6–6.8 s on MariaDB, where it
 * also got 14–15 of its 20 writes a second answered against 7–8; the reads beside it are slower
 * (MariaDB 18–22 req/s against 44–46).
 */

/** Reads started per iteration of the event loop: a few reads' work (a few milliseconds) between two looks at new requests. */
export const READS_PER_ITERATION = 4;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Probes and metrics answer at once: a load balancer must not take a busy process for a dead one. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** Pooled connections kept free of reads on MySQL, for writes (docs/contract.md §17). */
const CONNECTIONS_FOR_WRITES = 4;

/** How many reads may be in flight for a database engine and its pool size (see `readQueue`). */
export function readsInFlightFor(engine: 'sqlite' | 'mysql', poolMax: number): number {
  return engine === 'mysql' ? Math.max(1, poolMax - CONNECTIONS_FOR_WRITES) : Infinity;
}

interface ReadQueue {
  middleware: RequestHandler;
  /** Reads waiting in the queue (for tests and metrics). */
  waiting(): number;
}

/**
 * `inFlightAtMost`: reads started and not yet answered, at most (MySQL: fewer than the pool's
 * connections, so that one is always free for a write; unbounded on SQLite, whose reads run to their
 * end in the iteration they start). A read that waits on purpose (`GET /changes?wait=`) is let through
 * like a write.
 */
export function readQueue(perIteration = READS_PER_ITERATION, inFlightAtMost = Infinity): ReadQueue {
  /** Waiting reads; each starts its read and says whether it did (not when it no longer needs to). */
  const queue: Array<() => boolean> = [];
  let startedThisIteration = 0;
  let inFlight = 0;
  let scheduled = false;

  const mayStart = () => startedThisIteration < perIteration && inFlight < inFlightAtMost;
  const drain = () => {
    scheduled = false;
    startedThisIteration = 0;
    while (mayStart() && queue.length) if (queue.shift()!()) startedThisIteration++;
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
        // A place is free: the next waiting read may start (in a later iteration).
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
      startedThisIteration++;
      // The count starts again after this iteration, whether or not anything waits.
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
