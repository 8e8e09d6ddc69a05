import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUser, createUsers, NS, testApp, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';
import { inTransaction } from '../../../src/db/transactions.js';
import { insertEvent } from '../../helpers/event-rows.js';
import {
  PUBLIC_URL,
  GLOBAL_HOST,
  type LinkedResource,
  minimalKeys,
  fullKeys,
  type LinkedRecord,
  collectionPath,
  itemPath,
  slugPath,
  createLinked,
  readLinked,
  listLinked,
  namesIn,
  stable,
  withoutJsonLd,
  expectInvalidParam,
  withArticle,
  call,
  linkRels,
  pathOf,
  Http,
} from '../../helpers/linked.js';

/** The clock of the tests that check publication and modification dates. */
const FIXED_NOW = new Date('2026-03-04T05:06:07Z');
const FIXED_STAMP = '2026-03-04 05:06:07';

/**
 * The behaviour `/venues` and `/organizers` share. `other` is the other kind (for ids of another type).
 */
export function describeSharedLinkedBehaviour(r: LinkedResource, other: LinkedResource): void {
  describe('behaviour shared by venues and organizers', () => sharedLinkedBehaviour(r, other));
}

function sharedLinkedBehaviour(r: LinkedResource, other: LinkedResource): void {
  let http: Http;
  let users: Record<Role, TestUser>;
  const name = r.nameField;
  const label = r.type;
  const create = (body: Record<string, unknown>, as: TestUser = users.editor) => createLinked(http, r, as, body);
  const named = (value: string, extra: Record<string, unknown> = {}, as: TestUser = users.editor) => create({ [name]: value, ...extra }, as);
  const createNamed = async (...names: string[]) => {
    const records: LinkedRecord[] = [];
    for (const value of names) records.push(await named(value));
    return records;
  };
  const post = (body: Record<string, unknown>, as: TestUser = users.editor) => call(http, 'post', collectionPath(r), as, body);
  const listed = (query = '', as?: TestUser) => listLinked(http, r, query, as);
  const count = async (): Promise<number> => {
    const { db } = await openTestDatabase();
    const [{ n }] = await db('posts').where('type', r.type).count({ n: '*' });
    return Number(n);
  };
  /** A record owned by `owner` with `status`, written by an editor. */
  const owned = (owner: TestUser, status: string, value = `${owner.login} ${status}`, extra: Record<string, unknown> = {}) => named(value, { author: owner.id, status, ...extra });

  beforeEach(async () => {
    ({ http } = await testApp({ publicUrl: PUBLIC_URL }));
    users = await createUsers();
  });

  describe('create', () => {
    it(`creates ${withArticle(label)}: 201, Location, every key in wire order and its values`, async () => {
      const clocked = await testApp({ publicUrl: PUBLIC_URL }, () => FIXED_NOW);
      const res = await call(clocked.http, 'post', collectionPath(r), users.editor, {
        [name]: 'The Grand Hall',
        description: 'A fine place.',
        image: 'https://img.example.test/photos/grand-hall.JPG',
        ...r.fullFields,
      });
      expectStatus(res, 201);
      const record = res.body as LinkedRecord;
      assert.ok(Number.isInteger(record.id) && record.id > 0);
      assert.equal(res.headers.location, `${PUBLIC_URL}${NS}/${r.collection}/${record.id}`);
      assert.deepEqual(Object.keys(record), fullKeys(r));
      const image = record.image as { url: string; id: number; extension: string };
      assert.ok(Number.isInteger(image.id) && image.id !== record.id, JSON.stringify(image));
      const expected: Record<string, unknown> = {
        id: record.id,
        author: String(users.editor.id),
        status: 'publish',
        date: FIXED_STAMP,
        date_utc: FIXED_STAMP,
        modified: FIXED_STAMP,
        modified_utc: FIXED_STAMP,
        url: `${PUBLIC_URL}/${r.type}/the-grand-hall/`,
        [name]: 'The Grand Hall',
        description: '<p>A fine place.</p>',
        slug: 'the-grand-hall',
        image: { url: 'https://img.example.test/photos/grand-hall.JPG', id: image.id, extension: 'jpg' },
        ...r.fullRecordFields,
      };
      if (r.type === 'venue') Object.assign(expected, { show_map: true, show_map_link: true });
      Object.assign(expected, { global_id: `${GLOBAL_HOST}?id=${record.id}`, global_id_lineage: [`${GLOBAL_HOST}?id=${record.id}`] });
      assert.deepEqual(record, expected);
      assert.equal(typeof record.author, 'string');
    });

    it('leaves out every empty field of a record with only a name', async () => {
      const record = await named('Bare');
      assert.deepEqual(Object.keys(record), minimalKeys(r));
      for (const key of ['description', 'excerpt', 'image', 'json_ld', 'password', 'rest_url']) assert.equal(key in record, false, key);
    });

    it('leaves out fields sent as empty strings', async () => {
      const empties = Object.fromEntries(
        Object.keys(r.fullFields)
          .filter((f) => !f.startsWith('geo_'))
          .map((f) => [f, '']),
      );
      const record = await named('Empty Fields', { ...empties, description: '' });
      assert.deepEqual(Object.keys(record), minimalKeys(r));
    });

    it('serves the created record at its Location, with json_ld added', async () => {
      const res = await post({ [name]: 'Findable', description: 'Here.' });
      expectStatus(res, 201);
      const read = await http().get(pathOf(res.headers.location));
      expectStatus(read, 200);
      assert.deepEqual(withoutJsonLd(read.body), res.body);
      assert.equal('json_ld' in res.body, false, 'no json_ld on create');
    });

    it('applies the auto-paragraph rule to the description', async () => {
      assert.equal((await named('One', { description: 'Plain text' })).description, '<p>Plain text</p>');
      const two = await named('Two', { description: 'Line one\n\nLine two' });
      assert.equal(two.description, '<p>Line one</p>\n<p>Line two</p>');
      assert.equal((await named('Three', { description: '<p>Already</p>' })).description, '<p>Already</p>');
    });

    it('keeps HTML from an editor but sanitises it from a contributor', async () => {
      const html = '<p class="x" onclick="track()">Hi <a href="javascript:alert(1)">there</a></p><script>alert(1)</script>';
      const byEditor = await named('Rich', { description: html });
      assert.ok(String(byEditor.description).includes('onclick'), String(byEditor.description));
      const byContributor = await named('Poor', { description: html }, users.contributor);
      const cleaned = String(byContributor.description);
      assert.ok(!/script|onclick|javascript:/i.test(cleaned), cleaned);
      assert.ok(cleaned.includes('Hi'), cleaned);
    });

    it('accepts a form-encoded body', async () => {
      const form = new URLSearchParams({ [name]: 'Form Made', description: 'Sent as a form' });
      for (const [field, value] of Object.entries(r.fullFields)) form.set(field, String(value));
      form.set('author', String(users.author.id));
      const res = await http().post(collectionPath(r)).set('Authorization', users.editor.authorization).type('form').send(form.toString());
      expectStatus(res, 201);
      assert.equal(res.body[name], 'Form Made');
      assert.equal(res.body.description, '<p>Sent as a form</p>');
      assert.equal(res.body.author, String(users.author.id));
      for (const [field, value] of Object.entries(r.fullRecordFields)) assert.deepEqual(res.body[field], value, field);
    });

    it('strips tags and collapses whitespace in the name and the text fields', async () => {
      const record = await named('  <b>Bold</b>\n  Name  ', { phone: ' 555\t0100 ' });
      assert.equal(record[name], 'Bold Name');
      assert.equal(record.phone, '555 0100');
    });

    it('ignores read-only and unknown fields in the body', async () => {
      const res = await post({
        [name]: 'Round Trip',
        id: 999999,
        url: 'http://elsewhere.test/',
        global_id: 'elsewhere?id=1',
        global_id_lineage: ['elsewhere?id=1'],
        json_ld: { '@type': 'Thing' },
        modified: '2001-01-01 00:00:00',
        unknown_field: true,
      });
      expectStatus(res, 201);
      assert.notEqual(res.body.id, 999999);
      assert.equal(res.body.url, `${PUBLIC_URL}/${r.type}/round-trip/`);
      assert.equal(res.body.global_id, `${GLOBAL_HOST}?id=${res.body.id}`);
      assert.notEqual(res.body.modified, '2001-01-01 00:00:00');
      assert.equal('json_ld' in res.body, false);
    });

    it('ignores an excerpt in the body: excerpts are output-only', async () => {
      const record = await named('No Excerpt', { excerpt: 'Should be ignored' });
      assert.equal('excerpt' in record, false, JSON.stringify(record));
    });

    it(`rejects a website that is not a URL`, async () => {
      for (const website of ['not a url', 'example.com', 'javascript:alert(1)']) {
        expectInvalidParam(await post({ [name]: 'Bad Site', website }), 'website');
      }
      assert.equal(await count(), 0);
    });

    it('answers 400 rest_missing_callback_param naming the name field when it is absent', async () => {
      for (const body of [{}, { description: 'No name here' }]) {
        const res = await post(body);
        assert.deepEqual(expectError(res, 400, 'rest_missing_callback_param').params, [name]);
        assert.equal(res.body.message, `Missing parameter(s): ${name}`);
      }
      const bare = await http().post(collectionPath(r)).set('Authorization', users.editor.authorization);
      assert.deepEqual(expectError(bare, 400, 'rest_missing_callback_param').params, [name]);
      assert.equal(await count(), 0);
    });

    it('rejects an empty or blank name with rest_invalid_param', async () => {
      for (const value of ['', '   ', '<b></b>']) expectInvalidParam(await post({ [name]: value }), name);
      assert.equal(await count(), 0);
    });

    it('derives the slug from the name: lower case, accents removed', async () => {
      assert.equal((await named('Café Été Spécial')).slug, 'cafe-ete-special');
      assert.equal((await named('Rock & Roll, Live!')).slug, 'rock-roll-live');
    });

    it('gives a clashing slug the suffix -2, then -3, also for an explicit slug', async () => {
      assert.equal((await named('Jazz Club', { phone: '1' })).slug, 'jazz-club');
      assert.equal((await named('Jazz Club!', { phone: '2' })).slug, 'jazz-club-2');
      assert.equal((await named('Jazz Club?', { phone: '3' })).slug, 'jazz-club-3');
      assert.equal((await named('Something else', { slug: 'jazz-club' })).slug, 'jazz-club-4');
    });

    it('uses an explicit slug, sanitised', async () => {
      const record = await named('Named', { slug: '  Hello World! Ça Va ' });
      assert.equal(record.slug, 'hello-world-ca-va');
      assert.equal(record.url, `${PUBLIC_URL}/${r.type}/hello-world-ca-va/`);
      expectInvalidParam(await post({ [name]: 'Bad slug', slug: '!!!' }), 'slug');
    });

    it(`keeps slugs unique per type: ${withArticle(other.type)} may have the same slug`, async () => {
      const mine = await named('Shared Name');
      const theirs = await createLinked(http, other, users.editor, { [other.nameField]: 'Shared Name' });
      assert.equal(mine.slug, 'shared-name');
      assert.equal(theirs.slug, 'shared-name');
    });

    it('gives distinct slugs to 5 concurrent creates with one name and different details', async () => {
      const results = await Promise.all([1, 2, 3, 4, 5].map((i) => post({ [name]: 'Same Name', ...r.distinct(i) })));
      for (const res of results) expectStatus(res, 201);
      assert.equal(new Set(results.map((res) => res.body.id)).size, 5);
      assert.deepEqual(results.map((res) => res.body.slug).sort(), ['same-name', 'same-name-2', 'same-name-3', 'same-name-4', 'same-name-5']);
      assert.equal(await count(), 5);
    });

    describe('dates', () => {
      it('accepts date as "YYYY-MM-DD HH:MM:SS", "YYYY-MM-DD", ISO 8601 and a UNIX timestamp', async () => {
        const cases: Array<[string, string]> = [
          ['2020-01-02 03:04:05', '2020-01-02 03:04:05'],
          ['2020-01-02', '2020-01-02 00:00:00'],
          ['2020-01-02T03:04:05', '2020-01-02 03:04:05'],
          ['2020-01-02T03:04:05+02:00', '2020-01-02 01:04:05'],
          ['1600000000', '2020-09-13 12:26:40'],
        ];
        for (const [i, [input, stored]] of cases.entries()) {
          const record = await named(`Dated ${i}`, { date: input });
          assert.equal(record.date, stored, input);
          assert.equal(record.date_utc, stored, input);
          assert.equal(record.status, 'publish', input);
        }
      });

      it('reads date in the site time zone and date_utc in UTC', async () => {
        const paris = await testApp({ publicUrl: PUBLIC_URL, siteTimezone: 'Europe/Paris' });
        const local = await createLinked(paris.http, r, users.editor, { [name]: 'Local', date: '2020-06-01 12:00:00' });
        assert.equal(local.date, '2020-06-01 12:00:00');
        assert.equal(local.date_utc, '2020-06-01 10:00:00');
        for (const [i, dateUtc] of ['2020-06-01 12:00:00', '2020-06-01T12:00:00Z', '2020-06-01T14:00:00+02:00'].entries()) {
          const utc = await createLinked(paris.http, r, users.editor, { [name]: `Utc ${i}`, date_utc: dateUtc });
          assert.equal(utc.date, '2020-06-01 14:00:00', dateUtc);
          assert.equal(utc.date_utc, '2020-06-01 12:00:00', dateUtc);
        }
      });

      it('accepts a relative date phrase, relative to the clock', async () => {
        const clocked = await testApp({ publicUrl: PUBLIC_URL }, () => FIXED_NOW);
        const record = await createLinked(clocked.http, r, users.editor, { [name]: 'Relative', date: '-2 days 9am' });
        assert.equal(record.date, '2026-03-02 09:00:00');
      });

      it('rejects an unparseable date or date_utc, naming both', async () => {
        const res = await post({ [name]: 'Undated', date: 'garbage', date_utc: 'not a date either' });
        const data = expectError(res, 400, 'rest_invalid_param');
        assert.deepEqual(Object.keys(data.params as object).sort(), ['date', 'date_utc']);
        assert.equal(await count(), 0);
      });
    });

    describe('author', () => {
      it('sets the author to the caller by default, as a string', async () => {
        assert.equal((await named('Mine', {}, users.author)).author, String(users.author.id));
      });

      it('rejects an author that is not an existing user', async () => {
        expectInvalidParam(await post({ [name]: 'Orphan', author: 999999 }), 'author');
        assert.equal(await count(), 0);
      });

      it('refuses an author setting another user as author (403), but lets an editor do it', async () => {
        const res = await post({ [name]: 'Impostor', author: users.editor.id }, users.author);
        expectError(res, 403, 'rest_forbidden');
        assert.equal(await count(), 0);
        const byEditor = await named('Delegated', { author: users.author.id }, users.editor);
        assert.equal(byEditor.author, String(users.author.id));
        const self = await named('Self', { author: users.author.id }, users.author);
        assert.equal(self.author, String(users.author.id));
      });
    });

    describe('status', () => {
      it('publishes by default for authors and up, and stores the status asked for', async () => {
        assert.equal((await named('Default', {}, users.author)).status, 'publish');
        for (const status of ['draft', 'pending', 'private', 'publish']) {
          assert.equal((await named(`As ${status}`, { status })).status, status);
        }
      });

      it('scales a contributor back: publish becomes pending, no status becomes draft', async () => {
        assert.equal((await named('Asked publish', { status: 'publish' }, users.contributor)).status, 'pending');
        assert.equal((await named('Asked future', { status: 'future' }, users.contributor)).status, 'pending');
        assert.equal((await named('Asked nothing', {}, users.contributor)).status, 'draft');
        assert.equal((await named('Asked draft', { status: 'draft' }, users.contributor)).status, 'draft');
      });

      it('refuses private status to a contributor with 403', async () => {
        expectError(await post({ [name]: 'Secret', status: 'private' }, users.contributor), 403, 'rest_forbidden');
        assert.equal(await count(), 0);
      });

      it('rejects an unknown status', async () => {
        expectInvalidParam(await post({ [name]: 'Odd', status: 'bogus' }), 'status');
      });
    });

    describe('image', () => {
      it('records an image URL, and reuses its id when the same URL comes again', async () => {
        const url = 'https://img.example.test/a/photo.png';
        const first = await named('First', { image: url });
        const image = first.image as { url: string; id: number; extension: string };
        assert.deepEqual(Object.keys(image), ['url', 'id', 'extension']);
        assert.deepEqual(image, { url, id: image.id, extension: 'png' });
        const second = await named('Second', { image: url }, users.author);
        assert.deepEqual(second.image, image);
        const third = await named('Third', { image: 'https://img.example.test/a/other.png' });
        assert.notEqual((third.image as { id: number }).id, image.id);
      });

      it('gives an image an id in the same id space: it is no ' + label, async () => {
        const record = await named('Pictured', { image: 'https://img.example.test/x.jpg' });
        const imageId = (record.image as { id: number }).id;
        expectInvalidParam(await http().get(itemPath(r, imageId)), 'id');
      });

      it('accepts the id of a known image, as a number or a numeric string', async () => {
        const first = await named('First', { image: 'https://img.example.test/known.gif' });
        const image = first.image as { id: number };
        assert.deepEqual((await named('By id', { image: image.id })).image, first.image);
        assert.deepEqual((await named('By string id', { image: String(image.id) })).image, first.image);
      });

      it('rejects an id that names no image and a URL that is not http(s)', async () => {
        const venueOrOrganizer = await named('Not an image');
        for (const image of [999999, venueOrOrganizer.id, 'ftp://img.example.test/x.jpg', 'javascript:alert(1)', 'not a url']) {
          expectInvalidParam(await post({ [name]: `Bad image ${image}`, image }), 'image');
        }
        assert.equal(await count(), 1);
      });

      it('refuses any image URL from a contributor, even a known one, but accepts a known image id', async () => {
        expectInvalidParam(await post({ [name]: 'Upload', image: 'https://img.example.test/new.jpg' }, users.contributor), 'image');
        const known = await named('Known', { image: 'https://img.example.test/known.jpg' });
        const byId = await named('By id', { image: (known.image as { id: number }).id }, users.contributor);
        assert.deepEqual(byId.image, known.image);
        expectInvalidParam(await post({ [name]: 'Same URL', image: 'https://img.example.test/known.jpg' }, users.contributor), 'image');
        const update = await call(http, 'patch', itemPath(r, byId.id), users.contributor, { image: 'https://img.example.test/known.jpg' });
        expectInvalidParam(update, 'image');
        const sameUrl = await named('Same URL by an editor', { image: 'https://img.example.test/known.jpg' });
        assert.deepEqual(sameUrl.image, known.image, 'a known URL is reused, not recorded again');
      });
    });

    describe('permissions', () => {
      it('answers 401 rest_forbidden to an anonymous create, before looking at the body', async () => {
        const attempts = [
          http().post(collectionPath(r)),
          http().post(collectionPath(r)).send({}),
          http()
            .post(collectionPath(r))
            .send({ [name]: '' }),
          http()
            .post(collectionPath(r))
            .send({ [name]: 'Valid', website: 'not a url' }),
          http()
            .post(collectionPath(r))
            .send({ [name]: 'Valid' }),
          http().post(collectionPath(r)).type('form').send(`${name}=Valid`),
        ];
        for (const attempt of attempts) {
          const res = await attempt;
          expectError(res, 401, 'rest_forbidden');
          assert.equal(res.body.message, 'Sorry, you are not allowed to do that.');
        }
        assert.equal(await count(), 0);
      });

      it('refuses a subscriber (403 rest_forbidden)', async () => {
        expectError(await post({ [name]: 'By subscriber' }, users.subscriber), 403, 'rest_forbidden');
        assert.equal(await count(), 0);
      });

      for (const role of ['contributor', 'author', 'editor', 'administrator'] as const) {
        it(`lets ${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role} create`, async () => {
          const record = await named(`By ${role}`, {}, users[role]);
          assert.equal(record.author, String(users[role].id));
          assert.equal(record.status, role === 'contributor' ? 'draft' : 'publish');
        });
      }
    });
  });

  describe('duplicate detection on create', () => {
    const details = () => Object.fromEntries(r.compared.map(([field, first]) => [field, first]));

    it('returns the existing record with 201 for the same name and compared fields', async () => {
      const original = await named('Twin', { description: 'Same text', ...details() });
      const res = await post({ [name]: 'Twin', description: 'Same text', ...details() });
      expectStatus(res, 201);
      assert.equal(res.body.id, original.id);
      assert.deepEqual(res.body, original);
      assert.equal(res.headers.location, `${PUBLIC_URL}${NS}/${r.collection}/${original.id}`);
      assert.equal(await count(), 1);
    });

    it('compares the name case-insensitively', async () => {
      const original = await named('Twin Hall', details());
      const res = await post({ [name]: 'TWIN hall', ...details() });
      expectStatus(res, 201);
      assert.equal(res.body.id, original.id);
      assert.equal(res.body[name], 'Twin Hall');
    });

    it('compares only the fields sent: the name alone matches a record with more details', async () => {
      const original = await named('Twin', details());
      const res = await post({ [name]: 'Twin' });
      expectStatus(res, 201);
      assert.equal(res.body.id, original.id);
      assert.equal(await count(), 1);
    });

    for (const [field, first, second] of [['description', 'First text', 'Second text'] as [string, string, string], ...r.compared]) {
      it(`creates a new record when the compared field ${field} differs`, async () => {
        const original = await named('Twin', { [field]: first });
        const res = await post({ [name]: 'Twin', [field]: second });
        expectStatus(res, 201);
        assert.notEqual(res.body.id, original.id);
        assert.equal(res.body.slug, 'twin-2');
        assert.equal(await count(), 2);
      });
    }

    it('returns the oldest record when several match', async () => {
      const oldest = await named('Twin', { description: 'First text' });
      const newer = await named('Twin', { description: 'Second text' });
      assert.ok(newer.id > oldest.id);
      const res = await post({ [name]: 'Twin' });
      expectStatus(res, 201);
      assert.equal(res.body.id, oldest.id);
      assert.equal(await count(), 2);
    });

    for (const [field, first, second] of r.notCompared) {
      it(`does not compare ${field}, and does not overwrite it on the existing record`, async () => {
        const original = await named('Twin', { ...details(), [field]: first });
        const res = await post({ [name]: 'Twin', ...details(), [field]: second });
        expectStatus(res, 201);
        assert.equal(res.body.id, original.id);
        assert.equal(res.body[field], first);
        assert.deepEqual(res.body, original);
        assert.deepEqual(withoutJsonLd(await readLinked(http, r, original.id)), original);
      });
    }

    it('does not overwrite other fields of the existing record (image, status, author)', async () => {
      const original = await named('Twin', { ...details(), image: 'https://img.example.test/original.jpg', status: 'draft' });
      const res = await post({ [name]: 'Twin', ...details(), image: 'https://img.example.test/replacement.jpg', status: 'publish', author: users.author.id });
      expectStatus(res, 201);
      assert.equal(res.body.id, original.id);
      assert.deepEqual(res.body, original);
    });

    it('still rejects an invalid image when the rest of the body matches an existing record', async () => {
      await named('Twin', details());
      for (const image of [999999, 'ftp://img.example.test/x.jpg']) expectInvalidParam(await post({ [name]: 'Twin', ...details(), image }), 'image');
    });

    it('does not match a trashed record', async () => {
      const original = await named('Twin', details());
      expectStatus(await call(http, 'delete', itemPath(r, original.id), users.editor), 200);
      const res = await post({ [name]: 'Twin', ...details() });
      expectStatus(res, 201);
      assert.notEqual(res.body.id, original.id);
      assert.equal(res.body.status, 'publish');
    });

    it('does not match a record the caller may not read', async () => {
      const hidden = await named('Twin', { ...details(), status: 'draft' }, users.editor);
      const byContributor = await post({ [name]: 'Twin', ...details() }, users.contributor);
      expectStatus(byContributor, 201);
      assert.notEqual(byContributor.body.id, hidden.id);
      assert.equal(byContributor.body.author, String(users.contributor.id));
      const byAuthor = await post({ [name]: 'Twin', ...details() }, users.author);
      expectStatus(byAuthor, 201);
      assert.notEqual(byAuthor.body.id, hidden.id);
      assert.equal(await count(), 3);
    });

    it("matches the caller's own draft, and anyone's drafts for an editor", async () => {
      const draft = await named('Twin', details(), users.contributor);
      assert.equal(draft.status, 'draft');
      const again = await post({ [name]: 'Twin', ...details() }, users.contributor);
      assert.equal(again.body.id, draft.id);
      const byEditor = await post({ [name]: 'Twin', ...details() }, users.editor);
      assert.equal(byEditor.body.id, draft.id);
      assert.equal(byEditor.body.status, 'draft');
      assert.equal(await count(), 1);
    });
  });

  describe('read', () => {
    it(`returns ${withArticle(label)} by id and by slug with json_ld placed before ${r.afterJsonLd}`, async () => {
      const created = await named('Readable Place', { description: 'Text', ...r.fullFields });
      for (const path of [itemPath(r, created.id), slugPath(r, created.slug)]) {
        const res = await http().get(path);
        expectStatus(res, 200);
        const keys = Object.keys(res.body);
        const expectedKeys = Object.keys(created).filter((k) => k !== 'json_ld');
        expectedKeys.splice(expectedKeys.indexOf(r.afterJsonLd), 0, 'json_ld');
        assert.deepEqual(keys, expectedKeys, path);
        assert.equal(res.body.json_ld['@type'], r.jsonLdType);
        assert.equal(res.body.json_ld.name, 'Readable Place');
        assert.deepEqual(withoutJsonLd(res.body), created);
      }
    });

    it('gives the same record to anonymous and logged-in readers, and the same answer twice', async () => {
      const created = await named('Stable', { description: 'Text', ...r.fullFields });
      const anonymous = await readLinked(http, r, created.id);
      assert.deepEqual(await readLinked(http, r, created.id, users.subscriber), anonymous);
      assert.deepEqual(await readLinked(http, r, created.id), anonymous);
    });

    it('accepts a trailing slash on the item, slug and collection paths', async () => {
      const created = await named('Slashed');
      expectStatus(await http().get(`${itemPath(r, created.id)}/`), 200);
      expectStatus(await http().get(`${slugPath(r, created.slug)}/`), 200);
      assert.deepEqual(namesIn(await http().get(`${collectionPath(r)}/`), r), ['Slashed']);
    });

    it(`answers 404 rest-${r.type}-not-found for an id or a slug that names nothing`, async () => {
      await named('Exists');
      for (const id of [999999, 0]) {
        const res = await http().get(itemPath(r, id));
        expectError(res, 404, `rest-${r.type}-not-found`);
        assert.equal(res.body.message, `${r.Noun} with ID ${id} does not exist.`);
      }
      expectError(await http().get(slugPath(r, 'no-such-slug')), 404, `rest-${r.type}-not-found`);
    });

    // As the plugin answers (its `id` argument checks the type): docs/contract.md §4.
    it(`answers 400 rest_invalid_param on id for the id of ${withArticle(other.type)} or an event`, async () => {
      const foreign = await createLinked(http, other, users.editor, { [other.nameField]: 'Foreign' });
      const res = await http().get(itemPath(r, foreign.id));
      expectInvalidParam(res, 'id');
      assert.equal(res.body.data.params.id, `id ${foreign.id} is not ${withArticle(r.type)}.`);
      const { db } = await openTestDatabase();
      const event = await insertEvent(db, { title: 'An event', startUtc: '2030-01-01 10:00:00', endUtc: '2030-01-01 11:00:00' });
      expectInvalidParam(await http().get(itemPath(r, event)), 'id');
    });

    it(`answers 404 rest-${r.type}-not-found for the slug of ${withArticle(other.type)}`, async () => {
      const foreign = await createLinked(http, other, users.editor, { [other.nameField]: 'Only Other Kind' });
      expectError(await http().get(slugPath(r, foreign.slug)), 404, `rest-${r.type}-not-found`);
    });

    it('answers 404 rest_no_route for an id that is not digits and for an empty slug', async () => {
      for (const path of [itemPath(r, 'abc'), itemPath(r, '1abc'), itemPath(r, '-1'), `${NS}/${r.collection}/by-slug/`]) {
        const res = await http().get(path);
        expectError(res, 404, 'rest_no_route');
        assert.equal(res.body.message, 'No route was found matching the URL and request method.', path);
      }
    });

    describe('unpublished records', () => {
      it(`answers 403 ${r.type}-not-accessible for a draft to anonymous callers, subscribers and other authors`, async () => {
        const draft = await owned(users.contributor, 'draft');
        const otherAuthor = await createUser('author', 'author2');
        for (const as of [undefined, users.subscriber, users.author, otherAuthor]) {
          for (const path of [itemPath(r, draft.id), slugPath(r, draft.slug)]) {
            const res = await call(http, 'get', path, as);
            expectError(res, 403, `${r.type}-not-accessible`);
            assert.equal(res.body.message, `The requested ${r.type} is not accessible`);
          }
        }
      });

      it('shows a draft to its owner and to editors and administrators', async () => {
        for (const status of ['draft', 'pending']) {
          const record = await owned(users.contributor, status);
          for (const as of [users.contributor, users.editor, users.administrator]) {
            const read = await readLinked(http, r, record.id, as);
            assert.equal(read.status, status);
            assert.deepEqual(withoutJsonLd(read), record);
          }
        }
      });

      it('shows a private record to editors and its owner only', async () => {
        const record = await owned(users.author, 'private');
        for (const as of [users.author, users.editor]) assert.equal((await readLinked(http, r, record.id, as)).status, 'private');
        for (const as of [undefined, users.subscriber, users.contributor]) {
          expectError(await call(http, 'get', itemPath(r, record.id), as), 403, `${r.type}-not-accessible`);
        }
      });

      it(`answers 403 ${r.type}-no-longer-available for a trashed record to everyone but editors`, async () => {
        const record = await owned(users.author, 'publish');
        expectStatus(await call(http, 'delete', itemPath(r, record.id), users.author), 200);
        for (const as of [undefined, users.subscriber, users.contributor, users.author]) {
          for (const path of [itemPath(r, record.id), slugPath(r, record.slug)]) {
            const res = await call(http, 'get', path, as);
            expectError(res, 403, `${r.type}-no-longer-available`);
          }
        }
        for (const as of [users.editor, users.administrator]) {
          const read = await readLinked(http, r, record.id, as);
          assert.equal(read.status, 'trash');
          const bySlug = await call(http, 'get', slugPath(r, record.slug), as);
          expectStatus(bySlug, 200);
          assert.equal(bySlug.body.id, record.id);
        }
      });
    });

    describe('password-protected records', () => {
      const protect = (owner: TestUser = users.editor) => named('Guarded', { ...r.protectedBody, password: 'open sesame', author: owner.id }, users.editor);

      it(`answers 403 ${r.type}-password-protected without the right password`, async () => {
        const record = await protect();
        for (const as of [undefined, users.subscriber, users.contributor, users.author]) {
          for (const query of ['', '?password=wrong', '?password=OPEN%20SESAME']) {
            const res = await call(http, 'get', `${itemPath(r, record.id)}${query}`, as);
            expectError(res, 403, `${r.type}-password-protected`);
            assert.equal(res.body.message, `The requested ${r.type} is not accessible without a password`);
          }
          expectError(await call(http, 'get', slugPath(r, record.slug), as), 403, `${r.type}-password-protected`);
        }
      });

      it('answers 200 with the whole record for the right password', async () => {
        const record = await protect();
        for (const path of [itemPath(r, record.id), slugPath(r, record.slug)]) {
          const res = await http().get(`${path}?password=${encodeURIComponent('open sesame')}`);
          expectStatus(res, 200);
          assert.deepEqual(withoutJsonLd(res.body), record);
          assert.equal(res.body.description, '<p>Secret description</p>');
        }
      });

      it('answers 200 without a password to the editors of the record', async () => {
        const record = await protect(users.author);
        for (const as of [users.author, users.editor, users.administrator]) {
          assert.deepEqual(withoutJsonLd(await readLinked(http, r, record.id, as)), record);
        }
      });

      it('rejects an empty password parameter', async () => {
        const record = await protect();
        expectInvalidParam(await http().get(`${itemPath(r, record.id)}?password=`), 'password');
      });

      it('never returns the password', async () => {
        const record = await protect();
        assert.equal('password' in record, false);
        const bodies = [
          (await http().get(`${itemPath(r, record.id)}?password=open%20sesame`)).body,
          (await call(http, 'get', itemPath(r, record.id), users.editor)).body,
          (await listed('')).body,
          (await listed('', users.editor)).body,
          (await call(http, 'patch', itemPath(r, record.id), users.editor, { phone: '1' })).body,
        ];
        for (const body of bodies) assert.ok(!JSON.stringify(body).includes('open sesame'), JSON.stringify(body));
      });

      it('lists a protected record masked for anonymous callers: name visible, protected fields emptied', async () => {
        const record = await protect();
        await named('Open Door', { description: 'Public text' });
        const res = await listed('');
        const items = res.body[r.collection] as LinkedRecord[];
        const masked = items.find((item) => item.id === record.id) as LinkedRecord;
        assert.equal(masked[name], 'Guarded');
        assert.equal(masked.slug, record.slug);
        assert.equal(masked.url, record.url);
        for (const field of r.protectedFields) {
          const value = masked[field];
          assert.ok(value === undefined || value === '' || value === 0 || value === false, `${field} = ${JSON.stringify(value)}`);
        }
        assert.ok(!JSON.stringify(masked).includes('Secret') && !JSON.stringify(masked).includes('hidden'), JSON.stringify(masked));
        const open = items.find((item) => item[name] === 'Open Door') as LinkedRecord;
        assert.equal(open.description, '<p>Public text</p>');
      });

      it('lists a protected record unmasked for the editors of the record, masked for other users', async () => {
        const record = await protect(users.author);
        for (const as of [users.author, users.editor, users.administrator]) {
          const items = (await listed('', as)).body[r.collection] as LinkedRecord[];
          assert.deepEqual(
            items.find((item) => item.id === record.id),
            record,
            as.login,
          );
        }
        for (const as of [users.contributor, users.subscriber]) {
          const items = (await listed('', as)).body[r.collection] as LinkedRecord[];
          const masked = items.find((item) => item.id === record.id) as LinkedRecord;
          assert.equal(masked[name], 'Guarded');
          assert.ok(!JSON.stringify(masked).includes('Secret'), as.login);
        }
      });

      it('removes the protection when the password is set to an empty string', async () => {
        const record = await protect();
        expectStatus(await call(http, 'patch', itemPath(r, record.id), users.editor, { password: '' }), 200);
        assert.equal((await readLinked(http, r, record.id)).description, '<p>Secret description</p>');
      });
    });
  });

  describe('update', () => {
    const routes: Array<[string, (record: LinkedRecord) => string]> = [
      ['by id', (record) => itemPath(r, record.id)],
      ['by slug', (record) => slugPath(r, record.slug)],
    ];

    for (const [routeName, path] of routes) {
      for (const method of ['post', 'put', 'patch'] as const) {
        it(`changes only the fields sent (${method.toUpperCase()} ${routeName})`, async () => {
          const original = await named('Original', { description: 'Keep me', ...r.fullFields, image: 'https://img.example.test/keep.jpg' });
          const res = await call(http, method, path(original), users.editor, { phone: '555 9999' });
          expectStatus(res, 200);
          assert.deepEqual(stable(res.body), stable({ ...original, phone: '555 9999' }));
          assert.deepEqual(Object.keys(res.body), Object.keys(original));
          assert.deepEqual(stable(await readLinked(http, r, original.id)), stable(res.body));
        });
      }

      it(`renames without changing the slug (${routeName})`, async () => {
        const original = await named('Old Name', { description: 'Same' });
        const res = await call(http, 'post', path(original), users.editor, { [name]: 'New Name' });
        expectStatus(res, 200);
        assert.deepEqual(stable(res.body), stable({ ...original, [name]: 'New Name' }));
      });

      it(`changes the slug through the body, sanitised, and the url with it (${routeName})`, async () => {
        const original = await named('Sluggy');
        const res = await call(http, 'patch', path(original), users.editor, { slug: 'Brand New Slug!' });
        expectStatus(res, 200);
        assert.equal(res.body.id, original.id);
        assert.equal(res.body.slug, 'brand-new-slug');
        assert.equal(res.body.url, `${PUBLIC_URL}/${r.type}/brand-new-slug/`);
        expectError(await http().get(slugPath(r, 'sluggy')), 404, `rest-${r.type}-not-found`);
        assert.equal((await readLinked(http, r, original.id)).slug, 'brand-new-slug');
        expectStatus(await http().get(slugPath(r, 'brand-new-slug')), 200);
      });

      it(`makes a new slug unique when it clashes with another record (${routeName})`, async () => {
        await named('Taken');
        const original = await named('Free');
        const res = await call(http, 'put', path(original), users.editor, { slug: 'taken' });
        expectStatus(res, 200);
        assert.equal(res.body.slug, 'taken-2');
        const same = await call(http, 'put', itemPath(r, original.id), users.editor, { slug: 'taken-2', [name]: 'Free again' });
        assert.equal(same.body.slug, 'taken-2', "the record's own slug sent back is kept");
      });

      it(`answers 404 rest-${r.type}-not-found when nothing has that ${routeName === 'by id' ? 'id' : 'slug'}`, async () => {
        const ghost = { id: 999999, slug: 'no-such-slug' } as LinkedRecord;
        for (const method of ['post', 'put', 'patch'] as const) {
          expectError(await call(http, method, path(ghost), users.editor, { [name]: 'Ghost' }), 404, `rest-${r.type}-not-found`);
        }
        assert.equal(await count(), 0);
      });
    }

    it('changes the status, which changes who may read it', async () => {
      const original = await named('Flip');
      const res = await call(http, 'patch', itemPath(r, original.id), users.editor, { status: 'draft' });
      expectStatus(res, 200);
      assert.equal(res.body.status, 'draft');
      expectError(await http().get(itemPath(r, original.id)), 403, `${r.type}-not-accessible`);
      const back = await call(http, 'patch', itemPath(r, original.id), users.editor, { status: 'publish' });
      assert.equal(back.body.status, 'publish');
      expectStatus(await http().get(itemPath(r, original.id)), 200);
    });

    it('restores a trashed record when its status is updated, and leaves it in the trash otherwise', async () => {
      const original = await named('Phoenix');
      expectStatus(await call(http, 'delete', itemPath(r, original.id), users.editor), 200);
      const untouched = await call(http, 'patch', itemPath(r, original.id), users.editor, { phone: '555 0000' });
      expectStatus(untouched, 200);
      assert.equal(untouched.body.status, 'trash');
      const restored = await call(http, 'patch', itemPath(r, original.id), users.editor, { status: 'publish' });
      expectStatus(restored, 200);
      assert.equal(restored.body.status, 'publish');
      assert.equal(restored.body.slug, original.slug);
      assert.equal((await readLinked(http, r, original.id)).status, 'publish');
      assert.deepEqual(namesIn(await listed(''), r), ['Phoenix']);
    });

    it("scales a contributor's publish back to pending on update", async () => {
      const draft = await named('Mine', {}, users.contributor);
      const res = await call(http, 'patch', itemPath(r, draft.id), users.contributor, { status: 'publish' });
      expectStatus(res, 200);
      assert.equal(res.body.status, 'pending');
      expectError(await call(http, 'patch', itemPath(r, draft.id), users.contributor, { status: 'private' }), 403, 'rest_forbidden');
      assert.equal((await readLinked(http, r, draft.id, users.contributor)).status, 'pending');
    });

    it('changes the publication date, and the author when an editor asks', async () => {
      const original = await named('Moved');
      const res = await call(http, 'patch', itemPath(r, original.id), users.editor, { date: '2020-05-06 07:08:09', author: users.author.id });
      expectStatus(res, 200);
      assert.equal(res.body.date, '2020-05-06 07:08:09');
      assert.equal(res.body.date_utc, '2020-05-06 07:08:09');
      assert.equal(res.body.author, String(users.author.id));
      const byAuthor = await call(http, 'patch', itemPath(r, original.id), users.author, { author: users.editor.id });
      expectError(byAuthor, 403, 'rest_forbidden');
      assert.equal((await readLinked(http, r, original.id)).author, String(users.author.id));
    });

    it('replaces and removes the image', async () => {
      const original = await named('Pictured', { image: 'https://img.example.test/one.jpg' });
      const replaced = await call(http, 'patch', itemPath(r, original.id), users.editor, { image: 'https://img.example.test/two.webp' });
      assert.deepEqual((replaced.body.image as { url: string }).url, 'https://img.example.test/two.webp');
      const removed = await call(http, 'patch', itemPath(r, original.id), users.editor, { image: '' });
      expectStatus(removed, 200);
      assert.equal('image' in removed.body, false);
    });

    it('clears a field sent as an empty string', async () => {
      const original = await named('Clearable', { description: 'Text', phone: '555 0100', website: 'https://x.example.test' });
      const res = await call(http, 'patch', itemPath(r, original.id), users.editor, { description: '', phone: '', website: '' });
      expectStatus(res, 200);
      for (const key of ['description', 'phone', 'website']) assert.equal(key in res.body, false, key);
    });

    it('accepts a form-encoded update body', async () => {
      const original = await named('Formed', { phone: '555 0100' });
      const res = await http().put(itemPath(r, original.id)).set('Authorization', users.editor.authorization).type('form').send(`description=Via+a+form&${name}=Formed+again`);
      expectStatus(res, 200);
      assert.deepEqual(stable(res.body), stable({ ...original, [name]: 'Formed again', description: '<p>Via a form</p>' }));
    });

    it('answers 200 with the record unchanged for an update without fields', async () => {
      const original = await named('Steady', { description: 'Unchanged', ...r.fullFields });
      const bare = await http().post(itemPath(r, original.id)).set('Authorization', users.editor.authorization);
      expectStatus(bare, 200);
      assert.deepEqual(stable(bare.body), stable(original));
      for (const method of ['put', 'patch'] as const) {
        const res = await call(http, method, itemPath(r, original.id), users.editor, {});
        expectStatus(res, 200);
        assert.deepEqual(stable(res.body), stable(original));
      }
    });

    it('accepts a record read with GET, modified and sent back whole', async () => {
      const original = await named('Round', { description: 'Trip', ...r.fullFields });
      const read = await readLinked(http, r, original.id);
      const res = await call(http, 'put', itemPath(r, original.id), users.editor, { ...read, phone: '555 4242' });
      expectStatus(res, 200);
      assert.deepEqual(stable(res.body), stable({ ...original, phone: '555 4242' }));
    });

    it('lets the path win over an id or slug in the body', async () => {
      const target = await named('Target');
      const bystander = await named('Bystander');
      const res = await call(http, 'patch', itemPath(r, target.id), users.editor, { id: bystander.id, phone: '555 1111' });
      assert.equal(res.body.id, target.id);
      assert.equal((await readLinked(http, r, bystander.id)).phone, undefined);
    });

    it('rejects invalid fields with 400 and changes nothing', async () => {
      const original = await named('Valid', { description: 'Keep' });
      const attempts: Array<[Record<string, unknown>, string]> = [
        [{ [name]: '' }, name],
        [{ [name]: '   ' }, name],
        [{ website: 'not a url' }, 'website'],
        [{ date: 'garbage' }, 'date'],
        [{ date_utc: 'garbage' }, 'date_utc'],
        [{ author: 999999 }, 'author'],
        [{ status: 'bogus' }, 'status'],
        [{ image: 999999 }, 'image'],
        [{ image: 'ftp://img.example.test/x.jpg' }, 'image'],
        [{ slug: '!!!' }, 'slug'],
      ];
      for (const [body, param] of attempts) {
        expectInvalidParam(await call(http, 'patch', itemPath(r, original.id), users.editor, body), param);
      }
      assert.deepEqual(stable(await readLinked(http, r, original.id)), stable(original));
    });

    it('answers 400 for an invalid name, date or author even when the id names nothing (400 before 404)', async () => {
      for (const body of [{ [name]: '' }, { date: 'garbage' }, { author: 999999 }, { status: 'bogus' }]) {
        const res = await call(http, 'put', itemPath(r, 999999), users.editor, body);
        expectError(res, 400, 'rest_invalid_param');
      }
    });

    it('answers 400 for an invalid website or image even when the id names nothing (400 before 404)', async () => {
      for (const body of [{ website: 'not a url' }, { image: 999998 }, { image: 'ftp://x.test/a.jpg' }]) {
        expectInvalidParam(await call(http, 'put', itemPath(r, 999999), users.editor, body), Object.keys(body)[0]);
      }
    });

    it('answers 400 for an invalid website or image before the per-record 403', async () => {
      const theirs = await named('Theirs');
      for (const body of [{ website: 'not a url' }, { image: 999998 }]) {
        expectInvalidParam(await call(http, 'put', itemPath(r, theirs.id), users.contributor, body), Object.keys(body)[0]);
      }
    });

    it('answers 400 for an invalid name before the per-record 403', async () => {
      const theirs = await named('Theirs');
      expectInvalidParam(await call(http, 'put', itemPath(r, theirs.id), users.contributor, { [name]: '' }), name);
    });

    // The plugin's permission check runs before it looks for the record: a caller who may change no
    // record of the type learns nothing about ids (docs/contract.md §4).
    it('answers 403 before 404: a subscriber updating or deleting an id that names nothing', async () => {
      expectError(await call(http, 'put', itemPath(r, 999999), users.subscriber, { [name]: 'X' }), 403, 'rest_forbidden');
      expectError(await call(http, 'delete', itemPath(r, 999999), users.subscriber), 403, 'rest_forbidden');
      expectError(await call(http, 'put', itemPath(r, 999999), users.contributor, { [name]: 'X' }), 404, `rest-${r.type}-not-found`);
      const existing = await named('Existing');
      expectError(await call(http, 'put', itemPath(r, existing.id), users.subscriber, { [name]: 'X' }), 403, 'rest_forbidden');
    });

    it(`answers 400 rest_invalid_param on id when updating ${withArticle(other.type)}, which stays`, async () => {
      const foreign = await createLinked(http, other, users.editor, { [other.nameField]: 'Foreign' });
      expectInvalidParam(await call(http, 'put', itemPath(r, foreign.id), users.editor, { [name]: 'Hijacked' }), 'id');
      assert.equal((await readLinked(http, other, foreign.id))[other.nameField], 'Foreign');
    });

    it('answers 401 rest_forbidden to an anonymous update before looking at the body or the id', async () => {
      const original = await named('Target');
      for (const path of [itemPath(r, original.id), itemPath(r, 999999), slugPath(r, original.slug), slugPath(r, 'nothing')]) {
        for (const method of ['post', 'put', 'patch'] as const) {
          expectError(
            await http()
              [method](path)
              .send({ [name]: '' }),
            401,
            'rest_forbidden',
          );
          expectError(
            await http()
              [method](path)
              .send({ [name]: 'Changed' }),
            401,
            'rest_forbidden',
          );
        }
      }
      assert.equal((await readLinked(http, r, original.id))[name], 'Target');
    });
  });

  describe('delete', () => {
    it('moves the record to the trash and answers it with status trash', async () => {
      const original = await named('Doomed', { description: 'Soon gone', ...r.fullFields });
      const res = await call(http, 'delete', itemPath(r, original.id), users.editor);
      expectStatus(res, 200);
      assert.deepEqual(stable(res.body), stable({ ...original, status: 'trash' }));
      assert.equal('json_ld' in res.body, false);
      assert.equal((await readLinked(http, r, original.id, users.editor)).status, 'trash');
      assert.deepEqual(namesIn(await listed('', users.editor), r), []);
    });

    it(`answers 410 ${r.type}-is-in-trash on a second delete`, async () => {
      const original = await named('Doomed');
      expectStatus(await call(http, 'delete', itemPath(r, original.id), users.editor), 200);
      const res = await call(http, 'delete', itemPath(r, original.id), users.editor);
      expectError(res, 410, `${r.type}-is-in-trash`);
      assert.equal(res.body.message, `The ${r.type} is already trashed`);
      expectError(await call(http, 'delete', slugPath(r, original.slug), users.editor), 410, `${r.type}-is-in-trash`);
    });

    it('keeps the slug of a trashed record, so a new record with the name gets -2', async () => {
      const original = await named('Reused', { phone: '1' });
      expectStatus(await call(http, 'delete', itemPath(r, original.id), users.editor), 200);
      assert.equal((await readLinked(http, r, original.id, users.editor)).slug, 'reused');
      assert.equal((await named('Reused', { phone: '2' })).slug, 'reused-2');
    });

    it('deletes for good with force=true, answering the record as it was', async () => {
      const original = await named('Gone', { description: 'For good' });
      const res = await call(http, 'delete', `${itemPath(r, original.id)}?force=true`, users.editor);
      expectStatus(res, 200);
      assert.deepEqual(stable(res.body), stable(original));
      expectError(await call(http, 'get', itemPath(r, original.id), users.editor), 404, `rest-${r.type}-not-found`);
      expectError(await call(http, 'delete', itemPath(r, original.id), users.editor), 404, `rest-${r.type}-not-found`);
      assert.equal(await count(), 0);
      assert.equal((await named('Gone')).slug, 'gone', 'the slug is free again');
    });

    it('deletes a trashed record for good with force=1 or force=TRUE', async () => {
      for (const value of ['1', 'TRUE']) {
        const original = await named(`Trashed ${value}`);
        expectStatus(await call(http, 'delete', itemPath(r, original.id), users.editor), 200);
        const res = await call(http, 'delete', `${itemPath(r, original.id)}?force=${value}`, users.editor);
        expectStatus(res, 200);
        assert.equal(res.body.status, 'trash');
        expectError(await call(http, 'get', itemPath(r, original.id), users.editor), 404, `rest-${r.type}-not-found`);
      }
      assert.equal(await count(), 0);
    });

    it('trashes with force=false or force=0', async () => {
      for (const value of ['false', '0']) {
        const original = await named(`Kept ${value}`);
        const res = await call(http, 'delete', `${itemPath(r, original.id)}?force=${value}`, users.editor);
        expectStatus(res, 200);
        assert.equal(res.body.status, 'trash');
      }
      assert.equal(await count(), 2);
    });

    it('deletes by slug', async () => {
      const original = await named('Sluggish');
      const res = await call(http, 'delete', slugPath(r, original.slug), users.editor);
      expectStatus(res, 200);
      assert.equal(res.body.id, original.id);
      assert.equal(res.body.status, 'trash');
      expectStatus(await call(http, 'delete', `${slugPath(r, original.slug)}?force=true`, users.editor), 200);
      expectError(await call(http, 'delete', slugPath(r, original.slug), users.editor), 404, `rest-${r.type}-not-found`);
    });

    it('unlinks a trashed record from its events, leaving the other links', async () => {
      const { db } = await openTestDatabase();
      const [doomed, kept] = await createNamed('Doomed', 'Kept');
      const table = r.type === 'venue' ? 'event_venues' : 'event_organizers';
      const column = r.type === 'venue' ? 'venue_id' : 'organizer_id';
      const first = await insertEvent(db, { title: 'First', startUtc: '2030-01-01 10:00:00', endUtc: '2030-01-01 11:00:00', [r.linkKey]: [doomed.id, kept.id] });
      const second = await insertEvent(db, { title: 'Second', startUtc: '2030-01-02 10:00:00', endUtc: '2030-01-02 11:00:00', [r.linkKey]: [doomed.id] });
      assert.equal((await db(table).where(column, doomed.id)).length, 2);
      assert.deepEqual(namesIn(await listed(`event=${first}`), r).sort(), ['Doomed', 'Kept']);

      expectStatus(await call(http, 'delete', itemPath(r, doomed.id), users.editor), 200);
      assert.equal((await db(table).where(column, doomed.id)).length, 0);
      assert.deepEqual((await db(table).where('event_id', first).pluck(column)).map(Number), [kept.id]);
      assert.equal((await db(table).where('event_id', second)).length, 0);
      assert.deepEqual(namesIn(await listed(`event=${first}`, users.editor), r), ['Kept']);
      assert.deepEqual(namesIn(await listed('status=trash&has_events=true', users.editor), r), []);
    });

    it('unlinks a record deleted for good from its events', async () => {
      const { db } = await openTestDatabase();
      const [doomed] = await createNamed('Doomed');
      const table = r.type === 'venue' ? 'event_venues' : 'event_organizers';
      const event = await insertEvent(db, { title: 'Event', startUtc: '2030-01-01 10:00:00', endUtc: '2030-01-01 11:00:00', [r.linkKey]: [doomed.id] });
      expectStatus(await call(http, 'delete', `${itemPath(r, doomed.id)}?force=true`, users.editor), 200);
      assert.equal((await db(table).where('event_id', event)).length, 0);
      assert.equal((await db('posts').where('id', event)).length, 1, 'the event stays');
    });

    it(`answers 400 rest_invalid_param on id when deleting ${withArticle(other.type)}, which stays`, async () => {
      const foreign = await createLinked(http, other, users.editor, { [other.nameField]: 'Foreign' });
      expectInvalidParam(await call(http, 'delete', itemPath(r, foreign.id), users.editor), 'id');
      expectInvalidParam(await call(http, 'delete', `${itemPath(r, foreign.id)}?force=true`, users.editor), 'id');
      assert.equal((await readLinked(http, other, foreign.id)).status, 'publish');
    });

    it('answers 404 for an id or slug that names nothing', async () => {
      expectError(await call(http, 'delete', itemPath(r, 999999), users.editor), 404, `rest-${r.type}-not-found`);
      expectError(await call(http, 'delete', slugPath(r, 'nothing-here'), users.editor), 404, `rest-${r.type}-not-found`);
    });

    it('answers 401 rest_forbidden to an anonymous delete, whether or not the record exists', async () => {
      const original = await named('Target');
      for (const path of [itemPath(r, original.id), `${itemPath(r, original.id)}?force=true`, itemPath(r, 999999), slugPath(r, original.slug)]) {
        expectError(await http().delete(path), 401, 'rest_forbidden');
      }
      assert.equal((await readLinked(http, r, original.id)).status, 'publish');
    });
  });

  describe('permissions per record', () => {
    type Case = { role: Role; owner: Role | 'other-contributor'; status: string; allowed: boolean };
    const cases: Case[] = [
      { role: 'subscriber', owner: 'editor', status: 'publish', allowed: false },
      { role: 'contributor', owner: 'contributor', status: 'draft', allowed: true },
      { role: 'contributor', owner: 'contributor', status: 'pending', allowed: true },
      { role: 'contributor', owner: 'contributor', status: 'publish', allowed: false },
      { role: 'contributor', owner: 'other-contributor', status: 'draft', allowed: false },
      { role: 'contributor', owner: 'editor', status: 'publish', allowed: false },
      { role: 'author', owner: 'author', status: 'draft', allowed: true },
      { role: 'author', owner: 'author', status: 'publish', allowed: true },
      { role: 'author', owner: 'editor', status: 'publish', allowed: false },
      { role: 'author', owner: 'contributor', status: 'draft', allowed: false },
      { role: 'editor', owner: 'author', status: 'publish', allowed: true },
      { role: 'editor', owner: 'contributor', status: 'draft', allowed: true },
      { role: 'editor', owner: 'author', status: 'private', allowed: true },
      { role: 'administrator', owner: 'editor', status: 'publish', allowed: true },
      { role: 'administrator', owner: 'contributor', status: 'pending', allowed: true },
    ];
    const ownerOf = async (owner: Case['owner']) => (owner === 'other-contributor' ? createUser('contributor', 'contributor2') : users[owner]);
    const describeCase = (c: Case, verb: string) =>
      `${c.allowed ? 'lets' : 'refuses to let'} ${/^[aeiou]/.test(c.role) ? 'an' : 'a'} ${c.role} ${verb} ${c.owner === c.role ? 'its own' : `${c.owner.replace('-', ' ')}'s`} ${c.status === 'publish' ? 'published' : c.status} ${r.type}${c.allowed ? '' : ' (403)'}`;

    for (const c of cases) {
      it(describeCase(c, 'update'), async () => {
        const record = await owned(await ownerOf(c.owner), c.status, 'Target');
        for (const method of ['post', 'put', 'patch'] as const) {
          const res = await call(http, method, itemPath(r, record.id), users[c.role], { phone: `555 ${method}` });
          if (c.allowed) {
            expectStatus(res, 200);
            assert.equal(res.body.phone, `555 ${method}`);
          } else {
            expectError(res, 403, 'rest_forbidden');
          }
        }
        if (!c.allowed) assert.equal((await readLinked(http, r, record.id, users.administrator)).phone, undefined);
      });

      it(describeCase(c, 'delete'), async () => {
        const record = await owned(await ownerOf(c.owner), c.status, 'Target');
        const res = await call(http, 'delete', itemPath(r, record.id), users[c.role]);
        if (c.allowed) {
          expectStatus(res, 200);
          assert.equal(res.body.status, 'trash');
        } else {
          expectError(res, 403, 'rest_forbidden');
          assert.equal((await readLinked(http, r, record.id, users.administrator)).status, c.status);
          expectError(await call(http, 'delete', `${itemPath(r, record.id)}?force=true`, users[c.role]), 403, 'rest_forbidden');
        }
      });
    }

    it('lets an owner who may delete the record also delete it for good', async () => {
      const record = await owned(users.contributor, 'draft', 'Own draft');
      expectStatus(await call(http, 'delete', `${itemPath(r, record.id)}?force=true`, users.contributor), 200);
      expectError(await call(http, 'get', itemPath(r, record.id), users.editor), 404, `rest-${r.type}-not-found`);
    });

    it('refuses to let an author edit its former record once an editor gave it to someone else', async () => {
      const record = await owned(users.author, 'publish', 'Handed over');
      expectStatus(await call(http, 'patch', itemPath(r, record.id), users.editor, { author: users.editor.id }), 200);
      expectError(await call(http, 'patch', itemPath(r, record.id), users.author, { phone: '1' }), 403, 'rest_forbidden');
    });
  });

  describe('list', () => {
    it('answers the envelope keys in order with the paging headers and the default rest_url', async () => {
      await createNamed('Alpha', 'Beta', 'Gamma');
      const res = await listed('');
      expectStatus(res, 200);
      assert.deepEqual(Object.keys(res.body), [r.collection, 'rest_url', 'total', 'total_pages']);
      assert.equal(res.body.rest_url, `${PUBLIC_URL}${NS}/${r.collection}/?page=1&per_page=10&status=publish`);
      assert.equal(res.body.total, 3);
      assert.equal(res.body.total_pages, 1);
      assert.equal(res.headers['x-tec-total'], '3');
      assert.equal(res.headers['x-tec-totalpages'], '1');
      assert.equal(res.headers['x-wp-total'], '3');
      assert.equal(res.headers['x-wp-totalpages'], '1');
      assert.deepEqual(linkRels(res).next, undefined);
      for (const record of res.body[r.collection]) {
        assert.deepEqual(Object.keys(record), minimalKeys(r));
        assert.equal('json_ld' in record, false);
      }
      const exposed = String(res.headers['access-control-expose-headers'])
        .split(',')
        .map((h) => h.trim().toLowerCase());
      for (const header of ['x-tec-total', 'x-tec-totalpages', 'x-wp-total', 'x-wp-totalpages', 'link']) assert.ok(exposed.includes(header), exposed.join());
    });

    it('writes status=any into rest_url for contributors and up', async () => {
      for (const role of ['contributor', 'author', 'editor', 'administrator'] as const) {
        const res = await listed('', users[role]);
        assert.equal(res.body.rest_url, `${PUBLIC_URL}${NS}/${r.collection}/?page=1&per_page=10&status=any`, role);
      }
      assert.equal((await listed('', users.subscriber)).body.rest_url, `${PUBLIC_URL}${NS}/${r.collection}/?page=1&per_page=10&status=publish`);
    });

    it('lists a record exactly as the single GET returns it, without json_ld', async () => {
      const record = await named('Same Everywhere', { description: 'Text', ...r.fullFields, image: 'https://img.example.test/same.jpg' });
      const res = await listed('');
      assert.deepEqual(res.body[r.collection], [withoutJsonLd(await readLinked(http, r, record.id))]);
    });

    it('answers an empty list with zero totals', async () => {
      const res = await listed('');
      expectStatus(res, 200);
      assert.deepEqual(res.body, { [r.collection]: [], rest_url: `${PUBLIC_URL}${NS}/${r.collection}/?page=1&per_page=10&status=publish`, total: 0, total_pages: 0 });
      assert.equal(res.headers['x-tec-total'], '0');
      assert.equal(res.headers['x-tec-totalpages'], '0');
    });

    it('orders by publication date, newest first, with the id as tiebreaker', async () => {
      await named('Middle', { date: '2021-01-01 00:00:00' });
      await named('Oldest', { date: '2019-01-01 00:00:00' });
      await named('Newest', { date: '2023-01-01 00:00:00' });
      await named('Middle twin', { date: '2021-01-01 00:00:00' });
      await named('Middle triplet', { date: '2021-01-01 00:00:00' });
      assert.deepEqual(namesIn(await listed(''), r), ['Newest', 'Middle triplet', 'Middle twin', 'Middle', 'Oldest']);
      const paged = [];
      for (let page = 1; page <= 3; page++) paged.push(...namesIn(await listed(`per_page=2&page=${page}`), r));
      assert.deepEqual(paged, ['Newest', 'Middle triplet', 'Middle twin', 'Middle', 'Oldest']);
    });

    it('pages with per_page and page: next and previous URLs, keys and Link header', async () => {
      await createNamed('R1', 'R2', 'R3', 'R4', 'R5');
      const first = await listed('per_page=2');
      assert.deepEqual(namesIn(first, r), ['R5', 'R4']);
      assert.deepEqual(Object.keys(first.body), [r.collection, 'rest_url', 'next_rest_url', 'total', 'total_pages']);
      assert.equal(first.body.total, 5);
      assert.equal(first.body.total_pages, 3);
      assert.equal(new URL(first.body.next_rest_url).searchParams.get('page'), '2');
      assert.equal(linkRels(first).next, first.body.next_rest_url);
      assert.equal(linkRels(first).prev, undefined);

      const second = await listed('per_page=2&page=2');
      assert.deepEqual(namesIn(second, r), ['R3', 'R2']);
      assert.deepEqual(Object.keys(second.body), [r.collection, 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']);
      const previous = new URL(second.body.previous_rest_url);
      assert.equal(previous.searchParams.has('page'), false, second.body.previous_rest_url);
      assert.equal(previous.searchParams.get('per_page'), '2');
      assert.equal(linkRels(second).next, second.body.next_rest_url);
      assert.equal(linkRels(second).prev, second.body.previous_rest_url);

      const third = await listed('per_page=2&page=3');
      assert.deepEqual(namesIn(third, r), ['R1']);
      assert.deepEqual(Object.keys(third.body), [r.collection, 'rest_url', 'previous_rest_url', 'total', 'total_pages']);
      assert.equal(new URL(third.body.previous_rest_url).searchParams.get('page'), '2');
      assert.equal(third.headers['x-tec-totalpages'], '3');
    });

    it('follows next_rest_url and previous_rest_url to the neighbouring pages', async () => {
      await createNamed('R1', 'R2', 'R3');
      const first = await listed('per_page=2');
      const second = await http().get(pathOf(first.body.next_rest_url));
      assert.deepEqual(namesIn(second, r), ['R1']);
      const back = await http().get(pathOf(second.body.previous_rest_url));
      assert.deepEqual(namesIn(back, r), ['R3', 'R2']);
    });

    it('clamps per_page above 50 to 50', async () => {
      for (let i = 1; i <= 51; i++) await named(`Bulk ${String(i).padStart(2, '0')}`);
      assert.equal(await count(), 51);
      const res = await listed('per_page=100');
      expectStatus(res, 200);
      assert.equal(res.body[r.collection].length, 50);
      assert.equal(res.body.total, 51);
      assert.equal(res.body.total_pages, 2);
      assert.equal(new URL(res.body.rest_url).searchParams.get('per_page'), '50');
      const next = await http().get(pathOf(res.body.next_rest_url));
      assert.deepEqual(namesIn(next, r), ['Bulk 01']);
      const defaults = await listed('');
      assert.equal(defaults.body[r.collection].length, 10, 'the default page size is 10');
      assert.equal(defaults.body.total_pages, 6);
    });

    it('rejects per_page and page values that are not positive integers', async () => {
      for (const [param, value] of [
        ['per_page', '0'],
        ['per_page', '-1'],
        ['per_page', 'ten'],
        ['page', '0'],
        ['page', 'abc'],
        ['page', '1.5'],
      ]) {
        expectInvalidParam(await listed(`${param}=${value}`), param);
      }
    });

    it(`answers 404 ${r.type}-archive-page-not-found past the last page`, async () => {
      await createNamed('R1', 'R2', 'R3');
      expectStatus(await listed('per_page=2&page=2'), 200);
      const res = await listed('per_page=2&page=3');
      expectError(res, 404, `${r.type}-archive-page-not-found`);
      assert.equal(res.body.message, `The requested ${r.type} archive page does not exist`);
      expectError(await listed('page=2&search=nothing'), 404, `${r.type}-archive-page-not-found`);
    });

    it('ignores unknown query parameters', async () => {
      await createNamed('Kept');
      assert.deepEqual(namesIn(await listed('colour=blue&_embed=1&filter[x]=y'), r), ['Kept']);
    });

    describe('search', () => {
      it('finds a record by a word of its name or description, case-insensitively', async () => {
        await named('Blue Note Club');
        await named('Other', { description: 'Home of the blue whale' });
        await named('Unrelated');
        assert.deepEqual(namesIn(await listed('search=BLUE'), r), ['Other', 'Blue Note Club']);
        assert.deepEqual(namesIn(await listed('search=note%20blue'), r), ['Blue Note Club']);
        assert.deepEqual(namesIn(await listed('search=whale'), r), ['Other']);
      });

      it('finds a record by a word of its excerpt', async () => {
        const { db } = await openTestDatabase();
        const [record] = await createNamed('Quiet', 'Loud');
        await inTransaction(db, (trx) => trx('posts').where('id', record.id).update({ excerpt: 'A hidden gem' }));
        assert.deepEqual(namesIn(await listed('search=gem'), r), ['Quiet']);
      });

      for (const sample of r.searchSamples) {
        it(`finds a record by its ${sample.field} (${JSON.stringify(sample.search)} finds ${JSON.stringify(sample.value)})`, async () => {
          await named('Match', { [sample.field]: sample.value });
          await named('No match');
          const res = await listed(`search=${encodeURIComponent(sample.search)}`);
          assert.deepEqual(namesIn(res, r), ['Match']);
          assert.equal(res.body.total, 1);
        });
      }

      it('needs every word in one field: words spread over two fields do not match', async () => {
        const [first, second] = r.searchSamples;
        await named('Spread', { [first.field]: first.value, [second.field]: second.value });
        const spread = `${first.search.split(' ')[0]} ${second.search.split(' ')[0]}`;
        assert.deepEqual(namesIn(await listed(`search=${encodeURIComponent(spread)}`), r), []);
      });

      it('answers an empty list with totals 0 when nothing matches', async () => {
        await createNamed('Alpha', 'Beta');
        const res = await listed('search=polka');
        expectStatus(res, 200);
        assert.deepEqual(res.body[r.collection], []);
        assert.equal(res.body.total, 0);
        assert.equal(res.body.total_pages, 0);
        assert.equal(res.headers['x-tec-total'], '0');
        assert.equal(res.body.next_rest_url, undefined);
      });

      it('treats punctuation, % and _ as word separators, not as wildcards', async () => {
        await createNamed('ab', 'axb', 'xyz', 'b then a');
        assert.deepEqual(namesIn(await listed('search=a_b'), r), ['b then a', 'axb', 'ab']);
        assert.deepEqual(namesIn(await listed(`search=${encodeURIComponent('x%z')}`), r), ['xyz']);
        assert.deepEqual(namesIn(await listed(`search=${encodeURIComponent('then, a.')}`), r), ['b then a']);
      });

      it('does not find trashed records', async () => {
        const [gone] = await createNamed('Findable Gone', 'Findable Here');
        expectStatus(await call(http, 'delete', itemPath(r, gone.id), users.editor), 200);
        assert.deepEqual(namesIn(await listed('search=findable', users.editor), r), ['Findable Here']);
      });

      it('rejects an empty search', async () => {
        expectInvalidParam(await listed('search='), 'search');
      });
    });

    describe('event, has_events and only_with_upcoming', () => {
      const event = async (title: string, linked: number[], status = 'publish', startUtc = '2030-01-01 10:00:00') => {
        const { db } = await openTestDatabase();
        return insertEvent(db, { title, status, startUtc, endUtc: startUtc.replace(/ \d\d:/, ' 23:'), [r.linkKey]: linked });
      };

      it(`lists the ${r.collection} of one event`, async () => {
        const [a, b] = await createNamed('Linked A', 'Linked B', 'Unlinked');
        const both = await event('Both', [a.id, b.id]);
        const onlyB = await event('Only B', [b.id]);
        const none = await event('None', []);
        assert.deepEqual(namesIn(await listed(`event=${both}`), r), ['Linked B', 'Linked A']);
        assert.deepEqual(namesIn(await listed(`event=${onlyB}`), r), ['Linked B']);
        const empty = await listed(`event=${none}`);
        assert.deepEqual(namesIn(empty, r), []);
        assert.equal(empty.body.total, 0);
      });

      it('rejects an event id that names no event', async () => {
        const [record] = await createNamed('Not an event');
        for (const id of ['999999', String(record.id), 'abc', '0']) expectInvalidParam(await listed(`event=${id}`), 'event');
      });

      it('filters with has_events: true keeps records with a published event, false the others', async () => {
        const [published, drafted, pending, lonely] = await createNamed('Has published', 'Has draft only', 'Has pending only', 'Has none');
        await event('Published', [published.id]);
        await event('Draft', [drafted.id, published.id], 'draft');
        await event('Pending', [pending.id], 'pending');
        for (const value of ['true', '1', 'TRUE']) assert.deepEqual(namesIn(await listed(`has_events=${value}`), r), ['Has published'], value);
        for (const value of ['false', '0']) {
          assert.deepEqual(namesIn(await listed(`has_events=${value}`), r), ['Has none', 'Has pending only', 'Has draft only'], value);
        }
        assert.equal(lonely.status, 'publish');
        expectInvalidParam(await listed('has_events=maybe'), 'has_events');
      });

      it('filters with only_with_upcoming over every upcoming event, on the injected clock', async () => {
        const clocked = await testApp({ publicUrl: PUBLIC_URL }, () => new Date('2030-06-01T12:00:00Z'));
        const make = (value: string) => createLinked(clocked.http, r, users.editor, { [name]: value });
        const busy = await make('Busy');
        const later = await make('Later');
        const past = await make('Past only');
        const hidden = await make('Draft upcoming');
        const now = await make('Starts now');
        const trashedEvent = await make('Trashed upcoming');
        await make('No events');
        // 15 upcoming events for Busy, all before Later's only one: more than a page of upcoming events.
        for (let day = 2; day <= 16; day++) await event(`Busy ${day}`, [busy.id], 'publish', `2030-06-${String(day).padStart(2, '0')} 10:00:00`);
        await event('Later', [later.id], 'publish', '2030-12-01 10:00:00');
        await event('Past', [past.id, later.id], 'publish', '2030-05-31 10:00:00');
        await event('Past too', [past.id], 'publish', '2030-06-01 11:59:59');
        await event('Draft upcoming', [hidden.id], 'draft', '2030-07-01 10:00:00');
        await event('Now', [now.id], 'publish', '2030-06-01 12:00:00');
        await event('Trashed upcoming', [trashedEvent.id], 'trash', '2030-08-01 10:00:00');

        const list = (query: string, as?: TestUser) => listLinked(clocked.http, r, query, as);
        for (const value of ['true', '1']) {
          const res = await list(`only_with_upcoming=${value}`);
          assert.deepEqual(namesIn(res, r), ['Starts now', 'Later', 'Busy'], value);
          assert.equal(res.body.total, 3);
        }
        assert.deepEqual(namesIn(await list('only_with_upcoming=true&per_page=1&page=3'), r), ['Busy']);
        assert.deepEqual(namesIn(await list('only_with_upcoming=true', users.editor), r), ['Starts now', 'Draft upcoming', 'Later', 'Busy']);
        assert.equal((await list('only_with_upcoming=false')).body.total, 7);
        assert.equal((await list('')).body.total, 7);
      });

      it('keeps only_with_upcoming totals exact as time passes event starts (cached totals)', async () => {
        let clock = new Date('2030-06-01T12:00:00Z');
        const clocked = await testApp({ publicUrl: PUBLIC_URL }, () => new Date(clock));
        const early = await createLinked(clocked.http, r, users.editor, { [name]: 'Early' });
        const late = await createLinked(clocked.http, r, users.editor, { [name]: 'Late' });
        await event('Early show', [early.id], 'publish', '2030-06-01 13:00:00');
        await event('Late show', [late.id], 'publish', '2030-06-03 13:00:00');
        const total = async () => {
          const res = await listLinked(clocked.http, r, 'only_with_upcoming=1');
          assert.equal(Number(res.headers['x-wp-total']), res.body.total);
          return { total: res.body.total, names: namesIn(res, r) };
        };
        assert.deepEqual(await total(), { total: 2, names: ['Late', 'Early'] });
        clock = new Date('2030-06-01T12:30:00Z'); // no event started in between
        assert.deepEqual(await total(), { total: 2, names: ['Late', 'Early'] });
        clock = new Date('2030-06-02T00:00:00Z'); // Early's only event started
        assert.deepEqual(await total(), { total: 1, names: ['Late'] });
        await event('Early encore', [early.id], 'publish', '2030-06-05 13:00:00');
        assert.deepEqual(await total(), { total: 2, names: ['Late', 'Early'] });
        clock = new Date('2030-06-10T00:00:00Z');
        assert.deepEqual(await total(), { total: 0, names: [] });
      });

      it('combines the filters with AND', async () => {
        const [a, b] = await createNamed('Jazz A', 'Jazz B', 'Rock C');
        const both = await event('Both', [a.id, b.id]);
        assert.deepEqual(namesIn(await listed(`event=${both}&search=jazz%20b&has_events=true`), r), ['Jazz B']);
        assert.deepEqual(namesIn(await listed(`event=${both}&has_events=false`), r), []);
      });
    });

    describe('visibility and status', () => {
      const seedStatuses = async () => {
        await owned(users.editor, 'publish', 'Editor published');
        await owned(users.editor, 'draft', 'Editor draft');
        await owned(users.editor, 'private', 'Editor private');
        await owned(users.contributor, 'draft', 'Contributor draft');
        await owned(users.contributor, 'pending', 'Contributor pending');
        await owned(users.author, 'draft', 'Author draft');
        await owned(users.author, 'publish', 'Author published');
        const trashed = await owned(users.editor, 'publish', 'Editor trashed');
        expectStatus(await call(http, 'delete', itemPath(r, trashed.id), users.editor), 200);
      };
      const sorted = async (query: string, as?: TestUser) => namesIn(await listed(query, as), r).sort();

      it('shows anonymous callers and subscribers published records only', async () => {
        await seedStatuses();
        for (const as of [undefined, users.subscriber]) {
          assert.deepEqual(await sorted('', as), ['Author published', 'Editor published']);
          assert.deepEqual(await sorted('status=publish', as), ['Author published', 'Editor published']);
        }
      });

      it('shows contributors and authors the published records and their own unpublished ones', async () => {
        await seedStatuses();
        assert.deepEqual(await sorted('', users.contributor), ['Author published', 'Contributor draft', 'Contributor pending', 'Editor published']);
        assert.deepEqual(await sorted('', users.author), ['Author draft', 'Author published', 'Editor published']);
        assert.deepEqual(await sorted('status=draft', users.contributor), ['Contributor draft']);
        assert.deepEqual(await sorted('status=draft,pending', users.author), ['Author draft']);
        assert.deepEqual(await sorted('status=any', users.author), ['Author draft', 'Author published', 'Editor published']);
        assert.equal((await listed('', users.contributor)).body.total, 4);
      });

      it('shows editors everything but the trash by default, and what they ask for', async () => {
        await seedStatuses();
        const everything = ['Author draft', 'Author published', 'Contributor draft', 'Contributor pending', 'Editor draft', 'Editor private', 'Editor published'];
        for (const as of [users.editor, users.administrator]) {
          assert.deepEqual(await sorted('', as), everything);
          assert.deepEqual(await sorted('status=any', as), everything);
          assert.deepEqual(await sorted('status=draft', as), ['Author draft', 'Contributor draft', 'Editor draft']);
          assert.deepEqual(await sorted('status=trash', as), ['Editor trashed']);
          assert.deepEqual(await sorted('status=private,pending', as), ['Contributor pending', 'Editor private']);
          assert.deepEqual(await sorted('status[]=publish&status[]=trash', as), ['Author published', 'Editor published', 'Editor trashed']);
          assert.deepEqual(await sorted('status=publish&status=private', as), ['Author published', 'Editor private', 'Editor published']);
        }
        const res = await listed('status=draft,%20pending', users.editor);
        assert.equal(new URL(res.body.rest_url).searchParams.get('status'), 'draft,pending');
        assert.equal(res.body.total, 4);
      });

      it('rejects any status but publish from anonymous callers and subscribers', async () => {
        for (const as of [undefined, users.subscriber]) {
          for (const status of ['draft', 'any', 'trash', 'publish,draft', 'private']) expectInvalidParam(await listed(`status=${status}`, as), 'status');
        }
      });

      it('rejects an unknown status', async () => {
        expectInvalidParam(await listed('status=bogus', users.editor), 'status');
        expectInvalidParam(await listed('status=publish,bogus', users.editor), 'status');
      });
    });

    it('carries every filter, URL-encoded, into rest_url and the page URLs, which work', async () => {
      const clocked = await testApp({ publicUrl: PUBLIC_URL }, () => new Date('2030-06-01T12:00:00Z'));
      const { db } = await openTestDatabase();
      const records: LinkedRecord[] = [];
      for (const i of [1, 2, 3]) records.push(await createLinked(clocked.http, r, users.editor, { [name]: `Rock & Roll ${i}` }));
      await createLinked(clocked.http, r, users.editor, { [name]: 'Rock & Roll elsewhere' });
      const ids = records.map((record) => record.id);
      const eventId = await insertEvent(db, { title: 'Show', startUtc: '2030-07-01 20:00:00', endUtc: '2030-07-01 23:00:00', [r.linkKey]: ids });
      const query = new URLSearchParams({
        search: 'roll & rock',
        event: String(eventId),
        has_events: 'true',
        only_with_upcoming: 'true',
        status: 'publish',
        per_page: '1',
        page: '2',
      });
      const res = await listLinked(clocked.http, r, query.toString());
      assert.deepEqual(namesIn(res, r), ['Rock & Roll 2']);
      assert.equal(res.body.total, 3);
      const expectFilters = (url: string, page: string | null) => {
        assert.ok(!/\s/.test(url), `not encoded: ${url}`);
        const parsed = new URL(url);
        assert.equal(`${parsed.origin}${parsed.pathname}`, `${PUBLIC_URL}${NS}/${r.collection}/`);
        const params = parsed.searchParams;
        assert.equal(params.get('search'), 'roll & rock', url);
        assert.equal(params.get('event'), String(eventId), url);
        assert.ok(['true', '1'].includes(params.get('has_events') ?? ''), url);
        assert.ok(['true', '1'].includes(params.get('only_with_upcoming') ?? ''), url);
        assert.equal(params.get('status'), 'publish', url);
        assert.equal(params.get('per_page'), '1', url);
        assert.equal(params.get('page'), page, url);
      };
      expectFilters(res.body.rest_url, '2');
      expectFilters(res.body.next_rest_url, '3');
      expectFilters(res.body.previous_rest_url, null);

      const next = await clocked.http().get(pathOf(res.body.next_rest_url));
      assert.deepEqual(namesIn(next, r), ['Rock & Roll 1']);
      assert.equal(next.body.total, 3);
      const previous = await clocked.http().get(pathOf(res.body.previous_rest_url));
      assert.deepEqual(namesIn(previous, r), ['Rock & Roll 3']);
      const again = await clocked.http().get(pathOf(res.body.rest_url));
      assert.deepEqual(again.body, res.body);
    });
  });
}
