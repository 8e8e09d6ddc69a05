import crypto from 'node:crypto';
import type { Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

/** A caller-supplied request id is kept when it looks like one; otherwise a new UUID. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What every line about a request names it by: its id, method and URL as they arrived. */
interface RequestLine {
  id: string;
  method: string;
  url: string;
}

const LINE = Symbol('request line');
const LOG = Symbol('request logger');

type Logged = Request & { [LINE]?: RequestLine; [LOG]?: Logger };

/**
 * One short line per request, when its answer is done (no headers, which carry credentials and
 * cookies, and no bodies), and `req.log` for the lines the pipeline writes about a request on the
 * way. The lines are those pino-http wrote, field for field (`req` {id, method, url}, `res` {status},
 * `responseTime`, "request completed" / "request aborted" / "request errored"), at a fraction of its
 * cost on a cached read (docs/performance.md "What limits it"): pino-http made two child loggers
 * per request, each serialising the request (its query string parsed again), whether or not a line
 * was written; here `req.log` is made only when something logs through it.
 */
export function requestLog(app: Express, logger: Logger): RequestHandler {
  // On Express's request prototype for this app: a getter costs nothing until it is read.
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Logged): Logger {
      return (this[LOG] ??= logger.child({ req: this[LINE] }));
    },
  });
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    const line: RequestLine = { id, method: req.method, url: req.originalUrl };
    (req as Logged)[LINE] = line;
    const started = Date.now();
    let done = false;
    const finished = (err?: Error) => {
      if (done) return;
      done = true;
      res.removeListener('close', finished);
      res.removeListener('error', finished);
      writeLine(logger, req, res, line, Date.now() - started, err);
    };
    res.on('close', finished);
    res.on('error', finished);
    next();
  };
}

/** 500 is a fault of ours (error); other 5xx are states such as a database away (warn); the rest info. */
function levelOf(status: number): 'error' | 'warn' | 'info' {
  return status === 500 ? 'error' : status > 500 ? 'warn' : 'info';
}

function writeLine(logger: Logger, req: Request, res: Response, line: RequestLine, responseTime: number, err: Error | undefined): void {
  const level = levelOf(res.statusCode);
  if (!logger.isLevelEnabled(level)) return;
  // The status as sent: none when the client left before any header was.
  const status = { status: res.headersSent ? res.statusCode : null };
  if (err || res.statusCode >= 500) {
    const error = err ?? new Error(`failed with status code ${res.statusCode}`);
    logger[level]({ req: line, res: status, err: error, responseTime }, 'request errored');
    return;
  }
  const message = !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted';
  logger[level]({ req: line, res: status, responseTime }, message);
}
