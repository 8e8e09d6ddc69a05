import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { committedPosition, discardChangeLog, noteChange, openChangeLog, writeChangeLog } from '../../../src/db/change-log.js';
import { engineOf } from '../../../src/db/engine.js';
import { inTransaction } from '../../../src/db/transactions.js';
import { database } from './fixtures.js';

/**
 * Commit order of the change log (db/change-log.ts, docs/contract.md §9): numbers come from an
 * auto-increment, so on MySQL a writer can take a number, and a later writer a larger one and commit
 * first. The committed position must then stay below the first writer's number until it commits, or
 * a feed reader would move its cursor past a change that is not visible yet and never see it.
 */
describe('the change log: commit order', () => {
  const seqOf = async (db: Knex, id: number) => Number((await db('changes').where({ type: 'event', record_id: id }).first('seq'))?.seq ?? 0);

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
      await new Promise((resolve) => setTimeout(resolve, 300));
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

  it('takes notes only inside inTransaction', async () => {
    const db = await database();
    assert.throws(() => noteChange(db, 'event', 1), /inside inTransaction/);
  });
});
