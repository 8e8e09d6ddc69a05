import assert from 'node:assert/strict';
import { send, startStallService, withoutStall, type StallService } from '../security/stall.js';

/**
 * Series writes over the largest series a caller may create (RECURRENCE_MAX_OCCURRENCES, 1,000
 * occurrences) with other people's occurrences in it (docs/limits.md "Series writes and other
 * people's occurrences"): every scope of update and delete decides, for each occurrence, whether the
 * caller may write it, and none of them may hold the event loop (a `/healthz` probe answers within
 * 250 ms throughout).
 */

const NS = '/wp-json/tribe/events/v1';
const SIZE = 1000;
/** Occurrences an administrator takes over (every 50th): the contributor's writes must skip them. */
const TAKEN_EVERY = 50;

describe('stall: series writes over 1,000 occurrences with other people\u2019s among them', function () {
  this.timeout(300_000);
  let service: StallService;
  let contributor: string;
  let administrator: string;

  before(async () => {
    service = await startStallService();
  });
  // Users after the root hook emptied the database (on MariaDB the service shares the test database).
  beforeEach(async () => {
    contributor = await service.as('contributor');
    administrator = await service.as('administrator');
  });
  after(async () => {
    await service?.close();
  });

  /** A contributor's hourly series of SIZE drafts; every TAKEN_EVERY-th occurrence published by the administrator as its own. */
  async function bigSeries(title: string): Promise<{ ids: number[]; taken: number[] }> {
    const created = await send(service.url, `${NS}/events`, {
      method: 'POST',
      authorization: contributor,
      body: { title, start_date: '2027-03-01 09:00:00', end_date: '2027-03-01 09:30:00', timezone: 'UTC', recurrence: [`RRULE:FREQ=HOURLY;COUNT=${SIZE}`] },
    });
    assert.equal(created.status, 201, created.text);
    const ids: number[] = [];
    for (let page = 1; ids.length < SIZE; page++) {
      const listed = await send(service.url, `${NS}/events/${created.json.id}/occurrences?start_date=2027-01-01&end_date=2027-12-31&status=any&per_page=50&page=${page}`, {
        authorization: administrator,
      });
      assert.equal(listed.status, 200, listed.text);
      ids.push(...listed.json.events.map((e: { id: number }) => e.id));
    }
    const taken = ids.filter((_, i) => i > 0 && i % TAKEN_EVERY === 0);
    const adminId = Number((await service.db('users').where('login', 'stall-administrator').first('id')).id);
    for (const id of taken) {
      const res = await send(service.url, `${NS}/events/${id}?scope=this`, { method: 'PATCH', authorization: administrator, body: { author: adminId, status: 'publish' } });
      assert.equal(res.status, 200, `taking over ${id}: ${res.text}`);
    }
    return { ids, taken };
  }

  async function attack(label: string, path: string, method: string, body?: unknown) {
    const { result, slowestProbeMs } = await withoutStall(service.url, () => send(service.url, path, { method, authorization: contributor, body, timeoutMs: 120_000 }));
    console.log(`      ${label}: ${result.status} in ${Math.round(result.ms)} ms, slowest /healthz ${Math.round(slowestProbeMs)} ms`);
    return result;
  }

  it('updates with scope=all (content, times, rules) and following, and deletes with scope=all and force, without blocking the loop', async () => {
    const { ids, taken } = await bigSeries('Hourly');
    // Warm-up: the validator compiles each route on first use.
    assert.equal((await send(service.url, `${NS}/events/${ids[1]}?scope=this`, { method: 'PATCH', authorization: contributor, body: { description: 'warm' } })).status, 200);
    assert.equal((await send(service.url, `${NS}/events/${ids[999]}`, { method: 'DELETE', authorization: contributor })).status, 200);

    const renamed = await attack('PATCH scope=all (content)', `${NS}/events/${ids[0]}?scope=all`, 'PATCH', { title: 'Renamed', description: 'Every hour' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(renamed.json.skipped_occurrences, taken);

    const moved = await attack('PATCH scope=all (times: every occurrence moves)', `${NS}/events/${ids[0]}?scope=all`, 'PATCH', {
      start_date: '2027-03-01 09:15:00',
      end_date: '2027-03-01 09:45:00',
    });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(moved.json.skipped_occurrences, taken);

    const split = await attack('PATCH scope=following (a split in the middle)', `${NS}/events/${ids[501]}?scope=following`, 'PATCH', { title: 'Second half' });
    assert.equal(split.status, 200, split.text);
    assert.deepEqual(
      split.json.skipped_occurrences,
      taken.filter((id) => ids.indexOf(id) > 501),
    );

    const ruled = await attack('PATCH scope=all (a rule change: half the occurrences go, half are new)', `${NS}/events/${ids[0]}?scope=all`, 'PATCH', {
      recurrence: [`RRULE:FREQ=HOURLY;INTERVAL=2;COUNT=${SIZE}`],
    });
    assert.equal(ruled.status, 200, ruled.text);
    assert.deepEqual(
      ruled.json.skipped_occurrences,
      taken.filter((id) => ids.indexOf(id) < 501),
    );
    const back = await attack('PATCH scope=all (the rule back)', `${NS}/events/${ids[0]}?scope=all`, 'PATCH', { recurrence: [`RRULE:FREQ=HOURLY;COUNT=${SIZE}`] });
    assert.equal(back.status, 200, back.text);

    const trashed = await attack('DELETE scope=all (to the trash)', `${NS}/events/${ids[0]}`, 'DELETE');
    assert.equal(trashed.status, 200, trashed.text);
    const deleted = await attack('DELETE scope=all force=true', `${NS}/events/${ids[0]}?force=true`, 'DELETE');
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(
      deleted.json.skipped_occurrences,
      taken.filter((id) => ids.indexOf(id) < 501),
    );
  });
});
