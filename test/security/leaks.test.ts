import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import type { TestUser } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { pathOf } from '../helpers/events.js';
import { EVENT_DATES, KINDS, NS, PASSWORD, rawText, seed, send, world, type Caller, type Kind, type State, type World } from './fixtures.js';

/**
 * The leak test: drafts, pending, scheduled, private, trashed and password-protected records carry a
 * marker in every field their readers must not see; then every caller who may not read them (none of
 * them owns a record here) walks every read surface — lists with every filter, paging links, single
 * records, embedded venues and organizers, `json_ld`, error answers, and writes that name the hidden
 * records — and the marker must not appear anywhere in the raw answer (status line, headers, body).
 */

/** Written in every field a reader must not see; searched for case-insensitively (slugs are lower-case). */
const MARK = 'Qzxleak';
const LEAK = new RegExp(MARK, 'i');
/** A word every seeded record has in its description, so searches find published and hidden ones alike. */
const WORD = 'aardvark';

/** Callers who may read none of the hidden records (docs/contract.md §5: the owner and editors only). */
const READERS: Caller[] = ['anonymous', 'subscriber', 'contributor', 'author'];

/** States whose whole record is hidden from READERS; `password` hides all but the name. */
const HIDDEN: State[] = ['draft', 'pending', 'future', 'private', 'trash'];

const [EVENT, VENUE, ORGANIZER] = KINDS as [Kind, Kind, Kind];

/** Fields carrying the marker, per kind (the name too, except on password-protected records). */
function secretFields(kind: Kind, state: State): Record<string, unknown> {
  const name = state === 'password' ? {} : { [kind.nameField]: `${MARK} ${state} ${kind.type}` };
  const common = { description: `${WORD} ${MARK} description of the ${state} ${kind.type}`, slug: `${state}-${kind.type}-record` };
  if (kind === EVENT) {
    return { ...name, ...common, excerpt: `${MARK} excerpt`, cost: `${MARK} 15`, website: `https://${MARK}.example.test/`, featured: true };
  }
  if (kind === VENUE) {
    return {
      ...name,
      ...common,
      address: `1 ${MARK} Street`,
      city: `${MARK}ville`,
      state: `${MARK}state`,
      province: `${MARK}province`,
      zip: `${MARK}zip`,
      country: `${MARK}land`,
      phone: '+1 555 0142',
      website: `https://${MARK}.example.test/`,
      geo_lat: 48.8566,
      geo_lng: 2.3522,
    };
  }
  return { ...name, ...common, email: `${MARK}@example.test`, phone: '+1 555 0143', website: `https://${MARK}.example.test/` };
}

interface Seeds {
  hidden: Record<'event' | 'venue' | 'organizer', Array<{ id: number; slug: string; state: State }>>;
  /** Published events linking every hidden venue and organizer; the first one also the password-protected ones. */
  publicEvents: number[];
  publicVenue: number;
  category: number;
  tag: number;
}

