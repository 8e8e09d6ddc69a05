import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, testApp, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { CATEGORIES, PUBLIC_URL, TAGS, collectionPath, createTerm, itemPath, readTerm, type Http, type TermRecord, type TermResource } from '../../helpers/terms.js';

/**
 * Empty strings on term writes are 400 `rest_invalid_param`, as in the plugin (whose validators treat
 * `""` as "not a string"): `name`, `description` and `slug`, and on categories a `parent` that is `""`
 * or not a number. Checked on create and on every update method, as JSON and as a form.
 */
describe('terms: empty strings and non-numeric parents are refused', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await testApp({ publicUrl: PUBLIC_URL }));
    users = await createUsers();
  });

  /** Sends a body as JSON or as a form, as an editor. */
  const send = (method: 'post' | 'put' | 'patch', path: string, kind: 'json' | 'form', body: Record<string, unknown>) => {
    let req = http()[method](path).set('Authorization', users.editor.authorization);
    if (kind === 'form') req = req.type('form');
    return req.send(body);
  };

  /** Asserts a 400 rest_invalid_param naming exactly `name`. */
  const expectInvalid = (res: { status: number; body: Record<string, any> }, name: string, label: string) => {
    assert.equal(res.status, 400, `${label}: ${res.status} ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'rest_invalid_param', label);
    assert.deepEqual(Object.keys(res.body.data.params), [name], label);
  };

  for (const resource of [CATEGORIES, TAGS] as TermResource[]) {
    describe(resource.collection, () => {
      const fields: Array<[string, unknown]> = [
        ['name', ''],
        ['description', ''],
        ['slug', ''],
      ];

      it('refuses name, description or slug given as "" on create, and creates nothing', async () => {
        for (const kind of ['json', 'form'] as const) {
          for (const [name, value] of fields) {
            const body = { name: 'Jazz', description: 'Live', slug: 'jazz', [name]: value };
            expectInvalid(await send('post', collectionPath(resource), kind, body), name, `${kind} ${name}`);
          }
        }
        const list = await http().get(`${collectionPath(resource)}?hide_empty=0`);
        expectStatus(list, 200);
        assert.equal(list.body.total, 0);
      });

      it('refuses name, description or slug given as "" on every update method, and changes nothing', async () => {
        const term = await createTerm(http, resource, users.editor, { name: 'Jazz', description: 'Live' });
        for (const method of ['post', 'put', 'patch'] as const) {
          for (const kind of ['json', 'form'] as const) {
            for (const [name, value] of fields) {
              expectInvalid(await send(method, itemPath(resource, term.id), kind, { [name]: value }), name, `${method} ${kind} ${name}`);
            }
          }
        }
        const after: TermRecord = await readTerm(http, resource, term.id);
        assert.deepEqual([after.name, after.description, after.slug], ['Jazz', 'Live', 'jazz']);
      });

      it('still accepts a description replaced by another one', async () => {
        const term = await createTerm(http, resource, users.editor, { name: 'Jazz', description: 'Live' });
        const res = await send('patch', itemPath(resource, term.id), 'json', { description: 'Quiet' });
        expectStatus(res, 200);
        assert.equal(res.body.description, 'Quiet');
      });
    });
  }

  describe('category parent', () => {
    const badParents: Array<[string, unknown, Array<'json' | 'form'>]> = [
      ['""', '', ['json', 'form']],
      ['"abc"', 'abc', ['json', 'form']],
      ['"1.5"', '1.5', ['json', 'form']],
      ['"1 2"', '1 2', ['json', 'form']],
      ['true', true, ['json']],
      ['false', false, ['json']],
      ['[]', [], ['json']],
      ['{}', {}, ['json']],
    ];

    it('refuses a parent that is "" or not a number on create, and creates nothing', async () => {
      for (const [label, value, kinds] of badParents) {
        for (const kind of kinds) {
          expectInvalid(await send('post', collectionPath(CATEGORIES), kind, { name: 'Child', parent: value }), 'parent', `${kind} parent ${label}`);
        }
      }
      const list = await http().get(`${collectionPath(CATEGORIES)}?hide_empty=0`);
      assert.equal(list.body.total, 0);
    });

    it('refuses a parent that is "" or not a number on every update method, and changes nothing', async () => {
      const parent = await createTerm(http, CATEGORIES, users.editor, { name: 'Music' });
      const child = await createTerm(http, CATEGORIES, users.editor, { name: 'Jazz', parent: parent.id });
      for (const method of ['post', 'put', 'patch'] as const) {
        for (const [label, value, kinds] of badParents) {
          for (const kind of kinds) {
            expectInvalid(await send(method, itemPath(CATEGORIES, child.id), kind, { parent: value }), 'parent', `${method} ${kind} parent ${label}`);
          }
        }
      }
      assert.equal((await readTerm(http, CATEGORIES, child.id)).parent, parent.id);
      // A numeric string is a number, as in WordPress.
      const moved = await send('patch', itemPath(CATEGORIES, child.id), 'form', { parent: '0' });
      expectStatus(moved, 200);
      assert.equal(moved.body.parent, 0);
    });
  });
});
