import assert from 'node:assert/strict';
import { banPattern, literal, MAX_PATTERN_LENGTH, type PurgeScope } from '../../src/cache/ban-pattern.js';
import { urlLayout } from '../../src/cache/purger.js';
import { assertBans, matching } from './ban-match.js';

const NS = '/wp-json/tribe/events/v1';
const none = (): PurgeScope => ({ events: new Set(), venues: new Set(), organizers: new Set(), categories: new Set(), tags: new Set() });
const layout = urlLayout({ publicUrl: undefined, basePath: '/wp-json' });

/** What every batch bans, whatever changed: lists, feeds, occurrence lists, event by-slug reads, pages, `?rest_route=`. */
const ALWAYS = [
  `${NS}/events`,
  `${NS}/events/`,
  `${NS}/events?page=2&per_page=50`,
  `${NS}/events?categories=music&start_date=2030-01-01`,
  `${NS}/events.ics`,
  `${NS}/events.ics?venue=7`,
  `${NS}/events.jsonld?page=3`,
  `${NS}/events/5/occurrences`,
  `${NS}/events/5/occurrences?page=2`,
  `${NS}/events/by-slug/any-slug`,
  `${NS}/events/by-slug/%e3%82%a4`,
  `${NS}/venues`,
  `${NS}/venues?only_with_upcoming=true`,
  `${NS}/organizers/`,
  `${NS}/categories?hide_empty=1`,
  `${NS}/tags`,
  '/',
  '/?page=2',
  '/?rest_route=/tribe/events/v1/events/12',
  '/index.php?rest_route=%2Ftribe%2Fevents%2Fv1%2Fvenues%2F3',
  '/events/',
  '/events/?page=4',
  '/EVENTS/',
  '/event/a-concert/',
  '/event/a-concert',
  '/EVENT/A-Concert/?x=1',
  '/venue/the-hall/',
  '/venue/the-hall/?page=2',
  '/organizer/the-band/',
  '/events/category/music/',
  '/events/category/music/jazz/',
  '/tag/free/',
];

/** Never banned: answers no write changes, and the change feed (never cached). */
const NEVER = [
  `${NS}/`,
  `${NS}`,
  '/wp-json/',
  '/wp-json',
  `${NS}/doc`,
  '/docs',
  '/docs/',
  '/healthz',
  '/readyz',
  '/metrics',
  `${NS}/changes`,
  `${NS}/changes?after=x`,
  `${NS}/webhooks`,
  '/favicon.ico',
];

/** Single records of each type, by id. */
function singles(id: number): string[] {
  return [`${NS}/events/${id}`, `${NS}/venues/${id}`, `${NS}/organizers/${id}`, `${NS}/categories/${id}`, `${NS}/tags/${id}`];
}

