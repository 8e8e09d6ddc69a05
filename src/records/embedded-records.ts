import type { Urls } from '../core/urls.js';
import type { LinkedRow } from '../repositories/linked.js';
import type { ImageRecord } from '../repositories/posts.js';
import { BUILT_EACH_TIME, type EmbeddedBuilds, type EmbeddedLinked } from './events/mapper.js';
import { Recent, roughBytes } from './related-rows.js';

/**
 * The venue and organizer records events embed, and their JSON-LD, remembered per process: a
 * calendar's thousands of events share a few hundred venues and organizers, and building one (its
 * auto-paragraphed text, its `json_ld`, its empty fields dropped) cost about as much as the rest of
 * the event's record.
 *
 * Never stale: an entry is used only for the very row object and image object it was built from.
 * Those are the rows records/related-rows.ts remembers at the version the event's links report
 * (docs/contract.md §16), never changed once read (records share them), so an edit of a venue is a
 * new row object, and the next read builds its record again. What else a build depends on is in the
 * key: the kind of build, the caller's masking, single read or list, and the URL base.
 */

interface Built {
  row: LinkedRow;
  image: ImageRecord | undefined;
  value: object;
}

/**
 * Entries and bytes (`roughBytes` of what was built: 2 MiB) the remembered builds may hold. The
 * benchmark's 400 venues and organizers take 1.0 MB by that count for single reads (records and
 * JSON-LD), 1.4 MB with the lists' records too.
 */
const MAX_BUILDS = 4000;
const MAX_BUILT_BYTES = 2_097_152;

const builds = new Recent<Built, string>(MAX_BUILDS, { maxBytes: MAX_BUILT_BYTES, weigh: (built) => roughBytes(built.value) });

function remembered<T extends object>(key: string, row: LinkedRow, image: ImageRecord | undefined, build: () => T): T {
  const known = builds.get(key);
  if (known !== undefined && known.row === row && known.image === image) return known.value as T;
  const value = build();
  builds.set(key, { row, image, value });
  return value;
}

/** The URL base of a request: everything a build takes from `Urls`. */
function base(urls: Urls): string {
  return `${urls.restRoot} ${urls.site}`;
}

/** `EmbeddedBuilds` remembered as described above (records/records.ts gives them to the event mappers). */
export const REMEMBERED_EMBEDS: EmbeddedBuilds = {
  record(item: EmbeddedLinked, urls: Urls, images: Map<number, ImageRecord>, single: boolean) {
    const { row, masked } = item;
    // The embedded record shows the row's image, which never changes once recorded; its object
    // is checked all the same, as an image read again is another object.
    const image = row.imageId === null ? undefined : images.get(row.imageId);
    const key = `record ${row.id} ${single ? 'single' : 'list'} ${masked ? 'masked' : 'open'} ${base(urls)}`;
    return remembered(key, row, image, () => BUILT_EACH_TIME.record(item, urls, images, single));
  },
  jsonLd(item: EmbeddedLinked, urls: Urls) {
    const { row, masked } = item;
    return remembered(`json-ld ${row.id} ${masked ? 'masked' : 'open'} ${base(urls)}`, row, undefined, () => BUILT_EACH_TIME.jsonLd(item, urls));
  },
};

/** What the remembered builds hold now (for tests). */
export function rememberedEmbedsSize(): { entries: number; bytes: number } {
  return { entries: builds.size, bytes: builds.heldBytes };
}
