/**
 * The process: settings → database → migrations → listen → warm-up → graceful shutdown on
 * SIGTERM/SIGINT.
 */
import type { AddressInfo } from 'node:net';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { openDatabase } from './db/knex.js';
import { migrateLatest } from './db/migrate.js';
import { createApp } from './app.js';
import { NAMESPACE } from './openapi/document.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const { db, target } = openDatabase(config.databaseUrl);
  const applied = await migrateLatest(db);
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');

  const app = createApp({ config, db, logger });
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const local = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
  const namespaceUrl = `${config.publicUrl ?? local}${config.basePath}/${NAMESPACE}`;

  // The validator compiles the document on its first request: do that now, not on a client's time.
  await fetch(`${local}${config.basePath}/${NAMESPACE}`).then((res) => res.arrayBuffer()).catch(() => undefined);
  logger.info({ url: namespaceUrl, engine: target.engine, database: target.description }, `listening on ${namespaceUrl}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Stop accepting, let in-flight requests finish, then close the pool.
    server.close(() => {
      db.destroy().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(`could not start: ${(err as Error).message}`);
  process.exit(1);
});
