import fs from 'node:fs';
import path from 'node:path';

/**
 * File steps that make a copy durable and its replacement atomic (docs/durability.md): a file is
 * written beside its final name, flushed to the disk, renamed over the name, and the directory
 * flushed so that the rename itself survives a machine crash.
 */

/** A temporary name beside `file` (same directory, so the rename never crosses file systems). */
export function besideTemp(file: string, purpose: string): string {
  return path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${purpose}-${process.pid}.tmp`);
}

/** Flushes a file's (or a directory's) content to the disk. */
function fsyncPath(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Flushes `temp`, renames it to `file` (replacing it at once), and flushes the directory. */
export function replaceAtomically(temp: string, file: string): void {
  fsyncPath(temp);
  fs.renameSync(temp, file);
  fsyncPath(path.dirname(path.resolve(file)));
}

/** Removes a file if it exists. */
export function removeIfPresent(file: string): void {
  fs.rmSync(file, { force: true });
}

/** A SQLite database's side files (WAL mode): they belong to that database and to no other. */
export function sideFiles(file: string): string[] {
  return [`${file}-wal`, `${file}-shm`, `${file}-journal`];
}
