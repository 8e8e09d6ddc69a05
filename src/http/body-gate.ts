import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type RequestHandler } from 'express';
import { forbidden, RestError } from '../core/errors.js';
import { ICS_MAX_BYTES } from '../importing/ics.js';
import type { DocumentRoutes } from './document-routes.js';

/** Deepest nesting of arrays and objects a JSON body may have (form bodies: the same, through qs). */
export const MAX_BODY_DEPTH = 32;

/**
 * What the OpenAPI document says about a request before its body is read: whether it names an
 * operation that takes a body, and whether that operation needs credentials. Bodies cost time to
 * parse, so:
 *
 * - an anonymous request to an operation whose security requires credentials is refused (401
 *   `rest_forbidden`, what the validator's security step would answer) before its body is read;
 * - a body is parsed only for a request that names an operation taking one (anything else is
 *   answered 404 or ignores its body anyway);
 * - a JSON body is checked for its nesting depth in one pass over its bytes, before it is parsed.
 */
export class BodyGate {
  /** The document's routes, each request's found once for every stage (http/document-routes.ts). */
  constructor(private readonly routes: DocumentRoutes) {}

  /** 401 for an anonymous request that only operations needing credentials match. Runs after authentication. */
  readonly refuseAnonymousWrites: RequestHandler = (req, _res, next) => {
    if (req.user) return next();
    const operations = this.routes.operationsFor(req);
    if (operations.length > 0 && operations.every((op) => !op.allowsAnonymous)) return next(forbidden(false));
    next();
  };

  /** Whether an operation the request names takes a body (otherwise none is parsed). */
  takesBody(req: Request): boolean {
    return this.routes.operationsFor(req).some((op) => op.bodySchema !== undefined);
  }

  /** Whether the request names a DELETE operation, whose parameters may come in a body (http/delete-parameters.ts). */
  isDelete(req: Request): boolean {
    return req.method === 'DELETE' && this.routes.operationsFor(req).length > 0;
  }

  /**
   * Runs a body parser only for requests naming an operation that takes a body (or a DELETE
   * operation). A request whose client left before its body was read goes no further: body-parser
   * would let it through with no body at all (it takes a finished request for one already parsed),
   * and the operation would run on input the caller never sent.
   */
  parseFor(parser: RequestHandler): RequestHandler {
    return (req, res, next) => {
      if (!this.takesBody(req) && !this.isDelete(req)) return next();
      if (req.body === undefined && clientLeft(req)) return next(bodyLost());
      parser(req, res, next);
    };
  }
}

/**
 * The client stopped sending: its connection is gone or half-closed, or the request's stream was
 * torn down. body-parser asks the same (on-finished's `isFinished`) and then reads nothing.
 */
function clientLeft(req: Request): boolean {
  const socket = req.socket as Request['socket'] | null;
  return req.destroyed || !socket || !socket.readable || (req.complete && !req.readable);
}

/** body-parser's own error for a request aborted while its body was read (400, `request.aborted`). */
function bodyLost(): Error {
  return Object.assign(new Error('The request was aborted before its body was read.'), { status: 400, expose: true, type: 'request.aborted' });
}

/** body-parser's `verify` hook: refuses a JSON body nested deeper than `maxDepth` before it is parsed. */
export function jsonDepthLimit(maxDepth: number = MAX_BODY_DEPTH): (req: IncomingMessage, res: ServerResponse, body: Buffer, encoding: string) => void {
  return (_req, _res, body, encoding) => {
    // UTF-8 (nearly every body) is scanned as bytes: no byte of a multi-byte character is ASCII.
    const text = /^utf-?8$/i.test(encoding) ? body : new TextDecoder(encoding).decode(body);
    if (jsonDepth(text, maxDepth) > maxDepth) {
      throw Object.assign(new Error('The request body is nested too deeply.'), { status: 400, type: 'entity.too.deep' });
    }
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/**
 * The nesting depth of JSON text (brackets inside strings do not count), stopping as soon as it
 * passes `stopAbove`. Malformed text is left to the parser.
 */
export function jsonDepth(text: Buffer | string, stopAbove = Infinity): number {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i];
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (OPEN.has(c)) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAbove) return deepest;
    } else if (CLOSE.has(c)) {
      depth--;
    }
  }
  return deepest;
}

/** The operation whose body may be an iCalendar text (docs/importing.md "Importing a calendar file"). */
const CALENDAR_OPERATION = 'importEvents';

/**
 * The parser of `text/calendar` bodies, for POST /events/import alone, up to the import's size bound
 * (docs/limits.md "iCalendar imports"): past it, 413 saying so, before the rest is read.
 */
export function calendarBody(routes: DocumentRoutes): RequestHandler {
  const parse = express.text({ type: 'text/calendar', limit: ICS_MAX_BYTES });
  return (req, res, next) => {
    if (!routes.operationsFor(req).some((op) => op.operationId === CALENDAR_OPERATION)) return next();
    parse(req, res, (err?: unknown) => {
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') {
        return next(new RestError(413, 'rest_request_too_large', `The calendar is larger than ${ICS_MAX_BYTES} bytes (5 MiB), the most an import reads.`));
      }
      next(err);
    });
  };
}
