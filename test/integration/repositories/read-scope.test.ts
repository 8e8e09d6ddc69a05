import assert from 'node:assert/strict';
import type { Role, User } from '../../../src/auth/capabilities.js';
import { mayRead, maySeeProtectedText, protectedTextScope, readScope, type PostFacts } from '../../../src/policies/posts.js';
import { protectedTextHidden, whereReadable } from '../../../src/repositories/read-scope.js';
import { createUser } from '../../helpers/app.js';
import { database } from './fixtures.js';

/**
 * repositories/read-scope.ts is the SQL form of two rules of policies/posts.ts, which lists and searches use
 * where a single GET uses the policy: `whereReadable` must keep exactly the records `mayRead` allows,
 * and `protectedTextHidden` must match exactly those whose text `maySeeProtectedText` hides. Checked
 * on every caller against records of every status (trashed ones by their status before the trash),
 * owned by the caller, by someone else and by nobody, without, with an empty and with a password.
 */
const CALLERS = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'] as const;
const STATES: Array<Pick<PostFacts, 'status' | 'trashedFrom'>> = [
  { status: 'publish' },
  { status: 'future' },
  { status: 'draft' },
  { status: 'pending' },
  { status: 'private' },
  { status: 'trash', trashedFrom: 'publish' },
  { status: 'trash', trashedFrom: 'future' },
  { status: 'trash', trashedFrom: 'private' },
  { status: 'trash', trashedFrom: 'draft' },
  { status: 'trash', trashedFrom: 'pending' },
  { status: 'trash', trashedFrom: null },
];
const PASSWORDS = [null, '', 'secret'];

describe('posts/read-scope: the SQL read rules agree with the policies', () => {
  it('whereReadable keeps what mayRead allows, protectedTextHidden matches what maySeeProtectedText hides', async () => {
    const db = await database();
    const me = await createUser('author', 'me');
    const other = await createUser('author', 'other');
    const records: Array<PostFacts & { id: number; label: string }> = [];
    let n = 0;
    for (const state of STATES) {
      for (const authorId of [me.id, other.id, null]) {
        for (const password of PASSWORDS) {
          n += 1;
          const [id] = await db('posts').insert({
            type: 'event',
            status: state.status,
            trashed_from: state.trashedFrom ?? null,
            author_id: authorId,
            slug: `record-${n}`,
            title: `Record ${n}`,
            description: '',
            excerpt: '',
            password,
            date: '2026-01-01 00:00:00',
            date_utc: '2026-01-01 00:00:00',
            modified: '2026-01-01 00:00:00',
            modified_utc: '2026-01-01 00:00:00',
          });
          const owner = authorId === me.id ? 'own' : authorId === null ? 'nobody' : 'others';
          const label = `${state.status}${state.status === 'trash' ? `<${state.trashedFrom}` : ''} ${owner} password=${JSON.stringify(password)}`;
          records.push({ id: Number(id), label, type: 'event', status: state.status, trashedFrom: state.trashedFrom ?? null, authorId, password });
        }
      }
    }
    const labels = (ids: number[]) => records.filter((r) => ids.includes(r.id)).map((r) => r.label);
    const idsWhere = async (condition: (q: import('knex').Knex.QueryBuilder) => void) => (await db('posts as p').where(condition).orderBy('p.id').pluck('p.id')).map(Number);

    for (const caller of CALLERS) {
      const user: User | undefined = caller === 'anonymous' ? undefined : { id: me.id, login: 'me', role: caller as Role };
      const readable = await idsWhere((q) => whereReadable(q, 'p', readScope(user)));
      const mayReadIds = records.filter((r) => mayRead(user, r)).map((r) => r.id);
      assert.deepEqual(labels(readable), labels(mayReadIds), `${caller}: records a list shows`);

      const hidden = protectedTextHidden('p', protectedTextScope(user));
      const hiddenByPolicy = records.filter((r) => !maySeeProtectedText(user, r)).map((r) => r.id);
      if (!hidden) {
        assert.deepEqual(hiddenByPolicy, [], `${caller}: no condition, so nothing may be hidden`);
        continue;
      }
      assert.deepEqual(labels(await idsWhere(hidden)), labels(hiddenByPolicy), `${caller}: records whose text is hidden`);
      // Never NULL: the negation (a search's excluded words, `whereNot(hidden)`) is the exact complement.
      const shown = await idsWhere((q) => q.whereNot(hidden));
      assert.deepEqual(labels(shown), labels(records.filter((r) => !hiddenByPolicy.includes(r.id)).map((r) => r.id)), `${caller}: records whose text shows`);
    }
  });
});