describe('cache/ban-pattern: the BAN regex', () => {
  it('bans an event by id in every form the service answers it, and no other event', () => {
    const pattern = banPattern({ ...none(), events: new Set([12, 7]) }, layout);
    const forms = (id: number) => [
      `${NS}/events/${id}`,
      `${NS}/events/${id}/`,
      `${NS}/events/${id}//`,
      `${NS}/events/${id}?_fields=title`,
      `${NS}/events/${id}/ics`,
      `${NS}/events/${id}/ics/`,
      `${NS}/events/${id}.ics`,
      `${NS}/events/0${id}`,
      `${NS}/events/00${id}.ics`,
      `${NS}/EVENTS/${id}`,
      `/WP-JSON/Tribe/Events/V1/events/${id}`,
    ];
    // Forms the validator coerces to some id: they may stand for 12, so they go too.
    const coerced = [`${NS}/events/+12`, `${NS}/events/12.0`, `${NS}/events/%31%32`, `${NS}/events/1.2e1`];
    assertBans(pattern, [...forms(12), ...forms(7), ...coerced, ...ALWAYS], [...singles(1), ...singles(120), ...singles(112), `${NS}/events/71`, `${NS}/events/17/ics`, ...NEVER]);
  });

  it('bans venues and organizers by id and every by-slug read of their type; every event record with them', () => {
    const pattern = banPattern({ ...none(), events: 'all', venues: new Set([3]), organizers: new Set([4]) }, layout);
    assertBans(
      pattern,
      [
        `${NS}/venues/3`,
        `${NS}/venues/3/`,
        `${NS}/venues/by-slug/the-hall`,
        `${NS}/organizers/4?x=1`,
        `${NS}/organizers/by-slug/x`,
        `${NS}/events/99`,
        `${NS}/events/99/ics`,
        ...ALWAYS,
      ],
      [`${NS}/venues/30`, `${NS}/organizers/3`, `${NS}/venues/4`, `${NS}/categories/3`, `${NS}/tags/4`, ...NEVER],
    );
  });

  it('bans categories and tags by id, and leaves the by-slug reads of types that did not change', () => {
    const pattern = banPattern({ ...none(), categories: new Set([8, 9]), tags: new Set([10]) }, layout);
    assertBans(
      pattern,
      [`${NS}/categories/8`, `${NS}/categories/9/`, `${NS}/tags/10`, ...ALWAYS],
      [`${NS}/categories/10`, `${NS}/tags/8`, `${NS}/venues/by-slug/x`, `${NS}/organizers/by-slug/x`, ...singles(11), ...NEVER],
    );
  });

  it('with every type whole, bans every record and still leaves what no write changes', () => {
    const pattern = banPattern({ events: 'all', venues: 'all', organizers: 'all', categories: 'all', tags: 'all' }, layout);
    assertBans(pattern, [...singles(1), ...singles(987654), ...ALWAYS], NEVER);
  });

  it('follows BASE_PATH and PUBLIC_URL: the prefix may be there or stripped by a proxy before the cache', () => {
    const at = urlLayout({ publicUrl: 'https://example.org/calendar/', basePath: '/api' });
    const pattern = banPattern({ ...none(), events: new Set([5]) }, at);
    const root = '/api/tribe/events/v1';
    assertBans(
      pattern,
      [
        `${root}/events/5`,
        `/calendar${root}/events/5.ics`,
        `${root}/events?page=2`,
        '/calendar/event/x/',
        '/event/x/',
        '/calendar/',
        '/calendar/?rest_route=/x',
        '/calendar/events/category/a/',
      ],
      [`${NS}/events/5`, `${root}/events/6`, `/calendar${root}/events/6`, `${root}/`, '/calendar/docs', '/other/event/x/'],
    );
  });

  it('reads an empty BASE_PATH', () => {
    const pattern = banPattern({ ...none(), events: new Set([5]) }, urlLayout({ publicUrl: undefined, basePath: '' }));
    assertBans(pattern, ['/tribe/events/v1/events/5', '/tribe/events/v1/events', '/events/', '/event/x/'], ['/tribe/events/v1/events/6', '/tribe/events/v1/', '/docs']);
  });

  it('writes letters in both cases and special characters as brackets, never with a backslash', () => {
    assert.equal(literal('/a.b-1'), '/[aA][.][bB]-1');
    assert.equal(literal('x(y)'), '[xX][(][yY][)]');
    assert.deepEqual([...matching(`^${literal('/p.q(1)')}$`, ['/P.Q(1)', '/p.q(1)', '/pxq(1)'])].sort(), ['/P.Q(1)', '/p.q(1)']);
  });

  it('stays below the cache header limit with the most ids a batch names', () => {
    const many = new Set(Array.from({ length: 300 }, (_, i) => 1_000_000 + i));
    const pattern = banPattern({ events: many, venues: many, organizers: many, categories: many, tags: many }, layout);
    assert.ok(pattern.length <= MAX_PATTERN_LENGTH, `${pattern.length} characters`);
    // The types that no longer fit go whole: every record of theirs is banned, none is missed.
    assertBans(pattern, [...singles(1_000_000), ...singles(1_000_299)], NEVER);
  });
});
