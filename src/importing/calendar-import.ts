import type { Knex } from 'knex';
import type { RecurrenceSettings } from '../domain/events/occurrences.js';
import { runImport, type ImportReport } from './engine.js';
import { GetFailed, GetRefused, GetTooLarge, httpGet } from './http-get.js';
import { ICS_MAX_BYTES, IcsError } from './ics.js';
import { icsSourceOffLoop } from './ics-off-loop.js';

/**
 * One iCalendar import, shared by `cli import-ics` and `POST /events/import` (docs/importing.md
 * "Importing a calendar file"): the text given, or fetched from a URL under the outbound rule
 * (core/outbound.ts), parsed off the event loop and applied through the import engine. Every reason
 * a calendar cannot be read is a CalendarUnreadable, thrown before anything is written.
 */

/** Why a calendar could not be read; the HTTP answer of each is in docs/contract.md §20. */
type CalendarProblem = 'refused' | 'unreachable' | 'timeout' | 'tooLarge' | 'invalid';

export class CalendarUnreadable extends Error {
  constructor(
    message: string,
    readonly problem: CalendarProblem,
  ) {
    super(message);
  }
}

interface CalendarImportSettings {
  siteTimezone: string;
  recurrence: RecurrenceSettings;
  /** config.outbound.allowedNetworks. */
  allowedNetworks: readonly string[];
  /** How long fetching a calendar may take in all, redirects included (config.outbound.fetchTimeoutSeconds). */
  fetchTimeoutMs: number;
  dryRun: boolean;
}

/** The text at `url` (an answer of 200), fetched under the outbound rule within the size and time bounds. */
async function fetchCalendar(url: string, allowedNetworks: readonly string[], timeoutMs: number): Promise<string> {
  let answer;
  try {
    answer = await httpGet(url, { timeoutMs, maxBytes: ICS_MAX_BYTES, headers: { accept: 'text/calendar, */*;q=0.5' }, allowedNetworks });
  } catch (err) {
    // Said of `url` (which the caller named), or of a redirect (`a redirect to …: …`).
    if (err instanceof GetRefused) throw new CalendarUnreadable(err.message.startsWith(`${url}: `) ? err.message.slice(url.length + 2) : err.message, 'refused');
    if (err instanceof GetTooLarge) throw new CalendarUnreadable(`${url}: the calendar is larger than ${ICS_MAX_BYTES} bytes.`, 'tooLarge');
    if (err instanceof GetFailed) throw new CalendarUnreadable(`${url}: ${err.message}`, /^no answer within/.test(err.message) ? 'timeout' : 'unreachable');
    throw err;
  }
  if (answer.status !== 200) throw new CalendarUnreadable(`${url} answered HTTP ${answer.status}`, 'unreachable');
  return answer.text;
}

/**
 * Imports a calendar text (`location` names its source: the same location, the same records) or the
 * calendar at a URL (its source is the URL).
 */
export async function importCalendar(db: Knex, input: { text: string; location: string } | { url: string }, settings: CalendarImportSettings): Promise<ImportReport> {
  const { text, location } = 'url' in input ? { text: await fetchCalendar(input.url, settings.allowedNetworks, settings.fetchTimeoutMs), location: input.url } : input;
  let source;
  try {
    source = await icsSourceOffLoop(text, { location, siteTimezone: settings.siteTimezone });
  } catch (err) {
    if (!(err instanceof IcsError)) throw err;
    const tooLarge = err.tooLarge && /bytes\.$/.test(err.message);
    throw new CalendarUnreadable('url' in input ? `${input.url}: ${err.message}` : err.message, tooLarge ? 'tooLarge' : 'invalid');
  }
  try {
    return await runImport(db, source, {
      siteTimezone: settings.siteTimezone,
      dryRun: settings.dryRun,
      // Nobody vouches for a calendar file: its HTML is cleaned as an author's write (docs/importing.md).
      role: 'author',
      recurrence: settings.recurrence,
    });
  } finally {
    source.close();
  }
}
