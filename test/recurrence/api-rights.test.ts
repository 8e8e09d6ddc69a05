import assert from 'node:assert/strict';
import { createUsers, NS, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { call, eventPath, eventsApp, eventsPath, type Http, type Rec } from '../helpers/events.js';
import type { Role } from '../../src/auth/capabilities.js';

/**
 * Series writes and other people's occurrences (docs/contract.md §14, docs/limits.md): a write of a
 * series' scope writes only the occurrences the caller may edit (or delete); the others stay as they
 * are and the answer's `skipped_occurrences` names them. The first test is the reproduction of the
 * issue: a contributor's series whose occurrences an administrator and an editor published as their own.
 */

const DAILY = {
  title: 'Reading group',
  description: 'Chapter by chapter',
  start_date: '2027-03-01 18:00:00',
  end_date: '2027-03-01 19:00:00',
  timezone: 'Europe/Paris',
  recurrence: ['RRULE:FREQ=DAILY;COUNT=6'],
};
const WINDOW = 'start_date=2027-02-01&end_date=2027-12-31&per_page=50&status=any';

describe('recurring events: series writes and other people\u2019s occurrences (docs/contract.md §14)', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    users = await createUsers();
  });

  const get = (id: number) => call(http, 'get', eventPath(id), users.administrator);
  /** A contributor's series of six drafts, the third taken over and published by the administrator, the fifth by the editor. */
  async function contributorsSeries(): Promise<{ ids: number[]; admins: number; editors: number }> {
    const created = await call(http, 'post', eventsPath, users.contributor, DAILY);
    expectStatus(created, 201);
    assert.equal(created.body.status, 'draft');
    const listed = await call(http, 'get', `${NS}/events/${created.body.id}/occurrences?${WINDOW}`, users.administrator);
    const ids = listed.body.events.map((e: Rec) => e.id) as number[];
    assert.equal(ids.length, 6);
    for (const [id, as] of [
      [ids[2], users.administrator],
      [ids[4], users.editor],
    ] as const) {
      const res = await call(http, 'patch', `${eventPath(id)}?scope=this`, as, { author: as.id, status: 'publish', title: `Run by the ${as.role}` });
      expectStatus(res, 200);
      assert.equal(res.body.status, 'publish');
    }
    return { ids, admins: ids[2], editors: ids[4] };
  }
  /** What the others own must not change: status, author, title, series. */
  async function expectUntouched(id: number, role: 'administrator' | 'editor', seriesId: number | null) {
    const res = await get(id);
    expectStatus(res, 200);
    assert.equal(res.body.status, 'publish', `${role}'s occurrence ${id} status`);
    assert.equal(res.body.author, String(users[role].id), `${role}'s occurrence ${id} author`);
    assert.equal(res.body.title, `Run by the ${role}`, `${role}'s occurrence ${id} title`);
    assert.equal(res.body.series_id, seriesId, `${role}'s occurrence ${id} series`);
  }

  it('reproduction: the contributor unpublishes and deletes its series, and the administrator\u2019s and editor\u2019s occurrences stay published', async () => {
    const { ids, admins, editors } = await contributorsSeries();
    const [first] = ids;
    const own = ids.filter((id) => id !== admins && id !== editors);

    const drafted = await call(http, 'patch', `${eventPath(first)}?scope=all`, users.contributor, { status: 'draft', title: 'Cancelled' });
    expectStatus(drafted, 200);
    for (const id of own) assert.equal((await get(id)).body.title, 'Cancelled');
    await expectUntouched(admins, 'administrator', first);
    await expectUntouched(editors, 'editor', first);
    assert.deepEqual(drafted.body.skipped_occurrences, [admins, editors]);

    const trashed = await call(http, 'delete', eventPath(first), users.contributor);
    expectStatus(trashed, 200);
    assert.equal(trashed.body.status, 'trash');
    assert.deepEqual(trashed.body.skipped_occurrences, [admins, editors]);
    for (const id of own) assert.equal((await get(id)).body.status, 'trash');
    await expectUntouched(admins, 'administrator', first);
    await expectUntouched(editors, 'editor', first);

    const deleted = await call(http, 'delete', `${eventPath(first)}?force=true`, users.contributor);
    expectStatus(deleted, 200);
    assert.deepEqual(deleted.body.skipped_occurrences, [admins, editors]);
    for (const id of own) expectStatus(await get(id), 404);
    // The series went with its first event: the occurrences kept are single events now.
    await expectUntouched(admins, 'administrator', null);
    await expectUntouched(editors, 'editor', null);
    const public_ = await call(http, 'get', `${eventsPath}?start_date=2027-02-01&end_date=2027-12-31`);
    assert.deepEqual(public_.body.events.map((e: Rec) => e.id).sort(), [admins, editors].sort());
  });

  it('answers skipped_occurrences: [] on series writes that wrote everything, and not on single events', async () => {
    const { ids } = await contributorsSeries();
    const byEditor = await call(http, 'patch', `${eventPath(ids[0])}?scope=all`, users.editor, { description: 'Changed' });
    expectStatus(byEditor, 200);
    assert.deepEqual(byEditor.body.skipped_occurrences, []);
    const one = await call(http, 'patch', `${eventPath(ids[1])}?scope=this`, users.contributor, { description: 'Mine' });
    expectStatus(one, 200);
    assert.deepEqual(one.body.skipped_occurrences, []);
    const single = await call(http, 'post', eventsPath, users.contributor, { ...DAILY, recurrence: [] });
    const updated = await call(http, 'patch', eventPath(single.body.id), users.contributor, { description: 'Single' });
    expectStatus(updated, 200);
    assert.equal('skipped_occurrences' in updated.body, false);
  });

  it('a split with scope=following moves the others\u2019 occurrences into the new series as they are', async () => {
    const { ids, admins, editors } = await contributorsSeries();
    const res = await call(http, 'patch', `${eventPath(ids[1])}?scope=following`, users.contributor, { title: 'Second half' });
    expectStatus(res, 200);
    assert.deepEqual(res.body.skipped_occurrences, [admins, editors]);
    assert.equal(res.body.series_id, ids[1]);
    for (const id of [ids[1], ids[3], ids[5]]) assert.equal((await get(id)).body.title, 'Second half');
    assert.equal((await get(ids[0])).body.title, DAILY.title);
    await expectUntouched(admins, 'administrator', ids[1]);
    await expectUntouched(editors, 'editor', ids[1]);
    // They are exceptions of the new series now: the next change of the series by the contributor leaves them alone too.
    const again = await call(http, 'patch', `${eventPath(ids[1])}?scope=all`, users.contributor, { description: 'Again' });
    assert.deepEqual(again.body.skipped_occurrences, [admins, editors]);
    await expectUntouched(admins, 'administrator', ids[1]);
  });

  it('a rule change keeps the others\u2019 occurrences: where the rules still hold them in the series, else as single events', async () => {
    const { ids, admins, editors } = await contributorsSeries();
    const res = await call(http, 'patch', `${eventPath(ids[0])}?scope=all`, users.contributor, { recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] });
    expectStatus(res, 200);
    assert.deepEqual(res.body.skipped_occurrences, [admins, editors]);
    expectStatus(await get(ids[5]), 404);
    await expectUntouched(admins, 'administrator', ids[0]);
    await expectUntouched(editors, 'editor', null);
    const ended = await call(http, 'patch', `${eventPath(ids[0])}?scope=all`, users.contributor, { recurrence: [] });
    expectStatus(ended, 200);
    assert.deepEqual(ended.body.skipped_occurrences, [admins]);
    assert.equal(ended.body.series_id, null);
    for (const id of [ids[1], ids[3]]) expectStatus(await get(id), 404);
    await expectUntouched(admins, 'administrator', null);
  });

  it('a time change moves the contributor\u2019s occurrences and leaves the others\u2019 where they are', async () => {
    const { ids, admins, editors } = await contributorsSeries();
    const before = (await get(admins)).body;
    const res = await call(http, 'patch', `${eventPath(ids[0])}?scope=all`, users.contributor, { start_date: '2027-03-01 20:00:00', end_date: '2027-03-01 21:00:00' });
    expectStatus(res, 200);
    assert.deepEqual(res.body.skipped_occurrences, [admins, editors]);
    assert.equal((await get(ids[1])).body.start_date, '2027-03-02 20:00:00');
    const after = (await get(admins)).body;
    assert.equal(after.start_date, before.start_date);
    assert.equal(after.modified_utc, before.modified_utc);
    await expectUntouched(admins, 'administrator', ids[0]);
  });

  it('a delete with scope=following deletes the contributor\u2019s occurrences and leaves the others\u2019 as single events', async () => {
    const { ids, admins, editors } = await contributorsSeries();
    const res = await call(http, 'delete', `${eventPath(ids[1])}?scope=following`, users.contributor);
    expectStatus(res, 200);
    assert.deepEqual(res.body.skipped_occurrences, [admins, editors]);
    for (const id of [ids[1], ids[3], ids[5]]) expectStatus(await get(id), 404);
    expectStatus(await get(ids[0]), 200);
    await expectUntouched(admins, 'administrator', null);
    await expectUntouched(editors, 'editor', null);
  });
});
