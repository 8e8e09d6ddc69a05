import assert from 'node:assert/strict';
import type { Role } from '../../src/auth/capabilities.js';
import { UserRepository } from '../../src/repositories/users.js';
import { NS } from '../helpers/app.js';
import { send, startStallService, withoutStall, type StallService } from '../security/stall.js';

/**
 * Long legitimate expansions run in turns of the event loop (docs/limits.md "Recurrence rules"): a
 * contributor's series whose expansion takes (nearly) the whole total budget is accepted, or
 * refused past it, while `/healthz` keeps answering.
 */
const EVENTS = `${NS}/events`;
/** "The last weekday of every month": about 460 iteration steps per occurrence. */
const LAST_WEEKDAY = 'RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1';

const body = (start: string, recurrence: string[]) => ({ title: 'Turns', start_date: start, end_date: start, status: 'draft', recurrence });

/** A user made in the test itself: on MariaDB the root hooks empty the shared database before every test. */
let users = 0;
async function freshUser(stall: StallService, role: Role): Promise<string> {
  const login = `stall-turns-${role}-${++users}`;
  const secret = `${login}-secret-0123456789`;
  await new UserRepository(stall.db).add(login, role, secret);
  return `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}`;
}

describe('stall: expansions spent in turns of the event loop (docs/limits.md "Recurrence rules")', function () {
  this.timeout(90_000);
  let stall: StallService;
  let contributor: string;

  before(async () => {
    stall = await startStallService();
  });

  beforeEach(async () => {
    contributor = await freshUser(stall, 'contributor');
    // Warm-up: the validator compiles the route on its first use.
    const warm = await send(stall.url, EVENTS, { authorization: contributor, body: body('2027-01-29 10:00:00', [`${LAST_WEEKDAY};COUNT=2`]) });
    assert.equal(warm.status, 201, warm.text);
  });

  after(async () => {
    await stall?.close();
  });

  const attack = async (start: string, lines: string[]) => {
    const { result, slowestProbeMs } = await withoutStall(stall.url, () => send(stall.url, EVENTS, { authorization: contributor, body: body(start, lines), timeoutMs: 30_000 }));
    console.log(`      answered ${result.status} in ${Math.round(result.ms)} ms; slowest /healthz ${Math.round(slowestProbeMs)} ms`);
    return result;
  };

  it('accepts the last weekday of every month from 80 years ago (994 occurrences, about 460,000 steps) without blocking', async () => {
    const result = await attack('1946-01-31 10:00:00', [LAST_WEEKDAY]);
    assert.equal(result.status, 201, result.text);
  });

  it('refuses 60 copies of an expensive rule past the total budget with 400 naming the line, without blocking', async () => {
    const result = await attack(
      '2027-01-29 10:00:00',
      Array.from({ length: 60 }, () => LAST_WEEKDAY),
    );
    assert.equal(result.status, 400, result.text);
    assert.equal(result.json.code, 'rest_invalid_param');
    assert.match(
      result.json.data.params.recurrence,
      /^recurrence\[\d+\] "RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1": the rules need too much work to expand up to the horizon \(more than 500000 iteration steps, all lines together\)/,
    );
  });
});
