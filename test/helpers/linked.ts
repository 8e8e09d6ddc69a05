import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import { NS, type TestUser } from './app.js';
import { expectError, expectStatus } from './assertions.js';
import { call, linkRels, pathOf, type Http, type Method } from './terms.js';

/**
 * Shared fixtures for the venue and organizer endpoints (the suite of behaviour both resources share is
 * test/api/shared/linked-behaviour.ts).
 */

export { call, linkRels, pathOf, type Http, type Method };

/** The public URL every test app here runs with, so absolute URLs are predictable. */
export const PUBLIC_URL = 'http://api.test';
/** `global_id` is the host of the site URL (which defaults to the public URL) and `?id=N`. */
export const GLOBAL_HOST = 'api.test';

export interface LinkedResource {
  type: 'venue' | 'organizer';
  collection: 'venues' | 'organizers';
  /** The body and record field holding the name. */
  nameField: 'venue' | 'organizer';
  Noun: 'Venue' | 'Organizer';
  /** schema.org type of `json_ld`. */
  jsonLdType: 'Place' | 'Person';
  /** Record key placed right after `json_ld` on a single GET. */
  afterJsonLd: 'show_map' | 'global_id';
  /** The kind's own fields of a complete create body (name, description and image aside). */
  fullFields: Record<string, unknown>;
  /** What those fields look like in the record, in wire order (absent ones left out). */
  fullRecordFields: Record<string, unknown>;
  /** Keys always present at the end of a record. */
  tail: string[];
  /** Kind fields that `search` looks at (besides name, description and excerpt): value and a search finding it. */
  searchSamples: Array<{ field: string; value: string; search: string }>;
  /** Kind fields duplicate detection compares, with a value for the existing record and a different one. */
  compared: Array<[field: string, first: string, second: string]>;
  /** Body fields duplicate detection does not compare (they appear in the record under the same name). */
  notCompared: Array<[field: string, first: string, second: string]>;
  /** Body fields that distinguish otherwise equal creates (concurrency test): field → value for i. */
  distinct: (i: number) => Record<string, unknown>;
  /** Fields emptied in a masked (password-protected) record. */
  protectedFields: string[];
  /** Body of a protected record with every protected field set. */
  protectedBody: Record<string, unknown>;
  /** The events fixture key linking this kind. */
  linkKey: 'venueIds' | 'organizerIds';
}

export const VENUE: LinkedResource = {
  type: 'venue',
  collection: 'venues',
  nameField: 'venue',
  Noun: 'Venue',
  jsonLdType: 'Place',
  afterJsonLd: 'show_map',
  fullFields: {
    address: '1 Main Street',
    city: 'Springfield',
    country: 'United States',
    province: 'Sangamon',
    state: 'IL',
    zip: '62701',
    phone: '+1 217 555 0100',
    website: 'https://venue.example.test/path?q=1&r=2',
    geo_lat: 39.7817,
    geo_lng: -89.6501,
  },
  fullRecordFields: {
    address: '1 Main Street',
    city: 'Springfield',
    country: 'United States',
    province: 'Sangamon',
    state: 'IL',
    zip: '62701',
    phone: '+1 217 555 0100',
    website: 'https://venue.example.test/path?q=1&r=2',
    stateprovince: 'IL',
    geo_lat: 39.7817,
    geo_lng: -89.6501,
  },
  tail: ['show_map', 'show_map_link', 'global_id', 'global_id_lineage'],
  searchSamples: [
    { field: 'address', value: '100, Avenue du Temple', search: 'temple avenue' },
    { field: 'city', value: 'Springfield', search: 'SPRINGFIELD' },
    { field: 'province', value: 'Ontario', search: 'ontar' },
    { field: 'state', value: 'Illinois', search: 'illin' },
    { field: 'stateprovince', value: 'Bavaria', search: 'bavar' },
    { field: 'zip', value: '75003', search: '7500' },
    { field: 'phone', value: '+1 217 555 0100', search: '555 0100' },
  ],
  compared: [
    ['address', '1 Main Street', '2 Main Street'],
    ['city', 'Springfield', 'Shelbyville'],
    ['province', 'Sangamon', 'Cook'],
    ['state', 'IL', 'WI'],
    ['zip', '62701', '62702'],
    ['phone', '555 0100', '555 0101'],
  ],
  notCompared: [
    ['country', 'United States', 'Germany'],
    ['website', 'https://first.example.test', 'https://second.example.test'],
  ],
  distinct: (i) => ({ address: `${i} Main Street` }),
  protectedFields: ['description', 'excerpt', 'image', 'address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince', 'geo_lat', 'geo_lng'],
  protectedBody: {
    description: 'Secret description',
    address: '1 Hidden Lane',
    city: 'Hideaway',
    country: 'Canada',
    province: 'Ontario',
    state: 'ON',
    zip: 'K1A 0B1',
    phone: '555 0199',
    website: 'https://hidden.example.test',
    geo_lat: 45.4,
    geo_lng: -75.7,
    image: 'https://img.example.test/hidden.jpg',
  },
  linkKey: 'venueIds',
};

