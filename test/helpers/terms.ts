import type { Response } from 'supertest';
import type { Role } from '../../src/auth/capabilities.js';
import { NS, type TestApp, type TestUser } from './app.js';
import { expectStatus } from './assertions.js';

/**
 * Shared fixtures for the term endpoints (`/categories`, `/tags`) (the suite of behaviour both resources share
 * is test/api/shared/term-behaviour.ts).
 */

/** The public URL every term test app runs with, so absolute URLs are predictable. */
export const PUBLIC_URL = 'http://api.test';

export interface TermResource {
  collection: 'categories' | 'tags';
  taxonomy: 'tribe_events_cat' | 'post_tag';
  /** Singular noun for test titles. */
  noun: 'category' | 'tag';
  hierarchical: boolean;
  /** Public archive path before the slug(s). */
  permalinkBase: string;
  /** Record keys, in wire order. */
  keys: string[];
  /** WordPress's `term_exists` message for a duplicate name. */
  existsMessage: string;
  /** Roles that may create, update and delete these terms (docs/plugin-behaviour.md §4.2). */
  managers: Role[];
}

export const CATEGORIES: TermResource = {
  collection: 'categories',
  taxonomy: 'tribe_events_cat',
  noun: 'category',
  hierarchical: true,
  permalinkBase: '/events/category',
  keys: ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'parent', 'meta', 'url', 'urls'],
  existsMessage: 'A term with the name provided already exists with this parent.',
  managers: ['administrator', 'editor', 'author'],
};

export const TAGS: TermResource = {
  collection: 'tags',
  taxonomy: 'post_tag',
  noun: 'tag',
  hierarchical: false,
  permalinkBase: '/tag',
  keys: ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'meta', 'url', 'urls'],
  existsMessage: 'A term with the name provided already exists in this taxonomy.',
  managers: ['administrator', 'editor'],
};

export const ROLES_WEAKEST_FIRST: Role[] = ['subscriber', 'contributor', 'author', 'editor', 'administrator'];

/** A term record as `/categories` and `/tags` return it. */
export interface TermRecord {
  id: number;
  count: number;
  description: string;
  name: string;
  slug: string;
  taxonomy: string;
  parent?: number;
  meta: unknown[];
  url: string;
  urls: { self: string; collection: string; up?: string };
}

export type Http = TestApp['http'];
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** `/wp-json/tribe/events/v1/{collection}`. */
export function collectionPath(r: TermResource): string {
  return `${NS}/${r.collection}`;
}

/** `/wp-json/tribe/events/v1/{collection}/{id}`. */
export function itemPath(r: TermResource, id: number | string): string {
  return `${NS}/${r.collection}/${id}`;
}

/** The absolute API URL of a term, under PUBLIC_URL. */
export function selfUrl(r: TermResource, id: number): string {
  return `${PUBLIC_URL}${itemPath(r, id)}`;
}

/** The public archive URL of a term whose slug path (ancestors outermost first) is given. */
export function permalink(r: TermResource, ...slugs: string[]): string {
  return `${PUBLIC_URL}${r.permalinkBase}/${slugs.join('/')}/`;
}

/** A request with an optional user and JSON body. */
export function call(http: Http, method: Method, path: string, as?: TestUser, body?: object) {
  let req = http()[method](path);
  if (as) req = req.set('Authorization', as.authorization);
  if (body !== undefined) req = req.send(body);
  return req;
}

/** Creates a term through the API (asserting 201) and returns it. */
export async function createTerm(http: Http, r: TermResource, as: TestUser, body: Record<string, unknown>): Promise<TermRecord> {
  const res = await call(http, 'post', collectionPath(r), as, body);
  expectStatus(res, 201);
  return res.body as TermRecord;
}

/** GET one term (anonymous), asserting 200. */
export async function readTerm(http: Http, r: TermResource, id: number): Promise<TermRecord> {
  const res = await http().get(itemPath(r, id));
  expectStatus(res, 200);
  return res.body as TermRecord;
}

/** GET the list with a raw query string (anonymous). */
export function list(http: Http, r: TermResource, query = ''): Promise<Response> {
  return http().get(`${collectionPath(r)}${query ? `?${query}` : ''}`) as unknown as Promise<Response>;
}

/** The names in a list answer, in order (asserting 200). */
export function namesOf(res: Response, r: TermResource): string[] {
  expectStatus(res, 200);
  return (res.body[r.collection] as TermRecord[]).map((term) => term.name);
}

/** The path and query of an absolute URL, to request it from the test app. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** `rel` → URL from a `Link` header (the WordPress discovery link included). */
export function linkRels(res: Response): Record<string, string> {
  const header = res.headers.link as string | undefined;
  const rels: Record<string, string> = {};
  for (const match of (header ?? '').matchAll(/<([^>]*)>\s*;\s*rel="([^"]*)"/g)) rels[match[2]] = match[1];
  return rels;
}
