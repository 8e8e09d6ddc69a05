import assert from 'node:assert/strict';
import type { Request } from 'express';
import { RestError } from '../../src/core/errors.js';
import { MAX_PER_PAGE, listEnvelope, pageHeaders, pageLinks, pageRequest, sentQueryNames } from '../../src/operations/shared/paging.js';

const BASE = 'http://api.test/wp-json/tribe/events/v1/events';
const sent = (originalUrl: string): string[] => sentQueryNames({ originalUrl } as Request);
const pastTheEnd = () => new RestError(404, 'event-archive-page-not-found', 'past the end');

describe('paging (src/operations/shared/paging.ts)', () => {
  it('pageRequest: page 1 and 10 per page by default, per_page clamped to 50, the offset of the page', () => {
    assert.deepEqual(pageRequest(undefined, undefined), { page: 1, perPage: 10, offset: 0 });
    assert.deepEqual(pageRequest(3, 7), { page: 3, perPage: 7, offset: 14 });
    assert.deepEqual(pageRequest(2, MAX_PER_PAGE), { page: 2, perPage: 50, offset: 50 });
    assert.deepEqual(pageRequest(2, 51), { page: 2, perPage: 50, offset: 50 });
    assert.equal(pageRequest(1e19, 10).offset, Number.MAX_SAFE_INTEGER);
  });

  it('sentQueryNames: the names sent, in order, once each, bracket forms reduced to the name', () => {
    assert.deepEqual(sent('/events'), []);
    assert.deepEqual(sent('/events?'), []);
    assert.deepEqual(sent('/events?search=a&categories[]=1&categories[]=2&page=2&tags[0]=x&search=b'), ['search', 'categories', 'page', 'tags']);
    assert.deepEqual(sent('/events?a[1]=x&b%5B%5D=y'), ['a', 'b']);
    assert.deepEqual(sent('/events?x=1'), ['x']);
  });

  it('pageLinks: page and per_page first, then the other arguments without empty ones; next and previous', () => {
    const args = { search: 'a b', page: 9, per_page: 99, categories: [1, 2], none: null, missing: undefined };
    const links = pageLinks(BASE, args, pageRequest(2, 2), 5);
    assert.equal(links.restUrl, `${BASE}/?page=2&per_page=2&search=a+b&categories=1%2C2`);
    assert.equal(links.nextUrl, `${BASE}/?page=3&per_page=2&search=a+b&categories=1%2C2`);
    assert.equal(links.previousUrl, `${BASE}/?per_page=2&search=a+b&categories=1%2C2`, 'page 1 is written without page');
    assert.deepEqual([links.total, links.totalPages], [5, 3]);
    assert.equal(pageLinks(BASE, {}, pageRequest(3, 2), 5).previousUrl, `${BASE}/?page=2&per_page=2`);
  });

  it('pageLinks: exact multiples of per_page, one past, and an empty list', () => {
    const pages = (total: number, perPage: number) => pageLinks(BASE, {}, pageRequest(1, perPage), total).totalPages;
    assert.deepEqual([pages(0, 10), pages(1, 10), pages(10, 10), pages(11, 10), pages(20, 10), pages(4, 2), pages(50, 50), pages(51, 50)], [0, 1, 1, 2, 2, 2, 1, 2]);
    assert.equal(pageLinks(BASE, {}, pageRequest(2, 2), 4).nextUrl, undefined, 'the last page has no next page');
    assert.equal(pageLinks(BASE, {}, pageRequest(1, 2), 4).previousUrl, undefined, 'page 1 has no previous page');
  });

  it('pageHeaders: totals in four headers, Link only with a neighbour', () => {
    const only = pageHeaders(pageLinks(BASE, {}, pageRequest(1, 10), 3));
    assert.deepEqual(only, { 'X-TEC-Total': '3', 'X-TEC-TotalPages': '1', 'X-WP-Total': '3', 'X-WP-TotalPages': '1' });
    assert.equal(pageHeaders(pageLinks(BASE, {}, pageRequest(1, 1), 3)).Link, `<${BASE}/?page=2&per_page=1>; rel="next"`);
    assert.equal(pageHeaders(pageLinks(BASE, {}, pageRequest(3, 1), 3)).Link, `<${BASE}/?page=2&per_page=1>; rel="prev"`);
    assert.equal(pageHeaders(pageLinks(BASE, {}, pageRequest(2, 1), 3)).Link, `<${BASE}/?page=3&per_page=1>; rel="next", <${BASE}/?per_page=1>; rel="prev"`);
  });

  it('listEnvelope: the envelope in order, page 1 of nothing is a page, a page past the end throws', () => {
    const { envelope, headers } = listEnvelope(BASE, {}, pageRequest(2, 1), 3, pastTheEnd);
    assert.deepEqual(Object.keys(envelope), ['rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']);
    assert.deepEqual([envelope.total, envelope.total_pages, headers['X-WP-TotalPages']], [3, 3, '3']);
    const empty = listEnvelope(BASE, {}, pageRequest(1, 10), 0, pastTheEnd).envelope;
    assert.deepEqual(empty, { rest_url: `${BASE}/?page=1&per_page=10`, total: 0, total_pages: 0 });
    assert.throws(() => listEnvelope(BASE, {}, pageRequest(2, 10), 0, pastTheEnd), /past the end/);
    assert.throws(() => listEnvelope(BASE, {}, pageRequest(3, 2), 4, pastTheEnd), /past the end/);
    assert.equal(listEnvelope(BASE, {}, pageRequest(2, 2), 4, pastTheEnd).envelope.total_pages, 2);
  });
});
