import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';
import { byteSize, cacheSeconds, ConfigError, parseFlag, positiveInteger, positiveNumber } from './setting-values.js';
import { parseHost, type HostAndPort } from './host.js';

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
  /**
   * SQLite's commit durability (SQLITE_SYNCHRONOUS): `full` (the default) syncs every commit to the
   * disk, `normal` trades the last commits before a machine crash for speed; ignored on MySQL.
   */
  sqliteSynchronous: 'full' | 'normal';
  /** Public origin (+ optional path prefix) that wins over the request's Host in absolute URLs (PUBLIC_URL). */
  publicUrl: string | undefined;
  /**
   * Without PUBLIC_URL, the only `Host` values answered (ALLOWED_HOSTS: comma-separated `host` or
   * `host:port`); undefined answers any well-formed host.
   */
  allowedHosts: HostAndPort[] | undefined;
  /**
   * Origins whose pages may call the API with credentials (CORS_ORIGINS: comma-separated, such as
   * `https://app.example.org`); undefined answers any origin, as WordPress does.
   */
  corsOrigins: string[] | undefined;
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
  /** Largest reply body, in bytes (REPLY_LIMIT, same format as BODY_LIMIT); a larger one is refused, 500. */
  replyLimit: number;
  /**
   * Keep whole replies to reads while no write commits (REPLY_CACHE, `on` by default; `off` builds
   * every reply anew): operations/shared/replies.ts, docs/architecture.md "The reply cache".
   */
  replyCache: boolean;
  /** Validate every response against the OpenAPI document (VALIDATE_RESPONSES); on in tests, off by default. */
  validateResponses: boolean;
  /** Failed authentications one client address may make per login and window before that login gets 429 there (AUTH_FAILURE_LIMIT). */
  authFailureLimit: number;
  /** Failed authentications one client address may make per window, all logins together, before logins new to it get 429 (AUTH_FAILURE_ADDRESS_LIMIT). */
  authFailureAddressLimit: number;
  /** That window, in seconds (AUTH_FAILURE_WINDOW). */
  authFailureWindowSeconds: number;
  /** Wrong `?password=` guesses one client may make on one record per window before it gets 429 (PASSWORD_FAILURE_LIMIT). */
  passwordFailureLimit: number;
  /** That window, in seconds (PASSWORD_FAILURE_WINDOW). */
  passwordFailureWindowSeconds: number;
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
  /**
   * Days the change feed keeps the tombstones of deleted records (CHANGES_RETENTION_DAYS); a cursor from
   * before the oldest change kept answers 410 (docs/contract.md §9).
   */
  changesRetentionDays: number;
  /** Most events one iCalendar feed (`GET /events.ics`) holds; past it the feed is cut (ICAL_MAX_EVENTS, docs/contract.md §11). */
  icalMaxEvents: number;
  /** Most occurrences one recurring series may have up to the horizon; more is 400 (RECURRENCE_MAX_OCCURRENCES, docs/contract.md §14). */
  recurrenceMaxOccurrences: number;
  /** Days ahead (of today, or of a later series start) that series' occurrences are materialised (RECURRENCE_HORIZON_DAYS, docs/contract.md §14). */
  recurrenceHorizonDays: number;
  /** The site's name, for iCalendar feed names and the public pages (SITE_NAME); defaults to the host name of the site URL. */
  siteName: string | undefined;
  /**
   * Serve the public HTML pages behind every record's `url` (PAGES, on by default); they are served only
   * when this service is its own site (`servesPages`, docs/contract.md §13).
   */
  pages: boolean;
  /** Number of worker processes (WORKERS); 1 serves from the main process, more use node:cluster. */
  workers: number;
  /**
   * Express's `trust proxy` setting (TRUST_PROXY): which proxies' `X-Forwarded-For`/`-Proto` headers
   * are believed. `false` (the default) believes none, a number that many hops, a list the proxies'
   * addresses, subnets or the names `loopback`, `linklocal`, `uniquelocal`.
   */
  trustProxy: boolean | number | string[];
  /**
   * Seconds a shared cache may serve an anonymous read (CACHE_MAX_AGE, default 60): its
   * `Cache-Control: public, max-age=N` (http/cache-policy.ts, docs/caching.md "What the service sends");
   * 0 sends `no-cache` instead (stored, revalidated every time).
   */
  cacheMaxAge: number;
  /** Seconds of `stale-while-revalidate` and of `stale-if-error` on those answers (CACHE_STALE_SECONDS, default 300). */
  cacheStaleSeconds: number;
  /** Seconds a shared cache may keep an anonymous GET's 404 or 410, at most CACHE_MAX_AGE; 0 is `no-store` (CACHE_NOT_FOUND_MAX_AGE, default 10). */
  cacheNotFoundMaxAge: number;
  /** Webhook deliveries (docs/webhooks.md); see WebhookSettings. */
  webhooks: WebhookSettings;
  /** Every request the service makes to an address a caller chose (core/outbound.ts, docs/settings.md "Outbound requests"). */
  outbound: OutboundSettings;
  /** Subscriptions (docs/importing.md "Subscribing to a calendar"); see SubscriptionSettings. */
  subscriptions: SubscriptionSettings;
  /** Base URL of the HTTP cache told of every write with BAN requests (PURGE_URL, docs/caching.md "Making writes visible at once"); undefined: none. */
  purgeUrl: string | undefined;
}

