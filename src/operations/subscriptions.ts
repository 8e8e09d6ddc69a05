import type { components } from '../../generated/openapi.js';
import type { User } from '../auth/capabilities.js';
import { invalidParam, limitReached, RestError } from '../core/errors.js';
import { asUrlParamError, checkOutboundUrlNow } from '../core/outbound.js';
import { formatUtc } from '../dates/storage.js';
import { refreshNow } from '../importing/scheduler.js';
import { releaseSubscription } from '../importing/subscription-run.js';
import { subscriptionPolicy } from '../policies/subscriptions.js';
import { inStateWriteTransaction, type Repositories } from '../repositories/registry.js';
import type { SubscriptionChanges, SubscriptionRow, SubscriptionRunRow, SubscriptionType } from '../repositories/subscriptions.js';
import { CATEGORIES } from '../repositories/taxonomies.js';
import { listEnvelope, pageRequest } from './shared/paging.js';
import { noTarget, operation, queryInput, type OperationContext, type OperationTable } from './shared/operation.js';

/**
 * The subscriptions API (docs/importing.md "Subscribing to a calendar"): administrators create, read,
 * change, run and delete subscriptions and read their runs. As for webhooks (operations/webhooks.ts),
 * nothing here is cached, subscription writes do not move the data version (the records a run
 * writes do, through the import engine), every answer is `Cache-Control: no-store`, and the policy is
 * asked before anything about a subscription is looked at.
 */

type ItemOp = 'getSubscription' | 'updateSubscription' | 'deleteSubscription' | 'refreshSubscription' | 'listSubscriptionRuns';
type Subscription = components['schemas']['Subscription'];
type SubscriptionRun = components['schemas']['SubscriptionRun'];

const NO_STORE = { 'Cache-Control': 'no-store' };

/** The most subscriptions a service keeps (docs/limits.md "Subscriptions"): each is fetched on its own schedule. */
const MAX_SUBSCRIPTIONS = 100;
const MAX_RUNS_PER_PAGE = 100;

interface Named {
  id: number;
  row: SubscriptionRow | undefined;
}

const manage = (user: User | undefined): void => subscriptionPolicy.manage(user);

function notFound(id: number): RestError {
  return new RestError(404, 'rest_subscription_invalid_id', `Subscription with ID ${id} does not exist.`);
}

async function named(ctx: OperationContext<ItemOp>): Promise<Named> {
  return { id: ctx.path.id, row: await ctx.repositories.subscriptions.findById(ctx.path.id) };
}

function existing({ id, row }: Named): SubscriptionRow {
  if (!row) throw notFound(id);
  return row;
}

function subscriptionRecord(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    url: row.url,
    type: row.type,
    refresh_minutes: row.refresh_minutes,
    categories: row.categories,
    status: row.status as Subscription['status'],
    created: row.created_utc,
    modified: row.modified_utc,
    last_run: row.last_run_utc,
    next_run: formatUtc(new Date(row.next_run_ms)),
    failures: row.failures,
    last_error: row.last_error,
  };
}

function runRecord(row: SubscriptionRunRow): SubscriptionRun {
  return {
    id: row.id,
    subscription: row.subscription_id,
    cause: row.cause,
    started: row.started_utc,
    duration_ms: row.duration_ms,
    http_status: row.http_status,
    outcome: row.outcome,
    created: row.created,
    updated: row.updated,
    unchanged: row.unchanged,
    removed: row.removed,
    failed: row.failed,
    errors: row.errors,
  };
}

type Body = Partial<components['schemas']['SubscriptionCreate'] & Omit<components['schemas']['SubscriptionUpdate'], 'status'>> & { status?: string | null };

/**
 * The body's fields checked (the document has checked their shapes). The URL is checked by the one
 * outbound rule as far as it can be without a name lookup (core/outbound.ts `checkOutboundUrlNow`:
 * its form, `https` unless its network is allowed, an IP address that may be reached), so that a
 * subscription no run could ever fetch is refused when it is made; a host name is checked at every
 * fetch, on the addresses it resolves to then.
 */
function cleanInput(body: Body, allowedNetworks: readonly string[]): SubscriptionChanges {
  if (body.url !== undefined) {
    try {
      checkOutboundUrlNow(body.url, allowedNetworks);
    } catch (err) {
      throw asUrlParamError(err);
    }
  }
  return {
    url: body.url,
    type: body.type as SubscriptionType | undefined,
    refresh_minutes: body.refresh_minutes,
    categories: body.categories,
    status: body.status,
  };
}

/** 400 naming `categories` unless every id names a category. */
async function checkCategories(repositories: Repositories, ids: number[] | undefined): Promise<void> {
  for (const id of ids ?? []) {
    const term = await repositories.terms.findById(id);
    if (term?.taxonomy !== CATEGORIES.name) throw invalidParam('categories', `categories: ${id} is not the ID of a category.`);
  }
}

const listSubscriptions = operation({
  parse: (ctx: OperationContext<'listSubscriptions'>) => queryInput(ctx),
  load: noTarget,
  authorize: manage,
  async execute(ctx: OperationContext<'listSubscriptions'>) {
    const rows = await ctx.repositories.subscriptions.list();
    return { status: 200, body: { subscriptions: rows.map(subscriptionRecord) }, headers: NO_STORE };
  },
});

