import os from 'node:os';
import type { Knex } from 'knex';

/**
 * "Is a service running on this database?" (docs/durability.md "Restore"): each running service
 * process holds a row of `service_leases` that it renews every few seconds and deletes when it stops.
 * `cli restore` refuses while any lease is fresher than LEASE_VALID_MS. A row, not a pid file: it
 * works across containers that share the database file but not a process table, and a service
 * killed with SIGKILL frees it by itself once it stops being renewed.
 */

/** How often a service renews its lease. */
const LEASE_RENEW_MS = 5_000;
/** A lease not renewed for this long belongs to a process that has gone (three renewals missed). */
export const LEASE_VALID_MS = 3 * LEASE_RENEW_MS;

interface Lease {
  holder: string;
  renewedMs: number;
}

/** Takes this process's lease and renews it until stop(), which deletes it. Failures are retried at the next renewal. */
export function holdServiceLease(db: Knex, onError: (err: unknown) => void): { stop(): Promise<void> } {
  const holder = `${os.hostname()} pid ${process.pid}`;
  const renew = () =>
    db('service_leases')
      .insert({ holder, renewed_ms: Date.now() })
      .onConflict('holder')
      .merge()
      .then(() => undefined, onError);
  void renew();
  const timer = setInterval(renew, LEASE_RENEW_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await db('service_leases').where('holder', holder).delete().catch(onError);
    },
  };
}

/** The leases renewed within LEASE_VALID_MS of `now`: the services running on this database. */
export async function liveLeases(db: Knex, now = Date.now()): Promise<Lease[]> {
  const rows = await db('service_leases')
    .where('renewed_ms', '>', now - LEASE_VALID_MS)
    .select('holder', 'renewed_ms');
  return rows.map((row: { holder: string; renewed_ms: unknown }) => ({ holder: String(row.holder), renewedMs: Number(row.renewed_ms) }));
}
