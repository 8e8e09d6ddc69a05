import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { openTestDatabase } from '../../helpers/database.js';
import { call, createEvent, createOrganizer, createVenue, eventPath, eventsApp, PUBLIC_URL, type Http } from '../../helpers/events.js';

/**
 * Slugs as WordPress makes them, through the API (docs/plugin-behaviour.md §5.9): transliterated
 * Latin, other scripts kept whole and stored percent-encoded, links with the encoded slug, and the
 * by-slug routes finding a record by its slug in any of the forms a URL carries it.
 */

const EVENT_WORD = 'イベント';
const ENCODED = '%e3%82%a4%e3%83%99%e3%83%b3%e3%83%88';

describe('slugs through the API', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  const bySlug = (collection: string, pathSegment: string) => call(http, 'get', `${NS}/${collection}/by-slug/${pathSegment}`);

  it('stores a Japanese title as the encoded slug, links with it, and finds it by every form of it in a URL', async () => {
    const event = await createEvent(http, users.editor, { title: EVENT_WORD });
    assert.equal(event.slug, ENCODED);
    assert.equal(event.url, `${PUBLIC_URL}/event/${ENCODED}/`, 'the link carries the encoded slug once, as WordPress');
    // Path parameters are decoded by Express: the word itself (as a browser sends it), the stored
    // slug as it appears in the link (which decodes to the word), with upper-case hex, and the stored
    // slug encoded as a value (as a generated client sends a path parameter) all name the event.
    for (const segment of [encodeURIComponent(EVENT_WORD), ENCODED, ENCODED.toUpperCase(), encodeURIComponent(ENCODED)]) {
      const found = await bySlug('events', segment);
      assert.equal(found.status, 200, segment);
      assert.equal(found.body.id, event.id, segment);
      assert.equal(found.body.slug, ENCODED);
    }
    // The word with a sound mark dropped is another word.
    assert.equal((await bySlug('events', encodeURIComponent('イヘント'))).status, 404);
    // The public page at the link answers, the link's form and the word's alike (docs/contract.md §13).
    assert.equal((await http().get(`/event/${ENCODED}/`)).status, 200);
    assert.equal((await http().get(`/event/${encodeURIComponent(EVENT_WORD)}/`)).status, 200);
    // A second event of the same title is numbered after the encoded slug.
    assert.equal((await createEvent(http, users.editor, { title: EVENT_WORD })).slug, `${ENCODED}-2`);
  });

  it('transliterates Latin titles and given slugs by WordPress’s table', async () => {
    assert.equal((await createEvent(http, users.editor, { title: 'Smørrebrød' })).slug, 'smorrebrod');
    assert.equal((await createEvent(http, users.editor, { title: 'Other', slug: 'Ærø Łódź' })).slug, 'aero-lodz');
    assert.equal((await createVenue(http, users.editor, { venue: 'Ærø Łódź', status: 'publish' })).slug, 'aero-lodz');
    const organizer = await createOrganizer(http, users.editor, { organizer: 'Москва', status: 'publish' });
    assert.equal(organizer.slug, '%d0%bc%d0%be%d1%81%d0%ba%d0%b2%d0%b0');
    assert.equal(organizer.url, `${PUBLIC_URL}/organizer/${organizer.slug}/`);
    assert.equal((await bySlug('organizers', encodeURIComponent('Москва'))).body.id, organizer.id, 'found by the upper-case word too');
    assert.equal((await bySlug('venues', 'aero-lodz')).status, 200);
    assert.equal((await bySlug('events', 'smorrebrod')).status, 200);
  });

  it('keeps a slug stored before the rule as it is: its links and by-slug reads still work, and an update leaves it', async () => {
    const event = await createEvent(http, users.editor, { title: 'Smørrebrød', status: 'publish' });
    const { db } = await openTestDatabase();
    // What the earlier rule stored for this title.
    await db('posts').where({ id: event.id }).update({ slug: 'smørrebrød' });
    const found = await bySlug('events', encodeURIComponent('smørrebrød'));
    assert.equal(found.status, 200);
    assert.equal(found.body.slug, 'smørrebrød');
    assert.equal(found.body.url, `${PUBLIC_URL}/event/sm%c3%b8rrebr%c3%b8d/`);
    const updated = await call(http, 'post', eventPath(event.id), users.editor, { title: 'Smørrebrød II' });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.slug, 'smørrebrød', 'not rewritten');
    // The new rule's form of the old title names nothing (the row keeps its old slug).
    assert.equal((await bySlug('events', 'smorrebrod')).status, 404);
  });

  it('gives terms the same slugs and finds them by either form in `slug`', async () => {
    const created = await call(http, 'post', `${NS}/categories`, users.editor, { name: EVENT_WORD });
    assert.equal(created.status, 201);
    assert.equal(created.body.slug, ENCODED);
    for (const slug of [EVENT_WORD, ENCODED]) {
      const listed = await call(http, 'get', `${NS}/categories?hide_empty=0&slug=${encodeURIComponent(slug)}`);
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.categories.map((term: { id: number }) => term.id),
        [created.body.id],
        slug,
      );
    }
    // Its page is at its link, whichever form of the slug the request carries: no redirect to itself.
    assert.equal(created.body.url, `${PUBLIC_URL}/events/category/${ENCODED}/`);
    for (const segment of [ENCODED, ENCODED.toUpperCase(), encodeURIComponent(EVENT_WORD)]) {
      assert.equal((await http().get(`/events/category/${segment}/`)).status, 200, segment);
    }
    const tag = await call(http, 'post', `${NS}/tags`, users.editor, { name: 'Street', slug: 'Straße' });
    // WordPress's default table: `ß` is `s` (`ss` only on a German-locale site).
    assert.equal(tag.body.slug, 'strase');
  });
});
