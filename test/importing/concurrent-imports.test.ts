import assert from 'node:assert/strict';
import { runImport, type ImportSource } from '../../src/importing/engine.js';
import { icsSource } from '../../src/importing/ics.js';
import type { ImportRecord, SkippedRecord } from '../../src/importing/records.js';
import { openTestDatabase } from '../helpers/database.js';

/**
 * Two imports of one source at once (docs/importing.md "How an import decides"): each reads that a
 * record has no origin yet, and both would create it. The engine's per-record lock makes the second
 * write wait, find the first's origin and decide again, so every record exists once.
 */

function calendarOf(count: number): string {
  const events = Array.from(
    { length: count },
    (_, i) =>
      `BEGIN:VEVENT\r\nUID:twice-${i}@example.org\r\nDTSTAMP:20270101T000000Z\r\nDTSTART:20270601T100000Z\r\nDTEND:20270601T110000Z\r\nSUMMARY:Twice ${i}\r\nLOCATION:Hall ${i % 3}\r\nEND:VEVENT\r\n`,
  );
  return `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${events.join('')}END:VCALENDAR\r\n`;
}

/** Two copies of a source whose records are handed out in step: neither gets record n+1 before both took record n. */
function inStep(source: ImportSource): [ImportSource, ImportSource] {
  const arrivals: Array<() => void> = [];
  const barrier = () =>
    new Promise<void>((resolve) => {
      arrivals.push(resolve);
      if (arrivals.length === 2) for (const go of arrivals.splice(0)) go();
    });
  const copy = (): ImportSource => ({
    ...source,
    async *records(): AsyncGenerator<ImportRecord | SkippedRecord> {
      for await (const record of source.records()) {
        await barrier();
        yield record;
      }
    },
  });
  return [copy(), copy()];
}

describe('two imports of one source at once', () => {
  it('create every event and venue once, each import reporting what it did', async () => {
    const { db } = await openTestDatabase();
    const [a, b] = inStep(icsSource(calendarOf(12), { location: 'upload', siteTimezone: 'UTC' }));
    const options = { siteTimezone: 'UTC', role: 'author' as const };
    const [first, second] = await Promise.all([runImport(db, a, options), runImport(db, b, options)]);
    const events = Number((await db('events').count({ n: '*' }))[0].n);
    const venues = Number((await db('venues').count({ n: '*' }))[0].n);
    assert.deepEqual([events, venues], [12, 3]);
    assert.deepEqual([first.failures, second.failures], [[], []]);
    assert.equal(first.counts.event.created + second.counts.event.created, 12);
    assert.equal(first.counts.event.created + first.counts.event.unchanged + first.counts.event.updated, 12);
    assert.equal(first.counts.venue.created + second.counts.venue.created, 3);
  });
});
