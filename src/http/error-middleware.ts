import type { ErrorRequestHandler, RequestHandler } from 'express';
import { invalidParams, missingParams, noRoute, forbidden, postNotFound, termNotFound, RestError, type ParamProblem } from '../core/errors.js';
import { isDatabaseUnavailable, RecordGone, tooLongColumn } from '../db/errors.js';

/** The shape of express-openapi-validator's HttpError (it calls `next(err)` with one). */
interface ValidatorError {
  status: number;
  path?: string;
  message: string;
  headers?: Record<string, string>;
  errors: Array<{ path: string; message: string; errorCode?: string }>;
}

function isValidatorError(err: unknown): err is ValidatorError {
  return typeof err === 'object' && err !== null && typeof (err as ValidatorError).status === 'number' && Array.isArray((err as ValidatorError).errors);
}

/** `/query/per_page` → `per_page`; `/body/venue/venue` → `venue` (the top-level parameter). */
function parameterName(path: string): { location: string; name: string } {
  const [, location = '', name = ''] = path.split('/');
  const decoded = name.replace(/~1/g, '/').replace(/~0/g, '~');
  // Headers arrive lower-cased: they are named as the document spells them (`Idempotency-Key`).
  return { location, name: location === 'headers' ? decoded.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase()) : decoded };
}

/** Reasons for header parameters whose schema alone reads poorly (docs/contract.md §10). */
const HEADER_RULES: Record<string, string> = {
  'Idempotency-Key': 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
};

const TYPE_MESSAGE = /^must be (integer|number|string|boolean|array|object|null)/;
const TOO_LONG = /^must NOT have more than \d+ characters/;

/**
 * A 400 from the validator in WordPress terms: any missing required parameter gives
 * `rest_missing_callback_param` (WordPress checks presence first), otherwise `rest_invalid_param`
 * with a reason per parameter. A bad path parameter (`/events/abc`) means no route matched, as in
 * WordPress, whose route regexes only match digits.
 */
function fromValidation(err: ValidatorError): RestError {
  const missing: string[] = [];
  const invalid: Record<string, ParamProblem> = {};
  for (const item of err.errors) {
    const { location, name } = parameterName(item.path);
    if (location === 'params' || location === 'path') return noRoute();
    // A path parameter with a broken %-escape (`/events/by-slug/%ff`) cannot name anything either.
    if (/^malformed uri/.test(item.message)) return noRoute();
    const isRequired = item.errorCode === 'required.openapi.validation' || /must have required property/.test(item.message);
    if (isRequired && (location === 'query' || (location === 'body' && item.path.split('/').length === 3))) {
      if (!missing.includes(name)) missing.push(name);
      continue;
    }
    const reason = item.message.replace(/^\/\S+ /, '');
    // Among a parameter's alternatives (anyOf) a value too long says most: it replaces a type mismatch
    // (`categories: ["x…"]` is too long a name, not a wrong type). Otherwise the first reason stands.
    if (name === '' || (invalid[name] && !(TOO_LONG.test(reason) && invalid[name].code === 'rest_invalid_type'))) continue;
    const type = TYPE_MESSAGE.exec(item.message);
    invalid[name] = HEADER_RULES[name]
      ? { message: HEADER_RULES[name], code: 'rest_invalid_param' }
      : type
        ? { message: `${name} is not of type ${type[1]}.`, code: 'rest_invalid_type' }
        : { message: `${name} ${reason}`, code: 'rest_invalid_param' };
  }
  if (missing.length) return missingParams(missing);
  if (Object.keys(invalid).length) return invalidParams(invalid);
  // A body that is not an object at all (e.g. a JSON string).
  return invalidParams({ body: { message: err.message } });
}

/**
 * body-parser's own 400 for a body it could not read (http-errors marks client errors `expose`): the
 * caller's fault, never a 500. Those with a known `type` are translated by name above.
 */
