import assert from 'node:assert/strict';
import { createUser, type TestUser } from '../helpers/app.js';
import { eventsApp, PUBLIC_URL, type Http } from '../helpers/events.js';
import { expectStatus } from '../helpers/assertions.js';
import { NS, PASSWORD, send } from '../security/fixtures.js';
import { attr, checkPage, textOf, type ParsedPage } from '../pages/page-html.js';

/**
 * The public pages of recurring events (docs/contract.md §13): an occurrence's page says that it
 * recurs, with the rule in words and a link to `/event/{slug}/all/`, the series' upcoming dates.
 */

const NS_URL = `${PUBLIC_URL}${NS}`;

interface Occurrence {
  id: number;
  slug: string;
  url: string;
  title: string;
}

describe('public pages of recurring events', () => {
  let http: Http;
  let admin: TestUser;
  beforeEach(async () => {
    ({ http } = await eventsApp());
    admin = await createUser('administrator');
  });

  /** A series as the administrator creates it, and its occurrences as the API lists them. */
  async function series(title: string, recurrence: string[], start = '2027-06-04 10:00:00', extra: object = {}): Promise<Occurrence[]> {
    const created = await send(http, 'post', `${NS}/events`, admin, { title, start_date: start, end_date: start.replace('10:00', '12:00'), recurrence, ...extra });
    expectStatus(created, 201);
    const list = await send(http, 'get', `${NS}/events/${created.body.id}/occurrences?per_page=50`, admin);
    expectStatus(list, 200);
    return list.body.events;
  }

  const recurrenceText = (page: ParsedPage) => {
    const found = page.all.find((element) => attr(element, 'class') === 'recurrence');
    return found && textOf(found).replace(/\s+/g, ' ');
  };

  it('the third of six weekly occurrences: "Recurring event", the rule in words, a link to the dates, the same JSON-LD', async () => {
    const occurrences = await series('Life drawing & "friends"', ['RRULE:FREQ=WEEKLY;COUNT=6']);
    assert.equal(occurrences.length, 6);
    const third = occurrences[2]!;
    const res = await http().get(`/event/${third.slug}/`);
    const page = checkPage(res, `${NS_URL}/events/${third.id}`);
    assert.match(res.text, /Friday 18 June 2027, 10:00 – 12:00 UTC/);
    assert.equal(recurrenceText(page), 'Recurring event. Every week, 6 times, until 9 July 2027. See all dates');
    const datesUrl = `${PUBLIC_URL}/event/${third.slug}/all/`;
    assert.ok(page.links.includes(datesUrl), page.links.join(' '));
    // The title in the link's label is escaped as everywhere else on the page.
    assert.match(res.text, /aria-label="See all dates: Life drawing &#38; &#34;friends&#34;"/);
    const api = await send(http, 'get', `${NS}/events/${third.id}`);
    assert.deepEqual(page.jsonLd, [api.body.json_ld]);

    // The link: every upcoming date of the series, soonest first, each linking to its own page.
    const all = await http().get(new URL(datesUrl).pathname);
    const dates = checkPage(all, `${NS_URL}/events/${third.id}/occurrences`);
    assert.equal(textOf(dates.byTag('h1')[0]!), 'Life drawing & "friends"');
    assert.equal(textOf(dates.byTag('title')[0]!).startsWith('All dates: Life drawing & "friends"'), true);
    assert.deepEqual(
      dates.byTag('h3').map((h) => attr(h.childNodes[0] as never, 'href')),
      occurrences.map((o) => o.url),
    );
    assert.match(all.text, /6 dates coming up\./);
    assert.match(all.text, /Friday 9 July 2027, 10:00 – 12:00 UTC/);
    assert.equal(recurrenceText(dates), 'Every week, 6 times, until 9 July 2027. Back to the event');
    assert.ok(dates.links.includes(third.url));
    assert.equal(dates.meta('og:url'), datesUrl);
    const list = dates.jsonLd[0] as { '@type': string; itemListElement: Array<{ item: { url: string } }> };
    assert.equal(list['@type'], 'ItemList');
    assert.deepEqual(
      list.itemListElement.map((entry) => entry.item.url),
      occurrences.map((o) => o.url),
    );
    // HEAD and conditional GETs as on every page.
    const head = await http().head(new URL(datesUrl).pathname);
    assert.equal(head.status, 200);
    assert.equal(head.headers['x-tec-api-root'], `${NS_URL}/events/${third.id}/occurrences`);
    const again = await http().get(new URL(datesUrl).pathname).set('If-None-Match', String(all.headers.etag));
    assert.equal(again.status, 304);
  });

  it('rules in words: weekdays, intervals, ordinals, UNTIL, no end; "Recurring event" alone for a rule it cannot phrase', async () => {
    const cases: Array<[string[], string, string]> = [
      [['RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20270630'], '2027-06-07 10:00:00', 'Every week on Monday and Wednesday, until 30 June 2027. '],
      [['RRULE:FREQ=WEEKLY;INTERVAL=2'], '2027-06-04 10:00:00', 'Every 2 weeks. '],
      [['RRULE:FREQ=MONTHLY;BYDAY=1FR;COUNT=3'], '2027-06-04 10:00:00', 'Every month on the first Friday, 3 times, until 6 August 2027. '],
      [['RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=3'], '2027-06-30 10:00:00', ''],
    ];
    for (const [recurrence, start, words] of cases) {
      const [first] = await series(`Rule ${recurrence[0]}`, recurrence, start);
      const page = checkPage(await http().get(`/event/${first!.slug}/`), `${NS_URL}/events/${first!.id}`);
      assert.equal(recurrenceText(page), `Recurring event. ${words}See all dates`, recurrence[0]);
    }
  });

  it('a single event: no word of recurrence and no dates page', async () => {
    const single = await send(http, 'post', `${NS}/events`, admin, { title: 'Once only', start_date: '2027-06-04 10:00:00', end_date: '2027-06-04 12:00:00' });
    expectStatus(single, 201);
    const res = await http().get(`/event/${single.body.slug}/`);
    const page = checkPage(res, `${NS_URL}/events/${single.body.id}`);
    assert.equal(recurrenceText(page), undefined);
    assert.doesNotMatch(res.text, /Recurring|\/all\//);
    for (const path of [`/event/${single.body.slug}/all/`, '/event/no-such-event/all/']) checkPage(await http().get(path), `${NS_URL}/`, 404);
  });

  it('the dates page: ten a page, ?page=N, 404 past the last; only the dates an anonymous visitor may see; a protected one shows its notice', async () => {
    const occurrences = await series('Open studio', ['RRULE:FREQ=DAILY;BYDAY=MO,WE;COUNT=12'], '2027-06-07 10:00:00');
    assert.equal(occurrences.length, 12);
    const hidden = occurrences[4]!;
    expectStatus(await send(http, 'post', `${NS}/events/${hidden.id}?scope=this`, admin, { status: 'draft' }), 200);
    const base = `/event/${occurrences[0]!.slug}/all/`;
    const first = checkPage(await http().get(base), `${NS_URL}/events/${occurrences[0]!.id}/occurrences`);
    assert.match(first.html, /Every Monday and Wednesday, 12 times, until 14 July 2027\./);
    assert.match(first.html, /11 dates coming up, page 1 of 2\./);
    const shown = (page: ParsedPage) => page.byTag('h3').map((h) => attr(h.childNodes[0] as never, 'href'));
    const visible = occurrences.filter((o) => o.id !== hidden.id).map((o) => o.url);
    assert.deepEqual(shown(first), visible.slice(0, 10));
    assert.ok(first.links.includes(`${PUBLIC_URL}${base}?page=2`));
    const second = checkPage(await http().get(`${base}?page=2`), `${NS_URL}/events/${occurrences[0]!.id}/occurrences`);
    assert.deepEqual(shown(second), visible.slice(10));
    for (const path of [`${base}?page=3`, `${base}?page=0`, `/event/${hidden.slug}/all/`]) checkPage(await http().get(path), `${NS_URL}/`, 404);

    const guarded = occurrences[6]!;
    expectStatus(await send(http, 'post', `${NS}/events/${guarded.id}?scope=this`, admin, { password: PASSWORD, description: 'Hidden words' }), 200);
    const res = await http().get(`/event/${guarded.slug}/all/`);
    const page = checkPage(res, `${NS_URL}/events/${guarded.id}/occurrences`);
    assert.match(res.text, /password-protected/);
    assert.doesNotMatch(res.text, /Hidden words/);
    // In the list of another occurrence it is masked, as in the API's lists.
    const list = await http().get(base);
    assert.doesNotMatch(list.text, /Hidden words/);
    assert.deepEqual(page.jsonLd, []);
  });
});
