import type { Knex } from 'knex';

/**
 * The plain forms of stored plain-text fields, computed when written (text/plain-forms.ts,
 * docs/architecture.md "Rendered texts"): `{field}_plain` beside each field a page, an iCalendar feed
 * or a feed's name shows as text (posts' titles, terms' names, venues' address lines and phone,
 * organizers' phone and e-mail), and `events.cost_plain`, of the formatted cost. NULL where no write
 * made one (a row written past the repositories): a read then makes it.
 *
 * 20261208000101 fills them for the rows already stored.
 */
const PLAIN_COLUMNS: Array<[table: string, columns: string[]]> = [
  ['posts', ['title_plain']],
  ['terms', ['name_plain']],
  ['venues', ['address_plain', 'city_plain', 'country_plain', 'province_plain', 'state_plain', 'zip_plain', 'phone_plain', 'stateprovince_plain']],
  ['organizers', ['phone_plain', 'email_plain']],
  ['events', ['cost_plain']],
];

export async function up(db: Knex): Promise<void> {
  for (const [table, columns] of PLAIN_COLUMNS) {
    await db.schema.alterTable(table, (t) => {
      for (const column of columns) t.text(column).nullable();
    });
  }
}

export async function down(db: Knex): Promise<void> {
  for (const [table, columns] of PLAIN_COLUMNS) {
    await db.schema.alterTable(table, (t) => {
      for (const column of columns) t.dropColumn(column);
    });
  }
}
