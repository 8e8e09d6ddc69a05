import type { User } from '../auth/capabilities.js';
import { limitReached, RestError } from '../core/errors.js';
import { formatUtc } from '../dates/storage.js';
import { CHANGE_TYPES } from '../db/change-log.js';
import { webhookPolicy } from '../policies/webhooks.js';
import { inStateWriteTransaction, type Repositories } from '../repositories/registry.js';
import type { WebhookRow } from '../repositories/webhook-rows.js';
import type { Resolver } from '../core/outbound.js';
import { checkDestination, cleanWebhookInput } from '../webhooks/input.js';
import { sendPing } from '../webhooks/ping.js';
import { deliveryRecord, storedTypes, webhookRecord, webhookWithSecret } from '../webhooks/records.js';
import { newWebhookSecret } from '../webhooks/secrets.js';
import { listEnvelope, pageRequest } from './shared/paging.js';
import { noTarget, operation, queryInput, type OperationContext, type OperationTable } from './shared/operation.js';

/**
 * The webhooks API (docs/webhooks.md): administrators create, read, change and delete webhooks,
 * rotate their secrets, read their delivery log and ping them. Nothing here is cached
 * (operations/shared/replies.ts): webhook writes do not move the data version (they run in
 * `inStateWriteTransaction`, so the calendar's cached replies survive every delivery), and the
 * answers may carry a secret, so none is cached anywhere (`Cache-Control: no-store`).
 *
 * Every operation is judged by `webhookPolicy.manage` before anything about a webhook is looked at:
 * `load` only finds the row, and a missing one is 404 in `execute`, so a caller without the right
 * learns nothing (403), not even which ids exist.
 */

type ItemOp = 'getWebhook' | 'updateWebhook' | 'deleteWebhook' | 'rotateWebhookSecret' | 'listWebhookDeliveries' | 'pingWebhook';

/** The webhook a path names: its id, and its row when it exists. */
interface Named {
  id: number;
  row: WebhookRow | undefined;
}

const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * The most webhooks a service keeps (docs/webhooks.md "Subscribing"): every change is built and sent
 * once per webhook, so their number bounds the delivery work one change causes, and the list of
 * them needs no pages.
 */
const MAX_WEBHOOKS = 100;

/** The largest page of the delivery log (docs/webhooks.md "Subscribing"). */
const MAX_DELIVERIES_PER_PAGE = 100;

function notFound(id: number): RestError {
  return new RestError(404, 'rest_webhook_invalid_id', `Webhook with ID ${id} does not exist.`);
}

function expired(): RestError {
  return new RestError(
    409,
    'rest_webhook_expired',
    'This webhook has expired: the feed no longer holds the changes after its cursor, so it cannot become active again. Read the lists again and create a new webhook.',
  );
}

const manage = (user: User | undefined): void => webhookPolicy.manage(user);

async function named(ctx: OperationContext<ItemOp>): Promise<Named> {
  return { id: ctx.path.id, row: await ctx.repositories.webhooks.findById(ctx.path.id) };
}

function existing({ id, row }: Named): WebhookRow {
  if (!row) throw notFound(id);
  return row;
}

async function record(repositories: Repositories, row: WebhookRow) {
  return webhookRecord(row, await repositories.changes.cursorKey());
}

const listWebhooks = operation({
  parse: (ctx: OperationContext<'listWebhooks'>) => queryInput(ctx),
  load: noTarget,
  authorize: manage,
  async execute(ctx: OperationContext<'listWebhooks'>) {
    const key = await ctx.repositories.changes.cursorKey();
    const rows = await ctx.repositories.webhooks.list();
    return { status: 200, body: { webhooks: rows.map((row) => webhookRecord(row, key)) }, headers: NO_STORE };
  },
});

const createWebhook = (resolve: Resolver) =>
  operation({
    parse: (ctx: OperationContext<'createWebhook'>) => cleanWebhookInput(ctx.body),
    load: noTarget,
    authorize: manage,
    async execute(ctx: OperationContext<'createWebhook'>, input) {
      // The document requires `url`.
      const url = input.url as string;
      await checkDestination(url, ctx.config.outbound.allowedNetworks, resolve);
      const nowUtc = formatUtc(ctx.now());
      // It starts at the feed's committed position now: changes made before it are not sent
      // (docs/webhooks.md "Subscribing"); the lists read from now on are after it.
      const position = await ctx.repositories.changes.position();
      const owner = ctx.user as User;
      const row = await inStateWriteTransaction(ctx.db, async (repositories) => {
        if ((await repositories.webhooks.countForCreate()) >= MAX_WEBHOOKS) return undefined;
        const id = await repositories.webhooks.create({
          url,
          types: input.types ?? storedTypes(CHANGE_TYPES),
          visibility: input.visibility ?? 'public',
          ownerId: owner.id,
          description: input.description ?? '',
          secret: newWebhookSecret(),
          position,
          nowUtc,
        });
        return (await repositories.webhooks.findById(id)) as WebhookRow;
      });
      if (!row) throw limitReached('webhook', 'webhooks', MAX_WEBHOOKS);
      const body = webhookWithSecret(row, await ctx.repositories.changes.cursorKey());
      return { status: 201, body, headers: { Location: ctx.urls.item('webhooks', row.id), ...NO_STORE } };
    },
  });

