import type { Knex } from 'knex';
import type { User } from '../auth/capabilities.js';
import type { OperationContext } from '../http/operation.js';
import { invalidParams } from '../http/errors.js';
import { commonColumns, parseCommon, type CommonInput, type ParsedCommon } from '../posts/writes.js';
import { checkImageInput, ImageInputError, resolveImageInput } from '../posts/images.js';
import { isEmail, isHttpUrl, isTruthy, sanitizeTextField } from '../posts/fields.js';
import { sanitizeSlug } from '../text/slugs.js';
import type { LinkedKind } from './kinds.js';
import { LinkedRepository, type KindColumns, type LinkedRow } from './repository.js';

export type Body = CommonInput & Record<string, unknown>;

/** Who writes, and when: what a venue or organizer write needs besides its body. */
export interface WriteContext {
  db: Knex;
  user: User | undefined;
  now: Date;
  siteTimezone: string;
}

export function writeContext(ctx: OperationContext): WriteContext {
  return { db: ctx.db, user: ctx.user, now: ctx.now(), siteTimezone: ctx.config.siteTimezone };
}

/**
 * Checks the kind's own fields and returns its columns, with `stateprovince` derived as the plugin
 * does (§6.2) when it is not sent: `state` for the US (or no country), else `province`.
 */
export function kindColumns(kind: LinkedKind, body: Body, existing: LinkedRow | undefined, problems: Record<string, string>): KindColumns {
  const own: KindColumns = {};
  for (const field of kind.textFields) {
    if (body[field] === undefined || body[field] === null) continue;
    const value = sanitizeTextField(String(body[field]));
    if (field === 'website' && value !== '' && !isHttpUrl(value)) problems.website = 'website must be an http(s) URL.';
    if (field === 'email' && value !== '' && !isEmail(value)) problems.email = 'email must be an e-mail address.';
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

/** `image` on a write, with a refused value reported as 400 on `image`. */
export async function resolveImage(trx: Knex, input: unknown, user: User | undefined): Promise<number | null | undefined> {
  try {
    return await resolveImageInput(trx, input, user);
  } catch (err) {
    if (err instanceof ImageInputError) throw invalidParams({ image: err.message });
    throw err;
  }
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
  const common = await parseCommon(writer.db, body, kind.nameField, writer.user, writer.siteTimezone, writer.now, problems);
  const own = kindColumns(kind, body, existing, problems);
  const image = await checkImageInput(writer.db, body.image, writer.user);
  if (image) problems.image = image;
  return { common, own };
}

/**
 * Writes a prepared create, or finds its duplicate (plugin-behaviour §6.3, contract §6): a record the
 * caller may read, not trashed, with the same name and the same values in every compared field that
 * was sent non-empty. The duplicate is returned unchanged, never overwritten.
 */
export async function createOrReuse(trx: Knex, prepared: PreparedCreate, writer: WriteContext): Promise<{ id: number; reused: boolean }> {
  const { kind, body, parsed, own } = prepared;
  // The values decide some rights (`private`, another `author`): refused before a duplicate is looked for.
  const columns = commonColumns(parsed, undefined, writer.user, writer.now, writer.siteTimezone);
  const repo = new LinkedRepository(trx, kind);
  const compared: Record<string, string> = { description: parsed.description ?? '' };
  for (const field of kind.duplicateFields) compared[field] = typeof own[field] === 'string' && field in body ? (own[field] as string) : '';
  const duplicate = await repo.findDuplicate(parsed.title as string, compared, writer.user);
  if (duplicate) return { id: duplicate.id, reused: true };
  const imageId = await resolveImage(trx, body.image, writer.user);
  const id = await repo.create(
    trx,
    { ...(columns as Required<typeof columns>), image_id: imageId ?? null },
    parsed.slug ?? (sanitizeSlug(parsed.title as string) || kind.type),
    own,
  );
  return { id, reused: false };
}
