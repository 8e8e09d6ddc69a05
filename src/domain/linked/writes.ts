import { checkLength, commonColumns, parseCommon, resolveImage, type Body, type ParsedCommon, type WriteContext } from '../posts/writes.js';
import { checkImageInput } from '../posts/images.js';
import { readerOf } from '../../policies/posts.js';
import type { PostColumns } from '../../repositories/posts.js';
import type { Repositories } from '../../repositories/registry.js';
import { isHttpUrl, isTruthy, sanitizeTextField } from '../../text/fields.js';
import { sanitizeSlug } from '../../text/slugs.js';
import type { LinkedKind } from '../../repositories/linked-kinds.js';
import type { KindColumns, LinkedRow } from '../../repositories/linked.js';
import { linkedFieldLimit } from '../../text/limits.js';
import { duplicateLock } from '../../db/write-locks.js';

/**
 * Checks the kind's own fields and returns its columns, with `stateprovince` derived as the plugin
 * does (docs/plugin-behaviour.md §6.2) when it is not sent: `state` for the US (or no country), else `province`.
 */
function kindColumns(kind: LinkedKind, body: Body, existing: LinkedRow | undefined, problems: Record<string, string>): KindColumns {
  const own: KindColumns = {};
  for (const field of kind.textFields) {
    if (body[field] === undefined || body[field] === null) continue;
    const value = sanitizeTextField(String(body[field]));
    if (field === 'website' && value !== '' && !isHttpUrl(value)) problems.website = 'website must be an http(s) URL.';
    checkLength(problems, field, value, linkedFieldLimit(field));
    own[field] = value;
  }
  if (kind.type === 'venue') {
    for (const flag of ['show_map', 'show_map_link']) {
      if (body[flag] !== undefined && body[flag] !== null) own[flag] = isTruthy(body[flag]);
      else if (!existing) own[flag] = true;
    }
    for (const axis of ['geo_lat', 'geo_lng'] as const) {
      if (body[axis] === undefined) continue;
      const value = body[axis] === null || body[axis] === '' ? null : Number(body[axis]);
      const limit = axis === 'geo_lat' ? 90 : 180;
      if (value !== null && !(Math.abs(value) <= limit)) problems[axis] = `${axis} must be a number between -${limit} and ${limit}.`;
      own[axis] = value;
    }
    const sentStateProvince = typeof own.stateprovince === 'string' && own.stateprovince !== '';
    if (!sentStateProvince && (!existing || ['state', 'province', 'country', 'stateprovince'].some((f) => f in own))) {
      const value = (field: string) => String(own[field] ?? existing?.fields[field] ?? '');
      const country = value('country');
      own.stateprovince = value('state') !== '' && ['', 'US', 'United States'].includes(country) ? value('state') : value('province');
    }
  }
  if (!existing) for (const field of kind.textFields) own[field] ??= '';
  return own;
}

/** A checked create body, ready to be written. */
export interface PreparedCreate {
  kind: LinkedKind;
  body: Body;
  parsed: ParsedCommon;
  own: KindColumns;
}

/**
 * Checks a create body (standalone or nested in an event), collecting the 400s into `problems`.
 */
export async function prepareCreate(kind: LinkedKind, body: Body, writer: WriteContext, problems: Record<string, string>): Promise<PreparedCreate> {
  if (body[kind.nameField] === undefined || body[kind.nameField] === null) problems[kind.nameField] = `${kind.nameField} is required.`;
  const parsed = await parseLinkedInput(kind, body, undefined, writer, problems);
  return { kind, body, parsed: parsed.common, own: parsed.own };
}

/**
 * Every check of a venue/organizer body that can be made without writing (the 400s): shared fields,
 * the kind's own fields and the image. `existing` only shapes the derived columns.
 */
export async function parseLinkedInput(
  kind: LinkedKind,
  body: Body,
  existing: LinkedRow | undefined,
  writer: WriteContext,
  problems: Record<string, string>,
): Promise<{ common: ParsedCommon; own: KindColumns }> {
  const common = await parseCommon(body, kind.nameField, writer, problems);
  const own = kindColumns(kind, body, existing, problems);
  const image = await checkImageInput(writer.repositories.posts, body.image, writer.user);
  if (image) problems.image = image;
  return { common, own };
}

/**
 * The write locks (db/write-locks.ts) of prepared creates: one per kind and name, so that identical
 * creates running at once look for their duplicate one after the other. The transaction that runs
 * `createOrReuse` takes them first (`inWriteTransaction`'s `locks`).
 */
export function duplicateLocks(prepared: readonly PreparedCreate[]): string[] {
  return prepared.map(({ kind, parsed }) => duplicateLock(kind.type, String(parsed.title ?? '')));
}

/**
 * Writes a prepared create, or finds its duplicate (docs/plugin-behaviour.md §6.3, docs/contract.md §6): a record the
 * caller may read, not trashed, with the same name and the same values in every compared field that
 * was sent non-empty. The duplicate is returned unchanged, never overwritten. The transaction holds
 * the create's `duplicateLocks`.
 */
export async function createOrReuse(repositories: Repositories, prepared: PreparedCreate, writer: WriteContext): Promise<number> {
  const { kind, body, parsed, own } = prepared;
  const columns = commonColumns(parsed, undefined, writer);
  const repo = repositories.linked(kind);
  const compared: Record<string, string> = { description: parsed.description ?? '' };
  for (const field of kind.duplicateFields) compared[field] = typeof own[field] === 'string' && field in body ? (own[field] as string) : '';
  const duplicate = await repo.findDuplicate(parsed.title as string, compared, readerOf(writer.user));
  if (duplicate) return duplicate.id;
  const imageId = await resolveImage(repositories, body.image, writer.user);
  return repo.create({ ...(columns as Required<typeof columns>), image_id: imageId ?? null }, parsed.slug ?? (sanitizeSlug(parsed.title as string) || kind.type), own);
}

/** A checked update body, ready to be written (its 400s were found before the record was loaded). */
interface PreparedUpdate {
  kind: LinkedKind;
  body: Body;
  row: LinkedRow;
  columns: Partial<PostColumns>;
  /** The new base slug, when the body names one. */
  slug: string | undefined;
  own: KindColumns;
}

/** An update body as columns of the record it changes (`row`, which shapes the derived columns). */
export async function prepareUpdate(kind: LinkedKind, body: Body, row: LinkedRow, writer: WriteContext): Promise<PreparedUpdate> {
  const { common, own } = await parseLinkedInput(kind, body, row, writer, {});
  return { kind, body, row, columns: commonColumns(common, row, writer), slug: common.slug, own };
}

/** Writes a prepared update (in the write's transaction), with the image the body names. */
export async function writeUpdate(repositories: Repositories, prepared: PreparedUpdate, writer: WriteContext, expected?: number): Promise<void> {
  const { kind, body, row, columns, slug, own } = prepared;
  const imageId = await resolveImage(repositories, body.image, writer.user);
  if (imageId !== undefined) columns.image_id = imageId;
  await repositories.linked(kind).update(row, columns, slug, own, expected);
}
