import assert from 'node:assert/strict';
import os from 'node:os';
import { holdServiceLease, LEASE_VALID_MS, liveLeases } from '../../../src/db/service-lease.js';
import { openTestDatabase } from '../../helpers/database.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * "Is a service running on this database?" (src/db/service-lease.ts, docs/durability.md "Restore"):
 * a lease counts while it is fresher than LEASE_VALID_MS, so a killed service stops counting by
 * itself, and a service that stops deletes its own.
 */
describe('service leases (src/db/service-lease.ts)', () => {
  it('counts a lease until it is LEASE_VALID_MS old, and forgets one a process deletes on stop', async () => {
    const { db } = await openTestDatabase();
    const now = Date.now();
    await db('service_leases').insert({ holder: 'killed long ago', renewed_ms: now - LEASE_VALID_MS - 1 });
    await db('service_leases').insert({ holder: 'killed just now', renewed_ms: now - LEASE_VALID_MS + 1000 });
    assert.deepEqual(
      (await liveLeases(db, now)).map((lease) => lease.holder),
      ['killed just now'],
    );
    assert.deepEqual(await liveLeases(db, now + 1000), []);

    const lease = holdServiceLease(db, (err) => assert.fail(String(err)));
    const mine = `${os.hostname()} pid ${process.pid}`;
    await waitFor(async () => (await liveLeases(db)).some((live) => live.holder === mine), 'the lease to be taken at once', 2_000, 20);
    await lease.stop();
    assert.equal(await db('service_leases').where('holder', mine).first(), undefined);
  });
});
