import type { Response } from 'supertest';
import { documentedTypes, isDocumentedStatus, type ApiOperation } from './operations.js';

/**
 * What every answer must satisfy, whatever was sent: no 5xx, a status the document lists for the
 * operation, and errors in WordPress's envelope `{code, message, data: {status}}` with the same
 * status. The body of every answer is also checked against the document by the test app itself
 * (response validation is on: a body the document does not describe becomes a 500).
 */
export function responseProblems(op: ApiOperation, res: Response): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`server error ${res.status}`);
  if (!isDocumentedStatus(op, res.status)) problems.push(`status ${res.status} is not documented for ${op.operationId}`);
  // JSON, or what the document gives for the answer (`text/calendar` for the feeds: docs/contract.md §11).
  const type = String(res.headers['content-type'] ?? '');
  const expected = documentedTypes(op, res.status);
  if (!expected.some((documented) => type.startsWith(documented))) problems.push(`content type ${res.headers['content-type']} is not ${expected.join(' or ')}`);
  if (res.status >= 400) {
    const body = res.body as { code?: unknown; message?: unknown; data?: { status?: unknown } } | undefined;
    if (typeof body?.code !== 'string' || body.code === '') problems.push('error without a string `code`');
    if (typeof body?.message !== 'string') problems.push('error without a string `message`');
    if (body?.data?.status !== res.status) problems.push(`error data.status ${JSON.stringify(body?.data?.status)} differs from ${res.status}`);
  }
  return problems;
}

/** The answer, short enough for a failure message. */
export function describeResponse(res: Response): string {
  const body = JSON.stringify(res.body) ?? '';
  return `${res.status} ${body.length > 400 ? `${body.slice(0, 400)}…` : body}`;
}

const DEFAULT_SEED = 20261122;

/** PROPERTY_RUNS (cases per operation) and PROPERTY_SEED (replay), shared by the property and fuzz tests. */
export function propertySettings(defaultRuns: number): { runs: number; seed: number } {
  const runs = Number(process.env.PROPERTY_RUNS ?? defaultRuns);
  // A fixed seed by default, so `npm test` (and CI) is repeatable; `PROPERTY_SEED=random` explores new cases.
  const setting = process.env.PROPERTY_SEED ?? String(DEFAULT_SEED);
  const seed = setting === 'random' ? (Date.now() ^ (Math.random() * 0x100000000)) | 0 : Number(setting);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`PROPERTY_RUNS must be a positive integer, not ${process.env.PROPERTY_RUNS}`);
  if (!Number.isInteger(seed)) throw new Error(`PROPERTY_SEED must be an integer, not ${process.env.PROPERTY_SEED}`);
  return { runs, seed };
}
