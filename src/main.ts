/**
 * The process: settings → database → migrations → listen → warm-up → graceful shutdown on
 * SIGTERM/SIGINT. With WORKERS > 1 this process is a node:cluster primary instead: it migrates once,
 * forks the workers (which share the port), replaces a worker that dies, and passes a shutdown on.
 */
import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { loadConfig, type Config } from './core/config.js';
import { createLogger } from './core/logger.js';
import { openDatabase } from './db/knex.js';
import { startWalCheckpointer } from './db/wal-checkpointer.js';
import { getOnce, warmUpOperations } from './http/warm-up.js';
import { migrateLatest } from './db/migrate.js';
import { holdServiceLease } from './db/service-lease.js';
import { createApp } from './http/app.js';
import { extendHorizons } from './domain/events/occurrences.js';
import { warmUpExpansion } from './dates/recurrence.js';
import { listOperations, loadDocument, NAMESPACE } from './openapi/document.js';
import { serveClusterMetrics } from './http/metrics.js';
import { Registry } from 'prom-client';
import { startDeliveryThread } from './webhooks/thread.js';
import { startWebhookDelivery } from './webhooks/worker.js';
import { startSubscriptionScheduler, SubscriptionRuns } from './importing/scheduler.js';
import { webhookMetrics } from './webhooks/metrics.js';
import { startCachePurger } from './cache/purger.js';
import { purgeMetrics } from './cache/metrics.js';

// Date parsing needs a UTC process (dates/parse.ts assertUtcProcess); set before anything runs.
process.env.TZ = 'UTC';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  if (config.workers > 1 && cluster.isPrimary) await runPrimary(config, logger);
  // Workers find the schema migrated by the primary.
  else await runServer(config, cluster.isWorker ? logger.child({ worker: cluster.worker?.id }) : logger, { migrate: cluster.isPrimary });
}

/** Migrates, then listens; stops cleanly on SIGTERM/SIGINT. */
async function runServer(config: Config, logger: Logger, { migrate }: { migrate: boolean }): Promise<void> {
  const onFile = config.databaseUrl.startsWith('sqlite') && config.databaseUrl !== 'sqlite::memory:';
  // On a SQLite file, a thread of its own checkpoints the write-ahead log, never a commit on the event loop (db/wal-checkpointer.ts).
  const { db, target } = openDatabase(config.databaseUrl, {
    timeoutMs: config.dbTimeoutSeconds * 1000,
    sqliteSynchronous: config.sqliteSynchronous,
    checkpointsElsewhere: onFile,
    log: databaseLog(logger),
  });
  if (migrate) await applyMigrations(db, logger);
  const checkpointer = onFile
    ? startWalCheckpointer((target.knexConfig.connection as { filename: string }).filename, (message) =>
        logger.warn({ err: message }, 'a checkpoint of the write-ahead log failed; the next one tries again'),
      )
    : undefined;
  // On a SQLite file, `cli restore` must see that this process uses it (db/service-lease.ts): it holds
  // a lease until it stops.
  const lease = onFile ? holdServiceLease(db, (err) => logger.warn({ err }, 'renewing the service lease failed')) : undefined;

  // One registry for `/metrics`, the requests' and the webhook deliveries' (webhooks/metrics.ts).
  const metricsRegistry = config.metrics ? new Registry() : undefined;
  // This process's subscription runs: the schedule's and the refresh requests' (importing/scheduler.ts).
  const subscriptionRuns = new SubscriptionRuns();
  const app = createApp({ config, db, logger, metricsRegistry, subscriptionRuns });
  const server = app.listen(config.port, config.host);
  // Slow senders (slowloris) cannot hold a connection longer than a request may take.
  server.requestTimeout = config.requestTimeoutSeconds * 1000;
  server.headersTimeout = Math.min(60, config.requestTimeoutSeconds) * 1000;
  // Longer than the load balancer's idle timeout, so the balancer (not us) closes idle connections
  // and never sends a request on a connection we are closing.
  server.keepAliveTimeout = config.keepAliveTimeoutSeconds * 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const local = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
  const namespaceUrl = `${config.publicUrl ?? local}${config.basePath}/${NAMESPACE}`;

  // The validator compiles the document on its first request: do that now, not on a client's time.
  await getOnce(`${local}${config.basePath}/${NAMESPACE}`);
  // So does each operation on its first request: the reads anyone may call answer once now (http/warm-up.ts).
  await warmUpOperations(`${local}${config.basePath}/${NAMESPACE}`, listOperations(loadDocument()));
  await warmUpExpansion();
  logger.info({ url: namespaceUrl, engine: target.engine, database: target.description }, `listening on ${namespaceUrl}`);

  // The rolling horizon of recurring series (docs/contract.md §14): extended in the background, a
  // small batch every ten minutes, so that no request pays for it.
  const settings = { maxOccurrences: config.recurrenceMaxOccurrences, horizonDays: config.recurrenceHorizonDays };
  const extend = () =>
    extendHorizons(db, new Date(), settings).then(
      (count) => count && logger.info({ series: count }, 'recurring series extended to the horizon'),
      (err: unknown) => logger.warn({ err }, 'extending recurring series failed; the next run tries again'),
    );
  const horizonTimer = setInterval(extend, 10 * 60_000);
  horizonTimer.unref();
  setTimeout(extend, 5_000).unref();

  // Webhooks (docs/webhooks.md "Guarantees"): every process delivers unless WEBHOOK_DELIVERY=off; the
  // leases in the webhooks' rows keep each webhook to one process at a time.
  // By default on a worker thread of its own (WEBHOOK_THREAD), never on this one's time; an in-memory
  // database is this connection's alone, so its deliveries stay here.
  const deliveryOptions = { db, config, logger, metrics: metricsRegistry && webhookMetrics(metricsRegistry) };
  const onThread = config.webhooks.thread && config.databaseUrl !== 'sqlite::memory:';
  const delivery = config.webhooks.deliver ? (onThread ? startDeliveryThread(deliveryOptions) : startWebhookDelivery(deliveryOptions)) : undefined;

  // Subscriptions (docs/importing.md "Subscribing to a calendar"): every process runs due ones unless
  // SUBSCRIPTION_SCHEDULER=off; the leases in their rows keep each to one process at a time.
  const scheduler = config.subscriptions.schedule ? startSubscriptionScheduler({ db, config, logger, runs: subscriptionRuns }) : undefined;

  // PURGE_URL (docs/caching.md "Making writes visible at once"): every process follows the feed and bans what each write altered.
  const purgeUrl = config.purgeUrl;
  const purger = purgeUrl ? startCachePurger({ db, config: { ...config, purgeUrl }, logger, metrics: metricsRegistry && purgeMetrics(metricsRegistry) }) : undefined;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, timeoutSeconds: config.shutdownTimeoutSeconds }, 'shutting down');
    // Stop accepting; requests already received finish (bounded by SHUTDOWN_TIMEOUT), then the pool closes.
    clearInterval(horizonTimer);
    // Deliveries stop alongside the requests: attempts in flight finish (within WEBHOOK_TIMEOUT) and
    // the leases are given up, so another process takes the webhooks over at once; before the pool closes.
    const deliveryStopped = delivery?.stop().catch((err: unknown) => logger.warn({ err }, 'stopping webhook deliveries failed'));
    // Runs under way finish (bounded) and the subscriptions' leases are given up, before the pool closes.
    const schedulerStopped = scheduler?.stop().catch((err: unknown) => logger.warn({ err }, 'stopping the subscription scheduler failed'));

    server.close(() => {
      clearInterval(idleSweep);
      Promise.resolve(lease?.stop())
        .then(() => deliveryStopped)
        .then(() => schedulerStopped)
        // Once the requests have finished: the purger bans what they wrote (one last round, within 2 s), then stops.
        .then(() => purger?.stop())
        .then(() => checkpointer?.stop())
        .then(() => db.destroy())
        .then(
          () => {
            logger.info('stopped');
            process.exit(0);
          },
          () => process.exit(1),
        );
    });
    // Keep-alive connections become idle as their last request finishes: close them as they do.
    server.closeIdleConnections();
    const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
    setTimeout(() => {
      logger.warn('in-flight requests did not finish within SHUTDOWN_TIMEOUT');
      process.exit(1);
    }, config.shutdownTimeoutSeconds * 1000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A worker whose primary has gone can accept nothing more: finish and leave rather than linger.
  if (cluster.isWorker) process.once('disconnect', () => stop('primary gone'));
}