interface OutboundSettings {
  /**
   * Networks (CIDR) requests may reach although not globally reachable, and the only ones plain `http`
   * may use: OUTBOUND_ALLOWED_NETWORKS, or when that is unset its older name WEBHOOK_ALLOWED_NETWORKS.
   */
  allowedNetworks: string[];
  /** Seconds a fetch of a calendar may take in all, redirects included (OUTBOUND_FETCH_TIMEOUT, default 30). */
  fetchTimeoutSeconds: number;
}

/** How this process delivers webhooks (docs/webhooks.md "Settings"). */
export interface WebhookSettings {
  /** Deliver from this process (WEBHOOK_DELIVERY, on by default); off leaves delivery to other processes of the database. */
  deliver: boolean;
  /** A receiver's answer must come within this many seconds (WEBHOOK_TIMEOUT). */
  timeoutSeconds: number;
  /** The pause before each retry of a failed message, in seconds (WEBHOOK_RETRY_DELAYS); after the last, the webhook is disabled. */
  retryDelaysSeconds: number[];
  /** How long a process holds a webhook it delivers without renewing (WEBHOOK_LEASE_SECONDS). */
  leaseSeconds: number;
  /** Delivery slots per process (WEBHOOK_CONCURRENCY): webhooks reading and building their next messages at once (sending holds none). */
  concurrency: number;
  /** Delivery log rows kept per webhook, the newest (WEBHOOK_LOG_MAX). */
  logMaxRows: number;
  /** Days a delivery log row is kept at most (WEBHOOK_LOG_DAYS). */
  logDays: number;
  /** Deliver on a worker thread of the process (WEBHOOK_THREAD, on by default) rather than on the thread that answers requests. */
  thread: boolean;
}

/** How this process runs subscriptions (docs/importing.md "Subscribing to a calendar", settings in docs/settings.md). */
interface SubscriptionSettings {
  /** Run due subscriptions from this process (SUBSCRIPTION_SCHEDULER, on by default); off leaves them to other processes of the database. */
  schedule: boolean;
  /** Subscriptions run at once per process (SUBSCRIPTION_CONCURRENCY). */
  concurrency: number;
  /** Seconds between looks for due subscriptions (SUBSCRIPTION_POLL_SECONDS). */
  pollSeconds: number;
}

