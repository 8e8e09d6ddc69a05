import assert from 'node:assert/strict';
import type { Role, User } from '../../src/auth/capabilities.js';
import { RestError } from '../../src/core/errors.js';
import {
  ANY_STATUS,
  mayCreate,
  mayDelete,
  mayEdit,
  mayFilterByEvent,
  mayFollow,
  mayListUnpublished,
  mayRead,
  mayRecordImageFromUrl,
  mayReference,
  maySeeProtectedText,
  mayWriteUnfilteredHtml,
  postPolicy,
  protectedTextScope,
  readerKey,
  readerOf,
  readScope,
  statusFilter,
  storedStatus,
  type PostFacts,
} from '../../src/policies/posts.js';
import { mayManage, termPolicy } from '../../src/policies/terms.js';
import { CATEGORIES, TAGS } from '../../src/repositories/taxonomies.js';

/**
 * The policies of src/policies/ as complete decision tables: every caller (anonymous and each role)
 * against every status, own and someone else's record. The expected values are written out from
 * WordPress's `map_meta_cap` (docs/plugin-behaviour.md §4.1) and docs/contract.md §5, not computed.
 */
const ME = 10;
const CALLERS = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'] as const;
type Caller = (typeof CALLERS)[number];
const userOf = (caller: Caller): User | undefined => (caller === 'anonymous' ? undefined : { id: ME, login: caller, role: caller as Role });

/** The statuses a record can have, trashed ones by the status they had before the trash. */
const STATES: Record<string, Pick<PostFacts, 'status' | 'trashedFrom'>> = {
  publish: { status: 'publish' },
  future: { status: 'future' },
  draft: { status: 'draft' },
  pending: { status: 'pending' },
  private: { status: 'private' },
  'trash<publish': { status: 'trash', trashedFrom: 'publish' },
  'trash<future': { status: 'trash', trashedFrom: 'future' },
  'trash<private': { status: 'trash', trashedFrom: 'private' },
  'trash<draft': { status: 'trash', trashedFrom: 'draft' },
  'trash<unknown': { status: 'trash', trashedFrom: null },
};
const record = (state: string, own: boolean | 'nobody'): PostFacts => ({
  type: 'event',
  authorId: own === 'nobody' ? null : own ? ME : ME + 1,
  ...STATES[state],
});

/** Callers that may, per state: `own` for the caller's own record, `others` for someone else's (and for a record without author). */
type Table = Record<string, { own: Caller[]; others: Caller[] }>;
const EDITORS: Caller[] = ['editor', 'administrator'];
const AUTHORS: Caller[] = ['author', ...EDITORS];
const CONTRIBUTORS: Caller[] = ['contributor', ...AUTHORS];
const SIGNED_IN: Caller[] = ['subscriber', ...CONTRIBUTORS];

/**
 * edit_post / delete_post: own published or scheduled from author up, own in any other state (private
 * too, as WordPress's map_meta_cap) from contributor up, others' for editors.
 */
const EDIT: Table = {
  publish: { own: AUTHORS, others: EDITORS },
  future: { own: AUTHORS, others: EDITORS },
  private: { own: CONTRIBUTORS, others: EDITORS },
  draft: { own: CONTRIBUTORS, others: EDITORS },
  pending: { own: CONTRIBUTORS, others: EDITORS },
  'trash<publish': { own: AUTHORS, others: EDITORS },
  'trash<future': { own: AUTHORS, others: EDITORS },
  'trash<private': { own: CONTRIBUTORS, others: EDITORS },
  'trash<draft': { own: CONTRIBUTORS, others: EDITORS },
  'trash<unknown': { own: CONTRIBUTORS, others: EDITORS },
};

/** read_post: published to anyone; private to its author or editors; trash to editors; the rest to their author (contributor up) or editors. */
const READ: Table = {
  publish: { own: [...CALLERS], others: [...CALLERS] },
  private: { own: SIGNED_IN, others: EDITORS },
  future: { own: CONTRIBUTORS, others: EDITORS },
  draft: { own: CONTRIBUTORS, others: EDITORS },
  pending: { own: CONTRIBUTORS, others: EDITORS },
  'trash<publish': { own: EDITORS, others: EDITORS },
  'trash<future': { own: EDITORS, others: EDITORS },
  'trash<private': { own: EDITORS, others: EDITORS },
  'trash<draft': { own: EDITORS, others: EDITORS },
  'trash<unknown': { own: EDITORS, others: EDITORS },
};

