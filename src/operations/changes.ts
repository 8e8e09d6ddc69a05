import type { OperationContext, OperationTable } from './shared/operation.js';
import { anyone, noTarget, operation } from './shared/operation.js';
import { extendRequestTimeout } from './shared/timeouts.js';
import { CHANGE_TYPES } from '../db/change-log.js';
import { changeFeed } from '../records/change-feed.js';

/**
 * `GET /changes`, the change feed (docs/contract.md §9): anyone may follow it and receives only what
 * they may read (records/change-feed.ts decides per record). Never cached (operations/shared/replies.ts): it
 * reads up to the feed's committed position (db/change-log.ts), not by the data version, and may wait.
 */
export const changeOperations = {
  listChanges: operation({
    parse: (ctx: OperationContext<'listChanges'>) => ({
      after: ctx.query.after,
      types: ctx.query.types ?? CHANGE_TYPES,
      perPage: ctx.query.per_page ?? 100,
      waitSeconds: ctx.query.wait ?? 0,
    }),
    load: noTarget,
    authorize: anyone,
    async execute(ctx: OperationContext<'listChanges'>, input) {
      // Never kept by any cache, whatever the answer (its 410 for an expired cursor too): a copy that
      // follows the feed must see the feed as it is (docs/contract.md §19).
      ctx.res.set('Cache-Control', 'no-store');
      // The clock restarts with the wait's extra time (without a wait, only the milliseconds spent so far move it).
      extendRequestTimeout(ctx.res, input.waitSeconds);
      let gone = false;
      ctx.res.once('close', () => (gone = true));
      const body = await changeFeed(ctx.repositories, ctx.user, ctx.urls, {
        ...input,
        retentionDays: ctx.config.changesRetentionDays,
        now: ctx.now(),
        gone: () => gone,
        replyLimit: ctx.config.replyLimit,
      });
      return { status: 200, body };
    },
  }),
} satisfies Partial<OperationTable>;