export { ConfigError };

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
  if (workers > 1 && databaseUrl.startsWith('sqlite:'))
    throw new ConfigError('WORKERS above 1 needs a MySQL database (DATABASE_URL=mysql://...): a SQLite file is served by one process');
  const authFailureLimit = positiveInteger('AUTH_FAILURE_LIMIT', env.AUTH_FAILURE_LIMIT, 20);
  // Looser than the per-login limit: by default five logins' worth of failures per address.
  const authFailureAddressLimit = positiveInteger('AUTH_FAILURE_ADDRESS_LIMIT', env.AUTH_FAILURE_ADDRESS_LIMIT, 5 * authFailureLimit);
  if (authFailureAddressLimit < authFailureLimit)
    throw new ConfigError(`AUTH_FAILURE_ADDRESS_LIMIT (${authFailureAddressLimit}) must be at least AUTH_FAILURE_LIMIT (${authFailureLimit})`);
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    databaseUrl,
    sqliteSynchronous: sqliteSynchronous(env.SQLITE_SYNCHRONOUS),
    publicUrl: optionalUrl('PUBLIC_URL', env.PUBLIC_URL),
    allowedHosts: hostList('ALLOWED_HOSTS', env.ALLOWED_HOSTS),
    corsOrigins: originList('CORS_ORIGINS', env.CORS_ORIGINS),
    siteUrl: optionalUrl('SITE_URL', env.SITE_URL),
    siteTimezone,
    basePath: normaliseBasePath(env.BASE_PATH ?? '/wp-json'),
    logLevel,
    bodyLimit: env.BODY_LIMIT ?? '1mb',
    replyLimit: byteSize('REPLY_LIMIT', env.REPLY_LIMIT, 8 * 1024 * 1024),
    replyCache: parseFlag('REPLY_CACHE', env.REPLY_CACHE, true),
    validateResponses: parseFlag('VALIDATE_RESPONSES', env.VALIDATE_RESPONSES, false),
    authFailureLimit,
    authFailureAddressLimit,
    authFailureWindowSeconds: positiveInteger('AUTH_FAILURE_WINDOW', env.AUTH_FAILURE_WINDOW, 900),
    passwordFailureLimit: positiveInteger('PASSWORD_FAILURE_LIMIT', env.PASSWORD_FAILURE_LIMIT, 20),
    passwordFailureWindowSeconds: positiveInteger('PASSWORD_FAILURE_WINDOW', env.PASSWORD_FAILURE_WINDOW, 900),
    metrics: parseFlag('METRICS', env.METRICS, false),
    metricsToken: env.METRICS_TOKEN || undefined,
    requestTimeoutSeconds: positiveNumber('REQUEST_TIMEOUT', env.REQUEST_TIMEOUT, 30),
    keepAliveTimeoutSeconds: positiveNumber('KEEP_ALIVE_TIMEOUT', env.KEEP_ALIVE_TIMEOUT, 65),
    dbTimeoutSeconds: positiveNumber('DB_TIMEOUT', env.DB_TIMEOUT, 5),
    shutdownTimeoutSeconds: positiveNumber('SHUTDOWN_TIMEOUT', env.SHUTDOWN_TIMEOUT, 25),
    changesRetentionDays: positiveNumber('CHANGES_RETENTION_DAYS', env.CHANGES_RETENTION_DAYS, 30),
    icalMaxEvents: positiveInteger('ICAL_MAX_EVENTS', env.ICAL_MAX_EVENTS, 2000),
    recurrenceMaxOccurrences: positiveInteger('RECURRENCE_MAX_OCCURRENCES', env.RECURRENCE_MAX_OCCURRENCES, 1000),
    recurrenceHorizonDays: positiveInteger('RECURRENCE_HORIZON_DAYS', env.RECURRENCE_HORIZON_DAYS, 730),
    siteName: env.SITE_NAME?.trim() || undefined,
    pages: parseFlag('PAGES', env.PAGES, true),
    workers,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    cacheMaxAge: cacheSeconds('CACHE_MAX_AGE', env.CACHE_MAX_AGE, 60),
    cacheStaleSeconds: cacheSeconds('CACHE_STALE_SECONDS', env.CACHE_STALE_SECONDS, 300),
    cacheNotFoundMaxAge: cacheSeconds('CACHE_NOT_FOUND_MAX_AGE', env.CACHE_NOT_FOUND_MAX_AGE, 10),
    webhooks: {
      deliver: parseFlag('WEBHOOK_DELIVERY', env.WEBHOOK_DELIVERY, true),
      timeoutSeconds: positiveNumber('WEBHOOK_TIMEOUT', env.WEBHOOK_TIMEOUT, 10),
      retryDelaysSeconds: secondsList('WEBHOOK_RETRY_DELAYS', env.WEBHOOK_RETRY_DELAYS, DEFAULT_RETRY_DELAYS),
      leaseSeconds: positiveNumber('WEBHOOK_LEASE_SECONDS', env.WEBHOOK_LEASE_SECONDS, 30),
      concurrency: positiveInteger('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 8),
      logMaxRows: positiveInteger('WEBHOOK_LOG_MAX', env.WEBHOOK_LOG_MAX, 1000),
      logDays: positiveInteger('WEBHOOK_LOG_DAYS', env.WEBHOOK_LOG_DAYS, 30),
      thread: parseFlag('WEBHOOK_THREAD', env.WEBHOOK_THREAD, true),
    },
    outbound: { allowedNetworks: outboundNetworks(env), fetchTimeoutSeconds: positiveNumber('OUTBOUND_FETCH_TIMEOUT', env.OUTBOUND_FETCH_TIMEOUT, 30) },
    subscriptions: {
      schedule: parseFlag('SUBSCRIPTION_SCHEDULER', env.SUBSCRIPTION_SCHEDULER, true),
      concurrency: positiveInteger('SUBSCRIPTION_CONCURRENCY', env.SUBSCRIPTION_CONCURRENCY, 2),
      pollSeconds: positiveNumber('SUBSCRIPTION_POLL_SECONDS', env.SUBSCRIPTION_POLL_SECONDS, 30),
    },
    purgeUrl: optionalUrl('PURGE_URL', env.PURGE_URL),
  };
}

/** About 24 hours of retries in all (docs/webhooks.md "Retries and ordering"). */
const DEFAULT_RETRY_DELAYS = [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800];

