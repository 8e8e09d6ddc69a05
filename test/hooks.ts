import { closeTestDatabase, openTestDatabase, resetDatabase } from './helpers/database.js';
import { loadDocument } from '../src/openapi/document.js';
import { stopSharedCluster } from './helpers/cluster.js';
import { describeGaps, exercisedResponses, findContractGaps } from './contract/coverage.js';

// Date parsing needs a UTC process (dates/parse.ts assertUtcProcess); set before anything runs.
process.env.TZ = 'UTC';

/**
 * Mocha root hooks: one migrated database for the run, emptied before every test; after a whole run,
 * the contract coverage check (test/contract/coverage.ts).
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(60_000);
    await openTestDatabase();
  },
  async beforeEach() {
    const { db } = await openTestDatabase();
    await resetDatabase(db);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    // Stryker (npm run mutate) runs mocha again and again in one process, and the helpers keep apps
    // (with their connection) between runs: there the database stays open until the process ends.
    if (process.env.STRYKER_MUTATOR_WORKER !== undefined) return;
    try {
      await closeTestDatabase();
    } finally {
      // The Galera cluster of the opt-in cluster tests (test/cluster/), when one was started: stopped
      // even when closing the database failed (a test that left a transaction open makes it wait),
      // since its nodes would otherwise outlive the run.
      await stopSharedCluster();
    }
    // Only a whole run (`npm test` sets it) can be expected to exercise the whole document.
    if (process.env.CONTRACT_COVERAGE === '1') {
      const gaps = describeGaps(findContractGaps(loadDocument(), exercisedResponses()));
      if (gaps) throw new Error(gaps);
    }
  },
};
