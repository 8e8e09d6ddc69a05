import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, testApp, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { expectInvalidParam } from '../../helpers/linked.js';
import {
  PUBLIC_URL,
  type TermResource,
  ROLES_WEAKEST_FIRST,
  type TermRecord,
  type Http,
  collectionPath,
  itemPath,
  selfUrl,
  permalink,
  call,
  createTerm,
  readTerm,
  list,
  namesOf,
  pathOf,
  linkRels,
} from '../../helpers/terms.js';

/**
 * The behaviour `/categories` and `/tags` share: create, read, update, delete, permissions and
 * listing. `other` is the other term resource (for cross-taxonomy ids).
 */
export function describeSharedTermBehaviour(r: TermResource, other: TermResource): void {
  describe('behaviour shared by categories and tags', () => sharedTermBehaviour(r, other));
}

function sharedTermBehaviour(r: TermResource, other: TermResource): void {
  let http: Http;
  let users: Record<Role, TestUser>;
  const create = (body: Record<string, unknown>, as: TestUser = users.editor) => createTerm(http, r, as, body);
  const createNamed = async (...names: string[]) => {
    const terms: TermRecord[] = [];
    for (const name of names) terms.push(await create({ name }));
    return terms;
  };

  beforeEach(async () => {
    ({ http } = await testApp({ publicUrl: PUBLIC_URL }));
    users = await createUsers();
  });

  describe('create', () => {
    it(`creates a ${r.noun}: 201, Location header and the record keys in order`, async () => {
      const res = await call(http, 'post', collectionPath(r), users.editor, { name: 'Live Music', description: 'Loud evenings.' });
      expectStatus(res, 201);
      const term = res.body as TermRecord;
      assert.ok(Number.isInteger(term.id) && term.id > 0);
      assert.equal(res.headers.location, `${PUBLIC_URL}/wp-json/tribe/events/v1/${r.collection}/${term.id}`);
      assert.deepEqual(Object.keys(term), r.keys);
      const expected: Record<string, unknown> = {
        id: term.id,
        count: 0,
        description: 'Loud evenings.',
        name: 'Live Music',
        slug: 'live-music',
        taxonomy: r.taxonomy,
      };
      if (r.hierarchical) expected.parent = 0;
      Object.assign(expected, {
        meta: [],
        url: permalink(r, 'live-music'),
        urls: { self: selfUrl(r, term.id), collection: `${PUBLIC_URL}${collectionPath(r)}` },
      });
      assert.deepEqual(term, expected);
    });

    it('serves the created record at its Location', async () => {
      const res = await call(http, 'post', collectionPath(r), users.editor, { name: 'Findable' });
      expectStatus(res, 201);
      const read = await http().get(pathOf(res.headers.location));
      expectStatus(read, 200);
      assert.deepEqual(read.body, res.body);
    });

    it('accepts a form-encoded body', async () => {
      const res = await http()
        .post(collectionPath(r))
        .set('Authorization', users.editor.authorization)
        .type('form')
        .send('name=Form+Term&description=Sent+as+a+form&slug=form-slug');
      expectStatus(res, 201);
      assert.equal(res.body.name, 'Form Term');
      assert.equal(res.body.description, 'Sent as a form');
      assert.equal(res.body.slug, 'form-slug');
    });

    it('derives the slug from the name, without accents and in lower case', async () => {
      assert.equal((await create({ name: 'Café Été Spécial' })).slug, 'cafe-ete-special');
      assert.equal((await create({ name: 'Rock & Roll, Live!' })).slug, 'rock-roll-live');
      assert.equal((await create({ name: 'ÜBER Ärger' })).slug, 'uber-arger');
    });

    it('sanitises an explicit slug', async () => {
      assert.equal((await create({ name: 'One', slug: '  Hello World! Ça Va ' })).slug, 'hello-world-ca-va');
      assert.equal((await create({ name: 'Two', slug: 'MiXeD_Case--Slug' })).slug, 'mixed_case-slug');
    });

    it('gives a clashing slug the suffix -2, then -3', async () => {
      assert.equal((await create({ name: 'Jazz' })).slug, 'jazz');
      assert.equal((await create({ name: 'Jazz!' })).slug, 'jazz-2');
      assert.equal((await create({ name: 'Jazz?' })).slug, 'jazz-3');
      assert.equal((await create({ name: 'Something else', slug: 'jazz' })).slug, 'jazz-4');
    });

    it(`keeps slugs unique per taxonomy: a ${other.noun} may use the same slug`, async () => {
      const mine = await create({ name: 'Shared Name' });
      const theirs = await createTerm(http, other, users.editor, { name: 'Shared Name' });
      assert.equal(mine.slug, 'shared-name');
      assert.equal(theirs.slug, 'shared-name');
    });

    it('rejects an empty slug and one without a letter or digit', async () => {
      for (const slug of ['', '!!!', ' - ']) {
        const res = await call(http, 'post', collectionPath(r), users.editor, { name: 'Valid name', slug });
        assert.ok('slug' in (expectError(res, 400, 'rest_invalid_param').params as object), JSON.stringify(slug));
      }
    });

    it('gives distinct slugs to concurrent creates of names with one slug', async () => {
      const names = ['Same!', 'Same?', 'Same.', 'Same;', 'Same:'];
      const results = await Promise.all(names.map((name) => call(http, 'post', collectionPath(r), users.editor, { name })));
      for (const res of results) expectStatus(res, 201);
      assert.deepEqual(results.map((res) => res.body.slug).sort(), ['same', 'same-2', 'same-3', 'same-4', 'same-5']);
    });

    it('accepts only one of several concurrent creates with the same name', async () => {
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => call(http, 'post', collectionPath(r), users.editor, { name: 'Race' })));
      const created = results.filter((res) => res.status === 201);
      assert.equal(created.length, 1, results.map((res) => `${res.status} ${res.body.slug ?? res.body.code}`).join(', '));
      for (const res of results.filter((res) => res.status !== 201)) {
        assert.equal(expectError(res, 400, 'term_exists').term_id, created[0].body.id);
      }
      assert.equal((await list(http, r, 'hide_empty=false')).body.total, 1);
    });

    it('never answers 500 to a very long name or description', async () => {
      const attempts = [{ name: 'N'.repeat(300) }, { name: 'Long description', description: 'D'.repeat(70_000) }];
      for (const body of attempts) {
        const res = await call(http, 'post', collectionPath(r), users.editor, body);
        if (res.status === 201) {
          assert.equal(res.body.name, body.name);
          assert.equal(res.body.description, body.description ?? '');
        } else {
          const data = expectError(res, 400, 'rest_invalid_param');
          assert.equal(Object.keys(data.params as object).length, 1, JSON.stringify(data));
        }
      }
      const term = await create({ name: 'Short' });
      const updated = await call(http, 'patch', itemPath(r, term.id), users.editor, { name: 'U'.repeat(300), description: 'D'.repeat(70_000) });
      assert.ok([200, 400].includes(updated.status), `${updated.status} ${JSON.stringify(updated.body)}`);
    });

    it('rejects a duplicate name that differs only in the case of non-ASCII letters', async () => {
      const summer = await create({ name: 'Été Festival' });
      const res = await call(http, 'post', collectionPath(r), users.editor, { name: 'ÉTÉ FESTIVAL' });
      assert.equal(expectError(res, 400, 'term_exists').term_id, summer.id);
    });

    it('answers 400 rest_missing_callback_param naming name when there is no body', async () => {
      const res = await http().post(collectionPath(r)).set('Authorization', users.editor.authorization);
      const data = expectError(res, 400, 'rest_missing_callback_param');
      assert.deepEqual(data.params, ['name']);
      assert.equal(res.body.message, 'Missing parameter(s): name');
    });

    it('answers 400 rest_missing_callback_param when the body has no name', async () => {
      for (const body of [{}, { description: 'No name here' }]) {
        const res = await call(http, 'post', collectionPath(r), users.editor, body);
        assert.deepEqual(expectError(res, 400, 'rest_missing_callback_param').params, ['name']);
      }
    });

    it('rejects an empty name with rest_invalid_param', async () => {
      for (const name of ['', '   ']) {
        const res = await call(http, 'post', collectionPath(r), users.editor, { name });
        const data = expectError(res, 400, 'rest_invalid_param');
        assert.ok('name' in (data.params as object), JSON.stringify(data));
      }
      assert.equal((await list(http, r, 'hide_empty=false')).body.total, 0);
    });

    it('rejects a duplicate name at the same level, case-insensitively, naming the existing term', async () => {
      const first = await create({ name: 'Workshops' });
      for (const name of ['Workshops', 'WORKSHOPS', 'workshops']) {
        const res = await call(http, 'post', collectionPath(r), users.editor, { name });
        const data = expectError(res, 400, 'term_exists');
        assert.equal(data.term_id, first.id);
        assert.equal(res.body.message, r.existsMessage);
      }
      assert.equal((await list(http, r, 'hide_empty=false')).body.total, 1);
    });

    it('allows a duplicate name when a different, unused slug is given', async () => {
      const first = await create({ name: 'Workshops' });
      const second = await create({ name: 'Workshops', slug: 'workshops-for-kids' });
      assert.notEqual(second.id, first.id);
      assert.equal(second.name, 'Workshops');
      assert.equal(second.slug, 'workshops-for-kids');
    });

    it('rejects a duplicate name whose given slug is already taken', async () => {
      const first = await create({ name: 'Workshops' });
      const res = await call(http, 'post', collectionPath(r), users.editor, { name: 'Workshops', slug: 'workshops' });
      assert.equal(expectError(res, 400, 'term_exists').term_id, first.id);
    });

    it('ignores read-only and unknown fields in the body', async () => {
      const res = await call(http, 'post', collectionPath(r), users.editor, {
        name: 'Round Trip',
        id: 999999,
        count: 7,
        taxonomy: 'something_else',
        meta: ['x'],
        url: 'http://elsewhere.test/',
        urls: { self: 'http://elsewhere.test/' },
        unknown_field: true,
      });
      expectStatus(res, 201);
      assert.notEqual(res.body.id, 999999);
      assert.equal(res.body.count, 0);
      assert.equal(res.body.taxonomy, r.taxonomy);
      assert.deepEqual(res.body.meta, []);
      assert.equal(res.body.url, permalink(r, 'round-trip'));
    });

    // WordPress cleans every term description with kses's inline tags, for administrators too, and
    // keeps the text of what it removes (as the plugin answers; docs/contract.md §3).
    it('cleans HTML in the description from editors and administrators too', async () => {
      const html = '<p class="x" onclick="track()">Hi <a href="https://example.test/" title="t">there</a></p><script>alert(1)</script>';
      const cleaned = 'Hi <a href="https://example.test/" title="t">there</a>alert(1)';
      assert.equal((await create({ name: 'Rich', description: html }, users.editor)).description, cleaned);
      assert.equal((await create({ name: 'Richer', description: html }, users.administrator)).description, cleaned);
    });
  });

  describe('read', () => {
    it(`returns a ${r.noun} by id to anyone, without credentials`, async () => {
      const term = await create({ name: 'Readable', description: 'Text' });
      const res = await http().get(itemPath(r, term.id));
      expectStatus(res, 200);
      assert.deepEqual(res.body, term);
      assert.deepEqual(Object.keys(res.body), r.keys);
    });

    it('returns the same record to a logged-in reader', async () => {
      const term = await create({ name: 'Readable' });
      const res = await call(http, 'get', itemPath(r, term.id), users.subscriber);
      expectStatus(res, 200);
      assert.deepEqual(res.body, term);
    });

    it('accepts a trailing slash on the item and collection paths', async () => {
      const term = await create({ name: 'Slashed' });
      const single = await http().get(`${itemPath(r, term.id)}/`);
      expectStatus(single, 200);
      assert.equal(single.body.id, term.id);
      assert.equal((await list(http, r, '')).status, 200);
      const res = await http().get(`${collectionPath(r)}/?hide_empty=false`);
      assert.deepEqual(namesOf(res, r), ['Slashed']);
    });

    it('answers 404 rest-term-not-found for an id that names nothing', async () => {
      await create({ name: 'Exists' });
      for (const id of [999999, 0]) {
        const res = await http().get(itemPath(r, id));
        expectError(res, 404, 'rest-term-not-found');
        assert.equal(res.body.message, `Term with ID ${id} does not exist.`);
      }
    });

    // As the plugin answers (its `id` argument checks the taxonomy): docs/contract.md §4.
    it(`answers 400 rest_invalid_param on id for the id of a ${other.noun}`, async () => {
      const foreign = await createTerm(http, other, users.editor, { name: 'Foreign' });
      expectInvalidParam(await http().get(itemPath(r, foreign.id)), 'id');
    });

    it('answers 404 rest_no_route for an id that is not digits', async () => {
      for (const id of ['abc', '1abc', '1.5']) {
        const res = await http().get(itemPath(r, id));
        expectError(res, 404, 'rest_no_route');
        assert.equal(res.body.message, 'No route was found matching the URL and request method.');
      }
    });
  });

  describe('update', () => {
    for (const method of ['post', 'put', 'patch'] as const) {
      it(`changes only the fields sent (${method.toUpperCase()})`, async () => {
        const term = await create({ name: 'Original', description: 'Keep me', slug: 'original-slug' });
        const res = await call(http, method, itemPath(r, term.id), users.editor, { description: 'Changed' });
        expectStatus(res, 200);
        assert.deepEqual(res.body, { ...term, description: 'Changed' });
        assert.deepEqual(await readTerm(http, r, term.id), res.body);
      });

      it(`answers 404 rest-term-not-found for an id that names nothing (${method.toUpperCase()})`, async () => {
        const res = await call(http, method, itemPath(r, 999999), users.editor, { name: 'Ghost' });
        expectError(res, 404, 'rest-term-not-found');
        assert.equal(res.body.message, 'Term with ID 999999 does not exist.');
        assert.equal((await list(http, r, 'hide_empty=false')).body.total, 0);
      });
    }

    it('renames a term and keeps its slug and url', async () => {
      const term = await create({ name: 'Old Name', description: 'Same' });
      const res = await call(http, 'post', itemPath(r, term.id), users.editor, { name: 'New Name' });
      expectStatus(res, 200);
      assert.deepEqual(res.body, { ...term, name: 'New Name' });
    });

    it('changes the slug, sanitised, and the url with it', async () => {
      const term = await create({ name: 'Sluggy' });
      const res = await call(http, 'patch', itemPath(r, term.id), users.editor, { slug: 'Brand New Slug!' });
      expectStatus(res, 200);
      assert.equal(res.body.slug, 'brand-new-slug');
      assert.equal(res.body.url, permalink(r, 'brand-new-slug'));
      assert.equal(res.body.name, 'Sluggy');
    });

    it('rejects a slug taken by another term with term_exists naming that term', async () => {
      const taken = await create({ name: 'First', slug: 'taken' });
      const term = await create({ name: 'Second' });
      const res = await call(http, 'put', itemPath(r, term.id), users.editor, { slug: 'taken' });
      assert.equal(expectError(res, 400, 'term_exists').term_id, taken.id);
      assert.deepEqual(await readTerm(http, r, term.id), term);
    });

    it("accepts the term's own slug sent back unchanged", async () => {
      const term = await create({ name: 'Mine' });
      const res = await call(http, 'put', itemPath(r, term.id), users.editor, { slug: term.slug, name: 'Mine too' });
      expectStatus(res, 200);
      assert.equal(res.body.slug, 'mine');
      assert.equal(res.body.name, 'Mine too');
    });

    it('rejects a rename to a name used at the same level with term_exists', async () => {
      const existing = await create({ name: 'Taken Name' });
      const term = await create({ name: 'Free Name' });
      const res = await call(http, 'patch', itemPath(r, term.id), users.editor, { name: 'taken name' });
      assert.equal(expectError(res, 400, 'term_exists').term_id, existing.id);
      assert.equal((await readTerm(http, r, term.id)).name, 'Free Name');
    });

    it("accepts a change of case in the term's own name", async () => {
      const term = await create({ name: 'quiet' });
      const res = await call(http, 'patch', itemPath(r, term.id), users.editor, { name: 'QUIET' });
      expectStatus(res, 200);
      assert.equal(res.body.name, 'QUIET');
    });

    it('rejects an empty name on update', async () => {
      const term = await create({ name: 'Named' });
      const res = await call(http, 'patch', itemPath(r, term.id), users.editor, { name: '' });
      assert.ok('name' in (expectError(res, 400, 'rest_invalid_param').params as object));
      assert.equal((await readTerm(http, r, term.id)).name, 'Named');
    });

    it('accepts a form-encoded update body', async () => {
      const term = await create({ name: 'Formed' });
      const res = await http().put(itemPath(r, term.id)).set('Authorization', users.editor.authorization).type('form').send('description=Via+a+form&name=Formed+again');
      expectStatus(res, 200);
      assert.deepEqual(res.body, { ...term, description: 'Via a form', name: 'Formed again' });
    });

    it('answers 200 with the term unchanged for an update without fields', async () => {
      const term = await create({ name: 'Stable', description: 'Unchanged' });
      const bare = await http().post(itemPath(r, term.id)).set('Authorization', users.editor.authorization);
      expectStatus(bare, 200);
      assert.deepEqual(bare.body, term);
      for (const method of ['put', 'patch'] as const) {
        const res = await call(http, method, itemPath(r, term.id), users.editor, {});
        expectStatus(res, 200);
        assert.deepEqual(res.body, term);
      }
    });

    it('accepts a record read with GET, modified and sent back whole', async () => {
      const term = await create({ name: 'Round', description: 'Trip' });
      const res = await call(http, 'put', itemPath(r, term.id), users.editor, { ...(await readTerm(http, r, term.id)), description: 'Tripped' });
      expectStatus(res, 200);
      assert.deepEqual(res.body, { ...term, description: 'Tripped' });
    });

    it(`answers 400 rest_invalid_param on id when updating a ${other.noun}`, async () => {
      const foreign = await createTerm(http, other, users.editor, { name: 'Foreign' });
      const res = await call(http, 'put', itemPath(r, foreign.id), users.editor, { name: 'Hijacked' });
      expectInvalidParam(res, 'id');
      assert.equal((await readTerm(http, other, foreign.id)).name, 'Foreign');
    });
  });

  describe('delete', () => {
    it('deletes for good and answers with the term as it was', async () => {
      const term = await create({ name: 'Doomed', description: 'Soon gone' });
      const res = await call(http, 'delete', itemPath(r, term.id), users.editor);
      expectStatus(res, 200);
      assert.deepEqual(res.body, term);
      expectError(await http().get(itemPath(r, term.id)), 404, 'rest-term-not-found');
      assert.equal((await list(http, r, 'hide_empty=false')).body.total, 0);
    });

    it('answers 404 rest-term-not-found on a second delete', async () => {
      const term = await create({ name: 'Doomed' });
      expectStatus(await call(http, 'delete', itemPath(r, term.id), users.editor), 200);
      const res = await call(http, 'delete', itemPath(r, term.id), users.editor);
      expectError(res, 404, 'rest-term-not-found');
      assert.equal(res.body.message, `Term with ID ${term.id} does not exist.`);
    });

    it(`answers 400 rest_invalid_param on id when deleting a ${other.noun}, which stays`, async () => {
      const foreign = await createTerm(http, other, users.editor, { name: 'Foreign' });
      expectInvalidParam(await call(http, 'delete', itemPath(r, foreign.id), users.editor), 'id');
      await readTerm(http, other, foreign.id);
    });

    // The right to manage the taxonomy is checked before the term is looked up (docs/contract.md §4).
    it('answers 403 before 404 to a caller who may not manage the taxonomy', async () => {
      expectError(await call(http, 'delete', itemPath(r, 999999), users.subscriber), 403, 'rest_forbidden');
      expectError(await call(http, 'put', itemPath(r, 999999), users.subscriber, { name: 'X' }), 403, 'rest_forbidden');
      expectError(await call(http, 'delete', itemPath(r, 999999), users.editor), 404, 'rest-term-not-found');
    });

    it('frees the name and slug of a deleted term', async () => {
      const term = await create({ name: 'Reborn' });
      expectStatus(await call(http, 'delete', itemPath(r, term.id), users.editor), 200);
      const again = await create({ name: 'Reborn' });
      assert.equal(again.slug, 'reborn');
    });
  });

  describe('permissions', () => {
    for (const role of ROLES_WEAKEST_FIRST) {
      const allowed = r.managers.includes(role);
      const who = `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}`;

      it(`${allowed ? `lets ${who} create` : `refuses to let ${who} create`} a ${r.noun}${allowed ? '' : ' (403 rest_forbidden)'}`, async () => {
        const res = await call(http, 'post', collectionPath(r), users[role], { name: `By ${role}` });
        if (allowed) {
          expectStatus(res, 201);
          assert.equal(res.body.name, `By ${role}`);
        } else {
          expectError(res, 403, 'rest_forbidden');
          assert.equal(res.body.message, 'Sorry, you are not allowed to do that.');
          assert.equal((await list(http, r, 'hide_empty=false')).body.total, 0);
        }
      });

      it(`${allowed ? `lets ${who} update` : `refuses to let ${who} update`} a ${r.noun}${allowed ? '' : ' (403 rest_forbidden)'}`, async () => {
        const term = await create({ name: 'Target' }, users.administrator);
        for (const method of ['post', 'put', 'patch'] as const) {
          const res = await call(http, method, itemPath(r, term.id), users[role], { description: `Edited with ${method}` });
          if (allowed) {
            expectStatus(res, 200);
            assert.equal(res.body.description, `Edited with ${method}`);
          } else {
            expectError(res, 403, 'rest_forbidden');
          }
        }
        if (!allowed) assert.deepEqual(await readTerm(http, r, term.id), term);
      });

      it(`${allowed ? `lets ${who} delete` : `refuses to let ${who} delete`} a ${r.noun}${allowed ? '' : ' (403 rest_forbidden)'}`, async () => {
        const term = await create({ name: 'Target' }, users.administrator);
        const res = await call(http, 'delete', itemPath(r, term.id), users[role]);
        if (allowed) {
          expectStatus(res, 200);
          expectError(await http().get(itemPath(r, term.id)), 404, 'rest-term-not-found');
        } else {
          expectError(res, 403, 'rest_forbidden');
          await readTerm(http, r, term.id);
        }
      });
    }

    it('answers 401 rest_forbidden to an anonymous create, before looking at the body', async () => {
      const attempts = [
        http().post(collectionPath(r)),
        http().post(collectionPath(r)).send({}),
        http().post(collectionPath(r)).send({ name: '' }),
        http().post(collectionPath(r)).send({ name: 'Valid' }),
        http().post(collectionPath(r)).type('form').send('name=Valid'),
      ];
      for (const attempt of attempts) {
        const res = await attempt;
        expectError(res, 401, 'rest_forbidden');
        assert.equal(res.body.message, 'Sorry, you are not allowed to do that.');
      }
      assert.equal((await list(http, r, 'hide_empty=false')).body.total, 0);
    });

    it('answers 401 rest_forbidden to an anonymous update, whether or not the id exists', async () => {
      const term = await create({ name: 'Target' });
      for (const id of [term.id, 999999]) {
        for (const method of ['post', 'put', 'patch'] as const) {
          expectError(await http()[method](itemPath(r, id)).send({ name: '' }), 401, 'rest_forbidden');
          expectError(await http()[method](itemPath(r, id)).send({ name: 'Changed' }), 401, 'rest_forbidden');
        }
      }
      assert.deepEqual(await readTerm(http, r, term.id), term);
    });

    it('answers 401 rest_forbidden to an anonymous delete, whether or not the id exists', async () => {
      const term = await create({ name: 'Target' });
      expectError(await http().delete(itemPath(r, term.id)), 401, 'rest_forbidden');
      expectError(await http().delete(itemPath(r, 999999)), 401, 'rest_forbidden');
      await readTerm(http, r, term.id);
    });

    const badCredentials: Array<[string, () => string]> = [
      ['a wrong secret', () => `Basic ${Buffer.from(`editor:not-the-right-secret-0123`).toString('base64')}`],
      ['an unknown login', () => `Basic ${Buffer.from(`nobody:${users.editor.secret}`).toString('base64')}`],
      ['a wrong bearer token', () => 'Bearer not-the-right-secret-0123456789'],
      ['a Basic value without a login', () => `Basic ${Buffer.from(users.editor.secret).toString('base64')}`],
    ];
    for (const [what, header] of badCredentials) {
      it(`answers 401 rest_invalid_credentials to ${what}, on writes and reads alike`, async () => {
        const term = await create({ name: 'Target' });
        const requests = [
          http().post(collectionPath(r)).send({ name: 'Intruder' }),
          http().put(itemPath(r, term.id)).send({ name: 'Intruder' }),
          http().delete(itemPath(r, term.id)),
          http().get(itemPath(r, term.id)),
          http().get(`${collectionPath(r)}?hide_empty=false`),
        ];
        for (const req of requests) expectError(await req.set('Authorization', header()), 401, 'rest_invalid_credentials');
        assert.deepEqual(await readTerm(http, r, term.id), term);
      });
    }

    it('accepts the secret alone as a bearer token', async () => {
      const res = await http().post(collectionPath(r)).set('Authorization', `Bearer ${users.editor.secret}`).send({ name: 'Bearer Made' });
      expectStatus(res, 201);
      const read = await http().get(itemPath(r, res.body.id)).set('Authorization', `Bearer ${users.subscriber.secret}`);
      expectStatus(read, 200);
    });
  });

  describe('list', () => {
    const listed = (query: string) => list(http, r, query);

    it('answers the envelope keys in order with the paging headers', async () => {
      await createNamed('Beta', 'Alpha', 'Gamma');
      const res = await listed('hide_empty=false');
      expectStatus(res, 200);
      assert.deepEqual(Object.keys(res.body), ['rest_url', 'total', 'total_pages', r.collection]);
      assert.equal(res.body.total, 3);
      assert.equal(res.body.total_pages, 1);
      assert.deepEqual(namesOf(res, r), ['Alpha', 'Beta', 'Gamma']);
      for (const term of res.body[r.collection]) assert.deepEqual(Object.keys(term), r.keys);
      const restUrl = new URL(res.body.rest_url);
      assert.equal(`${restUrl.origin}${restUrl.pathname}`, `${PUBLIC_URL}${collectionPath(r)}/`);
      assert.equal(res.headers['x-tec-total'], '3');
      assert.equal(res.headers['x-tec-totalpages'], '1');
      assert.equal(res.headers['x-wp-total'], '3');
      assert.equal(res.headers['x-wp-totalpages'], '1');
      const rels = linkRels(res);
      assert.equal(rels.next, undefined);
      assert.equal(rels.prev, undefined);
    });

    it('lists a term exactly as the single GET returns it', async () => {
      const [term] = await createNamed('Same Everywhere');
      const res = await listed('hide_empty=false');
      assert.deepEqual(res.body[r.collection], [await readTerm(http, r, term.id)]);
    });

    it('exposes the paging headers to browsers', async () => {
      const res = await listed('hide_empty=false');
      const exposed = String(res.headers['access-control-expose-headers'])
        .split(',')
        .map((h) => h.trim().toLowerCase());
      for (const name of ['x-tec-total', 'x-tec-totalpages', 'x-wp-total', 'x-wp-totalpages', 'link']) assert.ok(exposed.includes(name), exposed.join());
    });

    it(`hides ${r.collection} without published events by default`, async () => {
      await createNamed('Empty One', 'Empty Two');
      for (const query of ['', 'hide_empty=true', 'hide_empty=1']) {
        const res = await listed(query);
        expectStatus(res, 200);
        assert.deepEqual(res.body[r.collection], []);
        assert.equal(res.body.total, 0);
        assert.equal(res.body.total_pages, 0);
        assert.equal(res.headers['x-tec-total'], '0');
        assert.equal(res.headers['x-tec-totalpages'], '0');
        assert.equal(res.body.next_rest_url, undefined);
      }
    });

    it('shows empty terms with hide_empty=false, 0 or FALSE', async () => {
      await createNamed('Empty One', 'Empty Two');
      for (const value of ['false', '0', 'FALSE']) {
        const res = await listed(`hide_empty=${value}`);
        assert.deepEqual(namesOf(res, r), ['Empty One', 'Empty Two'], value);
        assert.equal(res.body.total, 2);
      }
    });

    it('rejects a hide_empty value that is not a boolean', async () => {
      const res = await listed('hide_empty=maybe');
      assert.ok('hide_empty' in (expectError(res, 400, 'rest_invalid_param').params as object));
    });

    it('pages through every term with per_page and page', async () => {
      await createNamed('Term 1', 'Term 2', 'Term 3', 'Term 4', 'Term 5');
      const first = await listed('hide_empty=false&per_page=2');
      assert.deepEqual(namesOf(first, r), ['Term 1', 'Term 2']);
      assert.equal(first.body.total, 5);
      assert.equal(first.body.total_pages, 3);
      assert.equal(first.headers['x-wp-totalpages'], '3');
      assert.deepEqual(Object.keys(first.body), ['rest_url', 'total', 'total_pages', r.collection, 'next_rest_url']);
      assert.equal(new URL(first.body.next_rest_url).searchParams.get('page'), '2');
      assert.deepEqual(linkRels(first).next, first.body.next_rest_url);
      assert.equal(linkRels(first).prev, undefined);

      const second = await listed('hide_empty=false&per_page=2&page=2');
      assert.deepEqual(namesOf(second, r), ['Term 3', 'Term 4']);
      assert.deepEqual(Object.keys(second.body), ['rest_url', 'total', 'total_pages', r.collection, 'next_rest_url', 'previous_rest_url']);
      assert.equal(new URL(second.body.next_rest_url).searchParams.get('page'), '3');
      const previousOfSecond = new URL(second.body.previous_rest_url);
      assert.equal(previousOfSecond.searchParams.has('page'), false, second.body.previous_rest_url);
      assert.equal(previousOfSecond.searchParams.get('per_page'), '2');
      assert.equal(linkRels(second).next, second.body.next_rest_url);
      assert.equal(linkRels(second).prev, second.body.previous_rest_url);

      const third = await listed('hide_empty=false&per_page=2&page=3');
      assert.deepEqual(namesOf(third, r), ['Term 5']);
      assert.deepEqual(Object.keys(third.body), ['rest_url', 'total', 'total_pages', r.collection, 'previous_rest_url']);
      assert.equal(new URL(third.body.previous_rest_url).searchParams.get('page'), '2');
      assert.equal(linkRels(third).next, undefined);
      assert.equal(linkRels(third).prev, third.body.previous_rest_url);
      assert.equal(third.body.total, 5);
    });

    it('follows next_rest_url and previous_rest_url to the neighbouring pages', async () => {
      await createNamed('Term 1', 'Term 2', 'Term 3');
      const first = await listed('hide_empty=false&per_page=2');
      const second = await http().get(pathOf(first.body.next_rest_url));
      assert.deepEqual(namesOf(second, r), ['Term 3']);
      assert.equal(second.body.next_rest_url, undefined);
      const back = await http().get(pathOf(second.body.previous_rest_url));
      assert.deepEqual(namesOf(back, r), ['Term 1', 'Term 2']);
      assert.equal(back.body.rest_url, first.body.rest_url);
    });

    it('clamps per_page above 50 to 50', async () => {
      for (let i = 1; i <= 51; i++) await create({ name: `Bulk ${String(i).padStart(2, '0')}` });
      const res = await listed('hide_empty=false&per_page=100');
      expectStatus(res, 200);
      assert.equal(res.body[r.collection].length, 50);
      assert.equal(res.body.total, 51);
      assert.equal(res.body.total_pages, 2);
      assert.equal(res.body[r.collection][49].name, 'Bulk 50');
      const next = await http().get(pathOf(res.body.next_rest_url));
      assert.deepEqual(namesOf(next, r), ['Bulk 51']);
      const defaults = await listed('hide_empty=false');
      assert.equal(defaults.body[r.collection].length, 10, 'the default page size is 10');
      assert.equal(defaults.body.total_pages, 6);
    });

    it('rejects per_page and page values that are not positive integers', async () => {
      for (const [name, value] of [
        ['per_page', '0'],
        ['per_page', '-1'],
        ['per_page', 'ten'],
        ['page', '0'],
        ['page', 'abc'],
        ['page', '1.5'],
      ]) {
        const res = await listed(`hide_empty=false&${name}=${value}`);
        const data = expectError(res, 400, 'rest_invalid_param');
        assert.ok(name in (data.params as object), `${name}=${value}: ${JSON.stringify(data)}`);
      }
    });

    it('answers 404 term-archive-page-not-found past the last page', async () => {
      await createNamed('Term 1', 'Term 2', 'Term 3');
      expectStatus(await listed('hide_empty=false&per_page=2&page=2'), 200);
      const res = await listed('hide_empty=false&per_page=2&page=3');
      expectError(res, 404, 'term-archive-page-not-found');
      assert.equal(res.body.message, 'The requested event term archive page does not exist');
      expectError(await listed('page=2'), 404, 'term-archive-page-not-found');
    });

    it('searches names and slugs, case-insensitively', async () => {
      await create({ name: 'Jazz Night' });
      await create({ name: 'Blues', slug: 'late-jazz' });
      await create({ name: 'Rock' });
      assert.deepEqual(namesOf(await listed('hide_empty=false&search=JAZZ'), r), ['Blues', 'Jazz Night']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&search=late'), r), ['Blues']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&search=ROCK'), r), ['Rock']);
      const none = await listed('hide_empty=false&search=polka');
      assert.deepEqual(namesOf(none, r), []);
      assert.equal(none.body.total, 0);
    });

    it('searches case-insensitively beyond ASCII', async () => {
      await createNamed('Été Festival', 'Other');
      for (const search of ['été', 'ÉTÉ', 'Été']) {
        assert.deepEqual(namesOf(await listed(`hide_empty=false&search=${encodeURIComponent(search)}`), r), ['Été Festival'], search);
      }
    });

    it('treats % and _ in search as literal characters', async () => {
      await createNamed('100% Pure', '1000 Pure', 'a_b', 'axb');
      assert.deepEqual(namesOf(await listed(`hide_empty=false&search=${encodeURIComponent('0%')}`), r), ['100% Pure']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&search=a_b'), r), ['a_b']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&search=_'), r), ['a_b']);
    });

    it('rejects an empty search', async () => {
      const res = await listed('hide_empty=false&search=');
      assert.ok('search' in (expectError(res, 400, 'rest_invalid_param').params as object));
    });

    it('filters with include in every list form', async () => {
      const [a, , c] = await createNamed('A', 'B', 'C');
      for (const form of [
        `include=${a.id},${c.id}`,
        `include=${a.id},%20${c.id}`,
        `include=${a.id}&include=${c.id}`,
        `include[]=${a.id}&include[]=${c.id}`,
        `include%5B%5D=${a.id}&include%5B%5D=${c.id}`,
      ]) {
        const res = await listed(`hide_empty=false&${form}`);
        assert.deepEqual(namesOf(res, r), ['A', 'C'], form);
        assert.equal(res.body.total, 2, form);
      }
    });

    it('filters with exclude in every list form', async () => {
      const [a, , c] = await createNamed('A', 'B', 'C');
      for (const form of [`exclude=${a.id},${c.id}`, `exclude=${a.id},%20${c.id}`, `exclude=${a.id}&exclude=${c.id}`, `exclude[]=${a.id}&exclude[]=${c.id}`]) {
        const res = await listed(`hide_empty=false&${form}`);
        assert.deepEqual(namesOf(res, r), ['B'], form);
        assert.equal(res.body.total, 1, form);
      }
    });

    it('ignores exclude when include is given, as WordPress does', async () => {
      const [a, b, c] = await createNamed('A', 'B', 'C');
      const res = await listed(`hide_empty=false&include=${a.id},${b.id}&exclude=${a.id},${b.id},${c.id}`);
      assert.deepEqual(namesOf(res, r), ['A', 'B']);
    });

    // As the plugin: any event may be named, whatever its status; `hide_empty` does not apply then.
    // One the caller may not read lists nothing here (the plugin lists its terms): docs/contract.md §6.
    it('lists the terms of a trashed event to editors, whatever hide_empty, and nothing to others', async () => {
      const [term] = await createNamed('Of a trashed event');
      const event = await call(http, 'post', '/wp-json/tribe/events/v1/events', users.editor, {
        title: 'Trashed',
        start_date: '2030-01-01 10:00:00',
        end_date: '2030-01-01 11:00:00',
        [r.collection]: [term.id],
      });
      expectStatus(await call(http, 'delete', `/wp-json/tribe/events/v1/events/${event.body.id}`, users.editor), 200);
      for (const name of ['post', 'event']) {
        const asEditor = await call(http, 'get', `${collectionPath(r)}?hide_empty=true&${name}=${event.body.id}`, users.editor);
        assert.deepEqual(namesOf(asEditor, r), ['Of a trashed event'], name);
        const anonymous = await listed(`${name}=${event.body.id}`);
        expectStatus(anonymous, 200);
        assert.deepEqual(namesOf(anonymous, r), [], name);
      }
    });

    it(`rejects include and exclude ids that are not ${r.collection}`, async () => {
      const [a] = await createNamed('A');
      const foreign = await createTerm(http, other, users.editor, { name: 'Foreign' });
      for (const name of ['include', 'exclude']) {
        for (const ids of [`${a.id},999999`, `${foreign.id}`, 'abc', '0']) {
          const res = await listed(`hide_empty=false&${name}=${ids}`);
          assert.ok(name in (expectError(res, 400, 'rest_invalid_param').params as object), `${name}=${ids}`);
        }
      }
    });

    it('orders by name case-insensitively, ascending unless order=desc', async () => {
      await createNamed('cherry', 'apple', 'Banana');
      assert.deepEqual(namesOf(await listed('hide_empty=false'), r), ['apple', 'Banana', 'cherry']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&orderby=name&order=asc'), r), ['apple', 'Banana', 'cherry']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&order=desc'), r), ['cherry', 'Banana', 'apple']);
    });

    it('orders by slug, by id and by the include list', async () => {
      // Three different orders: by name Alpha, Mid, Zeta; by slug Zeta, Alpha, Mid; by id Mid, Zeta, Alpha.
      const mid = await create({ name: 'Mid', slug: 'c-mid' });
      const zeta = await create({ name: 'Zeta', slug: 'a-zeta' });
      const alpha = await create({ name: 'Alpha', slug: 'b-alpha' });
      assert.deepEqual(namesOf(await listed('hide_empty=false&orderby=slug'), r), ['Zeta', 'Alpha', 'Mid']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&orderby=slug&order=desc'), r), ['Mid', 'Alpha', 'Zeta']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&orderby=id'), r), ['Mid', 'Zeta', 'Alpha']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&orderby=id&order=desc'), r), ['Alpha', 'Zeta', 'Mid']);
      const include = `include=${zeta.id},${mid.id},${alpha.id}`;
      assert.deepEqual(namesOf(await listed(`hide_empty=false&orderby=include&${include}`), r), ['Zeta', 'Mid', 'Alpha']);
      const includeOther = `include=${alpha.id},${zeta.id},${mid.id}`;
      assert.deepEqual(namesOf(await listed(`hide_empty=false&orderby=include&${includeOther}`), r), ['Alpha', 'Zeta', 'Mid']);
    });

    it('accepts orderby=count', async () => {
      await createNamed('One', 'Two');
      for (const order of ['asc', 'desc']) {
        const res = await listed(`hide_empty=false&orderby=count&order=${order}`);
        assert.deepEqual(namesOf(res, r).sort(), ['One', 'Two']);
      }
    });

    it('rejects an unknown orderby value', async () => {
      const res = await listed('hide_empty=false&orderby=popularity');
      assert.ok('orderby' in (expectError(res, 400, 'rest_invalid_param').params as object));
    });

    it('filters by an exact slug', async () => {
      await createNamed('Rock', 'Rock Pop', 'Hard Rock');
      assert.deepEqual(namesOf(await listed('hide_empty=false&slug=rock'), r), ['Rock']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&slug=rock-pop'), r), ['Rock Pop']);
      assert.deepEqual(namesOf(await listed('hide_empty=false&slug=roc'), r), []);
    });

    it('rejects post and event ids that are not events, naming the parameter', async () => {
      const [term] = await createNamed('Not an event');
      for (const name of ['post', 'event']) {
        for (const id of ['999999', String(term.id), 'abc']) {
          const res = await listed(`hide_empty=false&${name}=${id}`);
          const params = expectError(res, 400, 'rest_invalid_param').params as object;
          assert.ok(name in params, `${name}=${id}: ${JSON.stringify(params)}`);
        }
      }
      const both = await listed('hide_empty=false&post=999998&event=999999');
      assert.ok('event' in (expectError(both, 400, 'rest_invalid_param').params as object));
    });

    it('ignores unknown query parameters', async () => {
      await createNamed('Kept');
      const res = await listed('hide_empty=false&colour=blue&_embed=1&filter[x]=y');
      assert.deepEqual(namesOf(res, r), ['Kept']);
    });

    it('carries every filter, URL-encoded, into rest_url and the page URLs', async () => {
      const [one, two, three] = await createNamed('Rock & Roll 1', 'Rock & Roll 2', 'Rock & Roll 3', 'Other');
      const include = [one.id, two.id, three.id];
      const query = new URLSearchParams({
        search: 'k & r',
        include: include.join(','),
        hide_empty: 'false',
        orderby: 'name',
        order: 'desc',
        per_page: '1',
        page: '2',
      });
      const res = await listed(query.toString());
      assert.deepEqual(namesOf(res, r), ['Rock & Roll 2']);
      const expectFilters = (url: string, page: string | null) => {
        assert.ok(!/\s/.test(url), `not encoded: ${url}`);
        const parsed = new URL(url);
        assert.equal(`${parsed.origin}${parsed.pathname}`, `${PUBLIC_URL}${collectionPath(r)}/`);
        const params = parsed.searchParams;
        assert.equal(params.get('search'), 'k & r', url);
        assert.deepEqual(params.get('include')?.split(',').map(Number).sort(), [...include].sort(), url);
        assert.equal(params.get('hide_empty'), 'false', url);
        assert.equal(params.get('orderby'), 'name', url);
        assert.equal(params.get('order'), 'desc', url);
        assert.equal(params.get('per_page'), '1', url);
        assert.equal(params.get('page'), page, url);
      };
      expectFilters(res.body.rest_url, '2');
      expectFilters(res.body.next_rest_url, '3');
      expectFilters(res.body.previous_rest_url, null);

      const next = await http().get(pathOf(res.body.next_rest_url));
      assert.deepEqual(namesOf(next, r), ['Rock & Roll 1']);
      assert.equal(next.body.total, 3);
      const previous = await http().get(pathOf(res.body.previous_rest_url));
      assert.deepEqual(namesOf(previous, r), ['Rock & Roll 3']);
    });

    it('encodes a comma in search so the paging URLs give it back unchanged', async () => {
      await createNamed('a,b one', 'a,b two', 'ab three');
      const res = await listed(`hide_empty=false&per_page=1&search=${encodeURIComponent('a,b')}`);
      assert.deepEqual(namesOf(res, r), ['a,b one']);
      assert.equal(res.body.total, 2);
      assert.equal(new URL(res.body.next_rest_url).searchParams.get('search'), 'a,b');
      assert.equal(new URL(res.body.rest_url).searchParams.get('search'), 'a,b');
      const next = await http().get(pathOf(res.body.next_rest_url));
      assert.deepEqual(namesOf(next, r), ['a,b two']);
    });

    it('carries exclude given in bracket form and slug into the page URLs', async () => {
      const [a, b] = await createNamed('Alpha', 'Beta', 'Gamma');
      const res = await listed(`hide_empty=0&exclude[]=${a.id}&exclude[]=${b.id}&slug=gamma`);
      assert.deepEqual(namesOf(res, r), ['Gamma']);
      const params = new URL(res.body.rest_url).searchParams;
      assert.deepEqual(params.get('exclude')?.split(',').map(Number).sort(), [a.id, b.id].sort());
      assert.equal(params.get('slug'), 'gamma');
      assert.ok(['0', 'false'].includes(params.get('hide_empty') ?? ''), res.body.rest_url);
      const again = await http().get(pathOf(res.body.rest_url));
      assert.deepEqual(again.body, res.body);
    });
  });
}
