import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import { NS } from '../../helpers/app.js';
import { openTestDatabase } from '../../helpers/database.js';
import { insertEvent } from '../../helpers/event-rows.js';
import { bumpDataVersion } from '../../../src/db/data-version.js';
import { eventsApp, type Http } from '../../helpers/events.js';

/**
 * A long `events.ics` is written a chunk of events at a time (records/events/ical.ts
 * `eventsCalendar`, docs/limits.md "Large pages are read in slices"): the time-zone blocks come
 * first, so they are found from every event beforehand, not from the chunk written first. Here the
 * only events in Asia/Tokyo are in the last chunk.
 */
describe('events.ics in chunks', () => {
  let http: Http;

  beforeEach(async () => {
    ({ http } = await eventsApp());
  });

  it('holds every event once and a VTIMEZONE for every zone, whichever chunk its events are in', async () => {
    const { db } = await openTestDatabase();
    const zones: Array<[string, string]> = [
      ['America/New_York', '2027'],
      ['Europe/Paris', '2029'],
      ['Asia/Tokyo', '2031'],
    ];
    for (let i = 0; i < 130; i++) {
      const [zone, year] = zones[Math.min(2, Math.floor(i / 60))];
      const day = String(1 + (i % 28)).padStart(2, '0');
      const id = await insertEvent(db, { title: `Event ${i}`, startUtc: `${year}-03-${day} 10:00:00`, endUtc: `${year}-03-${day} 11:00:00` });
      await db('events').where('post_id', id).update({ timezone: zone });
    }
    await bumpDataVersion(db);
    const res = await http()
      .get(`${NS}/events.ics?start_date=2027-01-01&end_date=2032-01-01`)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (chunk: Buffer) => chunks.push(chunk));
        r.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
      });
    assert.equal(res.status, 200);
    const calendar = new ICAL.Component(ICAL.parse(res.body as string));
    const events = calendar.getAllSubcomponents('vevent');
    assert.equal(events.length, 130);
    assert.equal(new Set(events.map((e) => e.getFirstPropertyValue('summary'))).size, 130);
    const described = calendar.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid'));
    assert.deepEqual([...described].sort(), zones.map(([zone]) => zone).sort());
    for (const event of events) assert.ok(described.includes(event.getFirstProperty('dtstart')!.getParameter('tzid') as string));
  });
});
