/**
 * Venues and organizers are one kind of thing, "linked posts" of events, with different fields.
 * Everything that differs between them is described here; the repository, mapper and handlers are
 * written once against this description.
 */
export interface LinkedKind {
  type: 'venue' | 'organizer';
  /** Path segment and list envelope key. */
  collection: 'venues' | 'organizers';
  /** The type's own table, keyed by `post_id`. */
  table: 'venues' | 'organizers';
  /** The join table with events, and its column for this kind. */
  linkTable: 'event_venues' | 'event_organizers';
  linkColumn: 'venue_id' | 'organizer_id';
  /** The body and record field holding the name (`venue`, `organizer`). */
  nameField: 'venue' | 'organizer';
  /** Plain-text fields of the type's table, in record order. */
  textFields: string[];
  /** Fields matched by `search` besides title, description and excerpt (docs/plugin-behaviour.md §6.4). */
  searchFields: string[];
  /** Fields compared by duplicate detection besides title and description (docs/plugin-behaviour.md §6.3). */
  duplicateFields: string[];
  /** Label used in messages ("venue", "organizer") and its capitalised form. */
  label: string;
  Label: string;
}

export const VENUES: LinkedKind = {
  type: 'venue',
  collection: 'venues',
  table: 'venues',
  linkTable: 'event_venues',
  linkColumn: 'venue_id',
  nameField: 'venue',
  textFields: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'],
  searchFields: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  duplicateFields: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  label: 'venue',
  Label: 'Venue',
};

export const ORGANIZERS: LinkedKind = {
  type: 'organizer',
  collection: 'organizers',
  table: 'organizers',
  linkTable: 'event_organizers',
  linkColumn: 'organizer_id',
  nameField: 'organizer',
  textFields: ['phone', 'website', 'email'],
  searchFields: ['phone', 'email', 'website'],
  duplicateFields: ['phone', 'email', 'website'],
  label: 'organizer',
  Label: 'Organizer',
};
