import { invalidParam, postNotFound, RestError } from '../../core/errors.js';
import { RecordGone } from '../../db/errors.js';
import type { PostColumns, PostRow } from '../../repositories/posts.js';
import { inWriteTransaction, type Repositories } from '../../repositories/registry.js';

/**
 * What the shared record service needs to know of one post type (events, venues, organizers): its
 * names, how to find its rows, and how its trash and delete differ (events move term counts;
 * venues and organizers are unlinked from events when trashed).
 */
export interface PostKind<Row extends PostRow> {
  type: 'event' | 'venue' | 'organizer';
  label: string;
  Label: string;
  findById(repositories: Repositories, id: number): Promise<Row | undefined>;
  findBySlug(repositories: Repositories, slug: string): Promise<Row | undefined>;
  /** `expected`: the version an `If-Match` named, compared in the write statement (docs/contract.md §10). */
  trash(repositories: Repositories, row: Row, modified: Partial<PostColumns>, expected?: number): Promise<void>;
  destroy(repositories: Repositories, row: Row, expected?: number): Promise<void>;
}

/**
 * The record a path names: `{id}` (404 if nothing; 400 if an id of another type: `rest-invalid-event-id`
 * for events, `rest_invalid_param` on `id` for venues and organizers, as the plugin answers) or
 * `{slug}` (404).
 */
export async function findRecord<Row extends PostRow>(kind: PostKind<Row>, repositories: Repositories, path: { id: number } | { slug: string }): Promise<Row> {
  const notFound = (what: string) => postNotFound(kind.type, kind.Label, what);
  if ('slug' in path) {
    const row = await kind.findBySlug(repositories, path.slug);
    if (!row) throw notFound(`slug ${path.slug}`);
    return row;
  }
  const row = await kind.findById(repositories, path.id);
  if (row) return row;
  if (await repositories.posts.find(path.id)) {
    if (kind.type === 'event') throw new RestError(400, 'rest-invalid-event-id', 'The specified ID is not a valid event.');
    throw invalidParam('id', `id ${path.id} is not ${kind.type === 'venue' ? 'a venue' : 'an organizer'}.`);
  }
  throw notFound(`ID ${path.id}`);
}

/** Reads a row again after a write (it exists: the write just committed it). */
export async function reload<Row extends PostRow>(kind: PostKind<Row>, repositories: Repositories, id: number): Promise<Row> {
  const row = await kind.findById(repositories, id);
  if (!row) throw new RecordGone(kind.type, id);
  return row;
}

/**
 * DELETE of a record (docs/contract.md §4): `force` deletes it for good and answers the record as it
 * was; otherwise it goes to the trash (410 `{type}-is-in-trash` when it already is there) and the
 * answer is the trashed record. `recordOf` builds the answer's record from a row.
 */
export async function removeRecord<Row extends PostRow, Rec>(
  kind: PostKind<Row>,
  repositories: Repositories,
  row: Row,
  { force, modified, expected }: { force: boolean; modified: Partial<PostColumns>; expected?: number },
  recordOf: (row: Row) => Promise<Rec>,
): Promise<{ record: Rec; row: Row }> {
  if (force) {
    const last = await recordOf(row);
    await inWriteTransaction(repositories.db, (trx) => kind.destroy(trx, row, expected));
    return { record: last, row };
  }
  if (row.status === 'trash') throw new RestError(410, `${kind.type}-is-in-trash`, `The ${kind.label} is already trashed`);
  await inWriteTransaction(repositories.db, (trx) => kind.trash(trx, row, modified, expected));
  const trashed = await reload(kind, repositories, row.id);
  return { record: await recordOf(trashed), row: trashed };
}