export const ORGANIZER: LinkedResource = {
  type: 'organizer',
  collection: 'organizers',
  nameField: 'organizer',
  Noun: 'Organizer',
  jsonLdType: 'Person',
  afterJsonLd: 'global_id',
  fullFields: {
    phone: '+1 217 555 0199',
    website: 'https://org.example.test/path?q=1&r=2',
    email: 'org@example.test',
  },
  fullRecordFields: {
    phone: '+1 217 555 0199',
    website: 'https://org.example.test/path?q=1&r=2',
    email: 'org@example.test',
  },
  tail: ['global_id', 'global_id_lineage'],
  searchSamples: [
    { field: 'phone', value: '+1 217 555 0199', search: '555 0199' },
    { field: 'email', value: 'alice@common.com', search: '@common.com' },
    { field: 'website', value: 'https://big-band.example.test', search: 'BIG-BAND' },
  ],
  compared: [
    ['phone', '555 0100', '555 0101'],
    ['email', 'first@example.test', 'second@example.test'],
    ['website', 'https://first.example.test', 'https://second.example.test'],
  ],
  notCompared: [['date', '2020-01-02 03:04:05', '2021-06-07 08:09:10']],
  distinct: (i) => ({ phone: `555 010${i}` }),
  protectedFields: ['description', 'excerpt', 'image', 'phone', 'website', 'email'],
  protectedBody: {
    description: 'Secret description',
    phone: '555 0199',
    website: 'https://hidden.example.test',
    email: 'hidden@example.test',
    image: 'https://img.example.test/hidden.jpg',
  },
  linkKey: 'organizerIds',
};

/** Keys every record starts with, up to the name. */
const HEAD = ['id', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url'];

/** The keys of a record with only a name, in wire order. */
export function minimalKeys(r: LinkedResource): string[] {
  return [...HEAD, r.nameField, 'slug', ...r.tail];
}

/** The keys of a record made from `fullFields`, a description and an image, in wire order. */
export function fullKeys(r: LinkedResource): string[] {
  return [...HEAD, r.nameField, 'description', 'slug', 'image', ...Object.keys(r.fullRecordFields), ...r.tail];
}

export type LinkedRecord = Record<string, unknown> & { id: number; slug: string; status: string };

export function collectionPath(r: LinkedResource): string {
  return `${NS}/${r.collection}`;
}

export function itemPath(r: LinkedResource, id: number | string): string {
  return `${NS}/${r.collection}/${id}`;
}

export function slugPath(r: LinkedResource, slug: string): string {
  return `${NS}/${r.collection}/by-slug/${slug}`;
}

/** Creates a record through the API (asserting 201) and returns it. */
export async function createLinked(http: Http, r: LinkedResource, as: TestUser, body: Record<string, unknown>): Promise<LinkedRecord> {
  const res = await call(http, 'post', collectionPath(r), as, body);
  expectStatus(res, 201);
  return res.body as LinkedRecord;
}

/** GET one record by id (optionally as a user), asserting 200. */
export async function readLinked(http: Http, r: LinkedResource, id: number, as?: TestUser): Promise<LinkedRecord> {
  const res = await call(http, 'get', itemPath(r, id), as);
  expectStatus(res, 200);
  return res.body as LinkedRecord;
}

/** GET the list with a raw query string, optionally as a user. */
export function listLinked(http: Http, r: LinkedResource, query = '', as?: TestUser): Promise<Response> {
  return call(http, 'get', `${collectionPath(r)}${query ? `?${query}` : ''}`, as) as unknown as Promise<Response>;
}

/** The names in a list answer, in order (asserting 200). */
export function namesIn(res: Response, r: LinkedResource): string[] {
  expectStatus(res, 200);
  return (res.body[r.collection] as LinkedRecord[]).map((record) => record[r.nameField] as string);
}

/** A record without its json_ld and modification stamps, to compare records across writes. */
export function stable(record: Record<string, unknown>): Record<string, unknown> {
  const { json_ld: _jsonLd, modified: _m, modified_utc: _mu, ...rest } = record;
  return rest;
}

/** A record without its json_ld (single GET vs. other responses). */
export function withoutJsonLd(record: Record<string, unknown>): Record<string, unknown> {
  const { json_ld: _jsonLd, ...rest } = record;
  return rest;
}

/** Asserts a 400 `rest_invalid_param` naming `param`. */
export function expectInvalidParam(res: Response, param: string): void {
  const data = expectError(res, 400, 'rest_invalid_param');
  assert.ok(param in (data.params as object), `expected ${param} in ${JSON.stringify(data)}`);
}

/** `a venue`, `an organizer`. */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}
