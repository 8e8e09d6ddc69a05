import { backup, describeBackup, describeRecords, Refusal } from './backup.js';
import { restore, restored, type RestoreResult } from './restore.js';

/**
 * The backup commands of the command line (src/cli.ts dispatches here): `backup FILE [--force]`,
 * `restore FILE`, `restored`. Returns the exit status: 0 done, 2 refused (nothing changed).
 */

export const BACKUP_COMMANDS = ['backup', 'restore', 'restored'];

export const BACKUP_USAGE = `  backup FILE [--force] [--json]                     copy the live SQLite database to FILE (online, consistent)
  restore FILE [--json]                              put a copy in place of the SQLite database (service stopped)
  restored [--json]                                  after loading a MySQL dump: start a new change feed history`;

export async function runBackupCommand(databaseUrl: string, command: string, args: string[], options: { force: boolean; json: boolean }): Promise<number> {
  try {
    if (command === 'restored') return print(await restored(databaseUrl), options.json, 'marked as restored');
    const [file, extra] = args;
    if (!file || extra !== undefined) throw new Refusal(`${command} needs exactly one FILE`);
    if (command === 'backup') {
      const result = await backup(databaseUrl, file, options);
      console.log(options.json ? JSON.stringify(result) : describeBackup(result));
      return 0;
    }
    return print(await restore(databaseUrl, file), options.json, `restored ${file}`);
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    console.error(`error: ${err.message}`);
    return 2;
  }
}

function print(result: RestoreResult, json: boolean, what: string): number {
  if (json) console.log(JSON.stringify(result));
  else {
    console.log(`${what}: ${describeRecords(result)}; the change feed continues from position ${result.feed.position}`);
    console.log(`cursors given out before the copy stay valid; later ones answer 410 (docs/durability.md)`);
  }
  return 0;
}
