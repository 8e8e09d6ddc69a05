import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import pino from 'pino';
import type { Config, WebhookSettings } from '../../src/core/config.js';
import { committedPosition } from '../../src/db/committed-position.js';
import { formatUtc } from '../../src/dates/storage.js';
import { deliveryRowOf, webhookRowOf, type WebhookDeliveryRow, type WebhookRow } from '../../src/repositories/webhook-rows.js';
import { startWebhookDelivery, type DeliveryOptions, type WebhookDelivery } from '../../src/webhooks/worker.js';
import { createUser, testConfig, type TestUser } from './app.js';
import { eventsApp, PUBLIC_URL, type Http } from './events.js';
import { WebhookReceiver } from './webhook-receiver.js';
import { openTestDatabase } from './database.js';
import { waitFor } from './wait.js';

/**
 * Webhooks for the delivery tests, written straight into `webhooks` (the API that manages them is
 * tested on its own), and delivery loops started and stopped around each test.
 */

/** A secret as the API makes them: `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

export const ALL_TYPES = 'event,venue,organizer,category,tag';

/** A webhook row starting at the feed's committed position now (as a created webhook does). */
export async function insertWebhook(fields: Partial<WebhookRow> & { url: string }, on?: Knex): Promise<WebhookRow> {
  const db = on ?? (await openTestDatabase()).db;
  const now = formatUtc(new Date());
  const row = {
    types: ALL_TYPES,
    visibility: 'public',
    owner_id: 1,
    description: '',
    status: 'active',
    status_changed_utc: now,
    status_reason: null,
    secret: newSecret(),
    previous_secret: null,
    previous_secret_until_ms: 0,
    position: await committedPosition(db),
    attempts: 0,
    next_attempt_ms: 0,
    lease_holder: null,
    lease_until_ms: 0,
    created_utc: now,
    modified_utc: now,
    ...fields,
  };
  const [id] = await db('webhooks').insert(row);
  return webhookRow(Number(id), db);
}

export async function webhookRow(id: number, on?: Knex): Promise<WebhookRow> {
  const db = on ?? (await openTestDatabase()).db;
  return webhookRowOf(await db('webhooks').where('id', id).first());
}

/**
 * The webhook's row once `test` holds (or as it is after `timeoutMs`: the caller's assertions on it
 * then say what is wrong).
 */
export async function waitForRow(id: number, test: (row: WebhookRow) => boolean, timeoutMs = 10_000): Promise<WebhookRow> {
  let row = await webhookRow(id);
  await waitFor(async () => test((row = await webhookRow(id))), `webhook ${id}'s row`, timeoutMs, 20).catch(() => undefined);
  return row;
}

/**
 * Waits until `count` more rounds of the loop have begun than when called. Rounds never overlap, so
 * with `count` 2 a whole round began and ended after the call: it saw everything committed before the
 * call, and what it found due has been given its turn (its attempts may still be in flight).
 */
export async function roundsPass(delivery: WebhookDelivery, count = 2, timeoutMs = 10_000): Promise<void> {
  const start = delivery.counts().rounds;
  await waitFor(() => delivery.counts().rounds >= start + count, `${count} delivery rounds after round ${start}`, timeoutMs);
}

/** The delivery log of a webhook, oldest first. */
export async function deliveriesOf(id: number): Promise<WebhookDeliveryRow[]> {
  const { db } = await openTestDatabase();
  return (await db('webhook_deliveries').where('webhook_id', id).orderBy('id')).map(deliveryRowOf);
}

/** The webhook settings with the outbound rule's allowed networks (config.outbound), as a delivery uses them. */
export type DeliverySettings = WebhookSettings & { allowedNetworks: string[] };

/** Fast settings: receivers on 127.0.0.1, retries after 50 ms, a short timeout and lease. */
export function deliverySettings(overrides: Partial<DeliverySettings> = {}): DeliverySettings {
  return {
    deliver: true,
    timeoutSeconds: 2,
    retryDelaysSeconds: [0.05, 0.05, 0.05],
    leaseSeconds: 2,
    allowedNetworks: ['127.0.0.0/8'],
    concurrency: 8,
    logMaxRows: 1000,
    logDays: 30,
    thread: false,
    ...overrides,
  };
}

/** The settings of the test apps the messages are compared with (PUBLIC_URL), with fast webhook settings. */
export function deliveryConfig(overrides: Partial<DeliverySettings> = {}): Config {
  const { allowedNetworks, ...webhooks } = deliverySettings(overrides);
  return testConfig({ publicUrl: PUBLIC_URL, webhooks, outbound: { ...testConfig().outbound, allowedNetworks } });
}

const running = new Set<WebhookDelivery>();

/** Starts a delivery loop on the test database (fast rounds); stopped by `stopDeliveries` after the test. */
export async function startDelivery(overrides: Partial<DeliverySettings> = {}, extra: Partial<DeliveryOptions> = {}): Promise<WebhookDelivery> {
  const { db } = await openTestDatabase();
  const delivery = startWebhookDelivery({
    db: extra.db ?? db,
    config: deliveryConfig(overrides),
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    pollMs: 50,
    ...extra,
  });
  running.add(delivery);
  return delivery;
}

export async function stopDeliveries(): Promise<void> {
  const all = [...running];
  running.clear();
  await Promise.all(all.map((delivery) => delivery.stop()));
}

/** What each delivery test starts with (`deliveryTestbed`). */
export interface DeliveryTestbed {
  http: Http;
  admin: TestUser;
  receiver: WebhookReceiver;
}

/**
 * The setup every delivery test shares, as mocha hooks of the calling `describe`: before each test
 * an events app, an administrator and a receiver; after it, the delivery loops stopped, the receiver
 * closed, and every message it got checked against its webhook's secret. The fields are set before
 * each test.
 */
export function deliveryTestbed(): DeliveryTestbed {
  const bed = {} as DeliveryTestbed;
  beforeEach(async () => {
    ({ http: bed.http } = await eventsApp());
    bed.admin = await createUser('administrator', 'hooks-admin');
    bed.receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await stopDeliveries();
    await bed.receiver.close();
    assert.deepEqual(bed.receiver.forged, [], 'every message verifies with the webhook secret');
  });
  return bed;
}
