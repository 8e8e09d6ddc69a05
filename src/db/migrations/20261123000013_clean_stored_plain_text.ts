import type { Knex } from 'knex';
import type { MigrationTools } from './helpers.js';

/**
 * Plain-text values stored before plain text was cleaned with a tokenizer (text/plain-text.ts) may
 * hold markup the old pattern let through (`Talk <img src=x onerror=…` without its closing `>`), and
 * URLs stored before `<`, `>`, `"` and backticks were refused may hold those. This cleans them the
 * way a write would now: plain text through `sanitizeTextField`, those characters in URLs
 * percent-encoded, image extensions holding markup emptied. Only rows holding one of the
 * characters are read, so it costs next to nothing where there are none. Run once; a value already
 * clean is left as it is, so running it again changes nothing.
 */
export async function up(db: Knex, { sanitizeTextField, bumpDataVersion }: MigrationTools): Promise<void> {
  const plain = (value: string) => sanitizeTextField(value) || value.replace(/</g, '&lt;');
  const url = (value: string) => value.replace(/[<>"`]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

  /** Rewrites `columns` of the rows of `table` (keyed by `key`) that contain one of `characters`. */
  const clean = async (table: string, key: string, columns: Record<string, (value: string) => string>, characters: string[]) => {
    const names = Object.keys(columns);
    const rows = await db(table)
      .where((q) => names.forEach((name) => characters.forEach((c) => q.orWhere(name, 'like', `%${c}%`))))
      .select(key, ...names);
    for (const row of rows) {
      const changes: Record<string, string> = {};
      for (const name of names) {
        const value = row[name];
        if (typeof value === 'string' && characters.some((c) => value.includes(c)) && columns[name](value) !== value) changes[name] = columns[name](value);
      }
      if (Object.keys(changes).length) await db(table).where(key, row[key]).update(changes);
    }
  };

  const venueText = Object.fromEntries(['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'].map((c) => [c, plain]));
  await clean('posts', 'id', { title: plain }, ['<']);
  await clean('venues', 'post_id', { ...venueText, website: url }, ['<', '>', '"', '`']);
  await clean('organizers', 'post_id', { phone: plain, email: plain, website: url }, ['<', '>', '"', '`']);
  await clean('events', 'post_id', { website: url, currency_symbol: plain }, ['<', '>', '"', '`']);
  await clean('images', 'post_id', { url }, ['<', '>', '"', '`']);
  // Cost inputs are kept as a JSON list of strings; their labels are shown as written.
  for (const row of await db('events').where('cost_raw', 'like', '%<%').select('post_id', 'cost_raw')) {
    const raw = JSON.parse(String(row.cost_raw)) as unknown[];
    const cleaned = JSON.stringify(raw.map((item) => (typeof item === 'string' ? plain(item) : item)));
    if (cleaned !== row.cost_raw) await db('events').where('post_id', row.post_id).update({ cost_raw: cleaned });
  }
  await clean('images', 'post_id', { extension: (value) => (/^[a-z0-9]{0,16}$/.test(value) ? value : '') }, ['<', '>', '"', '`', "'", '&', ' ', '=']);
  // A term's cleaned name may equal another's at its level: then it shares the name (no name key),
  // as a term created with its own slug does.
  for (const term of await db('terms').where('name', 'like', '%<%').select('id', 'taxonomy', 'parent', 'name', 'name_key')) {
    const name = plain(String(term.name));
    if (name === term.name) continue;
    const nameKey = name.toLowerCase().slice(0, 200);
    const taken = term.name_key !== null && (await db('terms').where({ taxonomy: term.taxonomy, parent: term.parent, name_key: nameKey }).whereNot('id', term.id).first('id'));
    await db('terms')
      .where('id', term.id)
      .update({ name, name_key: term.name_key === null || taken ? null : nameKey });
  }
  // Replies cached by running processes are computed again.
  await bumpDataVersion(db);
}

export async function down(): Promise<void> {
  // The values are cleaned for good: the markup they held is not put back.
}
