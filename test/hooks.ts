import { closeTestDatabase, openTestDatabase, resetDatabase } from './helpers/database.js';

/** Mocha root hooks: one migrated database for the run, emptied before every test. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(60_000);
    await openTestDatabase();
  },
  async beforeEach() {
    const { db } = await openTestDatabase();
    await resetDatabase(db);
  },
  async afterAll() {
    await closeTestDatabase();
  },
};
