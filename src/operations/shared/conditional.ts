import crypto from 'node:crypto';
import { RestError } from '../../core/errors.js';
import { StaleVersion } from '../../db/errors.js';
import type { OperationContext, RecordVersion } from './operation.js';

/**
 * Entity tags and conditional writes (docs/contract.md §10).
 *
 * A single record's answer carries a strong `ETag` built from the record's stored version (a number
 * every write of the record grows, in the repositories' write statements) and a digest of the JSON
 * sent, so it changes whenever the record is written and differs between representations (a masked
 * record, another caller's view, an embedded venue that changed, `_fields`):
 *
 *     "event-12-3.<22 characters of base64url SHA-1>"
 *
 * `If-Match` on a single-record write compares the record version its tags name (`event-12-3`):
 * any representation of that version matches, since what it guards against is a lost update of
 * the record. The comparison happens twice: against the version loaded (a cheap early 412) and
 * inside the write statement itself (`WHERE version = ?`, under the row lock the update takes), so
 * of two writes sent with the same tag exactly one passes.
 */

export type RecordKind = RecordVersion['kind'];

export function versionOf(kind: RecordKind, row: { id: number; version: number }): RecordVersion {
  return { kind, id: row.id, version: row.version };
}

/** The strong entity tag of a record's reply, from its version and the JSON sent (whole or in pieces). */
export function entityTag(version: RecordVersion, json: string | Buffer | Array<string | Buffer>, variant = ''): string {
  const hash = crypto.createHash('sha1');
  // Strings are hashed as UTF-8 (crypto's default), the encoding of the bytes a reply keeps.
  for (const piece of Array.isArray(json) ? json : [json]) hash.update(piece);
  if (variant) hash.update(`\n${variant}`, 'utf8');
  return `"${version.kind}-${version.id}-${version.version}.${hash.digest('base64url').slice(0, 22)}"`;
}

/** The entity tags of an `If-Match` value: `*`, or the opaque parts of its tags (weak ones dropped, as strong comparison never matches them). */
export function parseIfMatch(value: string): '*' | string[] {
  if (value.trim() === '*') return '*';
  const tags: string[] = [];
  for (const item of value.split(',')) {
    const trimmed = item.trim();
    if (trimmed === '' || trimmed.startsWith('W/')) continue;
    // A tag sent without its quotes is taken as the tag it names.
    tags.push(trimmed.replace(/^"(.*)"$/, '$1'));
  }
  return tags;
}

/** Whether an opaque tag names this version of this record. */
function names(tag: string, version: RecordVersion): boolean {
  const prefix = `${version.kind}-${version.id}-${version.version}`;
  return tag === prefix || tag.startsWith(`${prefix}.`);
}

/**
 * Runs a single-record write under the request's `If-Match` (docs/contract.md §10): without one,
 * `write(undefined)`; with `*` (the record exists: it was loaded), the same; with tags, `write` gets
 * the version to compare inside its statements, and a tag of another version, or a StaleVersion from
 * the write (someone wrote first; the transaction rolled back), is 412 `rest_precondition_failed`
 * with the record's current `ETag` (`currentTag`, as a GET by this caller would send it). Called in
 * `execute`, after the input (400), the record (404) and the right (401/403) are checked, so only a
 * caller who may write the record learns its version.
 */
export async function conditionalWrite<T>(
  ctx: OperationContext,
  loaded: RecordVersion,
  currentTag: () => Promise<string | undefined>,
  write: (expected: number | undefined) => Promise<T>,
): Promise<T> {
  const header = ctx.req.get('if-match');
  if (header === undefined) return write(undefined);
  const tags = parseIfMatch(header);
  if (tags === '*') return write(undefined);
  await checkIfMatch(ctx, loaded, currentTag);
  try {
    return await write(loaded.version);
  } catch (err) {
    if (err instanceof StaleVersion) throw await preconditionFailed(currentTag);
    throw err;
  }
}

/**
 * The early half of `conditionalWrite`, for writes whose record-dependent checks (400) should come
 * after 412: a stale caller is told to read the record again before being told what is wrong with
 * its input against a record it has not seen.
 */
export async function checkIfMatch(ctx: OperationContext, loaded: RecordVersion, currentTag: () => Promise<string | undefined>): Promise<void> {
  const header = ctx.req.get('if-match');
  if (header === undefined) return;
  const tags = parseIfMatch(header);
  if (tags !== '*' && !tags.some((tag) => names(tag, loaded))) throw await preconditionFailed(currentTag);
}

async function preconditionFailed(currentTag: () => Promise<string | undefined>): Promise<RestError> {
  const tag = await currentTag();
  return new RestError(
    412,
    'rest_precondition_failed',
    'The record has changed since the version If-Match names. Read it again (its current ETag is in this answer) and retry.',
    {},
    tag === undefined ? {} : { ETag: tag },
  );
}

/** The tag a GET by this caller would get for a record's body (the 412 answer's `ETag`). */
export function tagOfBody(version: RecordVersion, body: unknown): string {
  return entityTag(version, JSON.stringify(body));
}
