import { parseBooleanWord } from '../text/booleans.js';

/** The value checks of the settings (core/config.ts): each names the variable it refuses. */

/** A setting that cannot be used, named with its value. */
export class ConfigError extends Error {}

/** A size as BODY_LIMIT takes it (`512kb`, `8mb`, `1048576`), in bytes (1 kb = 1024). */
export function byteSize(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(value.trim());
  const bytes = match ? Math.floor(Number(match[1]) * 1024 ** ['b', 'kb', 'mb', 'gb'].indexOf((match[2] ?? 'b').toLowerCase())) : NaN;
  if (!(bytes >= 1024)) throw new ConfigError(`${name} must be a size of at least 1kb such as 8mb, got "${value}"`);
  return bytes;
}

export function positiveInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new ConfigError(`${name} must be a positive integer, got "${value}"`);
  return number;
}

/**
 * Seconds of a `Cache-Control` directive: written as digits alone (they go into the header as they
 * are), 0 included, at most 2147483648, the largest delta-seconds a cache must understand (RFC 9111 §1.2.2).
 */
export function cacheSeconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const text = value.trim();
  if (!/^\d{1,10}$/.test(text) || Number(text) > 2_147_483_648) throw new ConfigError(`${name} must be a whole number of seconds from 0 to 2147483648, got "${value}"`);
  return Number(text);
}

/** Durations: any positive number of seconds (`0.5` is half a second). */
export function positiveNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new ConfigError(`${name} must be a positive number of seconds, got "${value}"`);
  return number;
}

export function parseFlag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const flag = parseBooleanWord(value);
  if (flag !== undefined) return flag;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}
