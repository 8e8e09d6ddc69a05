import { describeSharedTermBehaviour } from '../shared/term-behaviour.js';
import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, testApp, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import {
  CATEGORIES,
  TAGS,
  PUBLIC_URL,
  call,
  collectionPath,
  createTerm,
  itemPath,
  list,
  namesOf,
  pathOf,
  permalink,
  readTerm,
  selfUrl,
  type Http,
  type TermRecord,
} from '../../helpers/terms.js';

describe('categories: /categories and /categories/{id}', () => {
  describeSharedTermBehaviour(CATEGORIES, TAGS);

  describe('categories only', () => {
    let http: Http;
    let users: Record<Role, TestUser>;

    /** Creates a category as the given user (an editor by default). */
    const createCategory = (name: string, extra: Record<string, unknown> = {}, as: TestUser = users.editor): Promise<TermRecord> =>
      createTerm(http, CATEGORIES, as, { name, ...extra });

    /** Sends an update (POST by default) as an editor. */
    const update = (id: number, body: Record<string, unknown>, method: 'post' | 'put' | 'patch' = 'post') => call(http, method, itemPath(CATEGORIES, id), users.editor, body);

    /** grand > parent > child, slugs `grand`, `parent`, `child`. */
    const createFamily = async () => {
      const grand = await createCategory('Grand');
      const parent = await createCategory('Parent', { parent: grand.id });
      const child = await createCategory('Child', { parent: parent.id });
      return { grand, parent, child };
    };

    beforeEach(async () => {
      ({ http } = await testApp({ publicUrl: PUBLIC_URL }));
      users = await createUsers();
    });

    describe('hierarchy on create', () => {
      it('links a child to its parent: parent id, urls.up and a url through the ancestors', async () => {
        const { grand, parent, child } = await createFamily();
        assert.equal(grand.parent, 0);
        assert.equal(grand.urls.up, undefined);
        assert.deepEqual(Object.keys(grand.urls), ['self', 'collection']);
        assert.equal(parent.parent, grand.id);
        assert.deepEqual(parent.urls, {
          self: selfUrl(CATEGORIES, parent.id),
          collection: `${PUBLIC_URL}${collectionPath(CATEGORIES)}`,
          up: selfUrl(CATEGORIES, grand.id),
        });
        assert.equal(parent.url, `${PUBLIC_URL}/events/category/grand/parent/`);
        assert.equal(child.parent, parent.id);
        assert.equal(child.urls.up, selfUrl(CATEGORIES, parent.id));
        assert.equal(child.url, `${PUBLIC_URL}/events/category/grand/parent/child/`);
        assert.deepEqual(await readTerm(http, CATEGORIES, child.id), child);
      });

      it('sets the Location header of a child to its own URL', async () => {
        const top = await createCategory('Top');
        const res = await call(http, 'post', collectionPath(CATEGORIES), users.editor, { name: 'Below', parent: top.id });
        expectStatus(res, 201);
        assert.equal(res.headers.location, `${PUBLIC_URL}/wp-json/tribe/events/v1/categories/${res.body.id}`);
      });

      it('accepts a parent in a form-encoded body', async () => {
        const top = await createCategory('Top');
        const res = await http().post(collectionPath(CATEGORIES)).set('Authorization', users.editor.authorization).type('form').send(`name=Formed+Child&parent=${top.id}`);
        expectStatus(res, 201);
        assert.equal(res.body.parent, top.id);
        assert.equal(res.body.url, permalink(CATEGORIES, 'top', 'formed-child'));
      });

      it('accepts parent 0 as the top level', async () => {
        const top = await createCategory('Top', { parent: 0 });
        assert.equal(top.parent, 0);
        assert.equal(top.url, permalink(CATEGORIES, 'top'));
      });

      it('allows the same name under a different parent', async () => {
        const music = await createCategory('Music');
        const theatre = await createCategory('Theatre');
        const kidsTop = await createCategory('Kids');
        const kidsMusic = await createCategory('Kids', { parent: music.id });
        const kidsTheatre = await createCategory('kids', { parent: theatre.id });
        assert.deepEqual([kidsTop.slug, kidsMusic.slug, kidsTheatre.slug], ['kids', 'kids-2', 'kids-3']);
        assert.equal(kidsMusic.url, permalink(CATEGORIES, 'music', 'kids-2'));
      });

      it('rejects a duplicate name under the same parent, naming the existing category', async () => {
        const music = await createCategory('Music');
        const kids = await createCategory('Kids', { parent: music.id });
        const res = await call(http, 'post', collectionPath(CATEGORIES), users.editor, { name: 'KIDS', parent: music.id });
        assert.equal(expectError(res, 400, 'term_exists').term_id, kids.id);
        assert.equal(res.body.message, 'A term with the name provided already exists with this parent.');
      });

      it('rejects an unknown parent, naming it', async () => {
        const tag = await createTerm(http, TAGS, users.editor, { name: 'A tag' });
        for (const parent of [999999, tag.id, 'abc', -1]) {
          const res = await call(http, 'post', collectionPath(CATEGORIES), users.editor, { name: 'Orphan', parent });
          const data = expectError(res, 400, 'rest_invalid_param');
          assert.ok('parent' in (data.params as object), `parent ${parent}: ${JSON.stringify(data)}`);
        }
        assert.equal((await list(http, CATEGORIES, 'hide_empty=false')).body.total, 0);
      });
    });

    describe('hierarchy on update', () => {
      for (const method of ['post', 'put', 'patch'] as const) {
        it(`moves a category under another parent (${method.toUpperCase()})`, async () => {
          const music = await createCategory('Music');
          const jazz = await createCategory('Jazz', { description: 'Swing' });
          const res = await update(jazz.id, { parent: music.id }, method);
          expectStatus(res, 200);
          assert.deepEqual(res.body, {
            ...jazz,
            parent: music.id,
            url: permalink(CATEGORIES, 'music', 'jazz'),
            urls: { ...jazz.urls, up: selfUrl(CATEGORIES, music.id) },
          });
        });
      }

      it('moves a category to the top level with parent 0', async () => {
        const { parent } = await createFamily();
        const res = await update(parent.id, { parent: 0 });
        expectStatus(res, 200);
        assert.equal(res.body.parent, 0);
        assert.equal(res.body.urls.up, undefined);
        assert.equal(res.body.url, permalink(CATEGORIES, 'parent'));
        const child = (await list(http, CATEGORIES, 'hide_empty=false&slug=child')).body.categories[0];
        assert.equal(child.url, permalink(CATEGORIES, 'parent', 'child'));
      });

      it('keeps the parent when an update does not send one', async () => {
        const { parent } = await createFamily();
        const res = await update(parent.id, { name: 'Renamed Parent' }, 'put');
        expectStatus(res, 200);
        assert.deepEqual(res.body, { ...parent, name: 'Renamed Parent' });
      });

      it('rejects making a category its own parent', async () => {
        const top = await createCategory('Top');
        const data = expectError(await update(top.id, { parent: top.id }), 400, 'rest_invalid_param');
        assert.ok('parent' in (data.params as object));
        assert.deepEqual(await readTerm(http, CATEGORIES, top.id), top);
      });

      it('rejects moving a category under one of its descendants', async () => {
        const { grand, parent, child } = await createFamily();
        for (const below of [parent.id, child.id]) {
          const data = expectError(await update(grand.id, { parent: below }, 'patch'), 400, 'rest_invalid_param');
          assert.ok('parent' in (data.params as object));
        }
        assert.deepEqual(await readTerm(http, CATEGORIES, grand.id), grand);
      });

      it('rejects an unknown parent on update, naming it', async () => {
        const top = await createCategory('Top');
        const tag = await createTerm(http, TAGS, users.editor, { name: 'A tag' });
        for (const parent of [999999, tag.id]) {
          const data = expectError(await update(top.id, { parent }), 400, 'rest_invalid_param');
          assert.ok('parent' in (data.params as object));
        }
        assert.deepEqual(await readTerm(http, CATEGORIES, top.id), top);
      });

      it('rejects moving a category next to a sibling with the same name', async () => {
        const music = await createCategory('Music');
        const kids = await createCategory('Kids', { parent: music.id });
        const otherKids = await createCategory('Kids');
        const res = await update(otherKids.id, { parent: music.id });
        assert.equal(expectError(res, 400, 'term_exists').term_id, kids.id);
        assert.equal((await readTerm(http, CATEGORIES, otherKids.id)).parent, 0);
      });

      it('updates the url of descendants when an ancestor slug changes', async () => {
        const { grand, child } = await createFamily();
        expectStatus(await update(grand.id, { slug: 'elder' }), 200);
        assert.equal((await readTerm(http, CATEGORIES, child.id)).url, permalink(CATEGORIES, 'elder', 'parent', 'child'));
      });
    });

    describe('hierarchy on delete', () => {
      it('moves the children of a deleted category to its parent', async () => {
        const { grand, parent, child } = await createFamily();
        const res = await call(http, 'delete', itemPath(CATEGORIES, parent.id), users.editor);
        expectStatus(res, 200);
        assert.deepEqual(res.body, parent);
        const moved = await readTerm(http, CATEGORIES, child.id);
        assert.equal(moved.parent, grand.id);
        assert.equal(moved.urls.up, selfUrl(CATEGORIES, grand.id));
        assert.equal(moved.url, permalink(CATEGORIES, 'grand', 'child'));
      });

      it('moves the children of a deleted top-level category to the top level', async () => {
        const { grand, parent, child } = await createFamily();
        expectStatus(await call(http, 'delete', itemPath(CATEGORIES, grand.id), users.editor), 200);
        const moved = await readTerm(http, CATEGORIES, parent.id);
        assert.equal(moved.parent, 0);
        assert.equal(moved.urls.up, undefined);
        assert.equal(moved.url, permalink(CATEGORIES, 'parent'));
        assert.equal((await readTerm(http, CATEGORIES, child.id)).url, permalink(CATEGORIES, 'parent', 'child'));
      });

      it('answers a deleted child with its parent link as it was', async () => {
        const { parent, child } = await createFamily();
        const res = await call(http, 'delete', itemPath(CATEGORIES, child.id), users.editor);
        expectStatus(res, 200);
        assert.deepEqual(res.body, child);
        assert.equal(res.body.urls.up, selfUrl(CATEGORIES, parent.id));
      });
    });

    describe('description HTML', () => {
      const HOSTILE = '<p onclick="steal()">Hi <a href="javascript:alert(1)">there</a> <strong>friend</strong></p><script>alert(1)</script>';
      // kses's inline tags: the paragraph goes, its text and the link's stay; the bad URL goes; the
      // script's text stays as text (docs/contract.md §3).
      const CLEANED = 'Hi <a>there</a> <strong>friend</strong>alert(1)';

      it('cleans HTML in the description from an author on create and update, as from anyone', async () => {
        const category = await createCategory('By Author', { description: HOSTILE }, users.author);
        assert.equal(category.description, CLEANED);
        assert.equal((await readTerm(http, CATEGORIES, category.id)).description, CLEANED);
        const res = await call(http, 'patch', itemPath(CATEGORIES, category.id), users.author, { description: `${HOSTILE} again` });
        expectStatus(res, 200);
        assert.equal(res.body.description, `${CLEANED} again`);
      });

      it('keeps the inline HTML kses allows', async () => {
        const html = 'Bring <em>friends</em> and <a href="https://example.test/">a hat</a>';
        assert.equal((await createCategory('Harmless', { description: html }, users.author)).description, html);
      });
    });

    describe('list by parent', () => {
      it('lists only top-level categories with parent=0', async () => {
        await createFamily();
        await createCategory('Another Top');
        assert.deepEqual(namesOf(await list(http, CATEGORIES, 'hide_empty=false&parent=0'), CATEGORIES), ['Another Top', 'Grand']);
      });

      it('lists only the direct children of a category with parent=N', async () => {
        const { grand, parent } = await createFamily();
        await createCategory('Second Child', { parent: grand.id });
        assert.deepEqual(namesOf(await list(http, CATEGORIES, `hide_empty=false&parent=${grand.id}`), CATEGORIES), ['Parent', 'Second Child']);
        assert.deepEqual(namesOf(await list(http, CATEGORIES, `hide_empty=false&parent=${parent.id}`), CATEGORIES), ['Child']);
        const leaf = await list(http, CATEGORIES, `hide_empty=false&parent=${(await createCategory('Leaf')).id}`);
        assert.deepEqual(namesOf(leaf, CATEGORIES), []);
      });

      it('rejects a parent filter that is not a category', async () => {
        const tag = await createTerm(http, TAGS, users.editor, { name: 'A tag' });
        for (const parent of ['999999', String(tag.id), 'abc', '-1']) {
          const res = await list(http, CATEGORIES, `hide_empty=false&parent=${parent}`);
          assert.ok('parent' in (expectError(res, 400, 'rest_invalid_param').params as object), `parent=${parent}`);
        }
      });

      it('carries parent into the page URLs', async () => {
        const top = await createCategory('Top');
        await createCategory('Kid 1', { parent: top.id });
        await createCategory('Kid 2', { parent: top.id });
        const res = await list(http, CATEGORIES, `hide_empty=false&per_page=1&parent=${top.id}`);
        assert.deepEqual(namesOf(res, CATEGORIES), ['Kid 1']);
        assert.equal(new URL(res.body.next_rest_url).searchParams.get('parent'), String(top.id));
        const next = await http().get(pathOf(res.body.next_rest_url));
        assert.deepEqual(namesOf(next, CATEGORIES), ['Kid 2']);
        assert.equal(next.body.total, 2);
      });
    });
  });
});
