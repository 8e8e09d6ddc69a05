import assert from 'node:assert/strict';
import { Urls } from '../../src/core/urls.js';
import { REMEMBERED_EMBEDS, rememberedEmbedsSize } from '../../src/records/embedded-records.js';
import { BUILT_EACH_TIME } from '../../src/records/events/mapper.js';
import type { LinkedRow } from '../../src/repositories/linked.js';
import type { ImageRecord } from '../../src/repositories/posts.js';
import { testConfig } from '../helpers/app.js';

/**
 * The venue and organizer records events embed, remembered per process (src/records/embedded-records.ts):
 * used again only for the very row and image objects they were built from, and bounded.
 */

const urls = new Urls(testConfig({ publicUrl: 'http://api.test' }), {} as never);
const otherUrls = new Urls(testConfig({ publicUrl: 'http://elsewhere.test' }), {} as never);

function venue(id: number, version: number, title: string, imageId: number | null = null): LinkedRow {
  return {
    id,
    type: 'venue',
    status: 'publish',
    authorId: 1,
    slug: `venue-${id}`,
    title,
    description: `The hall called ${title}.`,
    excerpt: '',
    password: null,
    imageId,
    date: '2030-01-01 10:00:00',
    dateUtc: '2030-01-01 10:00:00',
    modified: '2030-01-01 10:00:00',
    modifiedUtc: '2030-01-01 10:00:00',
    trashedFrom: null,
    version,
    fields: { address: '1 Main St', city: 'Springfield', country: '', province: '', state: '', zip: '', phone: '', website: '', stateprovince: '' },
    showMap: true,
    showMapLink: true,
    geoLat: null,
    geoLng: null,
  };
}

const noImages = new Map<number, ImageRecord>();

describe('embedded venue and organizer records, remembered', () => {
  it('gives the record built for the same row object again, equal to one built anew', () => {
    const row = venue(900_001, 1, 'Town hall');
    const first = REMEMBERED_EMBEDS.record({ row, masked: false }, urls, noImages, true);
    assert.equal(REMEMBERED_EMBEDS.record({ row, masked: false }, urls, noImages, true), first);
    assert.deepEqual(first, BUILT_EACH_TIME.record({ row, masked: false }, urls, noImages, true));
    const jsonLd = REMEMBERED_EMBEDS.jsonLd({ row, masked: false }, urls);
    assert.equal(REMEMBERED_EMBEDS.jsonLd({ row, masked: false }, urls), jsonLd);
    assert.deepEqual(jsonLd, BUILT_EACH_TIME.jsonLd({ row, masked: false }, urls));
  });

  it('builds again for a new row object: an edited venue shows at once', () => {
    const row = venue(900_002, 1, 'Old hall');
    assert.equal((REMEMBERED_EMBEDS.record({ row, masked: false }, urls, noImages, true) as { venue: string }).venue, 'Old hall');
    assert.equal(REMEMBERED_EMBEDS.jsonLd({ row, masked: false }, urls).name, 'Old hall');
    const edited = venue(900_002, 2, 'New hall');
    assert.equal((REMEMBERED_EMBEDS.record({ row: edited, masked: false }, urls, noImages, true) as { venue: string }).venue, 'New hall');
    assert.equal(REMEMBERED_EMBEDS.jsonLd({ row: edited, masked: false }, urls).name, 'New hall');
    // Even a row read again at the same version is another object: built again, never assumed equal.
    const reread = venue(900_002, 2, 'New hall');
    const built = REMEMBERED_EMBEDS.record({ row: edited, masked: false }, urls, noImages, true);
    assert.notEqual(REMEMBERED_EMBEDS.record({ row: reread, masked: false }, urls, noImages, true), built);
  });

  it('builds again for another image object', () => {
    const row = venue(900_003, 1, 'Pictured hall', 77);
    const one = new Map([[77, { id: 77, url: 'https://img.test/one.png', extension: 'png' } as ImageRecord]]);
    const two = new Map([[77, { id: 77, url: 'https://img.test/two.png', extension: 'png' } as ImageRecord]]);
    assert.equal((REMEMBERED_EMBEDS.record({ row, masked: false }, urls, one, false) as { image: ImageRecord }).image.url, 'https://img.test/one.png');
    assert.equal((REMEMBERED_EMBEDS.record({ row, masked: false }, urls, two, false) as { image: ImageRecord }).image.url, 'https://img.test/two.png');
    assert.equal((REMEMBERED_EMBEDS.record({ row, masked: false }, urls, noImages, false) as { image?: ImageRecord }).image, undefined);
  });

  it('keeps single and list records, masked and open ones, and URL bases apart', () => {
    const row = venue(900_004, 1, 'Kept apart');
    const single = REMEMBERED_EMBEDS.record({ row, masked: false }, urls, noImages, true) as Record<string, unknown>;
    const listed = REMEMBERED_EMBEDS.record({ row, masked: false }, urls, noImages, false) as Record<string, unknown>;
    const masked = REMEMBERED_EMBEDS.record({ row, masked: true }, urls, noImages, true) as Record<string, unknown>;
    const elsewhere = REMEMBERED_EMBEDS.record({ row, masked: false }, otherUrls, noImages, true) as Record<string, unknown>;
    assert.ok('json_ld' in single && !('json_ld' in listed));
    assert.equal(single.city, 'Springfield');
    assert.equal(masked.city, '');
    assert.equal(single.url, 'http://api.test/venue/venue-900004/');
    assert.equal(elsewhere.url, 'http://elsewhere.test/venue/venue-900004/');
    assert.equal(REMEMBERED_EMBEDS.jsonLd({ row, masked: true }, urls).address, undefined);
    assert.equal((REMEMBERED_EMBEDS.jsonLd({ row, masked: false }, urls).address as { streetAddress: string }).streetAddress, '1 Main St');
  });

  it('holds at most 4,000 builds and 2 MiB of them', () => {
    for (let id = 910_000; id < 915_000; id++) REMEMBERED_EMBEDS.record({ row: venue(id, 1, `Hall ${id}`), masked: false }, urls, noImages, true);
    const { entries, bytes } = rememberedEmbedsSize();
    assert.ok(entries <= 4000, `${entries} entries`);
    assert.ok(bytes <= 2_097_152, `${bytes} bytes`);
    assert.ok(entries > 100, 'builds are kept');
  });
});
