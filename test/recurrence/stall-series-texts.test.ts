import assert from 'node:assert/strict';
import { send, startStallService, withoutStall, type StallService } from '../security/stall.js';

/**
 * Series writes of the largest texts (docs/limits.md "Series writes and other people's
 * occurrences"): a contributor's hourly series of RECURRENCE_MAX_OCCURRENCES (1,000) occurrences
 * with a description of the largest length allowed (16,384 characters), then `PATCH ?scope=all`
 * with another such description. Every occurrence is a copy of the text, so a write of the series
 * writes 16 MB of text (and its search index); the work is budgeted by bytes and time, and no
 * `/healthz` probe may wait more than 100 ms meanwhile. On MySQL each write also ends within
 * WRITE_MS: the occurrences share their text's trigram rows (db/search-index.ts).
 */

const NS = '/wp-json/tribe/events/v1';
const SIZE = 1000;
const DESCRIPTION_LIMIT = 16_384;
const BUDGET_MS = 100;
/** The longest a write of the series may take on MySQL (issue: "within a few seconds"); SQLite's are far shorter. */
const WRITE_MS = 8000;

/**
 * Prose of exactly `length` characters: words made of syllables by a fixed sequence, a vocabulary of
 * 4,000 of them, so that a text has as many distinct trigrams as real prose of its length (about
 * 2,500 here; the index writes a row per distinct trigram, docs/limits.md "Series writes and other
 * people's occurrences").
 */
function syllableProse(seed: number, length: number): string {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return (state >>> 8) % n;
  };
  const onsets = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'ch', 'cl', 'dr', 'fl', 'gr', 'pl', 'pr', 'sh', 'st', 'th', 'tr'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'y', 'ai', 'ea', 'ou', 'ie'];
  const codas = ['k', 'p', 'ck', 'ft', '', '', 'n', 'r', 's', 't', 'l', 'ng', 'st', 'rd', 'x', 'm'];
  const syllable = () => onsets[next(onsets.length)] + vowels[next(vowels.length)] + codas[next(codas.length)];
  const words = Array.from({ length: 4000 }, () => Array.from({ length: 1 + next(3) }, syllable).join(''));
  let text = '';
  while (text.length < length) text += `${words[next(words.length)]}${next(9) === 0 ? '. ' : next(12) === 0 ? ', ' : ' '}`;
  return `${text.slice(0, length - 1)}.`;
}

/** Prose of exactly `length` characters, words drawn from a list of 40 by a fixed sequence (about 100 distinct trigrams): SQLite's case. */
function wordListProse(seed: number, length: number): string {
  const words = [
    'calendar',
    'market',
    'evening',
    'concert',
    'garden',
    'workshop',
    'library',
    'museum',
    'harbour',
    'festival',
    'lecture',
    'river',
    'quartet',
    'bakery',
    'painting',
    'yoga',
    'chess',
    'theatre',
    'cinema',
    'poetry',
    'jazz',
    'village',
    'meadow',
    'lantern',
    'puzzle',
    'orchard',
    'violin',
    'kitchen',
    'school',
    'bridge',
    'forest',
    'summer',
    'winter',
    'autumn',
    'spring',
    'zebra',
    'quince',
    'walnut',
    'crystal',
    'voyage',
  ];
  let state = seed;
  let text = '';
  while (text.length < length) {
    state = (state * 1103515245 + 12345) % 2147483648;
    text += `${words[state % words.length]}${state % 7 === 0 ? '. ' : ' '}`;
  }
  return `${text.slice(0, length - 1)}.`;
}

