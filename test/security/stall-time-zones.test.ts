import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { insertEvent } from '../helpers/event-rows.js';
import { send, startStallService, withoutStall, type StallService } from './stall.js';

/**
 * Reproduction 3 (docs/limits.md "Time-zone blocks in iCalendar feeds"): VTIMEZONE blocks built by
 * the year. An event from 1000 to 3500 in Europe/Berlin blocked the loop 10.9 s on its
 * `GET /events/{id}.ics` (the zone walked day by day over 2,500 years), again for every new span or
 * zone; a feed over events in many zones, each across the two centuries a write may still span, did
 * the same for every zone.
 */
describe('stall: time-zone blocks', function () {
  this.timeout(180_000);
  const NS = '/wp-json/tribe/events/v1';
  /** How long an attack may take before it counts as a stall on its own (main took 10 s and more). */
  const ATTACK_TIMEOUT_MS = 15_000;
  let stall: StallService;

  before(async () => {
    stall = await startStallService();
  });

  after(async () => {
    await stall.close();
  });

  /** A published event stored straight into the database with these local times, as older data or another writer may have it. */
  async function storedEvent(title: string, zone: string, startLocal: string, endLocal: string): Promise<number> {
    const id = await insertEvent(stall.db, { title, startUtc: '2027-01-01 10:00:00', endUtc: '2027-01-01 11:00:00' });
    const utc = (local: string) => DateTime.fromSQL(local, { zone }).toUTC().toFormat('yyyy-MM-dd HH:mm:ss');
    await stall
      .db('events')
      .where({ post_id: id })
      .update({ timezone: zone, start_local: startLocal, end_local: endLocal, start_utc: utc(startLocal), end_utc: utc(endLocal) });
    await bumpDataVersion(stall.db);
    return id;
  }

  /** The years of the DTSTARTs of a calendar's observances, per VTIMEZONE (by TZID). */
  function observanceYears(text: string): Map<string, number[]> {
    return new Map(
      text
        .split('BEGIN:VTIMEZONE')
        .slice(1)
        .map((block) => {
          const body = block.split('END:VTIMEZONE')[0]!;
          return [/^TZID:(.*)$/m.exec(body)![1]!.trim(), [...body.matchAll(/^DTSTART:(\d{4})/gm)].map((match) => Number(match[1]))];
        }),
    );
  }

  it("a contributor's event from 1000 to 3500 in Europe/Berlin is 400 on start_date and end_date", async () => {
    const contributor = await stall.as('contributor');
    const body = (start_date: string, end_date: string) => ({ title: 'Forever', timezone: 'Europe/Berlin', start_date, end_date });
    const warm = await send(stall.url, `${NS}/events`, { authorization: contributor, body: body('2027-01-01 10:00:00', '2027-01-01 11:00:00') });
    assert.equal(warm.status, 201, warm.text);
    const { result } = await withoutStall(stall.url, () =>
      send(stall.url, `${NS}/events`, { authorization: contributor, body: body('1000-01-02 00:00:00', '3500-12-31 00:00:00'), timeoutMs: ATTACK_TIMEOUT_MS }),
    );
    assert.equal(result.status, 400, result.text);
    assert.equal(result.json.code, 'rest_invalid_param');
    assert.deepEqual(Object.keys(result.json.data.params).sort(), ['end_date', 'start_date']);
    assert.match(result.json.data.params.start_date, /^start_date must lie within 100 years of today/);
  });

  it('stored events from 1000 to 3500 (and another span) answer their .ics without blocking the loop', async () => {
    const benign = await storedEvent('Benign', 'Europe/Berlin', '2027-01-01 10:00:00', '2027-01-01 11:00:00');
    const warm = await send(stall.url, `${NS}/events/${benign}.ics`);
    assert.equal(warm.status, 200, warm.text);
    for (const [start, end] of [
      ['1000-01-02 00:00:00', '3500-12-31 00:00:00'],
      ['1001-01-02 00:00:00', '3499-12-31 00:00:00'],
    ] as const) {
      const id = await storedEvent('Forever', 'Europe/Berlin', start, end);
      const { result } = await withoutStall(stall.url, () => send(stall.url, `${NS}/events/${id}.ics`, { timeoutMs: ATTACK_TIMEOUT_MS }));
      assert.equal(result.status, 200, result.text.slice(0, 200));
      // The years of its start and of its end, not the 2,500 between.
      const years = observanceYears(result.text).get('Europe/Berlin')!;
      assert.deepEqual([...new Set(years)], [Number(start.slice(0, 4)), Number(end.slice(0, 4))]);
    }
  });

  it('a feed of events in 30 zones, each across two centuries, answers without blocking the loop', async () => {
    const contributor = await stall.as('contributor');
    const zones = Intl.supportedValuesOf('timeZone')
      .filter((zone) => /^(Europe|America)\//.test(zone))
      .slice(0, 30);
    for (const timezone of zones) {
      const res = await send(stall.url, `${NS}/events`, {
        authorization: contributor,
        body: { title: `Centuries in ${timezone}`, timezone, start_date: '1927-06-01 10:00:00', end_date: '2125-06-01 10:00:00' },
      });
      assert.equal(res.status, 201, res.text);
    }
    const query = '?start_date=1927-01-01&end_date=2126-01-01';
    // The warm-up lists nothing (a feed is not paged: `per_page` would not make it small).
    const warm = await send(stall.url, `${NS}/events.ics?start_date=2200-01-01&end_date=2200-01-02`, { authorization: contributor });
    assert.equal(warm.status, 200, warm.text.slice(0, 200));
    const { result } = await withoutStall(stall.url, () => send(stall.url, `${NS}/events.ics${query}`, { authorization: contributor, timeoutMs: ATTACK_TIMEOUT_MS }));
    assert.equal(result.status, 200, result.text.slice(0, 200));
    const described = observanceYears(result.text);
    for (const zone of zones) assert.ok(described.has(zone), zone);
  });

  it('a feed of yearly series in 10 zones, each through a century of occurrences, answers without blocking the loop, its blocks within their budget of years', async () => {
    const author = await stall.as('author');
    const zones = [
      'Europe/Paris',
      'Europe/London',
      'America/New_York',
      'America/Chicago',
      'America/Denver',
      'America/Los_Angeles',
      'Australia/Sydney',
      'Pacific/Auckland',
      'America/Sao_Paulo',
      'Asia/Jerusalem',
    ];
    for (const timezone of zones) {
      const res = await send(stall.url, `${NS}/events`, {
        authorization: author,
        body: {
          title: `Yearly in ${timezone}`,
          status: 'publish',
          timezone,
          start_date: '1930-06-01 10:00:00',
          end_date: '1930-06-01 12:00:00',
          recurrence: ['RRULE:FREQ=YEARLY'],
        },
        timeoutMs: ATTACK_TIMEOUT_MS,
      });
      assert.equal(res.status, 201, res.text);
    }
    const query = '?start_date=1930-01-01&end_date=2030-01-01';
    const warm = await send(stall.url, `${NS}/events.ics?start_date=2200-01-01&end_date=2200-01-02`);
    assert.equal(warm.status, 200, warm.text.slice(0, 200));
    const { result } = await withoutStall(stall.url, () => send(stall.url, `${NS}/events.ics${query}`, { timeoutMs: ATTACK_TIMEOUT_MS }));
    assert.equal(result.status, 200, result.text.slice(0, 200));
    const years = observanceYears(result.text);
    for (const zone of zones) assert.ok(years.has(zone), zone);
    // Each zone's years, summed: at most the calendar's budget (src/calendar/ical.ts MAX_ZONE_YEARS).
    const described = [...years.values()].reduce((sum, zoneYears) => sum + new Set(zoneYears).size, 0);
    assert.ok(described <= 500, `${described} zone-years`);
  });
});
