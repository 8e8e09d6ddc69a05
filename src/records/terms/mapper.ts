import type { components } from '../../../generated/openapi.js';
import type { Urls } from '../../core/urls.js';
import type { Taxonomy } from '../../repositories/taxonomies.js';
import type { TermRow } from '../../repositories/terms.js';
import { TEXT_LIMITS, boundedHtml } from '../../text/limits.js';

type Category = components['schemas']['Category'];
type Tag = components['schemas']['Tag'];
type EmbeddedTerm = components['schemas']['EmbeddedTerm'];

/** `self`, `collection` and, under a parent, `up` (the parent's `self`). */
function termUrls(term: TermRow, taxonomy: Taxonomy, urls: Urls): EmbeddedTerm['urls'] {
  const out: EmbeddedTerm['urls'] = { self: urls.item(taxonomy.collection, term.id), collection: urls.collection(taxonomy.collection) };
  if (term.parent !== 0) out.up = urls.item(taxonomy.collection, term.parent);
  return out;
}

/**
 * The public archive URL: `/tag/{slug}/`, `/events/category/{slug}/`, or with the ancestors'
 * slugs outermost first for a child category, as WordPress builds hierarchical term links.
 */
function termPermalink(term: TermRow, taxonomy: Taxonomy, ancestors: Map<number, TermRow>, urls: Urls): string {
  const slugs = [term.slug];
  const seen = new Set([term.id]);
  for (let parent = ancestors.get(term.parent); parent && !seen.has(parent.id); parent = ancestors.get(parent.parent)) {
    slugs.unshift(parent.slug);
    seen.add(parent.id);
  }
  return urls.permalink(...taxonomy.permalinkBase, ...slugs);
}

/** A term as `/categories` and `/tags` return it (docs/plugin-behaviour.md §1.4.1, without WordPress's `_links`). */
export function toTermRecord(term: TermRow, taxonomy: Taxonomy, count: number, ancestors: Map<number, TermRow>, urls: Urls): Category | Tag {
  const url = termPermalink(term, taxonomy, ancestors, urls);
  const head = { id: term.id, count, description: term.description, name: term.name, slug: term.slug, taxonomy: taxonomy.name };
  const tail = { meta: [] as never[], url, urls: termUrls(term, taxonomy, urls) };
  return taxonomy.hierarchical ? { ...head, parent: term.parent, ...tail } : { ...head, ...tail };
}

/** A term embedded in an event (docs/plugin-behaviour.md §1.4.2): raw term fields, `id` after `filter`, then `urls`. */
export function toEmbeddedTerm(term: TermRow, taxonomy: Taxonomy, count: number, urls: Urls): EmbeddedTerm {
  return {
    name: term.name,
    slug: term.slug,
    term_group: 0,
    term_taxonomy_id: term.id,
    taxonomy: taxonomy.name,
    // Cut shorter in an event than on the term's own routes (text/limits.ts `embedded`).
    description: boundedHtml(term.description, TEXT_LIMITS.embedded),
    parent: term.parent,
    count,
    filter: 'raw',
    id: term.id,
    urls: termUrls(term, taxonomy, urls),
  };
}
