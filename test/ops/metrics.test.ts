import assert from 'node:assert/strict';
import { createUser, NS, testApp } from '../helpers/app.js';
import { expectError } from '../helpers/assertions.js';

/** The value of one sample line (`name{labels} value`) in a Prometheus text exposition, if present. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = /\{(.*)\}/.exec(line)?.[1] ?? '';
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('metrics', () => {
  it('are off by default: GET /metrics is 404 rest_no_route', async () => {
    const { http } = await testApp();
    expectError(await http().get('/metrics'), 404, 'rest_no_route');
  });

  it('count requests and their latency by operationId and status, never by URL', async () => {
    const { http } = await testApp({ metrics: true });
    const before = (await http().get('/metrics')).text;
    const base = sample(before, 'http_requests_total', { operation: 'getEvent', status: '404' }) ?? 0;
    for (const id of [999991, 999992, 999993]) await http().get(`${NS}/events/${id}`).expect(404);
    await http().get(`${NS}/nothing/here`).expect(404);
    const editor = await createUser('editor');
    await http().post(`${NS}/categories`).set('Authorization', editor.authorization).send({ name: 'Measured' }).expect(201);

    const res = await http().get('/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
    const text = res.text;
    assert.equal(sample(text, 'http_requests_total', { operation: 'getEvent', method: 'GET', status: '404' }), base + 3);
    assert.ok((sample(text, 'http_requests_total', { operation: 'createCategory', method: 'POST', status: '201' }) ?? 0) >= 1);
    assert.ok((sample(text, 'http_requests_total', { operation: 'unmatched', status: '404' }) ?? 0) >= 1);
    assert.ok((sample(text, 'http_request_duration_seconds_count', { operation: 'getEvent', status: '404' }) ?? 0) >= 3);
    assert.ok(sample(text, 'http_request_duration_seconds_bucket', { operation: 'getEvent', le: '+Inf' }) !== undefined);
    // Ids and unknown paths never become label values.
    const labelSets = text.split('\n').flatMap((line) => /\{(.*)\}/.exec(line)?.[1] ?? []);
    assert.ok(labelSets.length > 0);
    for (const labels of labelSets) assert.doesNotMatch(labels, /999991|nothing/, labels);
  });

  it('report the database pool', async () => {
    const { http } = await testApp({ metrics: true });
    const text = (await http().get('/metrics')).text;
    for (const name of ['db_pool_connections_used', 'db_pool_connections_free', 'db_pool_pending_acquires', 'db_pool_connections_max']) {
      const value = sample(text, name);
      assert.ok(value !== undefined && value >= 0, `${name}: ${value}`);
    }
    assert.ok((sample(text, 'db_pool_connections_max') ?? 0) >= 1);
    // The scrape itself is in flight while it is answered.
    assert.ok((sample(text, 'http_requests_in_flight') ?? 0) >= 1);
    // Process metrics come along (memory, CPU, event-loop lag).
    assert.ok(sample(text, 'process_resident_memory_bytes') !== undefined);
  });

  it('answer only the METRICS_TOKEN bearer token when one is set', async () => {
    const { http } = await testApp({ metrics: true, metricsToken: 'scrape-token-0123456789' });
    const anonymous = await http().get('/metrics');
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers['www-authenticate'], /^Bearer/);
    assert.equal((await http().get('/metrics').set('Authorization', 'Bearer wrong-token')).status, 401);
    const res = await http().get('/metrics').set('Authorization', 'Bearer scrape-token-0123456789');
    assert.equal(res.status, 200);
    assert.match(res.text, /http_requests_total/);
  });
});
