import type { Capability } from '../auth/capabilities.js';
import type { ChangeType } from '../db/change-log.js';

/** What differs between categories and tags; everything else about terms is shared. */
export interface Taxonomy {
  /** The WordPress taxonomy name, as it appears in records. */
  name: 'tribe_events_cat' | 'post_tag';
  /** The collection path segment and list envelope key. */
  collection: 'categories' | 'tags';
  hierarchical: boolean;
  /** Who may create, edit and delete terms (docs/plugin-behaviour.md §4.2). */
  manageCapability: Capability;
  /** Public archive URL segments before the slug(s). */
  permalinkBase: string[];
  /** WordPress's `term_exists` message. */
  existsMessage: string;
  /** Used as the slug when a name has no letter or digit at all. */
  fallbackSlug: string;
}

export const CATEGORIES: Taxonomy = {
  name: 'tribe_events_cat',
  collection: 'categories',
  hierarchical: true,
  manageCapability: 'manage_event_categories',
  permalinkBase: ['events', 'category'],
  existsMessage: 'A term with the name provided already exists with this parent.',
  fallbackSlug: 'category',
};

export const TAGS: Taxonomy = {
  name: 'post_tag',
  collection: 'tags',
  hierarchical: false,
  manageCapability: 'manage_tags',
  permalinkBase: ['tag'],
  existsMessage: 'A term with the name provided already exists in this taxonomy.',
  fallbackSlug: 'tag',
};

/** The change feed's name of a taxonomy's records (db/change-log.ts). */
export function changeTypeOf(taxonomy: string): ChangeType {
  return taxonomy === 'post_tag' ? 'tag' : 'category';
}
