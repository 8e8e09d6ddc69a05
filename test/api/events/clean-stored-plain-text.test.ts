import assert from 'node:assert/strict';
import { createUser, NS, testApp } from '../../helpers/app.js';
import { openTestDatabase } from '../../helpers/database.js';
import { readDataVersion } from '../../../src/db/data-version.js';
import { MIGRATION_TOOLS } from '../../../src/db/migrate.js';
import { up as cleanStoredPlainText } from '../../../src/db/migrations/20261123000013_clean_stored_plain_text.js';

/**
 * Values stored before plain text was cleaned with a tokenizer: the old pattern stripped only tags
 * with a closing `>`, and URLs could hold `<`, `>` and quotes. The data migration cleans them as a
 * write would now; the answers then hold no markup.
 */
describe('cleaning plain text stored by earlier versions (migration 20261123000013)', () => {
  it('rewrites titles, names, addresses, cost labels, term names, URLs and image extensions that hold markup, and nothing else', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const { db } = await openTestDatabase();
    const admin = await createUser('administrator');
    const post = async (collection: string, body: object) => {
      const res = await http().post(`${NS}/${collection}`).set('Authorization', admin.authorization).send(body);
      assert.equal(res.status, 201, res.text);
      return res.body as { id: number; image?: { id: number } };
    };
    const dates = { start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' };
    const venue = await post('venues', { venue: 'Venue', city: 'Paris', image: 'https://img.example/v.png' });
    const organizer = await post('organizers', { organizer: 'Organizer', phone: '555' });
    const category = await post('categories', { name: 'Category' });
    const twin = await post('categories', { name: 'Talk &lt;img src=x onerror=alert(1)//' });
    const event = await post('events', { title: 'Event', ...dates, cost: 'Donation', website: 'https://x.example/' });
    const clean = await post('events', { title: 'Rock & Roll, 1 < 2 > 0', ...dates });
    // What the earlier versions could store.
    const open = 'Talk <img src=x onerror=alert(1)//';
    await db('posts').where('id', event.id).update({ title: open });
    await db('posts')
      .where('id', venue.id)
      .update({ title: `Venue ${open}` });
    await db('venues').where('post_id', venue.id).update({ city: '<svg/onload=alert(1)', website: 'https://x.example/?<svg/onload=alert(1)>' });
    await db('organizers').where('post_id', organizer.id).update({ phone: '<img src=x onerror=alert(1)', website: 'https://x.example/"onmouseover="alert(1)' });
    await db('events')
      .where('post_id', event.id)
      .update({ cost_raw: JSON.stringify([`Donation ${open}`]), website: 'https://x.example/`x`' });
    await db('terms').where('id', category.id).update({ name: open, name_key: open.toLowerCase() });
    await db('images').where('post_id', venue.image!.id).update({ url: 'https://img.example/<svg onload=alert(1)>.png', extension: '<svg onload=x' });
    const before = await readDataVersion(db);

    await cleanStoredPlainText(db, MIGRATION_TOOLS);

    const read = async (path: string) => (await http().get(`${NS}/${path}`).set('Authorization', admin.authorization)).body;
    const e = await read(`events/${event.id}`);
    assert.equal(e.title, 'Talk &lt;img src=x onerror=alert(1)//');
    assert.equal(e.cost, 'Donation Talk &lt;img src=x onerror=alert(1)//');
    assert.equal(e.website, 'https://x.example/%60x%60');
    const v = await read(`venues/${venue.id}`);
    assert.equal(v.venue, 'Venue Talk &lt;img src=x onerror=alert(1)//');
    assert.equal(v.city, '&lt;svg/onload=alert(1)');
    assert.equal(v.website, 'https://x.example/?%3Csvg/onload=alert(1)%3E');
    assert.deepEqual([v.image.url, v.image.extension], ['https://img.example/%3Csvg onload=alert(1)%3E.png', '']);
    const o = await read(`organizers/${organizer.id}`);
    assert.equal(o.phone, '&lt;img src=x onerror=alert(1)');
    assert.equal(o.website, 'https://x.example/%22onmouseover=%22alert(1)');
    // The cleaned term name equals another term's at the same level: both keep their names.
    const c = await read(`categories/${category.id}`);
    assert.equal(c.name, 'Talk &lt;img src=x onerror=alert(1)//');
    assert.equal((await read(`categories/${twin.id}`)).name, 'Talk &lt;img src=x onerror=alert(1)//');
    // Clean values are left alone, and running processes are told the data changed.
    assert.equal((await read(`events/${clean.id}`)).title, 'Rock & Roll, 1 < 2 > 0');
    assert.ok((await readDataVersion(db)) > before);
    // A second run changes nothing.
    const tables = ['posts', 'venues', 'organizers', 'events', 'terms', 'images'];
    const snapshot = async () => JSON.stringify(await Promise.all(tables.map((t) => db(t).orderBy(t === 'posts' || t === 'terms' ? 'id' : 'post_id'))));
    const first = await snapshot();
    await cleanStoredPlainText(db, MIGRATION_TOOLS);
    assert.equal(await snapshot(), first);
  });
});
