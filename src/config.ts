/**
 * Typed settings, read once from the environment. Every setting has a default that runs on a fresh
 * machine: the embedded SQLite database in ./data, port 8080, the WordPress base path /wp-json.
 */
export interface Config {
  /** TCP port to listen on (PORT). */
  port: number;
  /** Interface to bind (HOST). */
  host: string;
  /** `sqlite:PATH`, `sqlite::memory:` or `mysql://user:pass@host:port/db` (DATABASE_URL). */
  databaseUrl: string;
  /** Public origin (+ optional path prefix) that wins over the request's Host in absolute URLs (PUBLIC_URL). */
  publicUrl: string | undefined;
  /** Origin of the public site, used for permalinks and global ids; defaults to the public URL (SITE_URL). */
  siteUrl: string | undefined;
  /** IANA zone (or UTC±N) of the site: default event zone and list date window (SITE_TIMEZONE). */
  siteTimezone: string;
  /** Mount point of the REST API, `/wp-json` as on a WordPress site (BASE_PATH). */
  basePath: string;
  /** pino log level (LOG_LEVEL). */
  logLevel: string;
  /** Largest accepted request body, in bytes-format understood by body-parser (BODY_LIMIT). */
  bodyLimit: string;
  /** Validate every response against the OpenAPI document (VALIDATE_RESPONSES); on in tests, off by default. */
  validateResponses: boolean;
  /** Failed authentications one client may make per window before it gets 429 (AUTH_FAILURE_LIMIT). */
  authFailureLimit: number;
  /** That window, in seconds (AUTH_FAILURE_WINDOW). */
  authFailureWindowSeconds: number;
  /** Serve Prometheus metrics at `GET /metrics` (METRICS); off by default, so nothing is exposed unasked. */
  metrics: boolean;
  /** When set, `/metrics` answers only `Authorization: Bearer <token>` (METRICS_TOKEN). */
  metricsToken: string | undefined;
  /** Longest a request may take before it is answered 503 `rest_request_timeout`, in seconds (REQUEST_TIMEOUT). */
  requestTimeoutSeconds: number;
  /** How long idle keep-alive connections stay open, in seconds; above the load balancer's idle timeout (KEEP_ALIVE_TIMEOUT). */
  keepAliveTimeoutSeconds: number;
  /** Connecting to the database, or waiting for a pooled connection, gives up after this many seconds: 503 then (DB_TIMEOUT). */
  dbTimeoutSeconds: number;
  /** On SIGTERM/SIGINT, in-flight requests get this many seconds to finish before the process exits anyway (SHUTDOWN_TIMEOUT). */
  shutdownTimeoutSeconds: number;
  /** Number of worker processes (WORKERS); 1 serves from the main process, more use node:cluster. */
  workers: number;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and checks the settings; throws ConfigError naming the bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a port number, got "${env.PORT}"`);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const siteTimezone = env.SITE_TIMEZONE ?? 'UTC';
  if (!isValidTimezone(siteTimezone)) throw new ConfigError(`SITE_TIMEZONE is not a known time zone: "${siteTimezone}"`);
  const databaseUrl = env.DATABASE_URL ?? 'sqlite:data/events.sqlite';
  const workers = positiveInteger('WORKERS', env.WORKERS, 1);
  // SQLite takes one writer at a time and this service keeps one connection to it per process:
  // concurrent writes from several processes would fail with SQLITE_BUSY instead of queueing.
  if (workers > 1 && databaseUrl.startsWith('sqlite:')) throw new ConfigError('WORKERS above 1 needs a MySQL database (DATABASE_URL=mysql://...): a SQLite file is served by one process');
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    databaseUrl,
    publicUrl: optionalUrl('PUBLIC_URL', env.PUBLIC_URL),
    siteUrl: optionalUrl('SITE_URL', env.SITE_URL),
    siteTimezone,
    basePath: normaliseBasePath(env.BASE_PATH ?? '/wp-json'),
    logLevel,
    bodyLimit: env.BODY_LIMIT ?? '1mb',
    validateResponses: parseFlag('VALIDATE_RESPONSES', env.VALIDATE_RESPONSES, false),
    authFailureLimit: positiveInteger('AUTH_FAILURE_LIMIT', env.AUTH_FAILURE_LIMIT, 20),
    authFailureWindowSeconds: positiveInteger('AUTH_FAILURE_WINDOW', env.AUTH_FAILURE_WINDOW, 900),
    metrics: parseFlag('METRICS', env.METRICS, false),
    metricsToken: env.METRICS_TOKEN || undefined,
    requestTimeoutSeconds: positiveNumber('REQUEST_TIMEOUT', env.REQUEST_TIMEOUT, 30),
    keepAliveTimeoutSeconds: positiveNumber('KEEP_ALIVE_TIMEOUT', env.KEEP_ALIVE_TIMEOUT, 65),
    dbTimeoutSeconds: positiveNumber('DB_TIMEOUT', env.DB_TIMEOUT, 5),
    shutdownTimeoutSeconds: positiveNumber('SHUTDOWN_TIMEOUT', env.SHUTDOWN_TIMEOUT, 25),
    workers,
  };
}

function optionalUrl(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL`);
  return value.replace(/\/+$/, '');
}

function normaliseBasePath(value: string): string {
  const trimmed = value.replace(/\/+$/, '');
  if (trimmed !== '' && !/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed)) throw new ConfigError(`BASE_PATH must be a URL path such as /wp-json, got "${value}"`);
  return trimmed;
}

function positiveInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new ConfigError(`${name} must be a positive integer, got "${value}"`);
  return number;
}

/** Durations: any positive number of seconds (`0.5` is half a second). */
function positiveNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new ConfigError(`${name} must be a positive number of seconds, got "${value}"`);
  return number;
}

function parseFlag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}

/** IANA names known to the runtime, plus WordPress-style `UTC`, `UTC+5`, `UTC-3.5`. */
export function isValidTimezone(zone: string): boolean {
  if (/^UTC([+-]\d{1,2}(\.\d+)?)?$/.test(zone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
