import assert from 'node:assert/strict';
import type { NextFunction, Request, Response } from 'express';
import { error as validatorErrors } from 'express-openapi-validator';
import { errorMiddleware, toRestError } from '../../src/http/error-middleware.js';
import { invalidCredentials, invalidParam, RestError } from '../../src/core/errors.js';
import { NS, createUser, testApp } from '../helpers/app.js';

/** The envelope, status and headers an error becomes. */
function translated(err: unknown): { status: number; body: ReturnType<RestError['toBody']>; headers: Record<string, string> } {
  const error = toRestError(err);
  return { status: error.status, body: error.toBody(), headers: error.headers };
}

/** A 400 of express-openapi-validator, as it calls `next(err)` with one. */
function badRequest(...errors: Array<{ path: string; message: string; errorCode?: string }>) {
  return new validatorErrors.BadRequest({ path: '/wp-json/tribe/events/v1/events', message: errors.map((e) => e.message).join(', '), errors });
}

/** A driver error as mysql2 or better-sqlite3 throws it: a code, and text that must never reach a client. */
function driverError(code: string, sqlMessage: string, name = 'Error'): Error {
  return Object.assign(new Error(`${code}: ${sqlMessage}`), { code, sqlMessage, name, sql: 'insert into `posts` (`secret`) values (?)' });
}

const INTERNAL = { code: 'rest_internal_error', message: 'An internal error occurred.', data: { status: 500 } };
const UNAVAILABLE = { code: 'rest_database_unavailable', message: 'The database is unavailable. Try again shortly.', data: { status: 503 } };

