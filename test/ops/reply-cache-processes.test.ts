import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Knex } from 'knex';
import type { Express } from 'express';
import { createApp } from '../../src/http/app.js';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { createLogger } from '../../src/core/logger.js';
import { UserRepository } from '../../src/repositories/users.js';
import { NS, testConfig } from '../helpers/app.js';
import { TEST_DATABASE_URL } from '../helpers/database.js';
import { inWriteTransaction, Repositories } from '../../src/repositories/registry.js';
import { eventRecords } from '../../src/records/records.js';
import { Urls } from '../../src/core/urls.js';

/**
 * Cached replies are used only while the data version stays the same (docs/architecture.md "The
 * reply cache"). Two database handles stand for two service processes on one database, each with its
 * own reply cache: a write through one must show through the other on the next read. Both run with
 * the cache on, whatever REPLY_CACHE the suite runs with.
 */
describe('cached replies across processes: a write shows on the next read of the other', function () {
  this.timeout(60_000);
  let folder: string | undefined;
  let one: Knex;
  let other: Knex;
  let writer: Express;
  let reader: Express;
  const secret = 'record-replies-secret-0123';

  before(async () => {
    let url = TEST_DATABASE_URL;
    if (url.startsWith('sqlite:')) {
      // An in-memory database cannot be opened twice: a file of its own.
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'record-replies-'));
      url = `sqlite:${path.join(folder, 'replies.sqlite')}`;
    }
    ({ db: one } = openDatabase(url));
    await migrateLatest(one);
    ({ db: other } = openDatabase(url));
    const config = testConfig({ publicUrl: 'http://api.test', replyCache: true });
    writer = createApp({ config, db: one, logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'error') });
    reader = createApp({ config, db: other, logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'error') });
  });
  after(async () => {
    await one?.destroy();
    await other?.destroy();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('shows every write of what an event embeds through the other process', async () => {
    // Added here: the suite's hooks empty the shared test database before every test.
    const login = `replies-${Date.now()}`;
    await new UserRepository(one).add(login, 'editor', secret);
    const write = (method: 'post' | 'delete', url: string, body: object = {}) => request(writer)[method](`${NS}${url}`).auth(login, secret).send(body);
    const created = async (url: string, body: object) => {
      const res = await write('post', url, body);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.id as number;
    };
    const read = async (id: number) => {
      const res = await request(reader).get(`${NS}/events/${id}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const suffix = Date.now();
    const venue = await created('/venues', { venue: `Hall ${suffix}`, city: 'Springfield' });
    const organizer = await created('/organizers', { organizer: `Org ${suffix}`, phone: '555' });
    const category = await created('/categories', { name: `Jazz ${suffix}` });
    const event = await created('/events', {
      title: 'Gig',
      start_date: '2030-05-01 10:00:00',
      end_date: '2030-05-01 11:00:00',
      venue,
      organizer: [organizer],
      categories: [category],
    });
    const neighbour = await created('/events', { title: 'Other gig', start_date: '2030-05-02 10:00:00', end_date: '2030-05-02 11:00:00', venue });

    const readVenue = async () => (await request(reader).get(`${NS}/venues/${venue}`)).body as { city: string };
    await readVenue();
    await read(event);
    const first = await read(event);
    assert.deepEqual([first.venue.city, first.organizer[0].phone, first.categories[0].count], ['Springfield', '555', 1]);

    // Nothing written since: one statement, the data version alone (the reply is cached).
    const statements: string[] = [];
    const count = (query: { sql: string }) => statements.push(query.sql);
    other.on('query', count);
    assert.deepEqual(await read(event), first);
    other.off('query', count);
    assert.equal(statements.length, 1, statements.join('\n'));
    // A write of another event: the next read through the other process builds the reply again and shows it.
    assert.equal((await write('post', `/events/${neighbour}`, { title: 'Renamed other gig' })).status, 200);
    assert.equal((await read(neighbour)).title, 'Renamed other gig');
    assert.deepEqual(await read(event), first);
    assert.equal((await readVenue()).city, 'Springfield');

    assert.equal((await write('post', `/venues/${venue}`, { city: 'Shelbyville' })).status, 200);
    assert.equal((await read(event)).venue.city, 'Shelbyville');
    assert.equal((await read(neighbour)).venue.city, 'Shelbyville');
    assert.equal((await readVenue()).city, 'Shelbyville');

    assert.equal((await write('post', `/organizers/${organizer}`, { phone: '556' })).status, 200);
    assert.equal((await read(event)).organizer[0].phone, '556');

    // A term's count moves with other events, without a write of the term itself.
    await created('/events', { title: 'Third gig', start_date: '2030-05-03 10:00:00', end_date: '2030-05-03 11:00:00', categories: [category] });
    assert.equal((await read(event)).categories[0].count, 2);
    assert.equal((await write('post', `/categories/${category}`, { name: `Bebop ${suffix}` })).status, 200);
    assert.equal((await read(event)).categories[0].name, `Bebop ${suffix}`);

    assert.equal((await write('post', `/events/${event}`, { title: 'Gig, moved' })).status, 200);
    assert.equal((await read(event)).title, 'Gig, moved');

    // A trashed venue is no longer shown to anonymous callers.
    assert.equal((await write('delete', `/venues/${venue}`)).status, 200);
    assert.deepEqual((await read(event)).venue, []);
    assert.deepEqual((await read(neighbour)).venue, []);
  });

  it('lists show a write through the other process', async () => {
    const login = `lists-${Date.now()}`;
    await new UserRepository(one).add(login, 'editor', secret);
    const write = (url: string, body: object) => request(writer).post(`${NS}${url}`).auth(login, secret).send(body);
    const venue = (await write('/venues', { venue: `Club ${login}`, city: 'Ogdenville' })).body.id as number;
    const ids: number[] = [];
    for (const day of [1, 2, 3]) {
      const res = await write('/events', { title: `Night ${day}`, start_date: `2031-02-0${day} 20:00:00`, end_date: `2031-02-0${day} 23:00:00`, ...(day === 2 ? { venue } : {}) });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.id as number);
    }
    const listUrl = `${NS}/events?start_date=2031-02-01&end_date=2031-02-28`;
    const list = async () => (await request(reader).get(listUrl)).body.events as Array<{ id: number; title: string; venue: { city?: string } | [] }>;
    assert.deepEqual(
      (await list()).map((event) => event.title),
      ['Night 1', 'Night 2', 'Night 3'],
    );

    assert.equal((await write(`/venues/${venue}`, { city: 'North Haverbrook' })).status, 200);
    assert.equal(((await list())[1].venue as { city: string }).city, 'North Haverbrook');
    assert.equal((await write(`/events/${ids[2]}`, { title: 'Night 3, later' })).status, 200);
    assert.deepEqual(
      (await list()).map((event) => event.title),
      ['Night 1', 'Night 2', 'Night 3, later'],
    );
  });

  it('never keeps what a transaction saw: a rolled-back version is not mistaken for the committed one', async () => {
    const login = `rollback-${Date.now()}`;
    await new UserRepository(one).add(login, 'editor', secret);
    const write = (url: string, body: object) => request(writer).post(`${NS}${url}`).auth(login, secret).send(body);
    const venue = (await write('/venues', { venue: `Barn ${login}` })).body.id as number;
    const event = (await write('/events', { title: 'Dance', start_date: '2031-03-01 20:00:00', end_date: '2031-03-01 23:00:00', venue })).body.id as number;
    const urls = new Urls(testConfig({ publicUrl: 'http://api.test' }), {} as never);
    const venueTitle = async (repositories: Repositories) => {
      const [record] = await eventRecords(repositories, [(await repositories.events.findById(event))!], undefined, urls, { single: false });
      return (record.venue as { venue: string }).venue;
    };
    // An image recorded by a write is in the record the write answers with, and in the other process's read.
    const pictured = await write('/events', { title: 'Pictured', start_date: '2031-03-02 20:00:00', end_date: '2031-03-02 23:00:00', image: `https://img.test/${login}.png` });
    assert.equal(pictured.status, 201, JSON.stringify(pictured.body));
    assert.equal(pictured.body.image.url, `https://img.test/${login}.png`);
    assert.equal((await request(reader).get(`${NS}/events/${pictured.body.id}`)).body.image.url, `https://img.test/${login}.png`);
    // A transaction renames the venue (its version 2), builds the event's record, and rolls back.
    await assert.rejects(
      inWriteTransaction(one, async (repositories) => {
        await repositories.venues.update((await repositories.venues.findById(venue))!, { title: 'Rolled back' }, undefined, {});
        assert.equal(await venueTitle(repositories), 'Rolled back');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    // Another write makes version 2 with other content: reads must show it, not the rolled-back one.
    assert.equal((await write(`/venues/${venue}`, { venue: 'Committed' })).status, 200);
    assert.equal(await venueTitle(new Repositories(one)), 'Committed');
  });
});
