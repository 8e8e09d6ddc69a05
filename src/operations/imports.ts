import { RestError, invalidParam } from '../core/errors.js';
import { CalendarUnreadable, importCalendar } from '../importing/calendar-import.js';
import { reportJson } from '../importing/engine.js';
import { ICS_MAX_BYTES } from '../importing/ics.js';
import { postPolicy } from '../policies/posts.js';
import { noTarget, operation, type OperationContext, type OperationTable } from './shared/operation.js';
import { extendRequestTimeout } from './shared/timeouts.js';

/**
 * `POST /events/import` (docs/importing.md "Importing a calendar file"): an iCalendar text sent as the
 * body, or fetched from a `url`, imported through the same implementation as `cli import-ics`
 * (importing/calendar-import.ts). Each reason a calendar cannot be read has its answer
 * (docs/contract.md §20).
 */

/** The source of every calendar sent as a body: their events are known by their UIDs (globally unique by RFC 5545). */
const UPLOAD_SOURCE = 'upload';

/** Seconds an import may run past REQUEST_TIMEOUT: the largest calendar is 2,000 events, each its own transaction. */
const IMPORT_EXTRA_SECONDS = 300;

/** The answer to a calendar that cannot be read. */
function answerOf(err: CalendarUnreadable): RestError {
  switch (err.problem) {
    case 'refused':
      return invalidParam('url', err.message);
    case 'tooLarge':
      return new RestError(413, 'rest_request_too_large', `The calendar is larger than ${ICS_MAX_BYTES} bytes (5 MiB), the most an import reads.`);
    case 'invalid':
      return new RestError(400, 'rest_invalid_calendar', `The calendar cannot be imported: ${err.message}`);
    case 'timeout':
      return new RestError(504, 'rest_import_source_timeout', `The calendar could not be fetched: ${err.message}`);
    case 'unreachable':
      return new RestError(502, 'rest_import_source_unavailable', `The calendar could not be fetched: ${err.message}`);
  }
}

const importEvents = operation({
  parse(ctx: OperationContext<'importEvents'>): { text: string; location: string } | { url: string } {
    const body = ctx.body as unknown;
    if (typeof body === 'string') return { text: body, location: UPLOAD_SOURCE };
    return { url: (body as { url: string }).url };
  },
  load: noTarget,
  authorize: postPolicy.import,
  async execute(ctx: OperationContext<'importEvents'>, input) {
    extendRequestTimeout(ctx.res, IMPORT_EXTRA_SECONDS);
    try {
      const report = await importCalendar(ctx.db, input, {
        siteTimezone: ctx.config.siteTimezone,
        recurrence: { maxOccurrences: ctx.config.recurrenceMaxOccurrences, horizonDays: ctx.config.recurrenceHorizonDays },
        allowedNetworks: ctx.config.outbound.allowedNetworks,
        fetchTimeoutMs: ctx.config.outbound.fetchTimeoutSeconds * 1000,
        dryRun: ctx.query.dry_run === true,
      });
      return { status: 200, body: reportJson(report), headers: { 'Cache-Control': 'no-store' } };
    } catch (err) {
      throw err instanceof CalendarUnreadable ? answerOf(err) : err;
    }
  },
});

export const importOperations = { importEvents } satisfies Partial<OperationTable>;
