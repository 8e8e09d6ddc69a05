/**
 * The command-line tool: the only way to manage users and their application passwords, and a way to
 * run migrations. Run as `npm run -s cli -- <command>` against the same DATABASE_URL as the service.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from './core/config.js';
import { openDatabase, parseDatabaseUrl } from './db/knex.js';
import { isConnectionError, isDatabaseNotReady } from './db/errors.js';
import { migrateLatest } from './db/migrate.js';
import { UserError, UserRepository } from './repositories/users.js';
import { BACKUP_COMMANDS, BACKUP_USAGE, runBackupCommand } from './ops/commands.js';
import { portableCommand } from './ops/portable.js';
import { IMPORT_SITE_USAGE, importSiteCommand } from './ops/import-site.js';
import { IMPORT_ICS_USAGE, importIcsCommand } from './ops/import-ics.js';
import { WEBHOOKS_DELIVER_USAGE, webhooksDeliverCommand } from './ops/webhooks-deliver.js';

// Date parsing needs a UTC process (dates/parse.ts assertUtcProcess); set before anything runs.
process.env.TZ = 'UTC';

const USAGE = `Usage: npm run -s cli -- <command>

  user add LOGIN --role ROLE [--secret S] [--email E] [--json]
                                                     create a user and print its first secret (once)
  user list [--json]                                 list users and how many secrets each has
  user remove LOGIN                                  delete a user and its secrets
  secret add LOGIN [--secret S] [--json]             add another secret to a user and print it (once)
  secret revoke LOGIN [--all]                        revoke the user's newest secret, or all of them
  migrate                                            bring the database schema up to date
${BACKUP_USAGE}
  export FILE [--force]                              write every record to FILE as JSON Lines (docs/export-format.md)
  import FILE                                        read an export into an empty database (users get no secrets)
${IMPORT_SITE_USAGE}
${IMPORT_ICS_USAGE}
${WEBHOOKS_DELIVER_USAGE}

ROLE is one of administrator, editor, author, contributor, subscriber.
Secrets are generated (about 142 random bits) unless --secret gives one of at least 8 characters.
LOGIN is case-insensitive wherever it is used; a user with --email may also log in with that address.
The database is DATABASE_URL (default sqlite:data/events.sqlite).`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      role: { type: 'string' },
      secret: { type: 'string' },
      email: { type: 'string' },
      json: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      credentials: { type: 'string' },
      author: { type: 'string' },
      prune: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      map: { type: 'string' },
      'per-page': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const [group, action, login] = positionals;
  const command = group === 'migrate' ? 'migrate' : `${group} ${action ?? ''}`.trim();

  const config = loadConfig();
  // Before the database is opened here: a restore replaces its file.
  if (BACKUP_COMMANDS.includes(group)) return runBackupCommand(config.databaseUrl, group, positionals.slice(1), { force: values.force, json: values.json });
  // Knex's own warnings (a failed connection attempt, with its stack) are not for the terminal: the
  // failure itself reaches the catch below and is told in one line.
  const quiet = { warn: () => undefined, error: () => undefined };
  const { db } = openDatabase(config.databaseUrl, { timeoutMs: config.dbTimeoutSeconds * 1000, sqliteSynchronous: config.sqliteSynchronous, log: quiet });
  try {
    const applied = await migrateLatest(db);
    if (command === 'migrate') {
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'the schema is up to date');
      return 0;
    }
    if (group === 'export' || group === 'import') return await portableCommand(db, group, action, values.force);
    if (group === 'import-site') {
      const { credentials, author, prune, map, json } = values;
      const perPage = values['per-page'] === undefined ? undefined : Number(values['per-page']);
      return await importSiteCommand(db, config, action, { credentials, author, prune, dryRun: values['dry-run'], json, map, perPage });
    }
    if (command === 'webhooks deliver') return await webhooksDeliverCommand(db, config);
    if (group === 'import-ics') return await importIcsCommand(db, config, action, { dryRun: values['dry-run'], json: values.json });
    const users = new UserRepository(db);
    const needLogin = (): string => {
      if (!login) throw new UsageError(`${command} needs a LOGIN`);
      return login;
    };
    switch (command) {
      case 'user add': {
        if (!values.role) throw new UsageError('user add needs --role ROLE');
        const { user, email, secret } = await users.add(needLogin(), values.role, values.secret, values.email);
        if (values.json) console.log(JSON.stringify({ id: user.id, login: user.login, role: user.role, email, secret }));
        else console.log(`created ${user.role} "${user.login}" (id ${user.id})${email ? ` <${email}>` : ''}\nsecret (shown once): ${secret}`);
        return 0;
      }
      case 'user list': {
        const list = await users.list();
        if (values.json) console.log(JSON.stringify(list));
        else for (const u of list) console.log(`${u.id}\t${u.login}\t${u.role}\t${u.email ?? '-'}\t${u.secrets} secret(s)`);
        return 0;
      }
      case 'user remove':
        await users.remove(needLogin());
        console.log(`removed "${login}"`);
        return 0;
      case 'secret add': {
        const user = needLogin();
        const { secret, secretId } = await users.addSecret(user, values.secret);
        if (values.json) console.log(JSON.stringify({ id: secretId, login: user, secret }));
        else console.log(`secret ${secretId} for "${user}" (shown once): ${secret}`);
        return 0;
      }
      case 'secret revoke': {
        const count = await users.revokeSecrets(needLogin(), values.all);
        console.log(`revoked ${count} secret(s) of "${login}"`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UserError) {
      console.error(`error: ${err.message}`);
      process.exit(1);
    }
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`error: ${(err as Error).message}\n\n${USAGE}`);
      process.exit(2);
    }
    console.error(`error: ${databaseProblem(err) ?? firstLine(err)}`);
    process.exit(1);
  },
);

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}

/** What went wrong with the database, in one line that names it (never its password). */
function databaseProblem(err: unknown): string | undefined {
  let where: string;
  try {
    where = parseDatabaseUrl(loadConfig().databaseUrl).description;
  } catch {
    return undefined;
  }
  const { code, errno } = (err ?? {}) as { code?: string; errno?: number };
  if (isConnectionError(err)) {
    const reason = (err as Error).name === 'KnexTimeoutError' ? 'it did not answer in time (DB_TIMEOUT)' : firstLine(err);
    return `cannot reach the database (${where}): ${reason}`;
  }
  if (isDatabaseNotReady(err)) return `the database is not ready (${where}): ${firstLine(err)}; a cluster node that is joining or not primary, or a server shutting down`;
  if (code === 'ER_BAD_DB_ERROR' || errno === 1049) {
    return `the database does not exist (${where}): create it first, e.g. CREATE DATABASE name CHARACTER SET utf8mb4`;
  }
  // 1045 wrong password, 1044 no rights on the database, 1698 MariaDB's refusal of a login without a
  // usable password (errno, since mysql2 names MariaDB's codes after MySQL's).
  if (errno === 1045 || errno === 1044 || errno === 1698) return `the database refused the login (${where}): ${firstLine(err)}`;
  if (code?.startsWith('SQLITE_') || ['EACCES', 'ENOENT', 'EROFS', 'ENOTDIR', 'EEXIST'].includes(code ?? '')) {
    return `cannot open the database (${where}): ${firstLine(err)}`;
  }
  return undefined;
}
