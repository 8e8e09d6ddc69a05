import cluster from 'node:cluster';
import crypto from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { sameSecret } from '../auth/constant-time.js';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics (METRICS=on): requests by operation and status, their latency, and the database
 * pool. Requests are labelled by the OpenAPI operationId the validator matched, never by URL, so the
 * number of series stays bounded whatever clients send.
 */
export interface Metrics {
  /** Times every request and counts it when its response is finished. */
  record: RequestHandler;
  /** `GET /metrics`: the text exposition format (all workers added up under node:cluster). */
  serve: RequestHandler;
}

/** The tarn pool knex uses; present while the database is open. */
interface Pool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  max: number;
}

/**
 * `registry`: where the metrics go; main.ts gives the one the webhook deliveries also register on
 * (webhooks/metrics.ts), so `/metrics` shows both. A new one when not given.
 */
export function createMetrics(db: Knex, token: string | undefined, registry: Registry = new Registry()): Metrics {
  collectDefaultMetrics({ register: registry });
  const labelNames = ['operation', 'method', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by operationId, method and status.', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by operationId, method and status.',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const inFlight = new Gauge({ name: 'http_requests_in_flight', help: 'Requests received and not yet answered.', registers: [registry] });
  const pool = () => (db.client as { pool?: Pool }).pool;
  // Read from the pool on every scrape: nothing to keep in step while requests run.
  const poolGauge = (name: string, help: string, read: (pool: Pool) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const current = pool();
        this.set(current ? read(current) : 0);
      },
    });
  poolGauge('db_pool_connections_used', 'Database connections lent to a query or transaction.', (p) => p.numUsed());
  poolGauge('db_pool_connections_free', 'Open database connections waiting in the pool.', (p) => p.numFree());
  poolGauge('db_pool_pending_acquires', 'Queries waiting for a database connection.', (p) => p.numPendingAcquires());
  poolGauge('db_pool_pending_creates', 'Database connections being opened.', (p) => p.numPendingCreates());
  poolGauge('db_pool_connections_max', 'Largest number of database connections the pool opens.', (p) => p.max);
  if (cluster.isWorker) {
    // This registry is what the worker reports when the primary adds up the workers' metrics;
    // constructing an AggregatorRegistry installs prom-client's listener for those requests.
    AggregatorRegistry.setRegistries([registry]);
    new AggregatorRegistry();
  }

  const record: RequestHandler = (req, res, next) => {
    const stop = latency.startTimer();
    inFlight.inc();
    // 'close' comes once per request, answered or abandoned.
    res.once('close', () => inFlight.dec());
    res.once('finish', () => {
      const labels = { operation: operationOf(req), method: req.method, status: String(res.statusCode) };
      stop(labels);
      requests.inc(labels);
    });
    next();
  };

  const serve: RequestHandler = async (req, res) => {
    res.set('Cache-Control', 'no-store');
    if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
      res.status(401).set('WWW-Authenticate', 'Bearer realm="metrics"').type('text/plain').send('metrics need the METRICS_TOKEN bearer token\n');
      return;
    }
    const text = cluster.isWorker ? await clusterMetrics() : await registry.metrics();
    res.type(registry.contentType).send(text);
  };

  return { record, serve };
}

/** The operationId the validator matched; the route path of the few routes outside the document. */
function operationOf(req: Request): string {
  const operationId = (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
  if (operationId) return operationId;
  const route = (req as { route?: { path?: unknown } }).route?.path;
  return typeof route === 'string' ? route.replace(/^\//, '') : 'unmatched';
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer +(\S+)$/i.exec(header ?? '')?.[1] ?? '';
  return sameSecret(given, token);
}

/*
 * Under node:cluster a scrape reaches one worker, but must describe the whole service: the worker
 * asks the primary, which collects every worker's registry (prom-client's AggregatorRegistry) and
 * answers with the sum.
 */
const METRICS_REQUEST = 'tec:metrics-request';
const METRICS_REPLY = 'tec:metrics-reply';

interface MetricsMessage {
  type: string;
  id: string;
  text?: string;
  error?: string;
}

const waiting = new Map<string, { resolve: (text: string) => void; reject: (err: Error) => void }>();

function clusterMetrics(): Promise<string> {
  if (waiting.size === 0) process.on('message', onReply);
  const id = crypto.randomUUID();
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => settle(id)?.reject(new Error('the primary did not answer the metrics request')), 5000);
    waiting.set(id, {
      resolve: (text) => (clearTimeout(timer), resolve(text)),
      reject: (err) => (clearTimeout(timer), reject(err)),
    });
    process.send?.({ type: METRICS_REQUEST, id } satisfies MetricsMessage);
  });
}

function settle(id: string) {
  const entry = waiting.get(id);
  waiting.delete(id);
  if (waiting.size === 0) process.off('message', onReply);
  return entry;
}

function onReply(message: MetricsMessage): void {
  if (message?.type !== METRICS_REPLY) return;
  const entry = settle(message.id);
  if (message.error !== undefined) entry?.reject(new Error(message.error));
  else entry?.resolve(message.text ?? '');
}

/** In the primary: answers the workers' metrics requests with the sum of every worker's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: MetricsMessage) => {
    if (message?.type !== METRICS_REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: METRICS_REPLY, id: message.id, text } satisfies MetricsMessage),
      (err: Error) => worker.send({ type: METRICS_REPLY, id: message.id, error: err.message } satisfies MetricsMessage),
    );
  });
}
