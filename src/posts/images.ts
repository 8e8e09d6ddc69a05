import crypto from 'node:crypto';
import path from 'node:path';
import type { Knex } from 'knex';
import type { components } from '../../generated/openapi.js';
import { can, type User } from '../auth/capabilities.js';
import { utcNow } from '../db/dates.js';
import { sanitizeSlug } from '../text/slugs.js';
import { chunks, insertPost } from './repository.js';
import { isHttpUrl } from './fields.js';

export type ImageRecord = components['schemas']['Image'];

/** Why an `image` input was refused (the caller reports it as 400 on `image`). */
export class ImageInputError extends Error {}

/**
 * `image` on a write (contract §3): there is no upload. An http(s) URL is recorded (no outbound
 * request: no SSRF) as an image in the shared post ID space, or reused when already known; an ID
 * must name a known image. Recording a new URL needs `upload_files` (authors and up); contributors may
 * only reference known images. `null`, `""`, `0` and `false` remove the image.
 *
 * @returns the image id, `null` to remove the image, or `undefined` when `image` was not sent (or
 *   when `dryRun` only checked a new URL).
 */
export async function resolveImageInput(trx: Knex, input: unknown, user: User | undefined, dryRun = false): Promise<number | null | undefined> {
  if (input === undefined) return undefined;
  // A record sent back as read (GET-modify-PUT) carries the image object: its id names the image.
  if (typeof input === 'object' && input !== null && !Array.isArray(input) && 'id' in input) input = (input as { id: unknown }).id;
  if (input === null || input === '' || input === 0 || input === '0' || input === false || input === 'false') return null;
  if (typeof input === 'number' || (typeof input === 'string' && /^\d+$/.test(input.trim()))) {
    const id = Number(input);
    const known = Number.isSafeInteger(id) && (await trx('posts').where({ id, type: 'image' }).first('id'));
    if (!known) throw new ImageInputError(`image ${input} is not the ID of a known image.`);
    return id;
  }
  if (typeof input !== 'string' || !isHttpUrl(input.trim())) throw new ImageInputError('image must be an http(s) URL or the ID of a known image.');
  const url = input.trim();
  const urlHash = crypto.createHash('sha256').update(url).digest('hex');
  const existing = await trx('images').where('url_hash', urlHash).first('post_id');
  if (existing) return Number(existing.post_id);
  if (!can(user, 'upload_files')) throw new ImageInputError('recording a new image from a URL needs the upload right; use the ID of a known image.');
  if (dryRun) return undefined;
  const fileName = decodeURIComponent(path.posix.basename(new URL(url).pathname)) || 'image';
  const extension = path.posix.extname(fileName).slice(1).toLowerCase().slice(0, 16);
  const now = utcNow();
  return insertPost(
    trx,
    'image',
    {
      status: 'publish',
      author_id: user?.id ?? null,
      title: fileName.slice(0, 200),
      description: '',
      excerpt: '',
      password: null,
      image_id: null,
      date: now,
      date_utc: now,
      modified: now,
      modified_utc: now,
    },
    sanitizeSlug(fileName.replace(/\.[^.]*$/, '')) || 'image',
    async (id) => {
      await trx('images').insert({ post_id: id, url, url_hash: urlHash, extension, width: null, height: null });
    },
  );
}

/** Checks an `image` input without recording anything (the 400s come before any write). */
export async function checkImageInput(db: Knex, input: unknown, user: User | undefined): Promise<string | undefined> {
  try {
    await resolveImageInput(db, input, user, true);
    return undefined;
  } catch (err) {
    if (err instanceof ImageInputError) return err.message;
    throw err;
  }
}

/** The image objects of some ids, in one query per 500 ids. */
export async function loadImages(db: Knex, ids: Array<number | null>): Promise<Map<number, ImageRecord>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  const images = new Map<number, ImageRecord>();
  for (const part of chunks(wanted)) {
    for (const row of await db('images').whereIn('post_id', part).select('post_id', 'url', 'extension', 'width', 'height')) {
      const image: ImageRecord = { url: row.url, id: Number(row.post_id), extension: row.extension };
      if (row.width !== null) image.width = Number(row.width);
      if (row.height !== null) image.height = Number(row.height);
      images.set(image.id, image);
    }
  }
  return images;
}
