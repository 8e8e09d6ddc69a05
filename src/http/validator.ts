import type { Request, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Config } from '../core/config.js';
import { securitySchemeNames, type ApiDocument } from '../openapi/document.js';

/**
 * The OpenAPI validator: routes, security, parameters and bodies of requests, and in tests answers.
 *
 * The installed express-openapi-validator carries patches/express-openapi-validator+5.6.2.patch,
 * applied by patch-package when the dependencies are installed (`postinstall`), for two costs per
 * request that do not depend on the request (docs/performance.md "What limits it"): its route lookup
 * compiled the path pattern of every route of the document on every request (the patch keeps the
 * compiled patterns, as upstream pull request cdimascio/express-openapi-validator#1217 does, not
 * released), and its security check of an operation open to anonymous callers (security lists `{}`),
 * which always passes, ran every other scheme's check first, each throwing an error for a caller
 * without credentials (the patch passes it at once). test/unit/validator-patch.test.ts fails if the
 * installed validator lacks the patch.
 */
export function openApiValidator(document: ApiDocument, config: Config, namespaceRoot: string): RequestHandler[] {
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
