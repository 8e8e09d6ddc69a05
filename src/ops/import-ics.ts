import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import { CalendarUnreadable, importCalendar } from '../importing/calendar-import.js';
import { reportJson, type ImportReport } from '../importing/engine.js';
import { ICS_MAX_BYTES } from '../importing/ics.js';
import { UserError } from '../repositories/users.js';
import { describeReport, EXIT_RECORDS_FAILED } from './import-site.js';

/**
 * `cli import-ics FILE|URL`: an iCalendar file or URL imported through the import engine
 * (docs/importing.md "Importing a calendar file"), as `POST /events/import` does (importing/calendar-import.ts). Exit status: 0 every event applied or skipped on
 * purpose, 1 the calendar could not be read (nothing written), 3 some records failed.
 */

export const IMPORT_ICS_USAGE = `  import-ics FILE|URL [--dry-run] [--json]           import an iCalendar file or URL; importing it again
                                                     updates what it created (docs/importing.md)`;

interface ImportIcsOptions {
  dryRun: boolean;
  json: boolean;
}

/** The text of a file, within the size bound, and its absolute path (naming the source). */
function readFile(file: string): { text: string; location: string } {
  const location = path.resolve(file);
  let size: number;
  try {
    size = fs.statSync(location).size;
  } catch {
    throw new UserError(`cannot read ${file}`);
  }
  if (size > ICS_MAX_BYTES) throw new UserError(`${file}: the calendar is larger than ${ICS_MAX_BYTES} bytes.`);
  return { text: fs.readFileSync(location, 'utf8'), location };
}

export async function importIcsCommand(db: Knex, config: Config, fileOrUrl: string | undefined, options: ImportIcsOptions): Promise<number> {
  if (!fileOrUrl) throw new UserError('import-ics needs a FILE or URL');
  let report: ImportReport;
  try {
    report = await importCalendar(db, /^https?:\/\//i.test(fileOrUrl) ? { url: fileOrUrl } : readFile(fileOrUrl), {
      siteTimezone: config.siteTimezone,
      recurrence: { maxOccurrences: config.recurrenceMaxOccurrences, horizonDays: config.recurrenceHorizonDays },
      allowedNetworks: config.outbound.allowedNetworks,
      fetchTimeoutMs: config.outbound.fetchTimeoutSeconds * 1000,
      dryRun: options.dryRun,
    });
  } catch (err) {
    if (!(err instanceof CalendarUnreadable)) throw err;
    throw new UserError(err.message.startsWith(fileOrUrl) ? err.message : `${fileOrUrl}: ${err.message}`);
  }
  console.log(options.json ? JSON.stringify(reportJson(report)) : describeReport(report, report.source, ['category', 'venue', 'organizer', 'event']));
  return report.failures.length ? EXIT_RECORDS_FAILED : 0;
}
