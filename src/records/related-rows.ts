import type { Repositories } from '../repositories/registry.js';
import type { EventLink } from '../repositories/events.js';
import type { LinkedRow } from '../repositories/linked.js';
import type { TermRow } from '../repositories/terms.js';
import type { ImageRecord } from '../repositories/posts.js';

/** What some events' links point to (venues, organizers, terms) and the images of the events and of those venues and organizers. */
interface RelatedRows {
  linked: Map<number, LinkedRow>;
  terms: Map<number, TermRow>;
  images: Map<number, ImageRecord>;
}

/**
 * The rows event records embed: taken from the repositories' related-row cache at the version the
 * links report (repositories/related-row-cache.ts, when they have one), the others read by id, one
 * statement per kind.
 */
export async function relatedRows(repositories: Repositories, links: EventLink[], imageIds: Array<number | null>): Promise<RelatedRows> {
  const cache = repositories.relatedRows;
  const linked = new Map<number, LinkedRow>();
  const terms = new Map<number, TermRow>();
  const missing = { venue: new Set<number>(), organizer: new Set<number>(), term: new Set<number>() };
  for (const link of links) {
    const known = link.kind === 'term' ? cache?.terms.get(link.id) : cache?.linked.get(link.id);
    if (known?.version === link.version) (link.kind === 'term' ? terms : linked).set(link.id, known as never);
    else missing[link.kind].add(link.id);
  }
  // A row read here may be newer than its link reported (a write in between): it is kept at its own
  // version, and the next read of the links will report that version.
  for (const row of [...(await repositories.venues.findByIds([...missing.venue])), ...(await repositories.organizers.findByIds([...missing.organizer]))]) {
    cache?.linked.set(row.id, row);
    linked.set(row.id, row);
  }
  for (const row of missing.term.size ? await repositories.terms.findByIds([...missing.term]) : []) {
    cache?.terms.set(row.id, row);
    terms.set(row.id, row);
  }
  const images = new Map<number, ImageRecord>();
  const missingImages: number[] = [];
  for (const id of [...imageIds, ...[...linked.values()].map((row) => row.imageId)]) {
    if (id === null || images.has(id)) continue;
    const known = cache?.images.get(id);
    if (known) images.set(id, known);
    else missingImages.push(id);
  }
  for (const [id, image] of missingImages.length ? await repositories.posts.loadImages(missingImages) : []) {
    cache?.images.set(id, image);
    images.set(id, image);
  }
  return { linked, terms, images };
}
