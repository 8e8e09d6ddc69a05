/**
 * Every date the service stores is a 'YYYY-MM-DD HH:MM:SS' string: sortable, comparable as text on
 * both engines, and identical on read. These helpers are the one place such strings are made.
 */
export function formatUtc(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** Now, in UTC, to the second. */
export function utcNow(): string {
  return formatUtc(new Date());
}