const createSubscription = operation({
  parse: (ctx: OperationContext<'createSubscription'>) => cleanInput(ctx.body, ctx.config.outbound.allowedNetworks),
  load: noTarget,
  authorize: manage,
  async execute(ctx: OperationContext<'createSubscription'>, input) {
    await checkCategories(ctx.repositories, input.categories);
    const owner = ctx.user as User;
    const row = await inStateWriteTransaction(ctx.db, async (repositories) => {
      if ((await repositories.subscriptions.countForCreate()) >= MAX_SUBSCRIPTIONS) return undefined;
      const id = await repositories.subscriptions.create({
        // The document requires `url` and `type`.
        url: input.url as string,
        type: input.type as SubscriptionType,
        refreshMinutes: input.refresh_minutes ?? 60,
        categories: input.categories ?? [],
        status: input.status ?? null,
        ownerId: owner.id,
        nowUtc: formatUtc(ctx.now()),
      });
      return (await repositories.subscriptions.findById(id)) as SubscriptionRow;
    });
    if (!row) throw limitReached('subscription', 'subscriptions', MAX_SUBSCRIPTIONS);
    return { status: 201, body: subscriptionRecord(row), headers: { Location: ctx.urls.item('subscriptions', row.id), ...NO_STORE } };
  },
});

const getSubscription = operation({
  parse: (ctx: OperationContext<'getSubscription'>) => queryInput(ctx),
  load: named,
  authorize: manage,
  async execute(ctx: OperationContext<'getSubscription'>, _input, target) {
    return { status: 200, body: subscriptionRecord(existing(target)), headers: NO_STORE };
  },
});

const updateSubscription = operation({
  parse: (ctx: OperationContext<'updateSubscription'>) => cleanInput((ctx.body ?? {}) as Body, ctx.config.outbound.allowedNetworks),
  load: named,
  authorize: manage,
  async execute(ctx: OperationContext<'updateSubscription'>, input, target) {
    const { id } = existing(target);
    await checkCategories(ctx.repositories, input.categories);
    const updated = await inStateWriteTransaction(ctx.db, async (repositories) => {
      if (!(await repositories.subscriptions.update(id, input, formatUtc(ctx.now())))) return undefined;
      return repositories.subscriptions.findById(id);
    });
    if (!updated) throw notFound(id);
    return { status: 200, body: subscriptionRecord(updated), headers: NO_STORE };
  },
});

const deleteSubscription = operation({
  parse: (ctx: OperationContext<'deleteSubscription'>) => queryInput(ctx),
  load: named,
  authorize: manage,
  async execute(ctx: OperationContext<'deleteSubscription'>, _input, target) {
    const row = existing(target);
    const deleted = await inStateWriteTransaction(ctx.db, (repositories) => repositories.subscriptions.delete(row.id));
    if (!deleted) throw notFound(row.id);
    // Its events stay, as ordinary events (a run under way elsewhere releases what it wrote when it ends).
    await releaseSubscription(ctx.db, row.id);
    return { status: 200, body: { deleted: true as const, previous: subscriptionRecord(row) }, headers: NO_STORE };
  },
});

/** How long a refresh waits for its run before answering 202 `running`: two thirds of REQUEST_TIMEOUT. */
function refreshWaitMs(requestTimeoutSeconds: number): number {
  return Math.max(1000, Math.floor((requestTimeoutSeconds * 1000 * 2) / 3));
}

const refreshSubscription = operation({
  parse: (ctx: OperationContext<'refreshSubscription'>) => queryInput(ctx),
  load: named,
  authorize: manage,
  async execute(ctx: OperationContext<'refreshSubscription'>, _input, target) {
    const { id } = existing(target);
    const outcome = await refreshNow({ db: ctx.db, config: ctx.config, runs: ctx.subscriptionRuns }, id);
    if (outcome.kind === 'missing') throw notFound(id);
    const current = async () => {
      const row = await ctx.repositories.subscriptions.findById(id);
      if (!row) throw notFound(id);
      return subscriptionRecord(row);
    };
    if (outcome.kind === 'queued') return { status: 202, body: { status: 'queued' as const, subscription: await current() }, headers: NO_STORE };
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), refreshWaitMs(ctx.config.requestTimeoutSeconds))));
    const run = await Promise.race([outcome.run, late]).finally(() => clearTimeout(timer));
    if (run === 'late') return { status: 202, body: { status: 'running' as const, subscription: await current() }, headers: NO_STORE };
    // The lease was lost meanwhile (the subscription was deleted, or another process took it over).
    if (!run) return { status: 202, body: { status: 'queued' as const, subscription: await current() }, headers: NO_STORE };
    return { status: 200, body: runRecord(run), headers: NO_STORE };
  },
});

const listSubscriptionRuns = operation({
  parse: (ctx: OperationContext<'listSubscriptionRuns'>) => pageRequest(ctx.query.page, ctx.query.per_page, MAX_RUNS_PER_PAGE),
  load: named,
  authorize: manage,
  async execute(ctx: OperationContext<'listSubscriptionRuns'>, page, target) {
    const { id } = existing(target);
    const { rows, total } = await ctx.repositories.subscriptions.runs(id, { offset: page.offset, limit: page.perPage });
    const { envelope, headers } = listEnvelope(
      `${ctx.urls.item('subscriptions', id)}/runs`,
      {},
      page,
      total,
      () => new RestError(404, 'subscription-runs-page-not-found', 'The requested page of the runs does not exist'),
    );
    const { rest_url, total: count, total_pages, ...neighbours } = envelope;
    const body = { rest_url, total: count, total_pages, runs: rows.map(runRecord), ...neighbours };
    return { status: 200, body, headers: { ...headers, ...NO_STORE } };
  },
});

export const subscriptionOperations = {
  listSubscriptions,
  createSubscription,
  getSubscription,
  updateSubscription,
  deleteSubscription,
  refreshSubscription,
  listSubscriptionRuns,
} satisfies Partial<OperationTable>;
