import assert from 'node:assert/strict';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { send, startStallService, withoutStall, type StallService } from './stall.js';

/**
 * Reproduction 4 (docs/limits.md "HTML in descriptions"): HTML nested without end, whose cleaning
 * cost the square of its depth. A create with `'<b>'.repeat(200000)` blocked the loop 28.6 s; a
 * stored `'<b>'.repeat(150000)` blocked every view of its public page 21–40 s, and `events.jsonld`
 * over it 27.9 s, again for every new query.
 */
describe('stall: HTML cleaning (bounded-html)', function () {
  this.timeout(120_000);
  const NS = '/wp-json/tribe/events/v1';
  /** How long an attack may take before it counts as a stall on its own (main took 20 s and more). */
  const ATTACK_TIMEOUT_MS = 15_000;
  let stall: StallService;

  before(async () => {
    stall = await startStallService();
  });

  after(async () => {
    await stall.close();
  });

  /** A published event, written by an administrator; returns its id and slug. */
  async function publishedEvent(title: string, description: string): Promise<{ id: number; slug: string }> {
    const res = await send(stall.url, `${NS}/events`, {
      authorization: await stall.as('administrator'),
      body: { title, description, status: 'publish', start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00' },
    });
    assert.equal(res.status, 201, res.text);
    return { id: res.json.id, slug: res.json.slug };
  }

  /** Gives a stored event a description as a row written before the bounds existed would have it. */
  async function storeDescription(id: number, description: string): Promise<void> {
    await stall.db('posts').where({ id }).update({ description });
    await bumpDataVersion(stall.db);
  }

  it("a contributor's create with 200,000 unclosed <b> is 400 on description, without blocking the loop", async () => {
    const contributor = await stall.as('contributor');
    const body = (description: string) => ({ title: 'Nested', description, start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00' });
    const warm = await send(stall.url, `${NS}/events`, { authorization: contributor, body: body('<p>warm-up</p>') });
    assert.equal(warm.status, 201, warm.text);
    const { result } = await withoutStall(stall.url, () =>
      send(stall.url, `${NS}/events`, { authorization: contributor, body: body('<b>'.repeat(200_000)), timeoutMs: ATTACK_TIMEOUT_MS }),
    );
    assert.equal(result.status, 400, result.text);
    assert.equal(result.json.code, 'rest_invalid_param');
    assert.equal(result.json.data.params.description, 'description has more than 10000 HTML elements.');
  });

  describe('a description stored before the bounds: 150,000 unclosed <b>', () => {
    let benign: { id: number; slug: string };
    let nested: { id: number; slug: string };

    before(async () => {
      benign = await publishedEvent('Benign', '<p>A <b>short</b> description.</p>');
      nested = await publishedEvent('Nested', '<p>Soon replaced.</p>');
      await storeDescription(nested.id, `<p>Start</p>${'<b>'.repeat(150_000)}end`);
    });

    it('its public page answers, twice, without blocking the loop', async () => {
      const warm = await send(stall.url, `/event/${benign.slug}/`);
      assert.equal(warm.status, 200, warm.text);
      for (let view = 0; view < 2; view++) {
        const { result } = await withoutStall(stall.url, () => send(stall.url, `/event/${nested.slug}/`, { timeoutMs: ATTACK_TIMEOUT_MS }));
        assert.equal(result.status, 200);
        // Its text, nested as deep as the bound lets it (the paragraph is the first level).
        const description = result.text.slice(result.text.indexOf('<div class="description">'));
        assert.match(description, /^<div class="description">\n<p>Start<\/p>\n<p>(<b>){99}end(<\/b>){99}<\/p>\n<\/div>/);
      }
    });

    it('events.jsonld answers under every query without blocking the loop', async () => {
      const warm = await send(stall.url, `${NS}/events.jsonld?per_page=1&search=Benign`);
      assert.equal(warm.status, 200, warm.text);
      // Each query misses the remembered replies; the cleaned description is the same for all.
      for (const query of ['', '?per_page=2', '?per_page=3', '?start_date=2026-12-01']) {
        const { result } = await withoutStall(stall.url, () => send(stall.url, `${NS}/events.jsonld${query}`, { timeoutMs: ATTACK_TIMEOUT_MS }));
        assert.equal(result.status, 200, `${query}: ${result.text.slice(0, 200)}`);
        const items = result.json.itemListElement.map((entry: { item: { name: string; description?: string } }) => entry.item);
        const item = items.find((event: { name: string }) => event.name === 'Nested');
        assert.equal(item.description, 'Startend');
      }
    });
  });
});