async function seedAll(w: World): Promise<Seeds> {
  const hidden: Seeds['hidden'] = { event: [], venue: [], organizer: [] };
  const states: State[] = [...HIDDEN, 'password'];
  for (const kind of [VENUE, ORGANIZER]) {
    for (const state of states) {
      const record = await seed(w, kind, w.someone, state, 'unused', secretFields(kind, state));
      hidden[kind.type].push({ ...record, state });
    }
  }
  const category = (await send(w.http, 'post', `${NS}/categories`, w.admin, { name: 'Open category' })).body.id as number;
  const tag = (await send(w.http, 'post', `${NS}/tags`, w.admin, { name: 'Open tag' })).body.id as number;
  const publicVenue = (await send(w.http, 'post', `${NS}/venues`, w.admin, { venue: 'Open venue', description: WORD, geo_lat: 48.85, geo_lng: 2.35 })).body.id as number;
  // Trashed venues and organizers cannot be linked (trashing unlinks them); every other one is,
  // unless `withProtected` is false (then the password-protected ones are left out).
  const linkable = (records: Array<{ id: number; state: State }>, withProtected = true) =>
    records.filter((r) => r.state !== 'trash' && (withProtected || r.state !== 'password')).map((r) => r.id);
  // An event links at most 3 venues (docs/limits.md): the hidden venues are spread over the events,
  // the open one with each. Group 0 holds the protected venue; the other groups the rest, two at a time.
  const protectedVenue = linkable(hidden.venue).filter((id) => !linkable(hidden.venue, false).includes(id));
  const otherVenues = linkable(hidden.venue, false);
  const venueGroups = [[...protectedVenue, ...otherVenues.slice(0, 1)]];
  for (let i = 1; i < otherVenues.length; i += 2) venueGroups.push(otherVenues.slice(i, i + 2));
  const links = (group: number, withProtected = true) => ({
    venue: [...venueGroups[group].filter((id) => withProtected || !protectedVenue.includes(id)), publicVenue],
    organizer: linkable(hidden.organizer, withProtected),
    categories: [category],
    tags: [tag],
  });
  for (const [i, state] of states.entries()) {
    // Each hidden event is a recurring series (docs/contract.md §14): its other occurrence is hidden alike.
    const record = await seed(w, EVENT, w.someone, state, 'unused', { ...secretFields(EVENT, state), ...links(i % venueGroups.length), recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] });
    hidden.event.push({ ...record, state });
  }
  // Published events linking every hidden venue and organizer; the first one also the protected ones,
  // the second none of them; one more per further group of hidden venues.
  const publicEvents: number[] = [];
  for (const [n, group, withProtected] of [[0, 0, true], [1, 1 % venueGroups.length, false], ...venueGroups.slice(2).map((_, i) => [i + 2, i + 2, false])] as Array<
    [number, number, boolean]
  >) {
    const res = await send(w.http, 'post', `${NS}/events`, w.admin, {
      title: `Open event ${n}`,
      description: WORD,
      ...EVENT_DATES,
      ...links(group, withProtected),
      featured: true,
    });
    assert.equal(res.status, 201, res.text);
    publicEvents.push(res.body.id);
  }
  return { hidden, publicEvents, publicVenue, category, tag };
}

/** The text around the first marker, to show where it leaked. */
function around(text: string): string {
  const at = text.search(LEAK);
  return at < 0 ? '' : `…${text.slice(Math.max(0, at - 300), at + 100)}…`;
}

/** Requests `path` as `as` and asserts the answer is not a 5xx and shows no marker; returns it. */
async function look(w: World, as: TestUser | undefined, path: string, label: string, seen: Set<string>): Promise<Response> {
  const res = await send(w.http, 'get', path, as);
  seen.add(path);
  assert.ok(res.status < 500, `${label} GET ${path}: ${res.status} ${res.text}`);
  assert.ok(!LEAK.test(rawText(res)), `${label} GET ${path} leaks (${res.status}): ${around(rawText(res))}`);
  // Counts leak too: a one-page list's total is the number of records it shows (the JSON-LD feed's
  // items and numberOfItems included).
  const jsonLdItems = res.body?.['@type'] === 'ItemList' ? res.body.itemListElement : undefined;
  if (Array.isArray(jsonLdItems) && Number(res.headers['x-wp-totalpages']) <= 1) {
    assert.equal(res.body.numberOfItems, jsonLdItems.length, `${label} GET ${path}: numberOfItems ${res.body.numberOfItems} for ${jsonLdItems.length} items`);
    assert.equal(res.headers['x-wp-total'], String(jsonLdItems.length), `${label} GET ${path}: X-WP-Total`);
  }
  const items = ['events', 'venues', 'organizers'].map((key) => res.body?.[key]).find(Array.isArray);
  if (items && res.body.total_pages <= 1) {
    assert.equal(res.body.total, items.length, `${label} GET ${path}: total ${res.body.total} for ${items.length} records`);
    assert.equal(res.headers['x-wp-total'], String(items.length), `${label} GET ${path}: X-WP-Total`);
  }
  return res;
}

/** Requests a list and every page its `next_rest_url`/`previous_rest_url` links and its `Link` header lead to. */
async function walk(w: World, as: TestUser | undefined, path: string, label: string, seen: Set<string>): Promise<void> {
  const queue = [path];
  while (queue.length) {
    const next = queue.shift() as string;
    if (seen.has(next)) continue;
    const res = await look(w, as, next, label, seen);
    for (const key of ['next_rest_url', 'previous_rest_url']) if (typeof res.body?.[key] === 'string') queue.push(pathOf(res.body[key]));
    for (const [, url] of String(res.headers.link ?? '').matchAll(/<([^>]+)>; rel="(?:next|prev)"/g)) queue.push(pathOf(url));
  }
}

