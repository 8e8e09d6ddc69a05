import { can, type User } from '../auth/capabilities.js';
import { forbidden } from '../core/errors.js';
import type { Taxonomy } from '../repositories/taxonomies.js';

/**
 * Who may do what to event categories and tags: every rule, in one place. Terms are public: anyone
 * reads and lists them. Creating, changing and deleting needs the taxonomy's management right
 * (`manage_event_categories` for categories, authors and up; `manage_tags` for tags, editors and
 * up; docs/plugin-behaviour.md §4.1), which also decides whether an event write may create a term
 * by naming it. Term names are plain text and descriptions are cleaned as WordPress cleans them, for
 * everybody alike (text/html.ts sanitizeTermHtml).
 */
export function mayManage(user: User | undefined, taxonomy: Taxonomy): boolean {
  return can(user, taxonomy.manageCapability);
}

/** The actions of the operation table, per taxonomy. */
export function termPolicy(taxonomy: Taxonomy) {
  return {
    /** Reading and listing: anyone. */
    read(): void {},
    /** Creating, changing, deleting: the taxonomy's management right (401 anonymous, 403 otherwise). */
    manage(user: User | undefined): void {
      if (!mayManage(user, taxonomy)) throw forbidden(user !== undefined);
    },
  };
}