function isBodyReadError(err: unknown): boolean {
  return err instanceof Error && (err as { status?: unknown }).status === 400 && (err as { expose?: unknown }).expose === true;
}

/** Everything that can reach the error middleware, as a RestError. Driver text never leaks. */
export function toRestError(err: unknown): RestError {
  if (err instanceof RestError) return err;
  const type = (err as { type?: string }).type;
  switch (type) {
    case 'entity.parse.failed':
      return new RestError(400, 'rest_invalid_json', 'Invalid JSON body passed.', { json_error_code: 4, json_error_message: 'Syntax error' });
    case 'entity.too.large':
      return new RestError(413, 'rest_request_too_large', 'The request body is too large.');
    case 'entity.too.deep':
      // A JSON body nested deeper than any field of ours (http/body-gate.ts), refused before parsing.
      return invalidParams({ body: { message: 'The request body is nested too deeply.' } });
    case 'querystring.parse.rangeError':
      // A form body nested deeper than the parser follows (`a[b][c]…`): no field of ours is that deep.
      return invalidParams({ body: { message: 'The request body is nested too deeply.' } });
    case 'parameters.too.many':
      return new RestError(413, 'rest_request_too_large', 'The request has too many parameters.');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new RestError(415, 'rest_unsupported_media_type', 'The request body encoding is not supported.');
  }
  if (isBodyReadError(err)) {
    // A body-parser failure without a type is its decompression stream's (zlib) error: the bytes are not what Content-Encoding says.
    const reason = typeof (err as { errno?: unknown }).errno === 'number' ? 'does not decompress as its Content-Encoding says' : 'could not be read';
    return invalidParams({ body: { message: `The request body ${reason}.` } });
  }
  // Express's router could not decode a path parameter (`/docs/%ff`): no route can match it.
  if (err instanceof URIError && (err as URIError & { status?: number }).status === 400) return noRoute();
  if (isValidatorError(err)) {
    switch (err.status) {
      case 400:
        return fromValidation(err);
      case 401:
        // The document's security requirement for the operation was not met: nobody is logged in.
        return forbidden(false);
      case 404:
      case 405:
        // WordPress answers an unknown path and an unsupported method on a known path alike.
        return noRoute();
      case 413:
        return new RestError(413, 'rest_request_too_large', 'The request body is too large.');
      case 415:
        return new RestError(
          415,
          'rest_unsupported_media_type',
          'Unsupported content type: use application/json or application/x-www-form-urlencoded (text/calendar or application/json for POST /events/import).',
        );
    }
  }
  // A concurrent delete won the race with this request: the record does not exist (any more).
  if (err instanceof RecordGone) {
    return err.type === 'term' ? termNotFound(err.id) : postNotFound(err.type, err.type[0].toUpperCase() + err.type.slice(1), `ID ${err.id}`);
  }
  const column = tooLongColumn(err);
  if (column) return invalidParams({ [column]: { message: `${column} is too long.` } });
  if (isDatabaseUnavailable(err)) {
    return new RestError(503, 'rest_database_unavailable', 'The database is unavailable. Try again shortly.', {}, { 'Retry-After': '5' });
  }
  return new RestError(500, 'rest_internal_error', 'An internal error occurred.');
}

/** The one error middleware: every failure becomes the WordPress envelope. 5xx are logged with the request id. */
export function errorMiddleware(): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = toRestError(err);
    // Only a real fault is an error; a 503 (database away) is an expected state, logged as a warning.
    if (error.status === 500) req.log.error({ err }, 'request failed');
    else if (error.status >= 500) req.log.warn({ code: error.code }, 'request not served');
    else req.log.debug({ err }, 'request refused');
    if (res.headersSent) return;
    res.set(error.headers);
    res.status(error.status).json(error.toBody());
  };
}

/** Requests that matched nothing: outside the namespace, or not handled. */
export const noRouteHandler: RequestHandler = (_req, _res, next) => next(noRoute());
