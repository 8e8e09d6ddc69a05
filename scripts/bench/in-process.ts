/**
 * The service inside the probe's own process (cpu-probe.ts, feed-probe.ts, search-probe.ts): the
 * app over the database at `url` (migrated first), with response validation off and logging silent
 * as in production, listening on an ephemeral port, and keep-alive connections to send requests (one
 * by default: one after another), so CPU time per request can be read with `process.cpuUsage()`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { loadConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { createApp } from '../../src/http/app.js';

export interface InProcessService {
  db: Knex;
  server: http.Server;
  port: number;
  /** `connections` keep-alive connections (one by default: requests go one after another). */
  agent: http.Agent;
}

export async function startInProcess(url: string, connections = 1): Promise<InProcessService> {
  const { db } = openDatabase(url);
  await migrateLatest(db);
  // REPLY_CACHE=off probes the service without its reply cache.
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url, REPLY_CACHE: process.env.REPLY_CACHE });
  const app = createApp({ config: { ...config, validateResponses: false }, db, logger: createLogger('silent') });
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return { db, server, port, agent: new http.Agent({ keepAlive: true, maxSockets: connections }) };
}
