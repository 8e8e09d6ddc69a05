import assert from 'node:assert/strict';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { badParams, call, createEvent, createOrganizer, createVenue, eventBody, eventPath, eventsApp, eventsPath, tableCounts, type Http, type Rec } from '../../helpers/events.js';
import type { Role } from '../../../src/auth/capabilities.js';

/**
 * The event body's edge forms (src/domain/events/input.ts, docs/contract.md §2, §6 and §14): what the
 * write suite does not send, each checked by the answer it must give.
 */
describe('event input: edge forms', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  const post = (body: unknown, as: TestUser = users.editor) => call(http, 'post', eventsPath, as, body);
  const messages = async (body: unknown, as?: TestUser) => {
    const res = await post(eventBody(body as Rec), as);
    expectStatus(res, 400);
    return res.body.data.params as Record<string, string>;
  };

  // WordPress reports a request's bad parameters stage by stage: the arguments' own checks, then the
  // type of those checked by type alone (booleans), then the handler's (docs/contract.md §4). Each
  // case was answered so by the plugin, side by side.
  it('names the parameters of the first stage that finds a problem, as WordPress does', async () => {
    const before = await tableCounts();
    const keys = (params: Record<string, string>) => Object.keys(params).sort();
    assert.deepEqual(keys(await messages({ show_map: 'maybe', venue: 987654321 })), ['venue']);
    assert.deepEqual(keys(await messages({ show_map: 'maybe', start_date: '2030-06-02 10:00:00', end_date: '2030-06-01 10:00:00' })), ['show_map']);
    assert.deepEqual(keys(await messages({ venue: 987654321, start_date: '2030-06-02 10:00:00', end_date: '2030-06-01 10:00:00' })), ['venue']);
    assert.deepEqual(keys(await messages({ sticky: 'perhaps' })), ['sticky']);
    assert.deepEqual(await tableCounts(), before, 'nothing written');
    const listed = async (path: string) => {
      const res = await call(http, 'get', `${NS}/${path}`);
      expectStatus(res, 400);
      return keys(res.body.data.params);
    };
    assert.deepEqual(await listed('events?per_page=0&featured=maybe'), ['per_page']);
    assert.deepEqual(await listed('events?featured=maybe&start_date=garbage'), ['start_date']);
    assert.deepEqual(await listed('events?featured=maybe'), ['featured']);
    assert.deepEqual(await listed('categories?hide_empty=maybe&page=0'), ['page']);
    assert.deepEqual(await listed('tags?hide_empty=maybe'), ['hide_empty']);
  });

  it('timezone: blank means the site zone, a padded name is trimmed, an unknown one is named', async () => {
    const blank = await createEvent(http, users.editor, { timezone: '  ' });
    assert.equal(blank.timezone, 'UTC');
    const padded = await createEvent(http, users.editor, { timezone: ' Europe/Paris ' });
    assert.equal(padded.timezone, 'Europe/Paris');
    assert.equal(padded.utc_start_date, '2030-05-01 08:00:00');
    const kept = await createEvent(http, users.editor, { timezone: null });
    assert.equal(kept.timezone, 'UTC');
    assert.match((await messages({ timezone: 'Mars/Olympus' })).timezone, /IANA time zone/);
  });

  it('dates: a date not understood and an end before the start are named by their field', async () => {
    assert.match((await messages({ end_date: 'never' })).end_date, /^end_date is not a date/);
    assert.match((await messages({ end_date: '2030-04-01 10:00:00' })).end_date, /must not be before/);
  });

  it('an update of the title alone keeps the stored times, also across zones', async () => {
    const event = await createEvent(http, users.editor, { timezone: 'Europe/Paris', all_day: false });
    const res = await call(http, 'post', eventPath(event.id), users.editor, { title: 'Renamed' });
    expectStatus(res, 200);
    assert.equal(res.body.start_date, event.start_date);
    assert.equal(res.body.utc_start_date, event.utc_start_date);
    assert.equal(res.body.all_day, false);
  });

  it('website: padded is trimmed, blank clears, not http is named', async () => {
    const padded = await createEvent(http, users.editor, { website: '  https://example.com/a  ' });
    assert.equal(padded.website, 'https://example.com/a');
    assert.match((await messages({ website: 'ftp://example.com' })).website, /http\(s\) URL/);
  });

  it('venue and organizer: odd ids, objects and values are named in the answer', async () => {
    const venue = await createVenue(http, users.editor, { venue: 'Hall' });
    const organizer = await createOrganizer(http, users.editor, { organizer: 'Org' });
    // An organizer id is not a venue; numbers with other characters are not ids.
    assert.equal((await messages({ venue: organizer.id })).venue, `venue ${organizer.id} is not a venue.`);
    assert.equal((await messages({ venue: { id: organizer.id } })).venue, `venue ${organizer.id} is not a venue.`);
    // `{id}` that is not a number is not an id (a new venue described by its fields: here none).
    for (const id of [`${venue.id}x`, `x${venue.id}`]) assert.doesNotMatch((await messages({ venue: { id } })).venue, /is not a venue/, id);
    for (const id of [`${venue.id}x`, `x${venue.id}`]) {
      assert.deepEqual(await messages({ venue: [id] }), { venue: 'venue must be venue IDs or venue objects.' }, id);
      assert.deepEqual(await messages({ organizer: id }), { organizer: 'organizer must be organizer IDs or organizer objects.' }, id);
    }
    // A string of ids is a list; `{id}` links, other objects describe a new record.
    const second = await createOrganizer(http, users.editor, { organizer: 'Second' });
    const both = await createEvent(http, users.editor, { organizer: `${second.id}, ${organizer.id}`, venue: [{ id: venue.id }] });
    assert.deepEqual(
      both.organizer.map((o: Rec) => o.id),
      [second.id, organizer.id],
    );
    assert.equal(both.venue.id, venue.id);
    // Every problem of a new record is named, under the event's field.
    assert.deepEqual(await messages({ organizer: [{ website: 'nope' }] }), {
      organizer: 'the new organizer is invalid: organizer is required. website must be an http(s) URL.',
    });
    // A new record needs the right to create one; a subscriber learns that before anything about rights on events.
    assert.deepEqual(await messages({ venue: { venue: 'New Hall' } }, users.subscriber), { venue: 'creating a venue needs the right to create venues.' });
    // `true` is no id (the validator alone would read it as 1, the first record); `false` unlinks, below.
    assert.deepEqual(await messages({ venue: true, organizer: [organizer.id, true] }), {
      venue: 'venue must be venue IDs or venue objects.',
      organizer: 'organizer must be organizer IDs or organizer objects.',
    });
    assert.deepEqual(Object.keys(await messages({ venue: { id: true } })), ['venue']);
    // The unlink forms: 0, "0", "", null, [] and false.
    for (const value of [0, '0', '', null, [], false]) {
      const event = await createEvent(http, users.editor, { venue: venue.id, organizer: organizer.id });
      const res = await call(http, 'post', eventPath(event.id), users.editor, { venue: value, organizer: value });
      expectStatus(res, 200);
      assert.deepEqual([res.body.venue, res.body.organizer], [[], []], JSON.stringify(value));
    }
  });

  it('categories and tags: {id} objects, blank items, unknown names for a caller who may not add terms', async () => {
    const tag = (await call(http, 'post', `${NS}/tags`, users.editor, { name: 'Known' })).body as Rec;
    const event = await createEvent(http, users.editor, { tags: [{ id: tag.id, name: 'ignored' }, ' ', ''] });
    assert.deepEqual(
      event.tags.map((t: Rec) => t.id),
      [tag.id],
    );
    const padded = await createEvent(http, users.editor, { tags: [` ${tag.id} `] });
    assert.deepEqual(
      padded.tags.map((t: Rec) => t.id),
      [tag.id],
    );
    // Numbers with other characters are names, not ids: new terms for an editor.
    const named = await createEvent(http, users.editor, { tags: [`${tag.id}a`, `a${tag.id}`] });
    assert.deepEqual(named.tags.map((t: Rec) => t.name).sort(), [`${tag.id}a`, `a${tag.id}`].sort());
    const author = users.contributor;
    assert.equal((await messages({ tags: ['Unknown One', 'Another'] }, author)).tags, 'tags contains unknown tags: Unknown One, Another.');
    assert.equal((await messages({ categories: ['Nope'] }, author)).categories, 'categories contains unknown categories: Nope.');
    assert.equal((await messages({ categories: [`a${tag.id}`] }, author)).categories, `categories contains unknown categories: a${tag.id}.`);
    // A name that cleans to nothing is not created, even by an editor.
    assert.equal((await messages({ tags: ['<b></b>'] })).tags, 'tags contains unknown tags: <b></b>.');
    // A boolean is no term (the validator alone would read `true` as 1, the first term, here `tag`'s
    // neighbour or itself), and no term is created or linked.
    const terms = await tableCounts();
    assert.deepEqual(await messages({ tags: [true], categories: [tag.id, false] }), {
      tags: 'tags must be IDs, slugs or names, not true or false.',
      categories: 'categories must be IDs, slugs or names, not true or false.',
    });
    assert.deepEqual(await messages({ categories: [{ id: true }] }), { categories: 'categories must be IDs, slugs or names, not true or false.' });
    assert.deepEqual(await tableCounts(), terms);
  });

  it('recurrence: false, "false", "", null and [] mean none; a single string is one line; non-strings are refused', async () => {
    for (const none of [false, 'false', '', null, [], ['  ']]) {
      const event = await createEvent(http, users.editor, { recurrence: none });
      assert.equal(event.series_id ?? null, null, JSON.stringify(none));
      assert.ok(!('recurrence' in event) || event.recurrence === null, JSON.stringify(none));
    }
    const one = await createEvent(http, users.editor, { recurrence: ' RRULE:FREQ=DAILY;COUNT=2 ' });
    assert.deepEqual(one.recurrence, ['RRULE:FREQ=DAILY;COUNT=2']);
    const lines = await createEvent(http, users.editor, { recurrence: ['', 'RRULE:FREQ=DAILY;COUNT=2'] });
    assert.deepEqual(lines.recurrence, ['RRULE:FREQ=DAILY;COUNT=2']);
    // `true` passes the document's schema (a boolean); the rule refuses it.
    assert.match((await messages({ recurrence: true })).recurrence, /^recurrence must be an array of RFC 5545 content lines/);
  });

  it('series: an update that sends no time or all-day flag changes neither, on any occurrence', async () => {
    const first = await createEvent(http, users.editor, { recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const occurrences = async () => {
      const res = await call(http, 'get', `${NS}/events/${first.id}/occurrences?start_date=2030-04-01&end_date=2030-06-01`, users.editor);
      expectStatus(res, 200);
      return res.body.events as Rec[];
    };
    const [, second] = await occurrences();
    // The first event's title alone, with scope=this: not a change of the series' start.
    expectStatus(await call(http, 'patch', `${eventPath(first.id)}?scope=this`, users.editor, { title: 'Only the first' }), 200);
    // The second occurrence becomes an all-day exception; a title sent from it to the whole series leaves each all-day flag as it was.
    expectStatus(await call(http, 'patch', `${eventPath(second.id)}?scope=this`, users.editor, { all_day: true }), 200);
    expectStatus(await call(http, 'patch', `${eventPath(second.id)}?scope=all`, users.editor, { title: 'Renamed' }), 200);
    assert.deepEqual(
      (await occurrences()).map((e) => [e.all_day, e.start_date]),
      [
        [false, '2030-05-01 10:00:00'],
        [true, '2030-05-02 00:00:00'],
        [false, '2030-05-03 10:00:00'],
      ],
    );
  });

  it('keeps a bad request free of side effects', async () => {
    assert.deepEqual(badParams(await post(eventBody({ website: 'nope', timezone: 'Nowhere' }))).sort(), ['timezone', 'website']);
  });
});
