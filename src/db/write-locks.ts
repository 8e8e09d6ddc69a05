import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { DATA_VERSION_SLOTS, lockDataVersionSlots } from './data-version.js';

/**
 * Write locks: a write that checks something and then writes what the check allowed takes a lock on
 * what it checks, so that two concurrent writes that would each pass the check (and together break
 * it) run one after the other. Two are named (docs/mysql-and-cluster.md "Write locks"):
 *
 * - `tree:<taxonomy>`: a write that changes where a category hangs (a new parent, a category with a
 *   parent created, a category deleted). Without it two updates `A.parent = B` and `B.parent = A`
 *   each found no cycle and both committed one.
 * - `duplicate:<kind>:<name>`: the create of a venue or organizer, which first looks for a duplicate
 *   of it (docs/contract.md §6). Without it two identical creates each found none and made two.
 *
 * A lock is one of the data version's rows (db/data-version.ts), chosen by the name's hash and bumped
 * (a real write): on one server its row lock makes the second writer wait for the first's commit; on
 * a Galera cluster, where row locks hold only on their node, two writes of one row through two nodes
 * are a certification conflict and the one certified second runs again (docs/contract.md §18). Names
 * that share a row only wait for each other now and then (1 in 16).
 *
 * The locks are taken as the transaction's first statements (`inWriteTransaction`'s `locks`): on
 * MySQL a transaction reads from the snapshot of its first read, so checks that run after a lock wait
 * see what the other write committed. SQLite runs one writer at a time; the bump costs nothing more.
 */
export async function takeWriteLocks(trx: Knex.Transaction, names: readonly string[]): Promise<void> {
  if (names.length) await lockDataVersionSlots(trx, names.map(slotOf));
}

/** The lock of the category tree of a taxonomy. */
export function treeLock(taxonomy: string): string {
  return `tree:${taxonomy}`;
}

/** The lock of the creates of one kind (`venue`, `organizer`) under one name, case folded as the duplicate check compares it. */
export function duplicateLock(kind: string, name: string): string {
  return `duplicate:${kind}:${name.toLowerCase()}`;
}

function slotOf(name: string): number {
  return (crypto.createHash('sha256').update(name).digest().readUInt32BE(0) % DATA_VERSION_SLOTS) + 1;
}