describe('error translation (docs/contract.md §4)', () => {
  describe('toRestError', () => {
    it('passes RestErrors through unchanged, headers included', () => {
      const error = invalidParam('per_page', 'per_page must be >= 1');
      assert.equal(toRestError(error), error);
      assert.deepEqual(translated(invalidCredentials()), {
        status: 401,
        body: { code: 'rest_invalid_credentials', message: 'The provided credentials are invalid.', data: { status: 401 } },
        headers: { 'WWW-Authenticate': 'Basic realm="tribe/events/v1", charset="UTF-8"' },
      });
      const custom = new RestError(410, 'event-is-in-trash', 'The event is already trashed', { extra: 1 });
      assert.deepEqual(translated(custom).body, { code: 'event-is-in-trash', message: 'The event is already trashed', data: { status: 410, extra: 1 } });
    });

    describe('body parser failures', () => {
      it('a body that is not JSON → 400 rest_invalid_json, as WordPress words it', () => {
        const err = Object.assign(new SyntaxError('Unexpected end of JSON input at position 9'), { type: 'entity.parse.failed', status: 400 });
        assert.deepEqual(translated(err), {
          status: 400,
          body: { code: 'rest_invalid_json', message: 'Invalid JSON body passed.', data: { status: 400, json_error_code: 4, json_error_message: 'Syntax error' } },
          headers: {},
        });
      });

      it('a body or a form over its limits → 413 rest_request_too_large', () => {
        assert.deepEqual(translated(Object.assign(new Error('request entity too large'), { type: 'entity.too.large' })).body, {
          code: 'rest_request_too_large',
          message: 'The request body is too large.',
          data: { status: 413 },
        });
        assert.deepEqual(translated(Object.assign(new Error('too many parameters'), { type: 'parameters.too.many' })).body, {
          code: 'rest_request_too_large',
          message: 'The request has too many parameters.',
          data: { status: 413 },
        });
      });

      it('a body that does not decompress, or that could not be read otherwise → 400 rest_invalid_param on body, not 500', () => {
        // body-parser's 400 around a zlib error (Content-Encoding: gzip on bytes that are not gzip): no `type`, zlib's errno.
        const zlib = Object.assign(new Error('incorrect header check'), { errno: -3, code: 'Z_DATA_ERROR', status: 400, statusCode: 400, expose: true });
        assert.deepEqual([translated(zlib).status, translated(zlib).body.data.params], [400, { body: 'The request body does not decompress as its Content-Encoding says.' }]);
        const other = Object.assign(new Error('something body-parser refused'), { status: 400, expose: true });
        assert.deepEqual([translated(other).status, translated(other).body.data.params], [400, { body: 'The request body could not be read.' }]);
        // An error that is not a client error stays a fault.
        assert.equal(translated(Object.assign(new Error('broken'), { status: 400 })).status, 500);
      });

      it('a form nested too deeply → 400 rest_invalid_param on body', () => {
        const err = Object.assign(new RangeError('Input depth exceeded depth option of 5'), { type: 'querystring.parse.rangeError' });
        assert.deepEqual(translated(err).body, {
          code: 'rest_invalid_param',
          message: 'Invalid parameter(s): body',
          data: {
            status: 400,
            params: { body: 'The request body is nested too deeply.' },
            details: { body: { code: 'rest_invalid_param', message: 'The request body is nested too deeply.', data: { param: 'body' } } },
          },
        });
      });

      it('an unsupported charset or content encoding → 415', () => {
        for (const type of ['charset.unsupported', 'encoding.unsupported']) {
          assert.deepEqual(translated(Object.assign(new Error(`unsupported: ${type}`), { type })).body, {
            code: 'rest_unsupported_media_type',
            message: 'The request body encoding is not supported.',
            data: { status: 415 },
          });
        }
      });
    });

    describe('validator errors', () => {
      it('a missing required query parameter or top-level body field → rest_missing_callback_param, names in order', () => {
        const err = badRequest(
          { path: '/body/title', message: "must have required property 'title'", errorCode: 'required.openapi.validation' },
          { path: '/body/start_date', message: "must have required property 'start_date'", errorCode: 'required.openapi.validation' },
          { path: '/body/title', message: "must have required property 'title'", errorCode: 'required.openapi.validation' },
          { path: '/query/password', message: "must have required property 'password'" },
        );
        assert.deepEqual(translated(err).body, {
          code: 'rest_missing_callback_param',
          message: 'Missing parameter(s): title, start_date, password',
          data: { status: 400, params: ['title', 'start_date', 'password'] },
        });
      });

      it('a missing parameter wins over invalid ones, as WordPress checks presence first', () => {
        const err = badRequest(
          { path: '/body/all_day', message: 'must be boolean', errorCode: 'type.openapi.validation' },
          { path: '/body/end_date', message: "must have required property 'end_date'", errorCode: 'required.openapi.validation' },
        );
        assert.deepEqual(translated(err).body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): end_date', data: { status: 400, params: ['end_date'] } });
      });

      it('invalid parameters → rest_invalid_param with a reason per parameter, type errors in WordPress words', () => {
        const err = badRequest(
          { path: '/query/page', message: 'must be integer', errorCode: 'type.openapi.validation' },
          { path: '/query/per_page', message: 'must be >= 1', errorCode: 'minimum.openapi.validation' },
          { path: '/query/per_page', message: 'must be integer', errorCode: 'type.openapi.validation' },
        );
        assert.deepEqual(translated(err), {
          status: 400,
          body: {
            code: 'rest_invalid_param',
            message: 'Invalid parameter(s): page, per_page',
            data: {
              status: 400,
              params: { page: 'page is not of type integer.', per_page: 'per_page must be >= 1' },
              details: {
                page: { code: 'rest_invalid_type', message: 'page is not of type integer.', data: { param: 'page' } },
                per_page: { code: 'rest_invalid_param', message: 'per_page must be >= 1', data: { param: 'per_page' } },
              },
            },
          },
          headers: {},
        });
      });

      it('names the top-level parameter of a nested problem, and strips a path from the message', () => {
        const err = badRequest(
          { path: '/body/venue/venue', message: "must have required property 'venue'", errorCode: 'required.openapi.validation' },
          { path: '/body/organizer/0/email', message: 'must be string', errorCode: 'type.openapi.validation' },
          { path: '/body/a~1b', message: '/body/a~1b must match format "uri"', errorCode: 'format.openapi.validation' },
        );
        const body = translated(err).body;
        assert.equal(body.code, 'rest_invalid_param');
        assert.deepEqual(body.data.params, {
          venue: "venue must have required property 'venue'",
          organizer: 'organizer is not of type string.',
          'a/b': 'a/b must match format "uri"',
        });
      });

      it("a bad path parameter means that no route matched, as WordPress's digit-only routes do", () => {
        for (const path of ['/path/id', '/params/id']) {
          assert.deepEqual(translated(badRequest({ path, message: 'must be integer' })).body, {
            code: 'rest_no_route',
            message: 'No route was found matching the URL and request method.',
            data: { status: 404 },
          });
        }
      });

      it('a body that is not an object → rest_invalid_param on body', () => {
        const err = badRequest({ path: '/body', message: 'must be object', errorCode: 'type.openapi.validation' });
        assert.deepEqual(translated(err).body.data.params, { body: 'must be object' });
      });

      it('an unmet security requirement → 401 rest_forbidden (nobody is logged in)', () => {
        const err = new validatorErrors.Unauthorized({ path: '/events', message: "'authorization' header required" });
        assert.deepEqual(translated(err).body, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } });
      });

      it('an unknown path and an unsupported method on a known path → 404 rest_no_route alike', () => {
        const notFound = new validatorErrors.NotFound({ path: '/nothing', message: 'not found' });
        const notAllowed = new validatorErrors.MethodNotAllowed({ path: '/events', message: 'PUT method not allowed', headers: { Allow: 'GET, POST' } });
        for (const err of [notFound, notAllowed]) {
          assert.deepEqual(translated(err), {
            status: 404,
            body: { code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } },
            headers: {},
          });
        }
      });

      it('a body too large → 413, a content type the operation does not take → 415', () => {
        assert.deepEqual(translated(new validatorErrors.RequestEntityTooLarge({ path: '/events', message: 'too large' })).body, {
          code: 'rest_request_too_large',
          message: 'The request body is too large.',
          data: { status: 413 },
        });
        assert.deepEqual(translated(new validatorErrors.UnsupportedMediaType({ path: '/events', message: 'unsupported media type text/plain' })).body, {
          code: 'rest_unsupported_media_type',
          message: 'Unsupported content type: use application/json or application/x-www-form-urlencoded (text/calendar or application/json for POST /events/import).',
          data: { status: 415 },
        });
      });

      it('a response the document does not describe (validator 500) stays an internal error', () => {
        const err = new validatorErrors.InternalServerError({ path: '/response/events/0/cost', message: '/response/events/0/cost must be string' });
        assert.deepEqual(translated(err).body, INTERNAL);
      });
    });

    describe('driver errors', () => {
      it('a value longer than its column (MySQL strict mode) → 400 naming the column', () => {
        const err = driverError('ER_DATA_TOO_LONG', "Data too long for column 'title' at row 1");
        assert.deepEqual(translated(err).body, {
          code: 'rest_invalid_param',
          message: 'Invalid parameter(s): title',
          data: {
            status: 400,
            params: { title: 'title is too long.' },
            details: { title: { code: 'rest_invalid_param', message: 'title is too long.', data: { param: 'title' } } },
          },
        });
        assert.deepEqual(translated(driverError('ER_DATA_TOO_LONG', 'Data too long')).body.data.params, { value: 'value is too long.' });
      });

      it('an unreachable database or an exhausted pool → 503 rest_database_unavailable with Retry-After', () => {
        const errors = [
          ...['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'ECONNRESET'].map((code) =>
            driverError(code, `connect ${code} 10.0.0.7:3306 user 'app'@'10.0.0.8'`),
          ),
          Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
        ];
        for (const err of errors) assert.deepEqual(translated(err), { status: 503, body: UNAVAILABLE, headers: { 'Retry-After': '5' } }, err.message);
      });

      it('a cluster node that is not ready (Galera 1047) or a server shutting down (1053) → 503 with Retry-After, not 500', () => {
        // mysql2's errors as a joining or non-primary Galera node and a stopping server give them.
        const notReady = Object.assign(driverError('ER_UNKNOWN_COM_ERROR', 'WSREP has not yet prepared node for application use'), { errno: 1047, sqlState: '08S01' });
        const shutdown = Object.assign(driverError('ER_SERVER_SHUTDOWN', 'Server shutdown in progress'), { errno: 1053, sqlState: '08S01' });
        for (const err of [notReady, shutdown]) assert.deepEqual(translated(err), { status: 503, body: UNAVAILABLE, headers: { 'Retry-After': '5' } }, err.message);
      });

      it('a unique violation that escaped the retries is a fault: 500 without the driver text', () => {
        for (const err of [
          driverError('ER_DUP_ENTRY', "Duplicate entry 'concerts' for key 'posts_type_slug_unique'"),
          driverError('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: posts.type, posts.slug'),
          driverError('SQLITE_CONSTRAINT_PRIMARYKEY', 'UNIQUE constraint failed: posts.id'),
        ]) {
          const result = translated(err);
          assert.deepEqual(result.body, INTERNAL);
          assert.doesNotMatch(JSON.stringify(result), /Duplicate|UNIQUE|posts|concerts|insert/);
        }
      });

      it('any other driver error is a 500 without the driver text', () => {
        const err = driverError('ER_PARSE_ERROR', "You have an error in your SQL syntax near 'secret'");
        assert.deepEqual(translated(err), { status: 500, body: INTERNAL, headers: {} });
      });
    });

    it('anything else thrown → 500 rest_internal_error, its message withheld', () => {
      for (const err of [
        new Error('Cannot read properties of undefined (reading "id") at /srv/app/src/x.ts:12'),
        new TypeError('x is not a function'),
        'a thrown string',
        42,
        { status: 418 },
      ]) {
        assert.deepEqual(translated(err), { status: 500, body: INTERNAL, headers: {} }, String(err));
      }
    });
  });

  describe('errorMiddleware', () => {
    interface Logged {
      level: 'error' | 'warn' | 'debug';
      fields: Record<string, unknown>;
      message: string;
    }

    /** Runs the middleware with a fake request and response; returns what was written and logged. */
    function run(err: unknown, headersSent = false) {
      const logged: Logged[] = [];
      const log = (level: Logged['level']) => (fields: Record<string, unknown>, message: string) => logged.push({ level, fields, message });
      const req = { log: { error: log('error'), warn: log('warn'), debug: log('debug') } } as unknown as Request;
      const written: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
      const res = {
        headersSent,
        set(headers: Record<string, string>) {
          Object.assign(written.headers, headers);
          return this;
        },
        status(code: number) {
          written.status = code;
          return this;
        },
        json(body: unknown) {
          written.body = body;
          return this;
        },
      } as unknown as Response;
      let nextCalled = false;
      errorMiddleware()(err, req, res, (() => (nextCalled = true)) as NextFunction);
      return { written, logged, nextCalled };
    }

    it('writes the status, the headers and the envelope, and logs a refusal at debug level', () => {
      const err = invalidCredentials();
      const { written, logged, nextCalled } = run(err);
      assert.deepEqual(written, {
        status: 401,
        body: { code: 'rest_invalid_credentials', message: 'The provided credentials are invalid.', data: { status: 401 } },
        headers: { 'WWW-Authenticate': 'Basic realm="tribe/events/v1", charset="UTF-8"' },
      });
      assert.deepEqual(logged, [{ level: 'debug', fields: { err }, message: 'request refused' }]);
      assert.equal(nextCalled, false);
    });

    it('logs a fault at error level with the original error, and answers the bare envelope', () => {
      const err = driverError('ER_PARSE_ERROR', 'syntax error near secret');
      const { written, logged } = run(err);
      assert.deepEqual(written, { status: 500, body: INTERNAL, headers: {} });
      assert.deepEqual(logged, [{ level: 'error', fields: { err }, message: 'request failed' }]);
    });

    it('logs an unavailable database as a warning with its code only', () => {
      const { written, logged } = run(driverError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:3306'));
      assert.deepEqual(written, { status: 503, body: UNAVAILABLE, headers: { 'Retry-After': '5' } });
      assert.deepEqual(logged, [{ level: 'warn', fields: { code: 'rest_database_unavailable' }, message: 'request not served' }]);
    });

    it('writes nothing once the headers are out, but still logs', () => {
      const { written, logged } = run(new Error('late failure'), true);
      assert.deepEqual(written, { headers: {} });
      assert.equal(logged.length, 1);
      assert.equal(logged[0].level, 'error');
    });
  });

  describe('through the app', () => {
    it('answers real validator errors in the WordPress envelope', async () => {
      const { http } = await testApp();
      const admin = await createUser('administrator');

      const list = await http().get(`${NS}/events?per_page=0&page=abc`);
      assert.equal(list.status, 400);
      assert.deepEqual(list.body.data.params, { page: 'page is not of type integer.', per_page: 'per_page must be >= 1' });
      assert.equal(list.body.code, 'rest_invalid_param');

      const create = await http().post(`${NS}/events`).set('Authorization', admin.authorization).send({ title: 'x' });
      assert.deepEqual(
        [create.status, create.body],
        [400, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): start_date, end_date', data: { status: 400, params: ['start_date', 'end_date'] } }],
      );

      const json = await http().post(`${NS}/events`).set('Authorization', admin.authorization).set('Content-Type', 'application/json').send('{"title":');
      assert.deepEqual([json.status, json.body.code], [400, 'rest_invalid_json']);

      const text = await http().post(`${NS}/events`).set('Authorization', admin.authorization).set('Content-Type', 'text/plain').send('hello');
      assert.deepEqual([text.status, text.body.code], [415, 'rest_unsupported_media_type']);

      for (const [method, path] of [
        ['get', '/events/abc'],
        ['put', '/events'],
        ['get', '/nothing-here'],
      ] as const) {
        const answer = await http()[method](`${NS}${path}`).set('Authorization', admin.authorization);
        assert.deepEqual([answer.status, answer.body.code], [404, 'rest_no_route'], `${method} ${path}`);
      }

      const anonymous = await http().post(`${NS}/events`).send({ title: 'x' });
      assert.deepEqual([anonymous.status, anonymous.body], [401, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } }]);
    });
  });
});
