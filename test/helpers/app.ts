import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../../src/http/app.js';
import { loadConfig, type Config } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { UserRepository } from '../../src/repositories/users.js';
import type { Role } from '../../src/auth/capabilities.js';
import { openTestDatabase } from './database.js';
import { recordingListener } from '../contract/coverage.js';
import { answerCheckingListener } from '../contract/answers.js';
import type { Resolver } from '../../src/core/outbound.js';

/**
 * Every API test runs with response validation on: a response the document does not describe is a
 * 500 (keys it does not name included, see test/contract/answers.ts).
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    // REPLY_CACHE=off runs the suite without the reply cache (it must pass both ways).
    ...loadConfig({ LOG_LEVEL: 'error', REPLY_CACHE: process.env.REPLY_CACHE }),
    validateResponses: true,
    publicUrl: undefined,
    authFailureLimit: 100_000,
    authFailureAddressLimit: 100_000,
    passwordFailureLimit: 100_000,
    ...overrides,
  };
}

/**
 * How test apps resolve a webhook URL's host (core/outbound.ts): from this table, never
 * through DNS, which a test machine may not have; other names do not resolve.
 */
export const TEST_HOSTS: Record<string, string[]> = { 'hooks.example.org': ['93.184.216.34'] };
export const testResolver: Resolver = async (host) => {
  const addresses = TEST_HOSTS[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses;
};

export interface TestApp {
  app: Express;
  /** supertest against the app; no network listener. */
  http: () => ReturnType<typeof request>;
}

const apps = new Map<string, Express>();

/**
 * An app on the test database. Apps are cached per settings (compiling the validator takes a few
 * hundred milliseconds); one with an injected clock is always new.
 */
export async function testApp(overrides: Partial<Config> = {}, now?: () => Date): Promise<TestApp> {
  const { db } = await openTestDatabase();
  const key = JSON.stringify(overrides);
  let app = now ? undefined : apps.get(key);
  if (!app) {
    app = createApp({ config: testConfig(overrides), db, logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'error'), now, resolveHost: testResolver });
    if (!now) apps.set(key, app);
  }
  const ready = app;
  // Responses are recorded for the contract coverage check (test/contract/coverage.ts), and their
  // keys compared with the document (test/contract/answers.ts).
  const listener = recordingListener(answerCheckingListener(ready));
  return { app: ready, http: () => request(listener) };
}

export const NS = '/wp-json/tribe/events/v1';

export interface TestUser {
  id: number;
  login: string;
  role: Role;
  secret: string;
  /** The value of an Authorization header for this user (HTTP Basic). */
  authorization: string;
}

/** Creates a user of the role, with a known secret. */
export async function createUser(role: Role, login: string = role): Promise<TestUser> {
  const { db } = await openTestDatabase();
  const secret = `${login}-secret-0123456789`;
  const { user } = await new UserRepository(db).add(login, role, secret);
  return { ...user, secret, authorization: `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}` };
}

/** One user of every role. */
export async function createUsers(): Promise<Record<Role, TestUser>> {
  return {
    administrator: await createUser('administrator'),
    editor: await createUser('editor'),
    author: await createUser('author'),
    contributor: await createUser('contributor'),
    subscriber: await createUser('subscriber'),
  };
}
