import assert from 'node:assert/strict';
import { Urls } from '../../src/core/urls.js';
import { linkedRecords } from '../../src/records/records.js';
import { VENUES } from '../../src/repositories/linked-kinds.js';
import { Repositories } from '../../src/repositories/registry.js';
import { createUsers, NS, testConfig } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { call, createOrganizer, createVenue, eventsApp, PUBLIC_URL, type Rec } from '../helpers/events.js';

/**
 * Venue and organizer records are remembered once built (src/records/records.ts `linkedRecords`),
 * under a stamp of the whole row and its image: read again unchanged, the same record is used;
 * changed in any way (an edit, or an operator's SQL that moves no version), it is built again; and
 * what a caller may see of a protected one is part of the key.
 */
describe('venue and organizer records: remembered by their whole row', () => {
  const urls = new Urls(testConfig({ publicUrl: PUBLIC_URL }), {} as never);

  it('gives the record built before for the same row read again, and a new one once the row differs', async () => {
    const { http } = await eventsApp();
    const users = await createUsers();
    const venue = await createVenue(http, users.editor, { venue: 'Stamped hall', city: 'Lyon' });
    const { db } = await openTestDatabase();
    const repositories = new Repositories(db);
    const read = async () => {
      const rows = await repositories.linked(VENUES).findByIds([venue.id as number]);
      const [record] = await linkedRecords(repositories, VENUES, rows, undefined, urls, { single: true });
      return record as Rec;
    };
    const first = await read();
    // Another row object with the same content: the record already built.
    assert.equal(await read(), first);
    // An operator's SQL: no version moves, but the row is not the same.
    await db('venues').where({ post_id: venue.id }).update({ city: 'Lille' });
    const changed = await read();
    assert.notEqual(changed, first);
    assert.equal(changed.city, 'Lille');
    assert.equal(first.city, 'Lyon', 'a record once built is never changed');
  });

  it('shows an edit made by SQL behind the service in the change feed at once', async () => {
    const { http } = await eventsApp();
    const users = await createUsers();
    const organizer = await createOrganizer(http, users.editor, { organizer: 'Fed organizer', phone: '111' });
    const feedPhone = async () => {
      const res = await call(http, 'get', `${NS}/changes?types=organizer`);
      assert.equal(res.status, 200, res.text);
      const change = (res.body.changes as Rec[]).find((item) => item.id === organizer.id);
      return (change?.record as Rec | undefined)?.phone;
    };
    assert.equal(await feedPhone(), '111');
    const { db } = await openTestDatabase();
    await db('organizers').where({ post_id: organizer.id }).update({ phone: '222' });
    assert.equal(await feedPhone(), '222');
  });

  it('keeps what a caller may see of a protected venue apart from what its editor sees', async () => {
    const { http } = await eventsApp();
    const users = await createUsers();
    const venue = await createVenue(http, users.editor, { venue: 'Guarded hall', description: 'Behind the door.', password: 'open sesame' });
    const { db } = await openTestDatabase();
    const repositories = new Repositories(db);
    const rows = await repositories.linked(VENUES).findByIds([venue.id as number]);
    const [masked] = (await linkedRecords(repositories, VENUES, rows, undefined, urls, { single: false })) as Rec[];
    const [open] = (await linkedRecords(repositories, VENUES, rows, users.editor, urls, { single: false })) as Rec[];
    assert.doesNotMatch(JSON.stringify(masked), /Behind the door/);
    assert.match(String(open.description), /Behind the door/);
    // A single record of the same row is another record (it carries `json_ld`).
    const [single] = (await linkedRecords(repositories, VENUES, rows, users.editor, urls, { single: true })) as Rec[];
    assert.notEqual(single, open);
    assert.ok(single.json_ld);
    assert.equal(open.json_ld, undefined);
  });
});
