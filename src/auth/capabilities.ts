/**
 * Roles and capabilities, as The Events Calendar grants them to WordPress's stock roles
 * (docs/plugin-behaviour.md §4.1), plus the service's own `manage_webhooks` and `manage_subscriptions`. Events, venues and
 * organizers get the same capability family, so one family (`*_posts`) serves all three. Every
 * permission check consults this table.
 */
export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof ROLES)[number];

export type Capability =
  | 'read'
  | 'read_private_posts'
  | 'edit_posts'
  | 'edit_others_posts'
  | 'edit_private_posts'
  | 'edit_published_posts'
  | 'delete_posts'
  | 'delete_others_posts'
  | 'delete_private_posts'
  | 'delete_published_posts'
  | 'publish_posts'
  /** Create, edit and delete event categories: `publish_tribe_events` in the plugin. */
  | 'manage_event_categories'
  /** Create, edit and delete tags: WordPress `manage_categories`. */
  | 'manage_tags'
  /** Record a new image from a URL: WordPress `upload_files`. */
  | 'upload_files'
  /** Write HTML without sanitising: WordPress `unfiltered_html`. */
  | 'unfiltered_html'
  /** Create, read, change and delete webhooks (docs/webhooks.md): WordPress `manage_options`, administrators only. */
  | 'manage_webhooks'
  /** Create, read, change, run and delete subscriptions (docs/importing.md "Subscribing to a calendar"): administrators only. */
  | 'manage_subscriptions';

const EDITOR: Capability[] = [
  'read',
  'read_private_posts',
  'edit_posts',
  'edit_others_posts',
  'edit_private_posts',
  'edit_published_posts',
  'delete_posts',
  'delete_others_posts',
  'delete_private_posts',
  'delete_published_posts',
  'publish_posts',
  'manage_event_categories',
  'manage_tags',
  'upload_files',
  'unfiltered_html',
];

const CAPABILITIES: Record<Role, ReadonlySet<Capability>> = {
  administrator: new Set<Capability>([...EDITOR, 'manage_webhooks', 'manage_subscriptions']),
  editor: new Set(EDITOR),
  author: new Set<Capability>(['read', 'edit_posts', 'edit_published_posts', 'delete_posts', 'delete_published_posts', 'publish_posts', 'manage_event_categories', 'upload_files']),
  contributor: new Set<Capability>(['read', 'edit_posts', 'delete_posts']),
  subscriber: new Set<Capability>(['read']),
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** The caller of a request: a user, or undefined for the anonymous visitor (who has no capability). */
export interface User {
  id: number;
  login: string;
  role: Role;
}

export function can(user: User | undefined, capability: Capability): boolean {
  return user !== undefined && CAPABILITIES[user.role].has(capability);
}
