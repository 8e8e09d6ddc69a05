import assert from 'node:assert/strict';
import http from 'node:http';
import { assignUrls, candidateUrls, modelOriginRequests, requestsTotal, startOriginCounter, windowCheck } from '../cache.js';
import { rng } from '../common.js';
import type { Samples } from '../scenarios.js';
import { parseVarnishstat } from '../../cache/varnish-stats.js';

/**
 * The cache benchmark's verdict (scripts/bench/cache.ts, docs/caching.md "Capacity") rests on what
 * the origin saw, counted before the service, and on a bound per max-age window: these pin the
 * counting, the bound and the pieces that feed them.
 */
const urls = (counts: Record<string, number>) => new Map(Object.entries(counts));

describe('cache benchmark: origin counting and the window check', () => {
  it('bounds the origin at distinct URLs x (windows + 1), and each URL at windows + 1', () => {
    // 60 s at max-age 10: 6 windows, so 7 fetches per URL at most.
    const fine = windowCheck(urls({ '/a': 7, '/b': 1 }), 60, 10);
    assert.deepEqual(
      { ...fine, busiestUrl: undefined },
      { distinctUrls: 2, windows: 6, revalidations: 0, bound: 14, originRequests: 8, met: true, perUrlMet: true, busiestUrl: undefined },
    );
    assert.deepEqual(fine.busiestUrl, { url: '/a', requests: 7 });
    // One URL fetched 8 times breaks its own bound even when the total stays under the sum.
    const oneTooMany = windowCheck(urls({ '/a': 8, '/b': 1 }), 60, 10);
    assert.equal(oneTooMany.met, true);
    assert.equal(oneTooMany.perUrlMet, false);
    // Every URL at the bound and one more request anywhere: not met.
    const over = windowCheck(urls({ '/a': 8, '/b': 7 }), 60, 10);
    assert.equal(over.bound, 14);
    assert.equal(over.met, false);
    // A partial window counts as a window; revalidations widen the bound.
    const partial = windowCheck(new Map([['/a', 5]]), 25, 10, 2);
    assert.equal(partial.windows, 3);
    assert.equal(partial.bound, 6);
    assert.equal(partial.met, true);
  });

  it('predicts r / (1 + r x max-age) fetches a second per URL, at most 1 / max-age however many ask', () => {
    // One subscriber polling every 5 s (r = 0.2/s), max-age 10: 0.2 / 3 a second, 4 in a minute.
    assert.equal(modelOriginRequests([1], 5, 60, 10), 4);
    // A thousand on one URL: close to one fetch per max-age window, never more.
    const popular = modelOriginRequests([1000], 5, 60, 10);
    assert.ok(popular > 5.9 && popular < 6, String(popular));
    // URLs add up; subscribers beyond a few per URL barely add anything.
    assert.ok(Math.abs(modelOriginRequests([1, 1000], 5, 60, 10) - (4 + popular)) < 1e-9);
  });

  it("sums the service's http_requests_total, leaving out the scrapes and the writer's PATCHes", () => {
    const text = [
      '# HELP http_requests_total HTTP requests answered, by operationId, method and status.',
      '# TYPE http_requests_total counter',
      'http_requests_total{operation="listEventsIcs",method="GET",status="200"} 12',
      'http_requests_total{operation="listEventsIcs",method="GET",status="304"} 30',
      'http_requests_total{operation="event/:slug",method="GET",status="200"} 5',
      'http_requests_total{operation="metrics",method="GET",status="200"} 2',
      'http_requests_total{operation="updateEvent",method="PATCH",status="200"} 4',
      'http_request_duration_seconds_count{operation="listEventsIcs",method="GET",status="200"} 12',
    ].join('\n');
    assert.equal(requestsTotal(text), 53);
    assert.equal(requestsTotal(text, { operations: ['metrics'], methods: ['PATCH'] }), 47);
  });

  it('gives every URL a subscriber and the rest by popularity, the same for the same seed', () => {
    const urls = Array.from({ length: 50 }, (_, i) => `/u${i}`);
    const assigned = assignUrls(urls, 1000, rng(7));
    assert.equal(assigned.length, 1000);
    assert.deepEqual(new Set(assigned), new Set(urls));
    const counts = [...urls.map((url) => assigned.filter((a) => a === url).length)].sort((a, b) => b - a);
    // Zipf: the most followed URL has many times the subscribers of the least followed.
    assert.ok(counts[0] >= 5 * counts[counts.length - 1], `counts ${counts.join(',')}`);
    assert.deepEqual(assignUrls(urls, 1000, rng(7)), assigned);
    // Fewer subscribers than URLs: each follows another URL.
    assert.equal(new Set(assignUrls(urls, 20, rng(7))).size, 20);
  });

  it('chooses distinct URLs of every kind, as many as asked', () => {
    const samples: Samples = {
      events: Array.from({ length: 500 }, (_, i) => ({ id: i + 1, slug: `event-${i + 1}` })),
      categorySlugs: ['jazz', 'folk'],
      categoryIds: [1, 2],
      tagIds: [3, 4],
      venueIds: [5, 6],
      organizerIds: [7, 8],
      firstDay: Date.UTC(2026, 0, 1),
      lastDay: Date.UTC(2028, 0, 1),
      recentModified: '2026-11-01T00:00:00Z',
    };
    const { urls, eventIds } = candidateUrls(samples, { categoryPages: ['/events/category/music/jazz/'], tagSlugs: ['t'], venueSlugs: ['v'] }, 300, 1);
    assert.equal(new Set(urls).size, urls.length);
    assert.equal(urls.length, 300);
    const share = (test: (url: string) => boolean) => urls.filter(test).length / urls.length;
    assert.ok(share((u) => /\/events\/\d+\.ics$/.test(u)) > 0.35);
    assert.ok(share((u) => u.includes('/events.ics')) > 0);
    assert.ok(share((u) => u.includes('/events.jsonld')) > 0);
    assert.ok(share((u) => u.startsWith('/event/')) > 0.1);
    assert.ok(urls.includes('/events/') && urls.includes('/events/category/music/jazz/'));
    assert.ok(share((u) => u.startsWith('/wp-json/') && !u.includes('.ics') && !u.includes('.jsonld')) > 0.1);
    // The writer patches events these URLs show.
    assert.ok(eventIds.length > 100 && eventIds.every((id) => id >= 1 && id <= 500));
  });

  it('reads objects, storage bytes and hits from varnishstat -j, nested (7.x) or flat (older)', () => {
    const counter = (value: number) => ({ description: 'x', flag: 'g', format: 'i', value });
    const nested = JSON.stringify({
      version: 1,
      timestamp: '2026-11-27T13:06:41',
      counters: {
        'MAIN.n_object': counter(60),
        'SMA.s0.g_bytes': counter(1_365_000),
        'SMA.Transient.g_bytes': counter(0),
        'MAIN.cache_hit': counter(738),
        'MAIN.backend_req': counter(190),
      },
    });
    const stats = parseVarnishstat(nested);
    assert.equal(stats.objects, 60);
    assert.deepEqual(stats.storageBytes, { s0: 1_365_000, Transient: 0 });
    assert.equal(stats.cacheHit, 738);
    assert.equal(stats.backendRequests, 190);
    assert.equal(stats.cacheMiss, undefined);
    const flat = parseVarnishstat(JSON.stringify({ timestamp: '2019-01-01T00:00:00', 'MAIN.n_object': counter(3) }));
    assert.equal(flat.objects, 3);
  });

  it('counts what reaches the origin through the proxy: per URL, statuses, conditional requests, sizes', async () => {
    const origin = http.createServer((req, res) => {
      if (req.headers['if-none-match'] === '"v1"') return res.writeHead(304, { etag: '"v1"' }).end();
      res.writeHead(200, { etag: '"v1"', 'content-type': 'text/plain', connection: 'keep-alive' }).end(req.url === '/big' ? 'x'.repeat(5000) : 'small');
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const counter = await startOriginCounter((origin.address() as { port: number }).port);
    try {
      const get = async (path: string, headers: Record<string, string> = {}) => {
        const res = await fetch(`http://127.0.0.1:${counter.port}${path}`, { headers });
        return { status: res.status, body: await res.text(), etag: res.headers.get('etag') };
      };
      // Discarded by reset(), all but the size of its answer: the priming before the load.
      await get('/primed');
      counter.reset();
      const first = await get('/big');
      assert.deepEqual(first, { status: 200, body: 'x'.repeat(5000), etag: '"v1"' });
      assert.equal((await get('/big', { 'if-none-match': '"v1"' })).status, 304);
      await get('/small?a=1');
      const counts = counter.counts;
      assert.equal(counts.requests, 3);
      assert.deepEqual(counts.byStatus, { 200: 2, 304: 1 });
      assert.equal(counts.conditional, 1);
      assert.deepEqual(Object.fromEntries(counts.perUrl), { '/big': 2, '/small?a=1': 1 });
      // In the order first seen.
      assert.deepEqual([...counts.sizes.keys()], ['/primed', '/big', '/small?a=1']);
      assert.deepEqual(Object.fromEntries(counts.sizes), { '/primed': 5, '/big': 5000, '/small?a=1': 5 });
      assert.equal(counts.failures, 0);
      assert.deepEqual(counts.failureReasons, []);
    } finally {
      await counter.close();
      origin.closeAllConnections();
      await new Promise((resolve) => origin.close(resolve));
    }
  });
});
