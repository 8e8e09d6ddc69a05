import assert from 'node:assert/strict';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { insertEvent, storeRawText } from '../helpers/event-rows.js';
import { send, startStallService, withoutStall, type StallService } from './stall.js';

/**
 * Reproduction 4 (docs/limits.md "HTML in descriptions"): HTML nested without end, whose cleaning
 * cost the square of its depth. A create with `'<b>'.repeat(200000)` blocked the loop 28.6 s; a
 * stored `'<b>'.repeat(150000)` blocked every view of its public page 21–40 s, and `events.jsonld`
 * over it 27.9 s, again for every new query.
 */
describe('stall: HTML cleaning', function () {
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

  /**
   * A published event written straight into the database with `description`, as a row written
   * before the bounds existed would be, its forms rendered as the migration renders such a row's
   * (src/db/rendered-texts.ts; the rendering gives the loop turns too). (Each test writes its own:
   * on MySQL the database is emptied before every test.)
   */
  async function storedEvent(title: string, description: string): Promise<{ id: number; slug: string }> {
    const id = await insertEvent(stall.db, { title, startUtc: '2027-01-01 10:00:00', endUtc: '2027-01-01 11:00:00' });
    await storeRawText(stall.db, id, { description });
    await bumpDataVersion(stall.db);
    const { slug } = await stall.db('posts').where({ id }).first('slug');
    return { id, slug };
  }

  /** The reproduction's stored description: a paragraph, then 150,000 `<b>` never closed (450 KB). */
  const NESTED = `<p>Start</p>${'<b>'.repeat(150_000)}end`;

  it("a contributor's create with 200,000 unclosed <b> is 400 on description, without blocking the loop", async () => {
    const contributor = await stall.as('contributor');
    const body = (description: string) => ({ title: 'Nested', description, start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00' });
    const warm = await send(stall.url, `${NS}/events`, { authorization: contributor, body: body('<p>warm-up</p>') });
    assert.equal(warm.status, 201, warm.text);
    // The reproduction is past the description's length limit, which refuses it first; 4,000
    // unclosed `<b>` fit in that limit (12,000 characters) and meet the depth bound.
    for (const [description, reason] of [
      ['<b>'.repeat(200_000), 'description must NOT have more than 16384 characters'],
      ['<b>'.repeat(4_000), 'description nests HTML elements more than 100 deep.'],
    ]) {
      const { result } = await withoutStall(stall.url, () =>
        send(stall.url, `${NS}/events`, { authorization: contributor, body: body(description), timeoutMs: ATTACK_TIMEOUT_MS }),
      );
      assert.equal(result.status, 400, result.text);
      assert.equal(result.json.code, 'rest_invalid_param');
      assert.equal(result.json.data.params.description, reason);
    }
  });

  describe('a description stored before the bounds: 150,000 unclosed <b>', () => {
    it('its public page answers, twice, without blocking the loop', async () => {
      const benign = await storedEvent('Benign', '<p>A <b>short</b> description.</p>');
      const nested = await storedEvent('Nested', NESTED);
      const warm = await send(stall.url, `/event/${benign.slug}/`);
      assert.equal(warm.status, 200, warm.text);
      for (let view = 0; view < 2; view++) {
        const { result } = await withoutStall(stall.url, () => send(stall.url, `/event/${nested.slug}/`, { timeoutMs: ATTACK_TIMEOUT_MS }));
        assert.equal(result.status, 200);
        // Its text, cut to the description's length limit when read (docs/limits.md "Text fields and
        // reply sizes": the closing `end` is past it), nested as deep as the bound lets it (the
        // paragraph is the first level).
        const description = result.text.slice(result.text.indexOf('<div class="description">'));
        assert.match(description, /^<div class="description">\n<p>Start<\/p>\n<p>(<b>){99}(<\/b>){99}<\/p>\n<\/div>/);
      }
    });

    it('events.jsonld answers under every query without blocking the loop', async () => {
      const warm = await send(stall.url, `${NS}/events.jsonld?per_page=1`);
      assert.equal(warm.status, 200, warm.text);
      await storedEvent('Nested', NESTED);
      // Each query misses the remembered replies; the cleaned description is the same for all.
      for (const query of ['', '?per_page=2', '?per_page=3', '?start_date=2026-12-01']) {
        const { result } = await withoutStall(stall.url, () => send(stall.url, `${NS}/events.jsonld${query}`, { timeoutMs: ATTACK_TIMEOUT_MS }));
        assert.equal(result.status, 200, `${query}: ${result.text.slice(0, 200)}`);
        const items = result.json.itemListElement.map((entry: { item: { name: string; description?: string } }) => entry.item);
        const item = items.find((event: { name: string }) => event.name === 'Nested');
        // Cut to the length limit when read: the closing `end` is past it.
        assert.equal(item.description, 'Start');
      }
    });
  });

  describe('many published events, each description at the element bound and all different', () => {
    /** `count` events written straight into the database, each description 5,000 elements. */
    async function fullEvents(count: number): Promise<void> {
      for (let n = 0; n < count; n++) await storedEvent(`Full ${n}`, `<p>${n}</p>${'<i>a</i>'.repeat(4_999)}`);
    }

    // A page of events.jsonld holds 50; the iCalendar feed holds up to 2,000 (200 here).
    for (const [what, path, count] of [
      ['events.jsonld', `${NS}/events.jsonld?per_page=50`, 50],
      ['the iCalendar feed', `${NS}/events.ics`, 200],
    ] as const) {
      it(`${what} over ${count} builds them without blocking the loop`, async () => {
        // The warm-up shows an ordinary long description, as a running service has.
        await storedEvent('Ordinary', `<h2>Programme</h2>${'<p>A <b>talk</b> and <a href="https://example.org/">a link</a>.</p>'.repeat(100)}`);
        const warm = await send(stall.url, path);
        assert.equal(warm.status, 200, warm.text);
        await fullEvents(count);
        const { result } = await withoutStall(stall.url, () => send(stall.url, path, { timeoutMs: ATTACK_TIMEOUT_MS }));
        assert.equal(result.status, 200, result.text.slice(0, 200));
      });
    }
  });
});
