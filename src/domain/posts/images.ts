import crypto from 'node:crypto';
import path from 'node:path';
import type { User } from '../../auth/capabilities.js';
import { mayRecordImageFromUrl } from '../../policies/posts.js';
import { utcNow } from '../../dates/storage.js';
import { sanitizeSlug } from '../../text/slugs.js';
import type { PostRepository } from '../../repositories/posts.js';
import { isHttpUrl } from '../../text/fields.js';

/** Why an `image` input was refused (the caller reports it as 400 on `image`). */
export class ImageInputError extends Error {}

/**
 * `image` on a write (docs/contract.md §3): there is no upload. An http(s) URL is recorded (no outbound
 * request: no SSRF) as an image in the shared post ID space, or reused when already known; an ID
 * must name a known image. Any URL, new or already recorded, needs `upload_files` (authors and up);
 * contributors may only reference known images by ID. `null`, `""`, `0` and `false` remove the image.
 *
 * @returns the image id, `null` to remove the image, or `undefined` when `image` was not sent (or
 *   when `dryRun` only checked a new URL).
 */
export async function resolveImageInput(posts: PostRepository, input: unknown, user: User | undefined, dryRun = false): Promise<number | null | undefined> {
  if (input === undefined) return undefined;
  // A record sent back as read (GET-modify-PUT) carries the image object: its id names the image.
  if (typeof input === 'object' && input !== null && !Array.isArray(input) && 'id' in input) input = (input as { id: unknown }).id;
  if (input === null || input === '' || input === 0 || input === '0' || input === false || input === 'false') return null;
  if (typeof input === 'number' || (typeof input === 'string' && /^\d+$/.test(input.trim()))) {
    const id = Number(input);
    const known = await posts.isImage(id);
    if (!known) throw new ImageInputError(`image ${input} is not the ID of a known image.`);
    return id;
  }
  if (typeof input !== 'string' || !isHttpUrl(input.trim())) throw new ImageInputError('image must be an http(s) URL or the ID of a known image.');
  // Any URL needs the upload right, even one already recorded: whether a URL is known must not
  // decide the answer (it would tell a contributor which URLs others have used).
  if (!mayRecordImageFromUrl(user)) throw new ImageInputError('giving an image by URL needs the upload right; use the ID of a known image.');
  const url = input.trim();
  // The file name (title and extension) comes from the decoded path; a broken %-escape is a bad URL (400).
  const fileName = fileNameOf(url);
  if (fileName === undefined) throw new ImageInputError('image must be a well-formed URL: its path has a broken %-escape.');
  const urlHash = imageUrlHash(url);
  const existing = await posts.imageIdByUrlHash(urlHash);
  if (existing !== undefined) return existing;
  if (dryRun) return undefined;
  return recordImage(posts, url, fileName, urlHash, user);
}

/** What an import knows of an image besides its URL: the source's id (kept when free) and size. */
interface ImageFacts {
  id?: number;
  width?: number | null;
  height?: number | null;
}

/** Records a new image post for a URL not yet known (its checks passed), in the write's transaction. */
async function recordImage(posts: PostRepository, url: string, fileName: string, urlHash: string, user: User | undefined, facts: ImageFacts = {}): Promise<number> {
  // Letters and digits only: the extension is shown as plain text.
  const extension = /^[a-z0-9]{1,16}$/.exec(path.posix.extname(fileName).slice(1).toLowerCase())?.[0] ?? '';
  const now = utcNow();
  return posts.insert(
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
      await posts.insertImage({ post_id: id, url, url_hash: urlHash, extension, width: facts.width ?? null, height: facts.height ?? null });
    },
    facts.id,
  );
}

/**
 * An import's image (docs/importing.md): the image already recorded for the URL, or a new one with
 * the source's id (when `facts.id` is given: the caller checked it is free) and size. The URL was
 * checked as a write's `image` (checkImageInput).
 */
export async function importedImage(posts: PostRepository, url: string, user: User | undefined, facts: ImageFacts): Promise<number> {
  const urlHash = imageUrlHash(url);
  const existing = await posts.imageIdByUrlHash(urlHash);
  if (existing !== undefined) return existing;
  return recordImage(posts, url, fileNameOf(url) ?? 'image', urlHash, user, facts);
}

/** The key an image's URL is recorded under (`images.url_hash`): its SHA-256, in hex. */
export function imageUrlHash(url: string): string {
  return crypto.createHash('sha256').update(url).digest('hex');
}

/** The decoded last segment of the URL's path (`image` when empty), or undefined when it cannot be decoded. */
function fileNameOf(url: string): string | undefined {
  try {
    return decodeURIComponent(path.posix.basename(new URL(url).pathname)) || 'image';
  } catch {
    return undefined;
  }
}

/** Checks an `image` input without recording anything (the 400s come before any write). */
export async function checkImageInput(posts: PostRepository, input: unknown, user: User | undefined): Promise<string | undefined> {
  try {
    await resolveImageInput(posts, input, user, true);
    return undefined;
  } catch (err) {
    if (err instanceof ImageInputError) return err.message;
    throw err;
  }
}