describe('stall: a series of 1,000 occurrences with descriptions of 16,384 characters', function () {
  this.timeout(300_000);
  let service: StallService;

  before(async () => {
    service = await startStallService();
  });
  after(async () => {
    await service?.close();
  });

  it(`is created and rewritten with scope=all without any /healthz probe over ${BUDGET_MS} ms`, async function () {
    // A probe's wait includes the machine's scheduling: with several suites running on two cores a
    // probe waited 108–196 ms in some runs, while the service's own longest hold (SQLite's commit) is
    // 64–74 ms. A service that holds the loop too long fails every try.
    this.retries(2);
    const contributor = await service.as('contributor');
    // Warm-up: the validator compiles each route on first use.
    const warm = await send(service.url, `${NS}/events`, {
      method: 'POST',
      authorization: contributor,
      body: { title: 'Warm', start_date: '2027-01-01 09:00:00', end_date: '2027-01-01 10:00:00' },
    });
    assert.equal(warm.status, 201, warm.text);
    assert.equal((await send(service.url, `${NS}/events/${warm.json.id}?scope=all`, { method: 'PATCH', authorization: contributor, body: { title: 'Warmed' } })).status, 200);

    // MySQL's index writes a row per distinct trigram of each text (db/search-index.ts): its case has
    // as many as real prose. SQLite's FTS table is written by triggers, a row's text at a time.
    const mysql = service.db.client.config.client === 'mysql2';
    const prose = mysql ? syllableProse : wordListProse;
    const first = prose(1, DESCRIPTION_LIMIT);
    if (mysql) assert.ok(new Set(Array.from({ length: first.length - 2 }, (_, i) => first.slice(i, i + 3))).size > 2000, 'the description has thousands of distinct trigrams');
    const created = await withoutStall(
      service.url,
      () =>
        send(service.url, `${NS}/events`, {
          method: 'POST',
          authorization: contributor,
          body: {
            title: 'Hourly',
            description: first,
            start_date: '2027-03-01 09:00:00',
            end_date: '2027-03-01 09:30:00',
            timezone: 'UTC',
            recurrence: [`RRULE:FREQ=HOURLY;COUNT=${SIZE}`],
          },
          timeoutMs: 120_000,
        }),
      BUDGET_MS,
    );
    console.log(`      create: ${created.result.status} in ${Math.round(created.result.ms)} ms, slowest /healthz ${Math.round(created.slowestProbeMs)} ms`);
    assert.equal(created.result.status, 201, created.result.text.slice(0, 500));
    if (mysql) assert.ok(created.result.ms < WRITE_MS, `the create took ${Math.round(created.result.ms)} ms`);
    const seriesId = created.result.json.id as number;
    const stored = await service.db('events as x').join('posts as p', 'p.id', 'x.post_id').where('x.series_id', seriesId).select('p.id', 'p.description');
    assert.equal(stored.length, SIZE);
    assert.ok(stored.every((row: { description: string }) => row.description.length >= DESCRIPTION_LIMIT - 100));
    // The change feed (and so the webhooks) has every occurrence.
    const ids = stored.map((row: { id: number }) => Number(row.id));
    const changedSince = async (seq: number) =>
      Number((await service.db('changes').where('type', 'event').whereIn('record_id', ids).where('seq', '>', seq).count({ n: '*' }))[0].n);
    assert.equal(await changedSince(0), SIZE);
    const [{ top }] = await service.db('changes').max({ top: 'seq' });

    const second = prose(2, DESCRIPTION_LIMIT);
    const patched = await withoutStall(
      service.url,
      () => send(service.url, `${NS}/events/${seriesId}?scope=all`, { method: 'PATCH', authorization: contributor, body: { description: second }, timeoutMs: 120_000 }),
      BUDGET_MS,
    );
    console.log(`      PATCH scope=all: ${patched.result.status} in ${Math.round(patched.result.ms)} ms, slowest /healthz ${Math.round(patched.slowestProbeMs)} ms`);
    assert.equal(patched.result.status, 200, patched.result.text.slice(0, 500));
    if (mysql) assert.ok(patched.result.ms < WRITE_MS, `the PATCH took ${Math.round(patched.result.ms)} ms`);
    assert.deepEqual(patched.result.json.skipped_occurrences, []);
    const rewritten = await service.db('events as x').join('posts as p', 'p.id', 'x.post_id').where('x.series_id', seriesId).select('p.description', 'p.version');
    assert.equal(rewritten.length, SIZE);
    assert.equal(new Set(rewritten.map((row: { description: string }) => row.description)).size, 1, 'every occurrence has the new description');
    assert.notEqual(rewritten[0].description, stored[0].description);
    assert.equal(await changedSince(Number(top)), SIZE, 'every occurrence is a change again');
    // A word of the new text only finds the series' occurrences through the search index.
    const found = await send(
      service.url,
      `${NS}/events?search=${encodeURIComponent(second.slice(3, 40).split(' ').slice(1, 3).join(' '))}&start_date=2027-01-01&end_date=2027-12-31&per_page=1`,
    );
    assert.equal(found.status, 200, found.text.slice(0, 300));
  });
});