/** A comma-separated list of positive numbers of seconds, at least one, at most 100. */
function secondsList(name: string, value: string | undefined, fallback: number[]): number[] {
  if (value === undefined || value.trim() === '') return fallback;
  const items = value.split(',').map((item) => item.trim());
  const numbers = items.map(Number);
  if (items.length > 100 || numbers.some((n, i) => items[i] === '' || !Number.isFinite(n) || n <= 0 || n > 7 * 86_400))
    throw new ConfigError(`${name} must list up to 100 positive numbers of seconds (at most a week each) separated by commas, got "${value}"`);
  return numbers;
}

/** A comma-separated list of CIDR networks (`10.0.0.0/8`, `fd00::/8`), checked by ipaddr.js. */
/** OUTBOUND_ALLOWED_NETWORKS when it is set (even empty), else WEBHOOK_ALLOWED_NETWORKS, its older name. */
function outboundNetworks(env: NodeJS.ProcessEnv): string[] {
  if (env.OUTBOUND_ALLOWED_NETWORKS !== undefined) return networkList('OUTBOUND_ALLOWED_NETWORKS', env.OUTBOUND_ALLOWED_NETWORKS);
  return networkList('WEBHOOK_ALLOWED_NETWORKS', env.WEBHOOK_ALLOWED_NETWORKS);
}

function networkList(name: string, value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((entry) => {
    const text = entry.trim();
    try {
      ipaddr.parseCIDR(text);
    } catch {
      throw new ConfigError(`${name} must list networks such as 10.0.0.0/8 or fd00::/8 separated by commas, got "${text}"`);
    }
    return text;
  });
}

/**
 * Whether the public pages are served (docs/contract.md §13): PAGES is on and the permalinks point at
 * this service, that is SITE_URL is unset or the same as PUBLIC_URL. With another site, the records'
 * URLs are that site's pages, not ours.
 */
export function servesPages(config: Pick<Config, 'pages' | 'siteUrl' | 'publicUrl'>): boolean {
  return config.pages && (config.siteUrl === undefined || config.siteUrl === config.publicUrl);
}

/**
 * TRUST_PROXY in Express's terms: `true`/`false`, a hop count, or a comma-separated list of proxy
 * addresses, CIDR subnets and the names `loopback`, `linklocal`, `uniquelocal`; the list is checked
 * with proxy-addr, the library Express itself compiles it with.
 */
function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  if (value === undefined || value.trim() === '') return false;
  const text = value.trim();
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (/^\d+$/.test(text)) return Number(text);
  const list = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  try {
    proxyaddr.compile(list);
  } catch (err) {
    throw new ConfigError(`TRUST_PROXY must be true, false, a number of hops or a list of proxy addresses, subnets or loopback/linklocal/uniquelocal: ${(err as Error).message}`);
  }
  return list;
}

/** SQLITE_SYNCHRONOUS: `full` or `normal` (any case); the other SQLite levels are not offered (OFF risks corruption, EXTRA adds nothing in WAL mode). */
function sqliteSynchronous(value: string | undefined): 'full' | 'normal' {
  if (value === undefined || value.trim() === '') return 'full';
  const level = value.trim().toLowerCase();
  if (level === 'full' || level === 'normal') return level;
  throw new ConfigError(`SQLITE_SYNCHRONOUS must be full or normal, got "${value}"`);
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

/** A comma-separated list of `host` / `host:port` entries, each a well-formed Host value. */
function hostList(name: string, value: string | undefined): HostAndPort[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return value.split(',').map((entry) => {
    const parsed = parseHost(entry.trim());
    if (!parsed) throw new ConfigError(`${name} must list host names or host:port pairs separated by commas, got "${entry.trim()}"`);
    return parsed;
  });
}

/** A comma-separated list of http(s) origins (`scheme://host[:port]`, no path), normalised as browsers send them. */
function originList(name: string, value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return value.split(',').map((entry) => {
    const origin = originOf(entry.trim().replace(/\/$/, ''));
    if (!origin || origin !== originOf(origin)) throw new ConfigError(`${name} must list origins such as https://app.example.org separated by commas, got "${entry.trim()}"`);
    return origin;
  });
}

/** `scheme://host[:port]` of an http(s) URL that is nothing but an origin, lower-cased, the default port dropped. */
export function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.href !== `${url.origin}/` || !value.includes('://')) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

function normaliseBasePath(value: string): string {
  const trimmed = value.replace(/\/+$/, '');
  if (trimmed !== '' && !/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed)) throw new ConfigError(`BASE_PATH must be a URL path such as /wp-json, got "${value}"`);
  return trimmed;
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
