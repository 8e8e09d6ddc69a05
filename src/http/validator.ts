import type { Request, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Config } from '../core/config.js';
import { securitySchemeNames, type ApiDocument, type OperationInfo } from '../openapi/document.js';

/**
 * The OpenAPI validator (routes, security, parameters and bodies of requests, and in tests answers),
 * with its two per-request costs that do not depend on the request taken out (docs/performance.md
 * "What limits it"):
 *
 * - Its route lookup compiles the path pattern of every route of the document on every request
 *   (upstream pull request cdimascio/express-openapi-validator#1217, not released). Here the
 *   patterns are compiled once, in the validator's own order; a route's operation found once by the
 *   validator is remembered, and later requests to it get the same `req.openapi` without the lookup.
 *   Anything else (no route, a method the route lacks, a path it cannot decode) goes to the
 *   validator's own lookup, so its 404, 405 and 400 stay its own.
 * - Its security check of an operation open to anonymous callers (security lists `{}`) always
 *   passes, after throwing one error per other scheme for a caller without credentials: skipped.
 */
export function openApiValidator(document: ApiDocument, config: Config, namespaceRoot: string, operations: OperationInfo[]): RequestHandler[] {
  const stages = validatorStages(document, config, namespaceRoot);
  const lookup = new RouteLookup(operations, namespaceRoot);
  const anonymous = new Set(operations.filter((op) => op.allowsAnonymous).map((op) => `${op.method} ${op.path}`));
  return stages.map((stage) => {
    if (stage.name === 'metadataMiddleware') return rememberedOperations(stage, lookup);
    if (stage.name === 'securityMiddleware') return openToAnonymous(stage, anonymous, namespaceRoot);
    return stage;
  });
}

/**
 * The validator's middlewares, by the names its version (5.6) gives them; `openApiValidator` replaces
 * two of them by name, and test/unit/validator-lookup.test.ts fails if a new version renames them
 * (the replacement would otherwise stop without a sign).
 */
export function validatorStages(document: ApiDocument, config: Config, namespaceRoot: string): RequestHandler[] {
  const validatorDocument = { ...document, servers: [{ url: namespaceRoot }] };
  // Every security scheme of the document is met by a caller authentication has found.
  const handlers = Object.fromEntries(securitySchemeNames(document).map((name) => [name, async (req: Request) => req.user !== undefined]));
  return OpenApiValidator.middleware({
    // An in-memory copy whose server URL carries BASE_PATH, so the document's paths stay relative
    // to the namespace and the mount point stays a setting.
    apiSpec: validatorDocument as never,
    // Check the document itself at start-up: a broken document must not half-validate requests.
    validateApiSpec: true,
    validateRequests: {
      // WordPress ignores parameters it does not know (docs/contract.md §2); so do we.
      allowUnknownQueryParameters: true,
      // Form bodies carry only strings, so bodies are coerced like query strings ("10" → 10).
      coerceTypes: true,
      // Unknown body fields are ignored, never stripped or refused (GET-modify-PUT round trips).
      removeAdditional: false,
      // Report every bad parameter at once, as WordPress lists them all.
      allErrors: true,
    },
    // On in tests (every response must match the document), off in production by default.
    validateResponses: config.validateResponses ? { removeAdditional: false, coerceTypes: false, allErrors: true } : false,
    // The document's security requirements decide which operations need a user: writes list only
    // basicAuth/bearerAuth, reads also `{}`. This runs before parameter validation, so an anonymous
    // write gets 401 before anything about its input or the record is revealed (docs/contract.md §4).
    validateSecurity: { handlers },
    // Formats are checked in full (e.g. real dates), not by the fast approximations.
    validateFormats: true,
    ajvFormats: { mode: 'full' },
    // Requests to undocumented paths under the namespace are errors (404), not passed through.
    ignoreUndocumented: false,
    // Match on req.url, which normaliseUrl has cleaned (trailing slashes), not on originalUrl.
    useRequestUrl: true,
    // Bundle $refs instead of inlining them: smaller compiled validators, same behaviour.
    $refParser: { mode: 'bundle' },
    // We dispatch by operationId ourselves (http/app.ts dispatch); no file uploads exist.
    operationHandlers: false,
    fileUploader: false,
  }) as unknown as RequestHandler[];
}

/** What the validator's lookup puts on `req.openapi`. */
interface Matched {
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, string>;
  schema: unknown;
  serial: number;
  _responseSchema?: unknown;
}

/** What one operation's first lookup taught: the validator's own objects for it. */
type Learned = Pick<Matched, 'schema' | 'serial' | '_responseSchema'> & { withResponseSchema: boolean };

interface CompiledRoute {
  expressRoute: string;
  openApiRoute: string;
  pattern: RegExp;
  keys: string[];
}

