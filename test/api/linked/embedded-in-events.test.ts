import assert from 'node:assert/strict';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { call, createEvent, createOrganizer, createVenue, eventsApp, listEvents, readEvent, type Http, type Rec } from '../../helpers/events.js';

/**
 * An edit of a venue or an organizer shows in every event that embeds it on the next read, single or
 * listed, in its JSON-LD too, for every caller and URL base (with the reply cache on, docs/contract.md §16).
 */
describe('embedded venues and organizers: an edit shows in every event on the next read', () => {
  let http: Http;
  let users: Awaited<ReturnType<typeof createUsers>>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  async function patch(path: string, body: Rec, as: TestUser = users.editor) {
    const res = await call(http, 'patch', `${NS}/${path}`, as, body);
    assert.equal(res.status, 200, res.text);
  }

  it('shows an edited venue and organizer in both events that embed them, single and listed', async () => {
    const venue = await createVenue(http, users.editor, { venue: 'Old hall', city: 'Ogdenville', description: 'Old rooms.', image: 'https://cdn.example.test/old.png' });
    const organizer = await createOrganizer(http, users.editor, { organizer: 'Old crew', email: 'old@example.test' });
    const events = [
      await createEvent(http, users.editor, { title: 'First', venue: venue.id, organizer: [organizer.id] }),
      await createEvent(http, users.editor, { title: 'Second', venue: venue.id, organizer: [organizer.id], start_date: '2030-05-02 10:00:00', end_date: '2030-05-02 12:00:00' }),
    ];
    const listed = async () => ((await listEvents(http, { start_date: '2030-05-01', end_date: '2030-05-03' })).body as Rec).events as Rec[];
    for (const event of events) {
      const record = await readEvent(http, event.id as number);
      assert.equal(record.venue.venue, 'Old hall');
      assert.equal(record.json_ld.location.name, 'Old hall');
      assert.equal(record.organizer[0].organizer, 'Old crew');
      assert.equal(record.json_ld.organizer.name, 'Old crew');
    }
    assert.deepEqual(
      (await listed()).map((event) => event.venue.venue),
      ['Old hall', 'Old hall'],
    );

    await patch(`venues/${venue.id}`, { venue: 'New hall', city: 'North Haverbrook', description: 'New rooms.', image: 'https://cdn.example.test/new.png' });
    await patch(`organizers/${organizer.id}`, { organizer: 'New crew', email: 'new@example.test' });

    for (const event of events) {
      const record = await readEvent(http, event.id as number);
      assert.equal(record.venue.venue, 'New hall');
      assert.equal(record.venue.city, 'North Haverbrook');
      assert.equal(record.venue.description, '<p>New rooms.</p>');
      assert.equal(record.venue.image.url, 'https://cdn.example.test/new.png');
      assert.equal(record.venue.json_ld.name, 'New hall');
      assert.equal(record.json_ld.location.name, 'New hall');
      assert.equal(record.json_ld.location.address.addressLocality, 'North Haverbrook');
      assert.equal(record.organizer[0].organizer, 'New crew');
      assert.equal(record.organizer[0].email, 'new@example.test');
      assert.equal(record.json_ld.organizer.name, 'New crew');
    }
    assert.deepEqual(
      (await listed()).map((event) => [event.venue.venue, event.organizer[0].organizer]),
      [
        ['New hall', 'New crew'],
        ['New hall', 'New crew'],
      ],
    );
  });

  it('masks a protected venue for those who may not see it, and only for them, read after read', async () => {
    const venue = await createVenue(http, users.editor, { venue: 'Secret hall', city: 'Shelbyville', password: 'sesame' });
    const event = await createEvent(http, users.editor, { title: 'Hidden venue', venue: venue.id });
    for (let round = 0; round < 2; round++) {
      assert.equal((await readEvent(http, event.id as number)).venue.city, '', 'masked for an anonymous reader');
      assert.equal((await readEvent(http, event.id as number, users.editor)).venue.city, 'Shelbyville', 'shown to its editor');
    }
    await patch(`venues/${venue.id}`, { password: '' });
    assert.equal((await readEvent(http, event.id as number)).venue.city, 'Shelbyville', 'shown to all once no longer protected');
  });

  it('links an embedded venue to the URL base each reply is for', async () => {
    const venue = await createVenue(http, users.editor, { venue: 'Shared hall' });
    const event = await createEvent(http, users.editor, { title: 'Two hosts', venue: venue.id });
    const other = (await eventsApp({ publicUrl: 'http://other.test' })).http;
    const here = await readEvent(http, event.id as number);
    const res = await call(other, 'get', `${NS}/events/${event.id}`);
    assert.equal(res.status, 200, res.text);
    assert.match(here.venue.url as string, /^http:\/\/api\.test\//);
    assert.match((res.body as Rec).venue.url as string, /^http:\/\/other\.test\//);
    assert.match((res.body as Rec).json_ld.location.url as string, /^http:\/\/other\.test\//);
  });
});
