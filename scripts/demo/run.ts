/**
 * `npm run demo`: the service with a demonstration calendar (scripts/demo/seed.ts), for trying the
 * API, for a Prism or Postman session, and for the contract kit's newman run
 * (docs/contract-testing.md). It runs from the sources (no build), on a fresh SQLite file in a
 * temporary folder unless DATABASE_URL names an empty database, listens on PORT (default 8080),
 * and prints the URL, the demo credentials and every id and slug the suite uses.
 *
 *   npm run demo                                  # fresh SQLite file, port 8080
 *   npm run demo -- --env demo.postman_environment.json   # also write the variables for newman
 *   PORT=0 npm run demo                           # any free port (the URL is printed)
 *
 * The secrets are public: never run the demo on an address others can reach.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { createApp } from '../../src/http/app.js';
import { NAMESPACE } from '../../src/openapi/document.js';
import { DEMO_USERS, postmanEnvironment, seedDemo } from './seed.js';

// Date parsing needs a UTC process (dates/parse.ts assertUtcProcess); set before anything runs.
process.env.TZ = 'UTC';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { env: { type: 'string' } } });
  // A fresh file per run, so ids and slugs are the ones the document's examples show.
  const folder = process.env.DATABASE_URL ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'tec-demo-'));
  const databaseUrl = process.env.DATABASE_URL || `sqlite:${path.join(folder ?? '', 'demo.sqlite')}`;
  const { server, db, namespaceUrl, variables } = await startSeeded(databaseUrl).catch((err: unknown) => {
    // Nothing to keep from a demo that did not start.
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
    throw err;
  });

  if (values.env) fs.writeFileSync(values.env, `${JSON.stringify(postmanEnvironment({ baseUrl: namespaceUrl, ...variables }), null, 2)}\n`);
  console.log(`demo service ready: ${namespaceUrl}  (database ${databaseUrl})`);
  console.log('users (login / secret, HTTP Basic or Bearer):');
  for (const [role, user] of Object.entries(DEMO_USERS)) console.log(`  ${role.padEnd(14)} ${user.login} / ${user.secret}`);
  console.log(
    `records: ${Object.entries(variables)
      .filter(([key]) => !key.endsWith('Login') && !key.endsWith('Secret'))
      .map(([key, value]) => `${key}=${value}`)
      .join(' ')}`,
  );
  if (values.env) console.log(`newman environment written to ${values.env}`);
  console.log('Ctrl-C stops it (the temporary database is removed).');

  const stop = () => {
    server.closeAllConnections();
    server.close(() =>
      db.destroy().finally(() => {
        if (folder) fs.rmSync(folder, { recursive: true, force: true });
        process.exit(0);
      }),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Migrates the database, listens on PORT (default 8080) and seeds the demonstration calendar. */
async function startSeeded(databaseUrl: string) {
  // Loopback is an allowed outbound network, so that `POST /events/import` may read the demo's own
  // feed, as the contract kit does (docs/contract-testing.md).
  const config = loadConfig({ LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: '8080', OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8', ...process.env, DATABASE_URL: databaseUrl });
  const { db } = openDatabase(config.databaseUrl);
  await migrateLatest(db);
  // Seeding twice would give other ids and a duplicate login: refuse a database that has rows.
  const [{ count }] = await db('posts').count({ count: '*' });
  if (Number(count) > 0) throw new Error(`DATABASE_URL already holds records; the demo needs an empty database`);

  const app = createApp({ config, db, logger: createLogger(config.logLevel) });
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  const namespaceUrl = `http://127.0.0.1:${port}${config.basePath}/${NAMESPACE}`;
  const { variables } = await seedDemo(db, namespaceUrl);
  return { server, db, namespaceUrl, variables };
}

main().catch((err: unknown) => {
  console.error(`demo could not start: ${(err as Error).message}`);
  process.exit(1);
});
