import assert from 'node:assert/strict';
import { totalFromPage } from '../../src/db/versioned-cache.js';

describe('totalFromPage (a list total without a COUNT)', () => {
  it('is known from a page that is not full, and from an empty first page', () => {
    assert.equal(totalFromPage(3, 10, 0), 3);
    assert.equal(totalFromPage(3, 10, 20), 23);
    assert.equal(totalFromPage(0, 10, 0), 0);
  });

  it('needs a count when the page is full or when an empty page is not the first', () => {
    assert.equal(totalFromPage(10, 10, 0), undefined);
    assert.equal(totalFromPage(10, 10, 30), undefined);
    assert.equal(totalFromPage(0, 10, 10), undefined);
  });
});