describe('no hidden content in any answer to a caller who may not read it', function () {
  for (const caller of READERS) {
    it(`${caller}: lists with every filter, paging links, single records, embedded copies, json_ld and errors`, async () => {
      const w = await world();
      const s = await seedAll(w);
      const as = w.users[caller];
      const seen = new Set<string>();
      const all = (type: keyof Seeds['hidden']) => s.hidden[type].map((r) => r.id).join(',');
      const mayFilterStatus = caller === 'contributor' || caller === 'author';
      // Each hidden status alone is covered by the matrix; here every one of them at once, and the defaults.
      const statuses = mayFilterStatus ? ['any', 'publish', 'trash', 'draft,pending,future,private,trash'] : ['publish'];

      // Lists: every filter once; without a filter, with a search and with every status a caller may
      // ask for, one record per page, so the paging links are walked too.
      const eventFilters = [
        '',
        `search=${WORD}`,
        `venue=${all('venue')}`,
        `organizer=${all('organizer')}`,
        `categories=${s.category}`,
        `tags=${s.tag}`,
        'featured=true',
        `include=${all('event')},${s.publicEvents.join(',')}`,
        'start_date=2027-01-01&end_date=2027-12-31',
        'starts_after=2026-12-01&ends_before=2028-01-01',
        'geoloc=true',
        'geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=50',
        'strict_dates=true',
        'hide_subsequent_recurrences=true',
        ...s.hidden.event.map((e) => `post_parent=${e.id}`),
      ];
      const linkedFilters = ['', `search=${WORD}`, `event=${s.publicEvents[0]}`, 'has_events=true', 'only_with_upcoming=true', ...s.hidden.event.map((e) => `event=${e.id}`)];
      for (const [collection, filters] of [
        ['events', eventFilters],
        ['venues', linkedFilters],
        ['organizers', linkedFilters],
      ] as const) {
        for (const filter of filters) await look(w, as, `${NS}/${collection}?${filter}`, caller, seen);
        const paged = ['', `search=${WORD}`, ...statuses.flatMap((status) => [`status=${status}`, `status=${status}&search=${WORD}`])];
        for (const query of paged) await walk(w, as, `${NS}/${collection}?${query}&per_page=1`, caller, seen);
        // Searching for the marker itself finds nothing (the marker is in the request, so only the items are checked).
        for (const status of statuses) {
          const res = await send(w.http, 'get', `${NS}/${collection}?search=${MARK}&status=${status}`, as);
          assert.equal(res.status, 200, res.text);
          assert.equal(res.body.total, 0, `${caller} ${collection} search for the marker, status=${status}: ${res.text}`);
          assert.equal(res.headers['x-wp-total'], '0');
        }
      }
      // The iCalendar feeds (docs/contract.md §11): every filter and status as on the list, and each
      // hidden event alone (403 without its text); protected text never appears in a VEVENT either.
      for (const filter of [...eventFilters, ...statuses.map((status) => `status=${status}`)]) {
        const res = await look(w, as, `${NS}/events.ics?${filter}`, caller, seen);
        assert.equal(res.status, 200, `${caller} events.ics?${filter}: ${res.text}`);
        assert.match(res.text, /^BEGIN:VCALENDAR\r\n/);
      }
      for (const record of s.hidden.event) {
        const res = await look(w, as, `${NS}/events/${record.id}.ics`, caller, seen);
        assert.equal(res.status, 403, `${caller} ${record.state} event.ics: ${res.status}`);
        await look(w, as, `${NS}/events/${record.id}.ics?password=wrong-password`, caller, seen);
      }
      for (const id of s.publicEvents) await look(w, as, `${NS}/events/${id}.ics`, caller, seen);
      // The JSON-LD feed (docs/contract.md §12): every filter and status as on the list, page by page.
      for (const filter of [...eventFilters, ...statuses.map((status) => `status=${status}`)]) {
        const res = await look(w, as, `${NS}/events.jsonld?${filter}`, caller, seen);
        assert.equal(res.status, 200, `${caller} events.jsonld?${filter}: ${res.text}`);
        assert.equal(res.body['@type'], 'ItemList');
      }
      for (const status of statuses) await walk(w, as, `${NS}/events.jsonld?status=${status}&per_page=1`, caller, seen);
      // A hidden series' occurrences (docs/contract.md §14): refused as its first event is.
      for (const record of s.hidden.event) {
        const res = await look(w, as, `${NS}/events/${record.id}/occurrences?start_date=2020-01-01&end_date=2099-12-31`, caller, seen);
        assert.equal(res.status, 403, `${caller} ${record.state} occurrences: ${res.status}`);
      }
      // Terms of hidden events.
      for (const collection of ['categories', 'tags']) {
        for (const hiddenEvent of s.hidden.event) {
          await look(w, as, `${NS}/${collection}?hide_empty=0&event=${hiddenEvent.id}`, caller, seen);
          await look(w, as, `${NS}/${collection}?post=${hiddenEvent.id}`, caller, seen);
        }
      }
      // Single records: the hidden ones (403, or 200 masked/refused for protected ones), with a wrong password too.
      for (const kind of KINDS) {
        for (const record of s.hidden[kind.type]) {
          const byId = await look(w, as, `${NS}/${kind.collection}/${record.id}`, caller, seen);
          assert.equal(byId.status, 403, `${caller} ${kind.type} ${record.state}: ${byId.status}`);
          await look(w, as, `${NS}/${kind.collection}/by-slug/${record.slug}`, caller, seen);
          await look(w, as, `${NS}/${kind.collection}/${record.id}?password=wrong-password`, caller, seen);
        }
      }
      // A published event embedding hidden venues and organizers: only the open venue shows, json_ld included.
      // (The first public event, which also embeds the protected ones, is read in lists only; see the BUG below.)
      const single = await look(w, as, `${NS}/events/${s.publicEvents[1]}`, caller, seen);
      assert.equal(single.body.venue.id, s.publicVenue, 'only the open venue is embedded');
      assert.deepEqual(single.body.organizer, [], 'no hidden organizer is embedded');
      const listed = await look(w, as, `${NS}/events?include=${s.publicEvents[0]}`, caller, seen);
      const protectedId = (type: 'venue' | 'organizer') => s.hidden[type].find((r) => r.state === 'password')?.id;
      assert.deepEqual(listed.body.events[0].venue.map((v: { id: number }) => v.id).sort(), [protectedId('venue'), s.publicVenue].sort(), 'embedded venues');
      assert.deepEqual(
        listed.body.events[0].organizer.map((o: { id: number }) => o.id),
        [protectedId('organizer')],
        'embedded organizers',
      );
      await look(w, as, `${NS}/venues/${s.publicVenue}`, caller, seen);

      // The change feed (docs/contract.md §9): every hidden record is a delete without content, in
      // every page, whatever the types asked for.
      const hiddenKeys = new Set(KINDS.flatMap((kind) => s.hidden[kind.type].map((r) => `${kind.type}:${r.id}`)));
      for (const types of ['', '&types=event', '&types=venue,organizer']) {
        let cursor = '';
        for (let pages = 0; ; pages++) {
          const res = await look(w, as, `${NS}/changes?per_page=3${types}${cursor ? `&after=${cursor}` : ''}`, caller, seen);
          assert.equal(res.status, 200, res.text);
          for (const change of res.body.changes as Array<Record<string, unknown>>) {
            if (hiddenKeys.has(`${change.type}:${change.id}`)) {
              assert.equal(change.action, 'delete', `${caller} feed: ${change.type} ${change.id}`);
              assert.ok(change.record === undefined || change.record === null);
            }
          }
          cursor = res.body.next_cursor;
          if (!res.body.has_more) break;
          assert.ok(pages < 100);
        }
      }

      // Writes that name hidden records: refused without showing them.
      if (caller !== 'anonymous' && caller !== 'subscriber') {
        const writes: Array<[method: 'post' | 'patch' | 'delete', path: string, body?: object, allowed?: number[]]> = [];
        for (const kind of KINDS) {
          for (const record of s.hidden[kind.type]) {
            writes.push(['patch', `${NS}/${kind.collection}/${record.id}`, { description: 'x' }]);
            writes.push(['delete', `${NS}/${kind.collection}/${record.id}`, undefined]);
          }
        }
        for (const event of s.hidden.event) {
          // An end before the stored start: the answer must not depend on the hidden record.
          writes.push(['patch', `${NS}/events/${event.id}`, { end_date: '2000-01-01 00:00:00' }]);
        }
        // Linking a hidden venue or organizer is refused; a published protected one may be linked (and comes back masked).
        const linkStatus = (state: State) => (state === 'password' ? [201] : [400, 403, 404]);
        for (const venue of s.hidden.venue) writes.push(['post', `${NS}/events`, { title: 'Linking', ...EVENT_DATES, venue: venue.id }, linkStatus(venue.state)]);
        for (const organizer of s.hidden.organizer)
          writes.push(['post', `${NS}/events`, { title: 'Linking', ...EVENT_DATES, organizer: [organizer.id] }, linkStatus(organizer.state)]);
        for (const [method, path, body, allowed = [400, 403, 404]] of writes) {
          const res = await send(w.http, method, path, as, body);
          assert.ok(allowed.includes(res.status), `${caller} ${method.toUpperCase()} ${path} ${JSON.stringify(body)}: ${res.status} ${res.text}`);
          assert.ok(!LEAK.test(rawText(res)), `${caller} ${method.toUpperCase()} ${path} leaks: ${around(rawText(res))}`);
        }
      }
      assert.ok(seen.size > 80, `walked ${seen.size} answers`);
    });
  }

  it('duplicate detection never hands a hidden venue or organizer to a caller who may not read it', async () => {
    const w = await world();
    const s = await seedAll(w);
    for (const caller of ['contributor', 'author'] as const) {
      for (const kind of [VENUE, ORGANIZER]) {
        for (const record of s.hidden[kind.type].filter((r) => r.state !== 'trash')) {
          const fields = secretFields(kind, record.state);
          // The same name (and, for protected ones, the same name alone) as the hidden record.
          const name = record.state === 'password' ? undefined : fields[kind.nameField];
          if (name === undefined) continue;
          const res = await send(w.http, 'post', `${NS}/${kind.collection}`, w.users[caller], { [kind.nameField]: name });
          assert.equal(res.status, 201, res.text);
          assert.notEqual(res.body.id, record.id, `${caller} got the hidden ${record.state} ${kind.type}`);
          // The name (and the slug made from it) come from the request; nothing else of the hidden record may.
          const withoutName = rawText(res).split(String(name)).join('').split(String(name).toLowerCase().replace(/ /g, '-')).join('');
          assert.ok(!LEAK.test(withoutName), `${caller} ${kind.type} ${record.state}: ${around(withoutName)}`);
        }
      }
    }
  });

  // Duplicate detection on create compares the name and every address/contact field sent: a match on
  // a password-protected record would confirm its hidden fields to a caller who may not read them.
  it('duplicate detection never matches a password-protected venue or organizer the caller may not edit', async () => {
    const w = await world();
    const s = await seedAll(w);
    for (const kind of [VENUE, ORGANIZER]) {
      const record = s.hidden[kind.type].find((r) => r.state === 'password') as { id: number };
      const fields = secretFields(kind, 'password');
      // The protected record's name is public (it shows in lists); the rest of the fields are not.
      const shown = (await send(w.http, 'get', `${NS}/${kind.collection}?per_page=50`, w.admin)).body[kind.collection].find((r: { id: number }) => r.id === record.id);
      const guess = { ...fields, [kind.nameField]: shown[kind.nameField], slug: undefined };
      for (const caller of ['contributor', 'author'] as const) {
        const res = await send(w.http, 'post', `${NS}/${kind.collection}`, w.users[caller], guess);
        assert.equal(res.status, 201, res.text);
        assert.notEqual(res.body.id, record.id, `${caller} confirmed the protected ${kind.type}`);
      }
      // Those who may edit it (its author, editors) still get it back instead of a copy.
      for (const as of [w.someone, w.users.editor as TestUser]) {
        const res = await send(w.http, 'post', `${NS}/${kind.collection}`, as, guess);
        assert.equal(res.status, 201, res.text);
        assert.equal(res.body.id, record.id, `${as.login} did not get the ${kind.type} back`);
      }
    }
  });

  // The plugin's has_events counts events that are not drafts or pending; the read rule of the caller
  // applies on top, so a venue linked only to a private, scheduled or trashed event is not revealed.
  it('has_events counts only events the caller may read', async () => {
    const w = await world();
    const linked: Record<string, { venue: number; organizer: number }> = {};
    for (const state of ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const) {
      const venue = (await send(w.http, 'post', `${NS}/venues`, w.admin, { venue: `Venue of the ${state} event` })).body.id as number;
      const organizer = (await send(w.http, 'post', `${NS}/organizers`, w.admin, { organizer: `Organizer of the ${state} event` })).body.id as number;
      await seed(w, EVENT, w.someone, state, `The ${state} event`, { venue, organizer: [organizer] });
      linked[state] = { venue, organizer };
    }
    const idsOf = async (as: TestUser | undefined, collection: string, query: string) =>
      ((await send(w.http, 'get', `${NS}/${collection}?per_page=50&${query}`, as)).body[collection] as Array<{ id: number }>).map((r) => r.id).sort();
    // Statuses whose events count for has_events, per caller (docs/contract.md §5 reads; plugin §6.4: not drafts or pending).
    const counted: Record<Caller, string[]> = {
      anonymous: ['publish'],
      subscriber: ['publish'],
      contributor: ['publish'],
      author: ['publish'],
      editor: ['publish', 'future', 'private', 'trash'],
      administrator: ['publish', 'future', 'private', 'trash'],
    };
    for (const caller of ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'] as const) {
      for (const [collection, key] of [
        ['venues', 'venue'],
        ['organizers', 'organizer'],
      ] as const) {
        const all = Object.values(linked).map((l) => l[key]);
        const withEvents = counted[caller].map((state) => linked[state][key]).sort();
        assert.deepEqual(await idsOf(w.users[caller], collection, 'has_events=true'), withEvents, `${caller} ${collection}?has_events=true`);
        assert.deepEqual(
          await idsOf(w.users[caller], collection, 'has_events=false'),
          all.filter((id) => !withEvents.includes(id)).sort(),
          `${caller} ${collection}?has_events=false`,
        );
      }
    }
  });

  // The record masks a protected event's venue, organizer, categories and tags; the filters that
  // follow links must not reveal them either: for a caller without the password who may not edit
  // the event, it has no links.
  it('a password-protected event has no links for callers who may not edit it, in every filter', async () => {
    const w = await world();
    const linkedTo = async (label: string) => ({
      venue: (await send(w.http, 'post', `${NS}/venues`, w.admin, { venue: `${label} venue`, geo_lat: 10.5, geo_lng: 20.5 })).body.id as number,
      organizer: (await send(w.http, 'post', `${NS}/organizers`, w.admin, { organizer: `${label} organizer` })).body.id as number,
      category: (await send(w.http, 'post', `${NS}/categories`, w.admin, { name: `${label} category` })).body.id as number,
      tag: (await send(w.http, 'post', `${NS}/tags`, w.admin, { name: `${label} tag` })).body.id as number,
    });
    const events: Record<'protected' | 'open', { id: number; links: Awaited<ReturnType<typeof linkedTo>> }> = {} as never;
    for (const which of ['protected', 'open'] as const) {
      const links = await linkedTo(which);
      const event = await seed(w, EVENT, w.someone, which === 'protected' ? 'password' : 'publish', `The ${which} event`, {
        venue: links.venue,
        organizer: [links.organizer],
        categories: [links.category],
        tags: [links.tag],
        featured: true,
      });
      events[which] = { id: event.id, links };
    }
    /** The ids a list answers (200 expected). */
    const ids = async (as: TestUser | undefined, path: string): Promise<number[]> => {
      const res = await send(w.http, 'get', `${NS}/${path}`, as);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.ok(!res.text.includes(PASSWORD));
      const items = ['events', 'venues', 'organizers', 'categories', 'tags'].map((key) => res.body[key]).find(Array.isArray) as Array<{ id: number }>;
      assert.equal(res.body.total, items.length, `${path}: total`);
      return items.map((item) => item.id);
    };
    // Who sees the protected event's links: its author and editors (they may edit it).
    const seesLinks: Record<string, boolean> = { anonymous: false, subscriber: false, contributor: false, author: false, someone: true, editor: true, administrator: true };
    for (const [name, mayEdit] of Object.entries(seesLinks)) {
      const as = name === 'someone' ? w.someone : w.users[name as Caller];
      for (const which of ['protected', 'open'] as const) {
        const { id, links } = events[which];
        const visible = which === 'open' || mayEdit;
        const label = `${name}, ${which} event`;
        const expectLinked = (got: number[], linkedId: number, what: string) =>
          assert.equal(got.includes(linkedId), visible, `${label}: ${what} ${visible ? 'missing' : 'revealed'}`);
        // The event's own terms, venues and organizers.
        expectLinked(await ids(as, `categories?hide_empty=0&event=${id}`), links.category, 'categories?event');
        expectLinked(await ids(as, `tags?hide_empty=0&post=${id}`), links.tag, 'tags?post');
        expectLinked(await ids(as, `venues?event=${id}`), links.venue, 'venues?event');
        expectLinked(await ids(as, `organizers?event=${id}`), links.organizer, 'organizers?event');
        // Events by their links.
        for (const query of [
          `categories=${links.category}`,
          `tags=${links.tag}`,
          `venue=${links.venue}`,
          `organizer=${links.organizer}`,
          'geoloc=true',
          'geoloc_lat=10.5&geoloc_lng=20.5&geoloc_radius=5',
          'featured=true',
        ]) {
          expectLinked(await ids(as, `events?per_page=50&${query}`), id, `events?${query}`);
        }
        // Negated filters treat the protected event as having none.
        assert.equal((await ids(as, 'events?per_page=50&geoloc=false')).includes(id), !visible, `${label}: events?geoloc=false`);
        assert.equal((await ids(as, 'events?per_page=50&featured=false')).includes(id), !visible, `${label}: events?featured=false`);
        // Linked records by their events.
        expectLinked(await ids(as, 'venues?per_page=50&has_events=true'), links.venue, 'venues?has_events');
        expectLinked(await ids(as, 'organizers?per_page=50&has_events=true'), links.organizer, 'organizers?has_events');
        expectLinked(await ids(as, 'venues?per_page=50&only_with_upcoming=true'), links.venue, 'venues?only_with_upcoming');
        expectLinked(await ids(as, 'organizers?per_page=50&only_with_upcoming=true'), links.organizer, 'organizers?only_with_upcoming');
        assert.equal((await ids(as, 'venues?per_page=50&has_events=false')).includes(links.venue), !visible, `${label}: venues?has_events=false`);
      }
      // The event itself stays listed (masked) for everybody.
      assert.ok((await ids(as, 'events?per_page=50')).includes(events.protected.id), `${name}: the protected event is listed`);
    }
  });

  // A single event GET embeds a password-protected venue/organizer masked; the embedded copy's own
  // `json_ld` and the event's `json_ld.location` must not carry its description or address either.
  it('masks the json_ld of a password-protected venue or organizer embedded in a single event GET', async () => {
    const w = await world();
    const s = await seedAll(w);
    for (const caller of READERS) {
      const res = await look(w, w.users[caller], `${NS}/events/${s.publicEvents[0]}`, caller, new Set());
      assert.equal(res.status, 200);
    }
  });

  // Comparing `end_date` with the stored start before the permission check would let 400 versus 403
  // tell a contributor whether someone else's draft starts after a chosen date (a binary search reveals
  // it). docs/contract.md §4: parameters (400), the record (404), the right (403), then checks that need the record.
  it('answers 403 to an update of a hidden record whatever the body says about its stored dates', async () => {
    const w = await world();
    const draft = await seed(w, EVENT, w.someone, 'draft', 'Hidden draft');
    for (const caller of ['contributor', 'author'] as const) {
      for (const end of ['2000-01-01 00:00:00', '2099-01-01 00:00:00']) {
        const res = await send(w.http, 'patch', `${NS}/events/${draft.id}`, w.users[caller], { end_date: end });
        assert.equal(res.status, 403, `${caller} end_date ${end}: ${res.status} ${res.text}`);
      }
    }
  });
  it('never answers 412 nor an ETag of a record the caller may not write, whatever If-Match says (docs/contract.md §10)', async () => {
    const w = await world();
    for (const kind of KINDS) {
      for (const state of ['draft', 'private', 'password', 'publish'] as const) {
        const record = await seed(w, kind, w.someone, state, `Conditional ${state} ${kind.type}`);
        for (const caller of ['contributor', 'author'] as const) {
          for (const tag of ['*', '"stale-0-0"', `"${kind.type}-${record.id}-1"`]) {
            for (const method of ['patch', 'delete'] as const) {
              const res = await send(w.http, method, `${NS}/${kind.collection}/${record.id}`, w.users[caller], method === 'patch' ? { description: 'x' } : undefined).set(
                'If-Match',
                tag,
              );
              assert.equal(res.status, 403, `${caller} ${method} ${state} ${kind.type} If-Match ${tag}: ${res.status} ${res.text}`);
              // Error bodies get Express's weak body hash; never a record's strong, versioned tag.
              assert.ok(res.headers.etag === undefined || res.headers.etag.startsWith('W/'), `no version revealed: ${res.headers.etag}`);
            }
          }
        }
      }
    }
  });

  // repositories/read-scope.ts protectedTextHidden, for a contributor's own password-protected events: their
  // text and links count for the contributor exactly while the contributor may edit the event
  // (policies/posts.ts mayEdit: only unpublished ones). Trashed ones are not readable by contributors at
  // all; test/integration/repositories/read-scope.test.ts checks the rule on every status.
  it('a contributor sees the text and links of their own protected events only while they may edit them', async () => {
    const w = await world();
    const contributor = w.users.contributor as TestUser;
    const venue = (await send(w.http, 'post', `${NS}/venues`, w.admin, { venue: 'Shared venue' })).body.id as number;
    const cases: Array<{ state: State; editable: boolean }> = [
      { state: 'draft', editable: true },
      { state: 'pending', editable: true },
      // An owner may edit its own private record whatever its role (WordPress's map_meta_cap, docs/contract.md §5).
      { state: 'private', editable: true },
      { state: 'future', editable: false },
      { state: 'password', editable: false },
    ];
    for (const { state, editable } of cases) {
      const word = `zz${state}word`;
      const { id } = await seed(w, EVENT, contributor, state, `Own ${state} event`, { description: `The ${word} description`, password: PASSWORD, venue });
      const venues = await send(w.http, 'get', `${NS}/venues?event=${id}`, contributor);
      assert.equal(venues.status, 200, venues.text);
      const linked = (venues.body.venues as Array<{ id: number }>).map((v) => v.id);
      assert.equal(linked.includes(venue), editable, `${state}: the venue of the contributor's own protected event is ${editable ? 'missing' : 'shown'}`);
      const found = await send(w.http, 'get', `${NS}/events?per_page=50&search=${word}`, contributor);
      assert.equal(found.status, 200, found.text);
      const ids = (found.body.events as Array<{ id: number }>).map((e) => e.id);
      assert.equal(ids.includes(id), editable, `${state}: a search of the protected description ${editable ? 'misses' : 'finds'} the event`);
    }
  });

  // WordPress stores "no password" as an empty string: such a record (written by another tool into the
  // same tables) is not protected, and its text is searchable by anyone.
  it('a stored empty password protects nothing: the text is searchable by everyone', async () => {
    const w = await world();
    const { db } = await openTestDatabase();
    const event = await seed(w, EVENT, w.someone, 'publish', 'Open event', { description: 'The zzemptypassword description' });
    await db('posts').where('id', event.id).update({ password: '' });
    for (const caller of READERS) {
      const res = await send(w.http, 'get', `${NS}/events?search=zzemptypassword`, w.users[caller]);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        (res.body.events as Array<{ id: number }>).map((e) => e.id),
        [event.id],
        `${caller}: an event with an empty stored password is found by its description`,
      );
    }
  });
});
