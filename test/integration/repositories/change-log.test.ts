import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { discardChangeLog, noteChange, openChangeLog, writeChangeLog } from '../../../src/db/change-log.js';
import { committedPosition } from '../../../src/db/committed-position.js';
import { lockDataVersionSlots } from '../../../src/db/data-version.js';
import { engineOf } from '../../../src/db/engine.js';
import { inTransaction } from '../../../src/db/transactions.js';
import { database } from './fixtures.js';
import { sleep, waitFor } from '../../helpers/wait.js';

/**
 * Commit order of the change log (db/change-log.ts, docs/contract.md §9): numbers come from an
 * auto-increment, so on MySQL a writer can take a number, and a later writer a larger one and commit
 * first. The committed position must then stay below the first writer's number until it commits, or
 * a feed reader would move its cursor past a change that is not visible yet and never see it.
 */
describe('the change log: commit order', () => {
  const seqOf = async (db: Knex, id: number) => Number((await db('changes').where({ type: 'event', record_id: id }).first('seq'))?.seq ?? 0);
  // Statements on the change log's lock row still running in this database (MySQL): each is waiting for
  // the lock (a statement that gets it is done in a millisecond). The information_schema's lock tables lag behind.
  const waiting = async (db: Knex) =>
    Number(
      (
        (await db.raw(
          `SELECT COUNT(*) AS n FROM information_schema.processlist
           WHERE db = DATABASE() AND command = 'Query' AND info LIKE '%change_sequence%' AND info NOT LIKE '%processlist%'`,
        )) as [{ n: unknown }[]]
      )[0][0].n,
    );

  it('gives every change a new, larger number, also to a record that changed before', async () => {
    const db = await database();
    await inTransaction(db, async (trx) => noteChange(trx, 'event', 900_001));
    const first = await seqOf(db, 900_001);
    await inTransaction(db, async (trx) => noteChange(trx, 'event', 900_002));
    await inTransaction(db, async (trx) => noteChange(trx, 'event', 900_001, true));
    const again = await seqOf(db, 900_001);
    assert.ok(again > (await seqOf(db, 900_002)) && (await seqOf(db, 900_002)) > first, `${first} ${again}`);
    assert.equal(
      await db('changes')
        .where({ type: 'event', record_id: 900_001 })
        .count({ n: '*' })
        .first()
        .then((row) => Number(row?.n)),
      1,
    );
    assert.equal(await committedPosition(db), again);
  });

  it('stays below a number whose writer has not committed, while a later number has (MySQL)', async function () {
    const db = await database();
    if (engineOf(db) === 'sqlite') return this.skip(); // SQLite runs one write transaction at a time: no later writer can commit first.
    // Writer A takes its number exactly as inTransaction does, and holds its transaction open.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let numbered!: () => void;
    const tookNumber = new Promise<void>((resolve) => (numbered = resolve));
    const writerA = db.transaction(async (trx) => {
      openChangeLog(trx);
      noteChange(trx, 'event', 900_010);
      await writeChangeLog(trx);
      discardChangeLog(trx);
      numbered();
      await held;
    });
    await tookNumber;
    let position: number | undefined;
    try {
      // Writer B takes a larger number and commits first.
      await inTransaction(db, async (trx) => noteChange(trx, 'event', 900_011));
      assert.equal(await seqOf(db, 900_010), 0, 'A’s change is not visible before its commit');
      const reading = committedPosition(db).then((value) => (position = value));
      // The read got to the lock and waits there...
      await waitFor(async () => position !== undefined || (await waiting(db)) >= 1, 'the read to wait for the change log lock', 5_000, 25);
      assert.equal(position, undefined, 'the committed position waits for the writer that holds a smaller number');
      // ...and the pause is the point (kept, issue 49): for this long the read must still be waiting.
      await sleep(300);
      assert.equal(position, undefined, 'the committed position waits for the writer that holds a smaller number');
      release();
      await writerA;
      await reading;
    } finally {
      release();
      await writerA.catch(() => undefined);
    }
    const numberA = await seqOf(db, 900_010);
    const numberB = await seqOf(db, 900_011);
    assert.ok(numberA > 0 && numberA < numberB, `A ${numberA} took its number before B ${numberB}`);
    assert.ok(position! >= numberB, 'once A has committed, the position covers both');
  });

  it('reads again when a deadlock with writers holding write locks chose it as the victim (MySQL)', async function () {
    const db = await database();
    if (engineOf(db) === 'sqlite') return this.skip(); // SQLite runs one write transaction at a time: no lock waits at all.
    const until = async (count: number) => {
      await waitFor(async () => (await waiting(db)) >= count, `${count} transaction(s) waiting for a lock`, 5_000, 25);
      assert.equal(await waiting(db), count, `${count} transaction(s) waiting for a lock`);
    };
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, opened };
    };
    const [lockHeld, numberTaken, goLocker, goWriter] = [gate(), gate(), gate(), gate()];
    // The locker holds a write lock (a data-version row, db/write-locks.ts), then asks for the change log's shared lock.
    const locker = db.transaction(async (trx) => {
      await lockDataVersionSlots(trx, [1]);
      lockHeld.open();
      await goLocker.opened;
      openChangeLog(trx);
      noteChange(trx, 'event', 900_020);
      await writeChangeLog(trx);
      discardChangeLog(trx);
    });
    await lockHeld.opened;
    // The writer holds the shared lock, then bumps the row the locker holds, as its last statement does.
    const writer = db.transaction(async (trx) => {
      openChangeLog(trx);
      noteChange(trx, 'event', 900_021);
      await writeChangeLog(trx);
      discardChangeLog(trx);
      numberTaken.open();
      await goWriter.opened;
      await trx('data_version').where('id', 1).increment('version', 1);
    });
    await numberTaken.opened;
    try {
      const reading = committedPosition(db);
      await until(1); // the read waits for the writer's shared lock
      goLocker.open();
      await until(2); // the locker's shared lock waits behind the read's exclusive one
      goWriter.open(); // the writer waits for the locker: a cycle, and InnoDB rolls one of the three back
      const position = await reading;
      assert.ok(position >= 0);
    } finally {
      goLocker.open();
      goWriter.open();
      await Promise.allSettled([locker, writer]);
    }
  });

  it('takes notes only inside inTransaction', async () => {
    const db = await database();
    assert.throws(() => noteChange(db, 'event', 1), /inside inTransaction/);
  });
});