const getWebhook = operation({
  parse: (ctx: OperationContext<'getWebhook'>) => queryInput(ctx),
  load: named,
  authorize: manage,
  async execute(ctx: OperationContext<'getWebhook'>, _input, target) {
    return { status: 200, body: await record(ctx.repositories, existing(target)), headers: NO_STORE };
  },
});

const updateWebhook = (resolve: Resolver) =>
  operation({
    parse: (ctx: OperationContext<'updateWebhook'>) => cleanWebhookInput(ctx.body ?? {}),
    load: named,
    authorize: manage,
    async execute(ctx: OperationContext<'updateWebhook'>, input, target) {
      const { id } = existing(target);
      if (input.url !== undefined) await checkDestination(input.url, ctx.config.outbound.allowedNetworks, resolve);
      const changes = { url: input.url, types: input.types, description: input.description, status: input.status };
      const updated = await inStateWriteTransaction(ctx.db, async (repositories) => {
        const refusal = await repositories.webhooks.update(id, changes, formatUtc(ctx.now()));
        return refusal ?? ((await repositories.webhooks.findById(id)) as WebhookRow);
      });
      if (updated === 'missing') throw notFound(id);
      if (updated === 'expired') throw expired();
      return { status: 200, body: await record(ctx.repositories, updated), headers: NO_STORE };
    },
  });

const deleteWebhook = operation({
  parse: (ctx: OperationContext<'deleteWebhook'>) => queryInput(ctx),
  load: named,
  authorize: manage,
  async execute(ctx: OperationContext<'deleteWebhook'>, _input, target) {
    const row = existing(target);
    const previous = await record(ctx.repositories, row);
    const deleted = await inStateWriteTransaction(ctx.db, (repositories) => repositories.webhooks.delete(row.id));
    if (!deleted) throw notFound(row.id);
    return { status: 200, body: { deleted: true as const, previous }, headers: NO_STORE };
  },
});

const rotateWebhookSecret = operation({
  parse: (ctx: OperationContext<'rotateWebhookSecret'>) => queryInput(ctx),
  load: named,
  authorize: manage,
  async execute(ctx: OperationContext<'rotateWebhookSecret'>, _input, target) {
    const { id } = existing(target);
    const now = ctx.now();
    const rotated = await inStateWriteTransaction(ctx.db, async (repositories) => {
      const found = await repositories.webhooks.rotateSecret(id, newWebhookSecret(), now.getTime(), formatUtc(now));
      return found ? repositories.webhooks.findById(id) : undefined;
    });
    if (!rotated) throw notFound(id);
    return { status: 200, body: webhookWithSecret(rotated, await ctx.repositories.changes.cursorKey()), headers: NO_STORE };
  },
});

const listWebhookDeliveries = operation({
  parse: (ctx: OperationContext<'listWebhookDeliveries'>) => pageRequest(ctx.query.page, ctx.query.per_page, MAX_DELIVERIES_PER_PAGE),
  load: named,
  authorize: manage,
  async execute(ctx: OperationContext<'listWebhookDeliveries'>, page, target) {
    const { id } = existing(target);
    const { rows, total } = await ctx.repositories.webhooks.deliveries(id, { offset: page.offset, limit: page.perPage });
    const { envelope, headers } = listEnvelope(
      `${ctx.urls.item('webhooks', id)}/deliveries`,
      {},
      page,
      total,
      () => new RestError(404, 'webhook-deliveries-page-not-found', 'The requested page of the delivery log does not exist'),
    );
    const { rest_url, total: count, total_pages, ...neighbours } = envelope;
    const body = { rest_url, total: count, total_pages, deliveries: rows.map(deliveryRecord), ...neighbours };
    return { status: 200, body, headers: { ...headers, ...NO_STORE } };
  },
});

const pingWebhook = operation({
  parse: (ctx: OperationContext<'pingWebhook'>) => queryInput(ctx),
  load: named,
  authorize: manage,
  async execute(ctx: OperationContext<'pingWebhook'>, _input, target) {
    const delivery = await sendPing(ctx.db, { ...ctx.config.webhooks, allowedNetworks: ctx.config.outbound.allowedNetworks }, existing(target), ctx.now());
    return { status: 200, body: deliveryRecord(delivery), headers: NO_STORE };
  },
});

/** The operations, with the resolver the URL check asks (core/outbound.ts; tests inject one). */
export function webhookOperations(resolve: Resolver) {
  return {
    listWebhooks,
    createWebhook: createWebhook(resolve),
    getWebhook,
    updateWebhook: updateWebhook(resolve),
    deleteWebhook,
    rotateWebhookSecret,
    listWebhookDeliveries,
    pingWebhook,
  } satisfies Partial<OperationTable>;
}
