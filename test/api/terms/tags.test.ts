import { describeSharedTermBehaviour } from '../shared/term-behaviour.js';
import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, testApp, type TestUser } from '../../helpers/app.js';
import { expectError } from '../../helpers/assertions.js';
import { CATEGORIES, TAGS, PUBLIC_URL, call, collectionPath, createTerm, itemPath, list, namesOf, readTerm, type Http, type TermRecord } from '../../helpers/terms.js';

describe('tags: /tags and /tags/{id}', () => {
  describeSharedTermBehaviour(TAGS, CATEGORIES);

  describe('tags only', () => {
    let http: Http;
    let users: Record<Role, TestUser>;

    /** Creates a tag as the given user (an editor by default). */
    const createTag = (name: string, extra: Record<string, unknown> = {}, as: TestUser = users.editor): Promise<TermRecord> => createTerm(http, TAGS, as, { name, ...extra });

    beforeEach(async () => {
      ({ http } = await testApp({ publicUrl: PUBLIC_URL }));
      users = await createUsers();
    });

    it('rejects parent on create with rest_taxonomy_not_hierarchical', async () => {
      for (const parent of [0, 5]) {
        const res = await call(http, 'post', collectionPath(TAGS), users.editor, { name: 'Flat', parent });
        expectError(res, 400, 'rest_taxonomy_not_hierarchical');
        assert.equal(res.body.message, 'Cannot set parent term, taxonomy is not hierarchical.');
      }
      const form = await http().post(collectionPath(TAGS)).set('Authorization', users.editor.authorization).type('form').send('name=Flat&parent=0');
      expectError(form, 400, 'rest_taxonomy_not_hierarchical');
      assert.equal((await list(http, TAGS, 'hide_empty=false')).body.total, 0);
    });

    it('rejects parent on update with rest_taxonomy_not_hierarchical', async () => {
      const tag = await createTag('Flat');
      for (const method of ['post', 'put', 'patch'] as const) {
        const res = await call(http, method, itemPath(TAGS, tag.id), users.editor, { name: 'Still flat', parent: 0 });
        expectError(res, 400, 'rest_taxonomy_not_hierarchical');
      }
      assert.deepEqual(await readTerm(http, TAGS, tag.id), tag);
    });

    it('has no parent key and no up link', async () => {
      const tag = await createTag('Leaf');
      assert.equal('parent' in tag, false);
      assert.equal(tag.urls.up, undefined);
      assert.equal(tag.url, `${PUBLIC_URL}/tag/leaf/`);
    });

    it('ignores a parent query parameter, which tags do not have', async () => {
      await createTag('Kept');
      for (const query of ['hide_empty=false&parent=0', 'hide_empty=false&parent=999999']) {
        assert.deepEqual(namesOf(await list(http, TAGS, query), TAGS), ['Kept'], query);
      }
    });
  });
});