function checkTable(name: string, rule: (user: User | undefined, facts: PostFacts) => boolean, table: Table, tweak: (facts: PostFacts) => PostFacts = (f) => f) {
  for (const [state, allowed] of Object.entries(table)) {
    for (const caller of CALLERS) {
      assert.equal(rule(userOf(caller), tweak(record(state, true))), allowed.own.includes(caller), `${name}: ${caller}, own ${state}`);
      assert.equal(rule(userOf(caller), tweak(record(state, false))), allowed.others.includes(caller), `${name}: ${caller}, others' ${state}`);
      assert.equal(rule(userOf(caller), tweak(record(state, 'nobody'))), allowed.others.includes(caller), `${name}: ${caller}, nobody's ${state}`);
    }
  }
}

const onlyIf = (table: Table, keep: (state: string) => boolean): Table =>
  Object.fromEntries(Object.entries(table).map(([state, allowed]) => [state, keep(state) ? allowed : { own: [], others: [] }]));

describe('policy decision tables (src/policies/)', () => {
  it('mayEdit and mayDelete: the edit_post / delete_post table', () => {
    checkTable('mayEdit', mayEdit, EDIT);
    checkTable('mayDelete', mayDelete, EDIT);
  });

  it('mayRead: the read_post table; mayFilterByEvent is the same; mayReference excludes the trash', () => {
    checkTable('mayRead', mayRead, READ);
    checkTable('mayFilterByEvent', mayFilterByEvent, READ);
    checkTable(
      'mayReference',
      mayReference,
      onlyIf(READ, (state) => !state.startsWith('trash')),
    );
  });

  it('maySeeProtectedText: anyone without a password, the edit table with one', () => {
    const all: Table = Object.fromEntries(Object.keys(EDIT).map((state) => [state, { own: [...CALLERS], others: [...CALLERS] }]));
    checkTable('maySeeProtectedText (none)', maySeeProtectedText, all);
    checkTable('maySeeProtectedText (empty)', maySeeProtectedText, all, (f) => ({ ...f, password: '' }));
    checkTable('maySeeProtectedText (set)', maySeeProtectedText, EDIT, (f) => ({ ...f, password: 'secret' }));
  });

  it('mayFollow: readable, not trashed, and its protected text visible', () => {
    checkTable(
      'mayFollow',
      mayFollow,
      onlyIf(READ, (state) => !state.startsWith('trash')),
    );
    const visible: Table = Object.fromEntries(
      Object.entries(READ).map(([state, allowed]) => [
        state,
        state.startsWith('trash')
          ? { own: [], others: [] }
          : { own: allowed.own.filter((c) => EDIT[state].own.includes(c)), others: allowed.others.filter((c) => EDIT[state].others.includes(c)) },
      ]),
    );
    checkTable('mayFollow (password)', mayFollow, visible, (f) => ({ ...f, password: 'secret' }));
  });

  it('the rights that need no record', () => {
    const expect = (rule: (user: User | undefined) => boolean, allowed: Caller[]) => {
      for (const caller of CALLERS) assert.equal(rule(userOf(caller)), allowed.includes(caller), `${rule.name}: ${caller}`);
    };
    expect(mayCreate, CONTRIBUTORS);
    expect(mayListUnpublished, CONTRIBUTORS);
    expect(mayRecordImageFromUrl, AUTHORS);
    expect(mayWriteUnfilteredHtml, EDITORS);
    expect((user) => mayManage(user, CATEGORIES), AUTHORS);
    expect((user) => mayManage(user, TAGS), EDITORS);
  });

  it('readScope, protectedTextScope and readerKey per caller', () => {
    const scopes: Record<Caller, unknown> = {
      anonymous: { everything: false, ownStatuses: [] },
      subscriber: { everything: false, ownerId: ME, ownStatuses: ['private'] },
      contributor: { everything: false, ownerId: ME, ownStatuses: ['private', 'draft', 'pending', 'future'] },
      author: { everything: false, ownerId: ME, ownStatuses: ['private', 'draft', 'pending', 'future'] },
      editor: { everything: true },
      administrator: { everything: true },
    };
    const hidden: Record<Caller, unknown> = {
      anonymous: {},
      subscriber: {},
      contributor: { exceptAuthor: ME, ownOnlyUnpublished: true },
      author: { exceptAuthor: ME, ownOnlyUnpublished: false },
      editor: undefined,
      administrator: undefined,
    };
    for (const caller of CALLERS) {
      const user = userOf(caller);
      assert.deepEqual(readScope(user), scopes[caller], `readScope: ${caller}`);
      assert.deepEqual(protectedTextScope(user), hidden[caller], `protectedTextScope: ${caller}`);
      assert.deepEqual(readerKey(user), user ? [ME, caller] : null, `readerKey: ${caller}`);
      assert.deepEqual(readerOf(user), { scope: scopes[caller], protectedText: hidden[caller], key: readerKey(user) });
    }
  });

  it('statusFilter: absent → publish or everything but the trash; others than publish only for editors of their own', () => {
    for (const caller of CALLERS) {
      const user = userOf(caller);
      const edits = CONTRIBUTORS.includes(caller);
      const none = edits ? { statuses: ANY_STATUS, urlValue: 'any' } : { statuses: ['publish'], urlValue: 'publish' };
      assert.deepEqual(statusFilter(undefined, user), none, caller);
      assert.deepEqual(statusFilter([], user), none, caller);
      assert.deepEqual(statusFilter(['publish'], user), { statuses: ['publish'], urlValue: 'publish' }, caller);
      for (const asked of [['draft'], ['publish', 'draft'], ['any']]) {
        if (edits) assert.ok(statusFilter(asked, user), caller);
        else
          assert.throws(
            () => statusFilter(asked, user),
            (e: RestError) =>
              e.status === 400 &&
              e.code === 'rest_invalid_param' &&
              JSON.stringify(e.data.params) === JSON.stringify({ status: 'status other than publish needs the right to edit.' }),
            `${caller} ${asked}`,
          );
      }
    }
    const editor = userOf('editor');
    assert.deepEqual(statusFilter(['draft', 'any', 'trash', 'draft'], editor), {
      statuses: ['draft', ...ANY_STATUS.filter((s) => s !== 'draft'), 'trash'],
      urlValue: 'draft,any,trash,draft',
    });
    assert.deepEqual(ANY_STATUS, ['publish', 'future', 'draft', 'pending', 'private']);
  });

  it('storedStatus: what publishers ask for, pending or draft for contributors, scheduled by the publication date', () => {
    const existing = (status: string): PostFacts => ({ type: 'event', status, authorId: ME });
    const cases: Array<[string | undefined, string | undefined, boolean, Caller, string]> = [
      [undefined, undefined, false, 'author', 'publish'],
      [undefined, undefined, true, 'author', 'future'],
      [undefined, undefined, false, 'contributor', 'draft'],
      [undefined, undefined, true, 'contributor', 'draft'],
      ['publish', undefined, false, 'contributor', 'pending'],
      ['future', undefined, true, 'contributor', 'pending'],
      ['draft', undefined, false, 'contributor', 'draft'],
      ['pending', undefined, false, 'contributor', 'pending'],
      ['publish', undefined, true, 'editor', 'future'],
      ['future', undefined, false, 'editor', 'publish'],
      ['future', undefined, true, 'editor', 'future'],
      ['draft', undefined, true, 'editor', 'draft'],
      [undefined, 'draft', false, 'contributor', 'draft'],
      [undefined, 'pending', false, 'contributor', 'pending'],
      [undefined, 'publish', true, 'author', 'future'],
      [undefined, 'future', false, 'author', 'publish'],
      [undefined, 'private', false, 'author', 'private'],
      ['publish', 'draft', false, 'contributor', 'pending'],
      ['draft', 'publish', false, 'author', 'draft'],
    ];
    for (const [requested, before, future, caller, stored] of cases) {
      const label = `${caller} asks ${requested} over ${before}${future ? ', dated in the future' : ''}`;
      assert.equal(storedStatus(requested, before === undefined ? undefined : existing(before), future, userOf(caller)), stored, label);
    }
  });

  it('postPolicy create and edit: private needs publish_posts, giving the record to another needs edit_others_posts', () => {
    const refused = (run: () => void, status: number, label: string) => assert.throws(run, (e: RestError) => e.status === status && e.code === 'rest_forbidden', label);
    refused(() => postPolicy.create(undefined, undefined, {}), 401, 'anonymous create');
    refused(() => postPolicy.create(userOf('subscriber'), undefined, {}), 403, 'subscriber create');
    postPolicy.create(userOf('contributor'), undefined, { status: 'draft', authorId: ME });
    refused(() => postPolicy.create(userOf('contributor'), undefined, { status: 'private' }), 403, 'contributor private');
    postPolicy.create(userOf('author'), undefined, { status: 'private' });
    refused(() => postPolicy.create(userOf('author'), undefined, { authorId: ME + 1 }), 403, 'author reassigns');
    postPolicy.create(userOf('editor'), undefined, { status: 'private', authorId: ME + 1 });
    const others = record('draft', false);
    postPolicy.edit(userOf('author'), record('publish', true), { authorId: ME });
    postPolicy.edit(userOf('contributor'), record('draft', true), { status: 'pending' });
    postPolicy.edit(userOf('author'), record('draft', true), {});
    // Keeping the record's own author is not a reassignment, even for someone else's record.
    postPolicy.edit(userOf('editor'), others, { authorId: ME + 1 });
    refused(() => postPolicy.edit(userOf('author'), others, {}), 403, 'author edits others');
    refused(() => postPolicy.edit(undefined, others, {}), 401, 'anonymous edits');
    refused(() => postPolicy.edit(userOf('contributor'), record('draft', true), { status: 'private' }), 403, 'contributor private edit');
    refused(() => postPolicy.edit(userOf('author'), record('draft', true), { authorId: ME + 1 }), 403, 'author gives away');
    postPolicy.remove(userOf('contributor'), record('draft', true));
    refused(() => postPolicy.remove(userOf('contributor'), record('publish', true)), 403, 'contributor removes published');
    refused(() => postPolicy.remove(undefined, record('draft', true)), 401, 'anonymous removes');
    postPolicy.list(undefined, undefined, {});
    assert.throws(
      () => postPolicy.list(undefined, undefined, { status: ['draft'] }),
      (e: RestError) => e.status === 400,
    );
  });

  it('postPolicy read: not accessible, no longer available, password-protected with attempts counted', async () => {
    const messages: Record<string, string> = {
      'venue-not-accessible': 'The requested venue is not accessible',
      'venue-no-longer-available': 'This venue is no longer available',
      'venue-password-protected': 'The requested venue is not accessible without a password',
    };
    const matches = (code: string) => (e: RestError) => e.status === 403 && e.code === code && e.message === messages[code];
    const refused = (run: () => void, code: string) => assert.throws(run, matches(code), code);
    const venue = (status: string, extra: Partial<PostFacts> = {}) => ({ id: 7, type: 'venue', status, authorId: ME + 1, ...extra });
    postPolicy.read(undefined, venue('publish'), {});
    refused(() => postPolicy.read(undefined, venue('draft'), {}), 'venue-not-accessible');
    refused(() => postPolicy.read(userOf('author'), venue('trash'), {}), 'venue-no-longer-available');
    postPolicy.read(userOf('editor'), venue('trash'), {});
    const events: string[] = [];
    const passwordAttempt = async (id: number, right: boolean) => void events.push(`${right ? 'right' : 'wrong'} ${id}`);
    const locked = venue('publish', { password: 'open sesame' });
    refused(() => postPolicy.read(undefined, locked, { passwordAttempt }), 'venue-password-protected');
    assert.deepEqual(events, [], 'no password sent: no attempt');
    await assert.rejects(async () => postPolicy.read(undefined, locked, { password: 'wrong', passwordAttempt }), matches('venue-password-protected'));
    assert.deepEqual(events, ['wrong 7']);
    await postPolicy.read(undefined, locked, { password: 'open sesame', passwordAttempt });
    assert.deepEqual(events, ['wrong 7', 'right 7']);
    // The count's refusal (429) is the answer, for a right password too.
    const tooMany = Object.assign(new RestError(429, 'rest_too_many_requests', 'Too many'), {});
    await assert.rejects(
      async () => postPolicy.read(undefined, locked, { password: 'open sesame', passwordAttempt: async () => Promise.reject(tooMany) }),
      (e) => e === tooMany,
    );
    postPolicy.read(userOf('editor'), locked, {});
    postPolicy.read(undefined, locked, { password: 'open sesame' });
    refused(() => postPolicy.read(undefined, locked, { password: 'wrong' }), 'venue-password-protected');
    // An empty password protects nothing: any password sent (or none) reads it.
    postPolicy.read(undefined, venue('publish', { password: '' }), { password: 'x', passwordAttempt });
    assert.equal(events.length, 2, 'no attempt counted on an unprotected record');
  });

  it('termPolicy: anyone reads; managing needs the taxonomy right (401 anonymous, 403 otherwise)', () => {
    for (const [taxonomy, allowed] of [
      [CATEGORIES, AUTHORS],
      [TAGS, EDITORS],
    ] as const) {
      const policy = termPolicy(taxonomy);
      for (const caller of CALLERS) {
        policy.read();
        if (allowed.includes(caller)) policy.manage(userOf(caller));
        else
          assert.throws(
            () => policy.manage(userOf(caller)),
            (e: RestError) => e.status === (caller === 'anonymous' ? 401 : 403) && e.code === 'rest_forbidden',
          );
      }
    }
  });
});
