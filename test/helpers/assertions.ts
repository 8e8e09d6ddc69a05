import assert from 'node:assert/strict';
import type { Response } from 'supertest';

/** Asserts a WordPress error envelope with this code and status (and returns its data). */
export function expectError(res: Response, status: number, code: string): Record<string, unknown> {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, code, `expected code ${code}, got ${JSON.stringify(res.body)}`);
  assert.equal(typeof res.body.message, 'string');
  assert.equal(res.body.data.status, status);
  return res.body.data;
}

/** Asserts a success status, showing the body when it is not. */
export function expectStatus(res: Response, status: number): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
}
