/**
 * The public URLs the cache benchmark's subscribers follow (cache.ts): what calendar apps, search
 * engines and embedding sites read anonymously. About 40 % one-event `.ics` feeds, 10 % the list feed
 * `/events.ics` (whole, and by category, tag, venue, organizer), 5 % `/events.jsonld`, 25 % public
 * pages (events, the upcoming list and its pages, category, tag and venue pages) and 20 % API reads
 * (lists with filters, single events, the term and venue lists). Each URL is checked once against the
 * service before the run: only those answering 200 are kept.
 */
import { NAMESPACE_PATH, pick, rng } from './common.js';
import type { Samples } from './scenarios.js';

const api = (path: string) => `${NAMESPACE_PATH}${path}`;

/** The candidate URLs, `count` of them and distinct, with the ids of the events they name (the writer patches those). */
export function candidateUrls(samples: Samples, extra: { categoryPages: string[]; tagSlugs: string[]; venueSlugs: string[] }, count: number, seed: number): { urls: string[]; eventIds: number[] } {
  const random = rng(seed);
  const urls = new Set<string>();
  const eventIds = new Set<number>();
  const share = (fraction: number) => Math.max(1, Math.round(count * fraction));
  /** Adds URLs made by `make` until `n` more are in (or it keeps repeating itself). */
  const add = (n: number, make: (i: number) => string | undefined) => {
    const target = urls.size + n;
    for (let i = 0, misses = 0; urls.size < target && misses < 50; i++) {
      const url = make(i);
      if (url === undefined || urls.has(url)) misses++;
      else urls.add(url);
    }
  };
  const event = () => {
    const e = pick(random, samples.events);
    eventIds.add(e.id);
    return e;
  };
  // One-event feeds, as a calendar app subscribes to them from an event's page.
  add(share(0.4), () => api(`/events/${event().id}.ics`));
  // The list feed: the whole calendar and its filtered subscriptions.
  add(share(0.1), (i) => {
    const filters = [
      '',
      `?categories=${encodeURIComponent(pick(random, samples.categorySlugs))}`,
      `?tags=${pick(random, samples.tagIds)}`,
      `?venue=${pick(random, samples.venueIds)}`,
      `?organizer=${pick(random, samples.organizerIds)}`,
      '?featured=1',
    ];
    return api(`/events.ics${filters[i % filters.length]}`);
  });
  add(share(0.05), (i) => api(`/events.jsonld${i === 0 ? '' : `?categories=${encodeURIComponent(pick(random, samples.categorySlugs))}`}`));
  // Public pages (docs/contract.md §13).
  add(share(0.25), (i) => {
    switch (i % 10) {
      case 0:
        return i < 50 ? `/events/${i === 0 ? '' : `?page=${1 + i / 10}`}` : `/event/${event().slug}/`;
      case 1:
        return extra.categoryPages.length ? pick(random, extra.categoryPages) : undefined;
      case 2:
        return extra.tagSlugs.length ? `/tag/${pick(random, extra.tagSlugs)}/` : undefined;
      case 3:
        return extra.venueSlugs.length ? `/venue/${pick(random, extra.venueSlugs)}/` : undefined;
      default:
        return `/event/${event().slug}/`;
    }
  });
  // API reads, as websites embedding the calendar make them.
  add(count - urls.size, (i) => {
    switch (i % 8) {
      case 0:
        return api(`/events?categories=${encodeURIComponent(pick(random, samples.categorySlugs))}`);
      case 1:
        return api(`/events?page=${1 + Math.floor(random() * 5)}`);
      case 2:
        return api(`/events?venue=${pick(random, samples.venueIds)}`);
      case 3:
        return api(['/categories', '/tags', '/venues', '/organizers', '/events'][Math.floor(random() * 5)]);
      default:
        return api(`/events/${event().id}`);
    }
  });
  // A small calendar repeats its lists and terms: more one-event feeds make up the count.
  add(count - urls.size, () => api(`/events/${event().id}.ics`));
  return { urls: [...urls], eventIds: [...eventIds] };
}

/**
 * The path (and query) of each term page and venue page the API lists: their `url` is absolute and
 * a child category's page lives under its ancestors' slugs, so the paths are taken from the service.
 */
export async function pagePaths(serviceBase: string): Promise<{ categoryPages: string[]; tagSlugs: string[]; venueSlugs: string[] }> {
  const list = async (collection: string, key: string): Promise<Array<{ url?: string; slug?: string }>> => {
    const res = await fetch(`${serviceBase}${api(`/${collection}?per_page=50`)}`, { signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`GET /${collection} -> ${res.status}`);
    return ((await res.json()) as Record<string, Array<{ url?: string; slug?: string }>>)[key] ?? [];
  };
  const categories = await list('categories', 'categories');
  const tags = await list('tags', 'tags');
  const venues = await list('venues', 'venues');
  return {
    categoryPages: categories.flatMap((c) => (c.url ? [new URL(c.url).pathname] : [])),
    tagSlugs: tags.flatMap((t) => (t.slug ? [t.slug] : [])),
    venueSlugs: venues.flatMap((v) => (v.slug ? [v.slug] : [])),
  };
}

/** The URLs that answer 200 at the service itself (four at a time), and the others with their status. */
export async function answeringUrls(serviceBase: string, urls: string[]): Promise<{ ok: string[]; dropped: Array<{ url: string; status: number | string }> }> {
  const status = new Map<string, number | string>();
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++];
      try {
        const res = await fetch(serviceBase + url, { redirect: 'manual', signal: AbortSignal.timeout(60_000) });
        await res.arrayBuffer();
        status.set(url, res.status);
      } catch (err) {
        status.set(url, (err as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return {
    ok: urls.filter((url) => status.get(url) === 200),
    dropped: urls.filter((url) => status.get(url) !== 200).map((url) => ({ url, status: status.get(url) ?? '?' })),
  };
}
