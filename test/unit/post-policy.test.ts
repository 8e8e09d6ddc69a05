import assert from 'node:assert/strict';
import { can, ROLES, type Role, type User } from '../../src/auth/capabilities.js';
import { mayDelete as canDeleteRecord, mayEdit as canEditRecord, mayRead as canReadRecord } from '../../src/policies/posts.js';

const user = (role: Role, id = 10): User => ({ id, login: role, role });

describe('roles and per-record permissions', () => {
  it('grants the term rights of docs/plugin-behaviour.md §4.2', () => {
    const matrix: Record<Role, [boolean, boolean]> = {
      administrator: [true, true],
      editor: [true, true],
      author: [true, false],
      contributor: [false, false],
      subscriber: [false, false],
    };
    for (const role of ROLES) {
      assert.equal(can(user(role), 'manage_event_categories'), matrix[role][0], `${role} categories`);
      assert.equal(can(user(role), 'manage_tags'), matrix[role][1], `${role} tags`);
    }
    assert.equal(can(undefined, 'read'), false);
  });

  it('lets contributors edit and delete only their own unpublished records', () => {
    const contributor = user('contributor');
    assert.ok(canEditRecord(contributor, { type: 'event', status: 'draft', authorId: 10 }));
    assert.ok(canDeleteRecord(contributor, { type: 'event', status: 'pending', authorId: 10 }));
    assert.ok(!canEditRecord(contributor, { type: 'event', status: 'publish', authorId: 10 }));
    assert.ok(!canEditRecord(contributor, { type: 'event', status: 'draft', authorId: 11 }));
  });

  it('lets authors edit their own published records but not others', () => {
    const author = user('author');
    assert.ok(canEditRecord(author, { type: 'event', status: 'publish', authorId: 10 }));
    assert.ok(!canEditRecord(author, { type: 'event', status: 'draft', authorId: 11 }));
    assert.ok(!canDeleteRecord(author, { type: 'event', status: 'publish', authorId: 11 }));
  });

  it('lets editors edit everything', () => {
    for (const status of ['publish', 'draft', 'pending', 'private', 'future', 'trash']) {
      assert.ok(canEditRecord(user('editor'), { type: 'event', status, authorId: 99 }), status);
    }
  });

  it('applies the read rule: published to all, drafts to their editors, private and trash to editors', () => {
    assert.ok(canReadRecord(undefined, { type: 'event', status: 'publish', authorId: 1 }));
    assert.ok(!canReadRecord(undefined, { type: 'event', status: 'draft', authorId: 1 }));
    assert.ok(canReadRecord(user('contributor'), { type: 'event', status: 'draft', authorId: 10 }));
    assert.ok(!canReadRecord(user('author'), { type: 'event', status: 'draft', authorId: 11 }));
    assert.ok(canReadRecord(user('editor'), { type: 'event', status: 'draft', authorId: 11 }));
    assert.ok(canReadRecord(user('subscriber'), { type: 'event', status: 'private', authorId: 10 }), 'own private');
    assert.ok(!canReadRecord(user('author'), { type: 'event', status: 'private', authorId: 11 }));
    assert.ok(canReadRecord(user('editor'), { type: 'event', status: 'private', authorId: 11 }));
    assert.ok(!canReadRecord(user('author'), { type: 'event', status: 'trash', authorId: 10 }));
    assert.ok(canReadRecord(user('editor'), { type: 'event', status: 'trash', authorId: 10 }));
  });
});