/**
 * The document's routes as the validator's lookup sees them (express-openapi-validator 5.6,
 * `middlewares/openapi.metadata.js` and `framework/openapi.spec.loader.js`): `/events/{id}` becomes
 * the Express route `/events/:id` under the namespace root, matched by path-to-regexp without case
 * and with an optional trailing slash, the routes sorted static before dynamic, the first match wins.
 * test/unit/validator-lookup.test.ts checks it against the validator's own lookup.
 */
export class RouteLookup {
  readonly routes: CompiledRoute[];

  constructor(operations: OperationInfo[], namespaceRoot: string) {
    const seen = new Map<string, CompiledRoute>();
    const entries = operations.map((op) => {
      const openApiRoute = `${namespaceRoot}${op.path}`;
      return { openApiRoute, expressRoute: openApiRoute.replace(/\{([^}]+)\}/g, ':$1') };
    });
    entries.sort(validatorOrder);
    for (const { openApiRoute, expressRoute } of entries) {
      if (seen.has(expressRoute)) continue;
      const keys: string[] = [];
      const source = expressRoute
        .split(/(:[A-Za-z0-9_]+)/)
        .map((part) => (part.startsWith(':') ? (keys.push(part.slice(1)), '([^\\/]+)') : part.replace(/[.+*?^${}()[\]|/\\]/g, '\\$&')))
        .join('');
      seen.set(expressRoute, { expressRoute, openApiRoute, keys, pattern: new RegExp(`^(?:${source})(?:\\/$)?$`, 'i') });
    }
    this.routes = [...seen.values()];
  }

  /** The first route whose pattern matches the path (without its query), and the raw parameter values. */
  find(path: string): { route: CompiledRoute; values: string[] } | undefined {
    for (const route of this.routes) {
      const match = route.pattern.exec(path);
      if (match) return { route, values: match.slice(1) };
    }
    return undefined;
  }
}

/** The validator's `sortRoutes`: a route before any route it extends, otherwise by text, parameters (`~`) last. */
function validatorOrder(a: { expressRoute: string }, b: { expressRoute: string }): number {
  const e1 = a.expressRoute.replace(/\/:/g, '/~');
  const e2 = b.expressRoute.replace(/\/:/g, '/~');
  if (e1.startsWith(e2)) return -1;
  if (e2.startsWith(e1)) return 1;
  return e1 > e2 ? 1 : -1;
}

/**
 * The validator's route lookup, done by the precompiled patterns once the validator has matched the
 * operation once (and agreed with them); everything else is the validator's own lookup.
 */
function rememberedOperations(validatorLookup: RequestHandler, lookup: RouteLookup): RequestHandler {
  const learned = new Map<string, Learned>();
  return (req, res, next) => {
    const path = req.url.split('?')[0];
    const found = lookup.find(path);
    const key = found && `${req.method} ${found.route.expressRoute}`;
    const known = key === undefined ? undefined : learned.get(key);
    const pathParams = known && found && decodedParams(found.route.keys, found.values);
    if (!known || !found || !pathParams) {
      return validatorLookup(req, res, (error?: unknown) => {
        const matched = (req as { openapi?: Matched }).openapi;
        // Remembered only when the validator matched the route the patterns found.
        if (error === undefined && key !== undefined && matched?.schema && matched.expressRoute === found?.route.expressRoute) {
          learned.set(key, { schema: matched.schema, serial: matched.serial, _responseSchema: matched._responseSchema, withResponseSchema: '_responseSchema' in matched });
        }
        next(error as Error | undefined);
      });
    }
    const openapi: Matched = { expressRoute: found.route.expressRoute, openApiRoute: found.route.openApiRoute, pathParams, schema: known.schema, serial: known.serial };
    if (known.withResponseSchema) openapi._responseSchema = known._responseSchema;
    (req as { openapi?: Matched }).openapi = openapi;
    req.params = pathParams;
    next();
  };
}

/** The parameters as the validator decodes them; undefined when one cannot be (the validator answers that 400). */
function decodedParams(keys: string[], values: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  try {
    keys.forEach((name, i) => (params[name] = decodeURIComponent(values[i])));
  } catch {
    return undefined;
  }
  return params;
}

/** The validator's security check, except for operations open to anonymous callers, which always pass it. */
function openToAnonymous(validatorSecurity: RequestHandler, anonymous: ReadonlySet<string>, namespaceRoot: string): RequestHandler {
  return (req, res, next) => {
    const matched = (req as { openapi?: Matched }).openapi;
    if (matched && anonymous.has(`${req.method} ${matched.openApiRoute.slice(namespaceRoot.length)}`)) return next();
    return validatorSecurity(req, res, next);
  };
}