/** knex's own messages (failed connection attempts while the database is away) as JSON log lines. */
function databaseLog(logger: Logger) {
  return { warn: (message: string) => logger.warn({ component: 'knex' }, message), error: (message: string) => logger.error({ component: 'knex' }, message) };
}

async function applyMigrations(db: ReturnType<typeof openDatabase>['db'], logger: Logger): Promise<void> {
  const applied = await migrateLatest(db);
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
}

/**
 * The cluster primary serves no requests: it migrates once (so workers never race on the schema),
 * forks WORKERS workers, forks a new one whenever one dies unexpectedly, answers the workers' metrics
 * requests, and on SIGTERM/SIGINT passes SIGTERM to every worker and exits when they all have.
 */
async function runPrimary(config: Config, logger: Logger): Promise<void> {
  const { db } = openDatabase(config.databaseUrl, { timeoutMs: config.dbTimeoutSeconds * 1000, sqliteSynchronous: config.sqliteSynchronous, log: databaseLog(logger) });
  try {
    await applyMigrations(db, logger);
  } finally {
    await db.destroy();
  }
  if (config.metrics) serveClusterMetrics();

  let stopping = false;
  let failed = false;
  const fork = (): Worker => cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (code !== 0) failed = true;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0);
      return;
    }
    // A crash: replace the worker, after a pause so a worker that cannot start does not spin.
    logger.error({ worker: worker.id, code, signal }, 'worker died; starting another');
    setTimeout(() => {
      if (!stopping) fork();
    }, 1000);
  });
  for (let i = 0; i < config.workers; i++) fork();
  logger.info({ workers: config.workers }, 'cluster primary started');

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down the workers');
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit(0);
    for (const worker of workers) worker?.process.kill('SIGTERM');
    // Each worker bounds its own shutdown; this only guards against one that hangs anyway.
    setTimeout(() => process.exit(1), (config.shutdownTimeoutSeconds + 5) * 1000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(`could not start: ${(err as Error).message}`);
  process.exit(1);
});
