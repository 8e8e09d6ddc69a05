/**
 * Errors in the WordPress envelope: `{code, message, data: {status, ...}}`. Handlers throw these; the
 * one error middleware (error-middleware.ts) renders them and everything else.
 */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toBody(): { code: string; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data } };
  }
}

export interface ParamProblem {
  /** A readable reason, e.g. `per_page must be >= 1`. */
  message: string;
  /** A WordPress-style error code for `data.details`, e.g. `rest_invalid_type`. */
  code?: string;
}

/**
 * 400 `rest_invalid_param`, naming each bad parameter with a reason (WordPress `has_valid_params`);
 * `extraDetails` replaces the generic detail of a parameter that has a more precise one.
 */
export function invalidParams(problems: Record<string, string | ParamProblem>, extraDetails: Record<string, unknown> = {}): RestError {
  const names = Object.keys(problems);
  const params: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  for (const name of names) {
    const problem = problems[name];
    const { message, code } = typeof problem === 'string' ? { message: problem, code: 'rest_invalid_param' } : problem;
    params[name] = message;
    details[name] = { code: code ?? 'rest_invalid_param', message, data: { param: name } };
  }
  return new RestError(400, 'rest_invalid_param', `Invalid parameter(s): ${names.join(', ')}`, { params, details: { ...details, ...extraDetails } });
}

export function invalidParam(name: string, message: string, code?: string): RestError {
  return invalidParams({ [name]: { message, code } });
}

/** 400 `rest_missing_callback_param`, names in declaration order. */
export function missingParams(names: string[]): RestError {
  return new RestError(400, 'rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, { params: names });
}

/** A post the path names does not exist: 404 `rest-{type}-not-found` (`what`: "ID 12", "slug gig"). */
export function postNotFound(type: string, label: string, what: string): RestError {
  return new RestError(404, `rest-${type}-not-found`, `${label} with ${what} does not exist.`);
}

/** A term the path names does not exist: 404 `rest-term-not-found`. */
export function termNotFound(id: number): RestError {
  return new RestError(404, 'rest-term-not-found', `Term with ID ${id} does not exist.`);
}

/** 409 `rest_{kind}_limit_reached` for a create past the most `things` a service keeps (webhooks, subscriptions). */
export function limitReached(kind: string, things: string, limit: number): RestError {
  return new RestError(409, `rest_${kind}_limit_reached`, `There are already ${limit} ${things}, the most this service keeps. Delete one you no longer need first.`, { limit });
}

export function noRoute(): RestError {
  return new RestError(404, 'rest_no_route', 'No route was found matching the URL and request method.');
}

/** `rest_forbidden`: 401 for the anonymous visitor, 403 for a known user (WordPress `rest_authorization_required_code`). */
export function forbidden(authenticated: boolean): RestError {
  return new RestError(authenticated ? 403 : 401, 'rest_forbidden', 'Sorry, you are not allowed to do that.');
}

export function invalidCredentials(): RestError {
  return new RestError(
    401,
    'rest_invalid_credentials',
    'The provided credentials are invalid.',
    {},
    {
      'WWW-Authenticate': 'Basic realm="tribe/events/v1", charset="UTF-8"',
    },
  );
}
