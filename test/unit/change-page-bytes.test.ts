import assert from 'node:assert/strict';
import { pageBytes } from '../../src/records/change-feed.js';

describe('the change feed: what one page may weigh', () => {
  it('leaves 4 KiB of the reply limit for the envelope, and takes 2 MiB at most', () => {
    assert.equal(pageBytes(1024 * 1024), 1024 * 1024 - 4096);
    assert.equal(pageBytes(16 * 1024 * 1024), 2 * 1024 * 1024);
  });
});
