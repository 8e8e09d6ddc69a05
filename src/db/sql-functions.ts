/** Per-engine SQL functions: what SQLite lacks, registered per connection, and SQL that differs by engine. */
import type { Knex } from 'knex';
import { engineOf } from './engine.js';

const EARTH_RADIUS_KM = 6371;
const rad = (degrees: number) => (degrees * Math.PI) / 180;

/** Great-circle distance in kilometres (haversine). */
function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const a = Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A better-sqlite3 connection, as far as registering functions goes. */
export interface SqliteFunctions {
  function(name: string, options: object, fn: (...values: never[]) => unknown): unknown;
}

/**
 * Functions every SQLite connection gets, so that both engines compute the same results:
 * - `lower()`: SQLite's only knows ASCII; MySQL's collations know every script, and case-insensitive
 *   comparisons (names, search) must agree on both engines;
 * - `geo_distance_km()`: the great-circle distance of the geoloc filter; MySQL computes the same
 *   formula in SQL (distanceSql below).
 */
export function registerSqliteFunctions(conn: SqliteFunctions): void {
  conn.function('lower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  conn.function('geo_distance_km', { deterministic: true }, (lat1: number | null, lng1: number | null, lat2: number, lng2: number) =>
    lat1 === null || lng1 === null ? null : haversineKm(lat1, lng1, lat2, lng2),
  );
}

/**
 * SQL for the distance from a row's coordinates to a point, the same formula on both engines:
 * a function registered on each SQLite connection, plain SQL on MySQL.
 */
export function distanceSql(db: Knex, latColumn: string, lngColumn: string, lat: number, lng: number): Knex.Raw {
  if (engineOf(db) === 'sqlite') return db.raw(`geo_distance_km(${latColumn}, ${lngColumn}, ?, ?)`, [lat, lng]);
  return db.raw(
    `${2 * EARTH_RADIUS_KM} * ASIN(LEAST(1, SQRT(POWER(SIN(RADIANS(? - ${latColumn}) / 2), 2) + COS(RADIANS(${latColumn})) * COS(RADIANS(?)) * POWER(SIN(RADIANS(? - ${lngColumn}) / 2), 2))))`,
    [lat, lat, lng],
  );
}
