import express, { type Express, type RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import './request.js';
import { servesPages, type Config } from '../core/config.js';
import { createLogger } from '../core/logger.js';
import { assertUtcProcess } from '../dates/parse.js';
import { listOperations, loadDocument, NAMESPACE, operationsWithHeader, type ApiDocument, type OperationInfo } from '../openapi/document.js';
import { inputShapesOf, nonFiniteInput, normaliseBody, queryParser, type InputShapes } from './input.js';
import { invalidParam } from '../core/errors.js';
import { authenticate } from './authentication.js';
import { authFailureLimiter } from '../operations/shared/auth-failures.js';
import { deleteParametersFromBody } from './delete-parameters.js';
import { BodyGate, calendarBody, jsonDepthLimit, MAX_BODY_DEPTH } from './body-gate.js';
import { healthz, readyz } from './health.js';
import { createMetrics, type Metrics } from './metrics.js';
import { requestTimeout } from '../operations/shared/timeouts.js';
import { errorMiddleware, noRouteHandler } from './error-middleware.js';
import type { Urls } from '../core/urls.js';
import { hostGuard } from './host.js';
import { typeProblemsOf, type Operation, type OperationContext, type OperationId, type OperationTable, type Reply } from '../operations/shared/operation.js';
import { deferTypeProblems } from './param-stages.js';
import { Repositories, type ReadCaches } from '../repositories/registry.js';
import { RelatedRowCache } from '../repositories/related-row-cache.js';
import { ChangeFeedCache } from '../repositories/changes.js';
import { SubscriptionRuns } from '../importing/scheduler.js';
import { createTotalsCache } from '../db/versioned-cache.js';
import { UserRepository } from '../repositories/users.js';
import { buildRouteTable } from '../operations/namespace-index.js';
import { docsPage } from '../operations/docs-page.js';
import { publicPages } from '../operations/pages.js';
import { restIndex, restRouteParameter } from '../operations/rest-index.js';
import { createOperationTable } from '../operations/handlers.js';
import { createReplyCache, replyKey, serializedReply, type ReplyCache } from '../operations/shared/replies.js';
import { readerOf } from '../policies/posts.js';
import { readQueue, readsInFlightFor, READS_PER_ITERATION } from './read-queue.js';
import { engineOf } from '../db/engine.js';
import { jsonParts, replyTooLarge, sendSerialized } from '../operations/shared/reply-body.js';
import { entityTag } from '../operations/shared/conditional.js';
import { useConditionalGets } from '../operations/shared/conditional-reads.js';
import { IDEMPOTENCY_HEADER, withIdempotencyKey } from '../operations/shared/idempotency.js';
import { allowHeader } from './allow.js';
import { DocumentRoutes } from './document-routes.js';
import { pathAliases } from './aliases.js';
import { responseFields } from './fields.js';
import { corsLists, corsPolicy, securityHeaders, wordpressHeaders } from './headers.js';
import { resolveAll, type Resolver } from '../core/outbound.js';
import { openApiValidator } from './validator.js';
import { requestLog } from './request-log.js';
import { cacheHeaders, cachePolicy } from './cache-policy.js';

interface AppOptions {
  config: Config;
  db: Knex;
  logger?: Logger;
  /** The clock; tests inject a fixed one. */
  now?: () => Date;
  /**
   * How a webhook URL's host is resolved when a webhook is created or its URL changed
   * (core/outbound.ts): DNS; tests without a network inject a table of names.
   */
  resolveHost?: Resolver;
  /** The registry `/metrics` serves (METRICS=on), shared with the webhook deliveries (main.ts); a new one when not given. */
  metricsRegistry?: Registry;
  /** This process's subscription runs, shared with the schedule (main.ts); new ones when not given. */
  subscriptionRuns?: SubscriptionRuns;
}

/**
 * Builds the Express app; never listens (main.ts does, tests call this directly). One path for
 * every request: the cache headers (decided as the answer's headers go out) → logging → WordPress headers → CORS → URL normalisation → authentication →
 * anonymous writes refused → body parsers → input normalisation → OpenAPI validation (routes,
 * security, parameters, bodies) → the operation's permission and handler → one error middleware.
 * Each step below mounts its middleware in that order; what the steps read from the document is
 * read here, once.
 */
export function createApp({
  config,
  db,
  logger = createLogger(config.logLevel),
  now = () => new Date(),
  resolveHost = resolveAll,
  metricsRegistry,
  subscriptionRuns = new SubscriptionRuns(),
}: AppOptions): Express {
  assertUtcProcess();
  const document = loadDocument();
  const operations = listOperations(document);
  const namespaceRoot = `${config.basePath}/${NAMESPACE}`;
  const shapes = inputShapesOf(operations, namespaceRoot);
  const routes = buildRouteTable(operations);
  const table = createOperationTable(document, routes, resolveHost);

  const app = express();
  configure(app, config, shapes);
  // Cache-Control, Expires and Vary of every answer, decided as its headers go out (http/cache-policy.ts,
  // docs/contract.md §19); first, so that no answer, however early, goes without them.
  app.use(cacheHeaders(cachePolicy(config, namespaceRoot)));
  const metrics = config.metrics ? createMetrics(db, config.metricsToken, metricsRegistry) : undefined;
  useLoggingAndPacing(app, config, db, logger, metrics);
  useResponseHeaders(app, config, document, operations);
  app.use(restRouteParameter(config.basePath)); // `/?rest_route=/tribe/events/v1/...`, as WordPress
  app.use(normaliseUrl(namespaceRoot));
  // `/events/{id}.ics` → `/events/{id}/ics`, the documented path (http/aliases.ts).
  app.use(pathAliases(namespaceRoot));
  // `Allow` as WordPress sends it: first for the anonymous caller (answers refused before
  // authentication), again after it once the caller is known.
  // The document's routes a request names, found once for every stage that asks (http/document-routes.ts).
  const documentRoutes = new DocumentRoutes(operations, namespaceRoot);
  const allow = allowHeader(documentRoutes);
  // What the reads of every request keep between requests: the rows event records embed
  // (repositories/related-row-cache.ts), list totals (db/versioned-cache.ts) and the change feed's
  // key and position (repositories/changes.ts); never a transaction's.
  const readCaches: ReadCaches = { relatedRows: new RelatedRowCache(), totals: createTotalsCache(db), changeFeed: new ChangeFeedCache(db) };
  useOutsideTheNamespace(app, config, db, now, metrics, restIndex(config, document, routes, now), allow, namespaceRoot, readCaches);
  useAuthentication(app, config, db, allow);
  // `_fields` on GET answers; before the validator, which then checks the whole answer (http/fields.ts).
  app.use(responseFields(document));
  useBodies(app, config, documentRoutes, shapes);
  // Booleans that are no booleans are answered after the other parameters' checks (http/param-stages.ts).
  app.use(deferTypeProblems(shapes));
  app.use(openApiValidator(document, config, namespaceRoot));
  // A create sent with Idempotency-Key runs once per key: the operations that take the header (every create).
  // The one cache of whole replies (operations/shared/replies.ts), REPLY_CACHE=off: none.
  const replies = config.replyCache ? createReplyCache(db, config.replyLimit) : undefined;
  app.use(dispatch(table, operationsWithHeader(operations, IDEMPOTENCY_HEADER), config, db, now, { replies, readCaches, subscriptionRuns }));
  app.use(noRouteHandler);
  app.use(errorMiddleware());
  return app;
}

/** Express's own settings. */
function configure(app: Express, config: Config, shapes: InputShapes): void {
  app.disable('x-powered-by');
  app.set('query parser', queryParser(shapes));
  // Weak ETags on answers without a record version (lists, the index); single records get a strong
  // one from their version (operations/shared/conditional.ts). Express answers If-None-Match with 304
  // itself, by `req.fresh`, which follows operations/shared/conditional-reads.ts (also under Cache-Control: no-cache).
  app.set('etag', 'weak');
  useConditionalGets(app);
  // Which proxies may tell the client's address (X-Forwarded-For) and scheme (X-Forwarded-Proto):
  // none unless TRUST_PROXY says so, since anyone can send those headers.
  app.set('trust proxy', config.trustProxy);
}

/** Metrics, the request log with its request id, the request timeout, and the read queue. */
function useLoggingAndPacing(app: Express, config: Config, db: Knex, logger: Logger, metrics: Metrics | undefined): void {
  if (metrics) app.use(metrics.record);
  // The request id and one line per request (http/request-log.ts).
  app.use(requestLog(app, logger));
  app.use(requestTimeout(config.requestTimeoutSeconds));
  // A few reads start per iteration of the event loop, writes at once (http/read-queue.ts).
  const poolMax = Number((db.client.config as { pool?: { max?: number } }).pool?.max ?? 1);
  app.use(readQueue(READS_PER_ITERATION, readsInFlightFor(engineOf(db), poolMax)).middleware);
}

/** Security headers, the Host check, WordPress's headers and CORS, with the lists the document gives. */
function useResponseHeaders(app: Express, config: Config, document: ApiDocument, operations: OperationInfo[]): void {
  const lists = corsLists(document, operations);
  // Security headers that suit a JSON API; the CORS policy below decides who may read responses.
  app.use(securityHeaders());
  // The Host header builds every absolute URL when PUBLIC_URL is unset: checked before anything uses it.
  app.use(hostGuard(config));
  app.use(wordpressHeaders(config, lists));
  app.use(corsPolicy(config, lists));
}

/**
 * What answers outside the namespace: WordPress's REST index at `{BASE_PATH}/` (where every answer's
 * discovery Link points), the operations endpoints (outside the OpenAPI document too), the
 * interactive reference and the public pages. One router, which requests under the namespace never
 * enter: none of its routes lies there, and a read of the API need not be matched against each.
 */
function useOutsideTheNamespace(
  app: Express,
  config: Config,
  db: Knex,
  now: () => Date,
  metrics: Metrics | undefined,
  index: RequestHandler,
  allow: RequestHandler,
  namespaceRoot: string,
  readCaches: ReadCaches,
): void {
  // `Allow` is set only on the namespace's routes, so it may come before the index (which is not one).
  app.use(allow);
  const outside = express.Router();
  outside.get(config.basePath || '/', index);
  outside.get('/healthz', healthz);
  outside.get('/readyz', readyz(db));
  if (metrics) outside.get('/metrics', metrics.serve);
  outside.use(docsPage(config)); // GET /docs: the interactive reference (Swagger UI)
  // The public HTML pages behind every record's `url`, read as an anonymous caller (docs/contract.md §13).
  if (servesPages(config)) outside.use(publicPages(config, db, now, readCaches));
  // normaliseUrl gives the namespace root its trailing slash, so every request to the namespace has this prefix.
  const namespacePrefix = `${namespaceRoot}/`;
  app.use((req, res, next) => (req.url.startsWith(namespacePrefix) ? next() : outside(req, res, next)));
}

/**
 * Who calls is known before any body is read: failed attempts are throttled, the caller is
 * authenticated, and `Allow` is set again for that caller. (Answers to requests with credentials are
 * not cached: http/cache-policy.ts.)
 */
function useAuthentication(app: Express, config: Config, db: Knex, allow: RequestHandler): void {
  const users = new UserRepository(db);
  const limiter = authFailureLimiter(config);
  app.use(limiter.guard);
  app.use(
    authenticate(
      users,
      (req) => limiter.recordFailure(req),
      (req) => limiter.recordSuccess(req),
    ),
  );
  app.use(allow);
}

/**
 * An anonymous write is refused (401) without parsing its body, and bodies are parsed only for
 * operations that take one, depth-checked first; then the input is normalised to the document's types.
 * A request that is no write and names no operation taking a body (every read) has nothing to
 * parse or normalise: it skips those stages in one step.
 */
function useBodies(app: Express, config: Config, routes: DocumentRoutes, shapes: InputShapes): void {
  const bodies = new BodyGate(routes);
  app.use(bodies.refuseAnonymousWrites);
  const parsers = [
    bodies.parseFor(express.json({ limit: config.bodyLimit, verify: jsonDepthLimit(MAX_BODY_DEPTH) })),
    // Form bodies: qs stops at body-parser's default depth of 32, the same bound (400 past it).
    bodies.parseFor(express.urlencoded({ extended: true, limit: config.bodyLimit, parameterLimit: 1000 })),
    // An iCalendar body, only for the operation that takes one, up to the import's bound.
    bodies.parseFor(calendarBody(routes)),
  ];
  const stages = inSeries([...parsers, emptyBodyAsEmptyObject, normaliseBody(shapes)]);
  // A DELETE's parameters may come in its body, as WordPress reads them: into the query string.
  const deleteStages = inSeries([...parsers, deleteParametersFromBody(routes)]);
  app.use((req, res, next) => {
    if (WRITES_WITH_BODIES.has(req.method) || bodies.takesBody(req)) return stages(req, res, next);
    if (bodies.isDelete(req)) return deleteStages(req, res, next);
    next();
  });
}

/** The methods whose request without a body is one with no parameters (`emptyBodyAsEmptyObject`). */
const WRITES_WITH_BODIES = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Middlewares run one after the other as one: an error (passed on, thrown or rejected) skips the rest
 * and goes to the app's error handling, as between separately mounted middlewares.
 */
function inSeries(stages: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let at = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      if (at === stages.length) return next();
      try {
        const returned: unknown = stages[at++](req, res, step);
        if (returned instanceof Promise) returned.catch(next);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}

/**
 * Trailing slashes are accepted on every route (`/events/` = `/events`); the namespace root itself is
 * the document's path `/`, so it always gets one. HEAD is served by the GET operation (Node still
 * sends no body for it).
 */
function normaliseUrl(namespaceRoot: string): RequestHandler {
  return (req, _res, next) => {
    const queryStart = req.url.indexOf('?');
    const query = queryStart === -1 ? '' : req.url.slice(queryStart);
    let pathPart = queryStart === -1 ? req.url : req.url.slice(0, queryStart);
    if (pathPart.length > 1) pathPart = pathPart.replace(/\/+$/, '') || '/';
    if (pathPart === namespaceRoot) pathPart += '/';
    req.url = pathPart + query;
    if (req.method === 'HEAD') req.method = 'GET';
    next();
  };
}

/**
 * A POST/PUT/PATCH without any body is a request with no parameters, as in WordPress (so a create
 * says which parameters are missing, and an update changes nothing), not a wrong content type.
 */
const emptyBodyAsEmptyObject: RequestHandler = (req, _res, next) => {
  const bodyless = req.headers['content-type'] === undefined && !req.headers['transfer-encoding'] && Number(req.headers['content-length'] ?? 0) === 0;
  if (bodyless && WRITES_WITH_BODIES.has(req.method)) {
    req.headers['content-type'] = 'application/json';
    req.body = {};
  }
  next();
};

/**
 * Runs the operation the validator matched through its stages (operations/shared/operation.ts): parse, then the
 * cached reply if there is one, else load, authorize and execute; then sends the reply.
 */
function dispatch(
  table: OperationTable,
  keyed: ReadonlySet<string>,
  config: Config,
  db: Knex,
  now: () => Date,
  { replies, readCaches, subscriptionRuns }: { replies: ReplyCache | undefined; readCaches: ReadCaches; subscriptionRuns: SubscriptionRuns },
): RequestHandler {
  return async (req, res, next) => {
    const matched = (req as unknown as { openapi?: { schema?: { operationId?: string }; pathParams?: Record<string, unknown> } }).openapi;
    const operationId = matched?.schema?.operationId as OperationId | undefined;
    if (!operationId) return next();
    // The validator has checked the request against this operation: its input has the operation's types.
    const operation = table[operationId] as Operation<OperationId>;
    const ctx: OperationContext = {
      operationId,
      req,
      res,
      user: req.user,
      urls: res.locals.urls as Urls,
      config,
      db,
      repositories: new Repositories(db, readCaches),
      now,
      subscriptionRuns,
      query: req.query as never,
      path: (matched?.pathParams ?? req.params) as never,
      body: (req.body ?? {}) as never,
    };
    const infinite = nonFiniteInput(req.query, req.body);
    if (infinite !== undefined) throw invalidParam(infinite, `${infinite} is not a finite number.`);
    const handle = async (): Promise<Reply> => {
      const input = await operation.parse(ctx);
      // Booleans that are no booleans (http/param-stages.ts): a write answers them before it changes
      // anything; a read once its own checks passed, which WordPress makes first.
      const typeProblems = typeProblemsOf(ctx);
      if (typeProblems && req.method !== 'GET' && req.method !== 'HEAD') throw typeProblems;
      const run = async (): Promise<Reply> => {
        operation.permit?.(ctx.user, input);
        const target = await operation.load(ctx, input);
        await operation.authorize(ctx.user, target, input);
        return operation.execute(ctx, input, target);
      };
      // A cached reply skips load, authorize and execute: its key holds the caller's read scope.
      const cached = replies && operation.cache?.(ctx, input);
      const reply = await (cached ? replies.get(replyKey(readerOf(ctx.user), ctx, cached.parts), run, cached.moving) : run());
      if (typeProblems) throw typeProblems;
      return reply;
    };
    // A create sent with Idempotency-Key runs once per key (operations/shared/idempotency.ts).
    const reply = await withIdempotencyKey(ctx, keyed, handle);
    // A text answer (an iCalendar feed) is within REPLY_LIMIT as every answer, refused before any
    // header of it is set (the list feed is cut to the limit; one event's feed is far below it). A
    // reply serialised as JSON is no text answer: its body is not read here, since a cached one
    // keeps only its bytes and would parse them back (operations/shared/replies.ts).
    const textBytes = reply.textBytes?.length ?? (reply.serialized === undefined && typeof reply.body === 'string' ? Buffer.byteLength(reply.body) : 0);
    if (textBytes > config.replyLimit) throw replyTooLarge(config.replyLimit);
    for (const [name, value] of Object.entries(reply.headers ?? {})) {
      // The WordPress discovery Link stays; paging links are added beside it.
      if (name === 'Link') res.append('Link', value);
      else res.set(name, value);
    }
    res.status(reply.status);
    // A JSON answer of another media type (the JSON-LD feed) goes the JSON way below, under its own type.
    if (reply.contentType !== undefined) res.set('Content-Type', reply.contentType);
    if (reply.contentType !== undefined && (reply.textBytes !== undefined || typeof reply.body === 'string')) {
      // A text answer (an iCalendar feed): sent as it is (a cached one from its bytes); a record's
      // strong ETag (operations/shared/conditional.ts) or Express's weak one, and its 304.
      const text = reply.textBytes ?? String(reply.body);
      if (reply.version) res.set('ETag', (reply.etag ??= entityTag(reply.version, text, reply.contentType)));
      res.send(text);
      return;
    }
    if (reply.version) {
      // A record's strong ETag (operations/shared/conditional.ts); set before sending, so Express computes no weak one.
      const selection = res.locals.fields === undefined ? '' : JSON.stringify(res.locals.fields);
      const json = () => jsonParts(serializedReply(reply, config.replyLimit));
      res.set('ETag', selection ? entityTag(reply.version, json(), selection) : (reply.etag ??= entityTag(reply.version, json())));
    }
    if (config.validateResponses || res.locals.fields) {
      // res.json is where the validator checks the body against the document, and where `_fields`
      // selects keys (http/fields.ts).
      res.json(reply.body);
    } else {
      // What res.json sends, byte for byte, with the JSON kept on the reply: a cached reply
      // (operations/shared/replies.ts) is serialised once, not on every request. A reply over REPLY_LIMIT is
      // refused before any of it is sent; one over 1 MB is streamed (operations/shared/reply-body.ts).
      const serialized = serializedReply(reply, config.replyLimit);
      if (!serialized.complete) throw replyTooLarge(config.replyLimit, (req.query as { per_page?: unknown }).per_page);
      await sendSerialized(req, res, serialized);
    }
  };
}
