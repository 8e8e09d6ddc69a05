import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { checkedLookup, checkOutboundUrl, hostOf, UnsafeDestination, type Resolver } from '../core/outbound.js';
import type { ReceiverConnections } from './connections.js';
import { signatureHeader } from './signing.js';

/**
 * One attempt at one message (docs/webhooks.md "Messages", "Safety"): a signed `POST` over node:http
 * or node:https, answered by a 2xx within the timeout, or failed. Redirects are not followed (a 3xx is
 * a failure like any other status), at most 64 KB of the answer is read, and the destination is
 * checked before connecting and again on the addresses the connection resolves (`checkedLookup`), so
 * a name that now resolves to a private address is not reached. The secret never leaves this module
 * except inside the signature.
 */

const USER_AGENT = 'tec-events-service-webhooks/1';

/** Bytes of a receiver's answer read at most: the answer is not used, only its status. */
export const MAX_ANSWER_BYTES = 64 * 1024;

interface Outgoing {
  /** `webhook-id`: the same on every attempt at one message. */
  messageId: string;
  /** The JSON body, as signed and sent. */
  body: string;
  /** Secrets to sign with (webhooks/signing.ts `signingSecrets`). */
  secrets: readonly string[];
}

export interface SendSettings {
  timeoutSeconds: number;
  allowedNetworks: readonly string[];
  /** How the check before connecting resolves names (tests give another answer than the connection gets). */
  resolve?: Resolver;
  /** Connections kept open between messages (the delivery loop's); without, each attempt has a connection of its own (a ping). */
  connections?: ReceiverConnections;
}

export interface AttemptResult {
  /** The receiver answered 2xx. */
  ok: boolean;
  /** The receiver's status, or null when no answer came. */
  statusCode: number | null;
  /** Why no answer came (refused destination, connection error, timeout); null with a status. */
  error: string | null;
  durationMs: number;
  /** Bytes of the answer read (at most MAX_ANSWER_BYTES, give or take the last chunk). */
  answerBytes: number;
}

/**
 * Sends `message` to `url` once; never throws for anything the receiver or the network does.
 * `checked`: the URL as checkOutboundUrl passed it moments ago (the delivery loop checks once per turn
 * of a webhook, up to a second of its messages); every new connection is still checked on the
 * address it connects to.
 */
export async function sendMessage(url: string, message: Outgoing, settings: SendSettings, checked?: URL): Promise<AttemptResult> {
  const started = performance.now();
  const deadline = started + settings.timeoutSeconds * 1000;
  const result = (answer: Omit<AttemptResult, 'durationMs' | 'ok'>): AttemptResult => ({
    ...answer,
    ok: answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300,
    durationMs: Math.round(performance.now() - started),
  });
  let target: URL;
  try {
    target = checked ?? (await withinDeadline(checkOutboundUrl(url, settings.allowedNetworks, settings.resolve), deadline, settings.timeoutSeconds));
  } catch (err) {
    return result({ statusCode: null, error: (err as Error).message, answerBytes: 0 });
  }
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'webhook-id': message.messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(message.secrets, message.messageId, timestamp, message.body),
  };
  const agent = settings.connections?.agentFor(target);
  let answer = await post(target, headers, message.body, settings, deadline, agent);
  // A kept connection the receiver closed just as the message went out: once more on a new one.
  if (answer.staleConnection && !settings.connections?.closed && performance.now() < deadline) answer = await post(target, headers, message.body, settings, deadline, agent);
  const { staleConnection: _, ...rest } = answer;
  return result(rest);
}

/**
 * The URL as checkOutboundUrl passes it, or undefined when it is refused or takes longer than `ms`
 * (a name slow to resolve): then each attempt checks it again within its own deadline and records why.
 */
export async function checkedWithin(url: string, settings: SendSettings, ms: number): Promise<URL | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  const check = checkOutboundUrl(url, settings.allowedNetworks, settings.resolve).catch(() => undefined);
  return Promise.race([check, late]).finally(() => clearTimeout(timer));
}

/** `work`, or a failure saying the time ran out (a name that takes long to resolve counts against the timeout). */
function withinDeadline<T>(work: Promise<T>, deadline: number, timeoutSeconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UnsafeDestination(timedOut(timeoutSeconds))), Math.max(0, deadline - performance.now()));
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function timedOut(timeoutSeconds: number): string {
  return `no answer within WEBHOOK_TIMEOUT (${timeoutSeconds} s)`;
}

type Answer = Omit<AttemptResult, 'durationMs' | 'ok'>;

/**
 * The exchange itself, on a kept connection of the destination's agent (webhooks/connections.ts) or,
 * without one, on a connection of its own closed afterwards. Settles once: when the answer ends (the
 * connection goes back to the agent), when MAX_ANSWER_BYTES of it were read, on an error, or at the
 * deadline (the connection is closed then). `staleConnection`: a reused connection failed before
 * any answer (the receiver had closed it), so the message may be sent again on a new one.
 */
function post(
  target: URL,
  headers: Record<string, string>,
  body: string,
  settings: SendSettings,
  deadline: number,
  agent: http.Agent | undefined,
): Promise<Answer & { staleConnection?: boolean }> {
  return new Promise((resolve) => {
    let statusCode: number | null = null;
    let answerBytes = 0;
    let settled = false;
    const finish = (error: string | null, keep = false, stale = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!keep) request.destroy();
      resolve({
        statusCode,
        error: statusCode === null ? (error ?? 'the connection closed without an answer') : null,
        answerBytes: Math.min(answerBytes, MAX_ANSWER_BYTES),
        ...(stale ? { staleConnection: true } : {}),
      });
    };
    const transport = target.protocol === 'https:' ? https : http;
    const request = transport.request(
      {
        protocol: target.protocol,
        // An IPv6 literal without its brackets; node connects to IP literals without calling `lookup`,
        // and checkOutboundUrl checked them.
        hostname: hostOf(target),
        port: target.port === '' ? undefined : Number(target.port),
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        agent: agent ?? false,
        // Every new connection, kept or not, resolves through the check.
        lookup: checkedLookup(settings.allowedNetworks, target.protocol),
      },
      (response) => {
        statusCode = response.statusCode ?? null;
        response.on('data', (chunk: Buffer) => {
          answerBytes += chunk.length;
          if (answerBytes >= MAX_ANSWER_BYTES) finish(null);
        });
        // Read to its end: the connection may carry the next message.
        response.on('end', () => finish(null, agent !== undefined));
        // The status already answered; a body cut short changes nothing.
        response.on('error', () => finish(null));
      },
    );
    request.on('error', (err: NodeJS.ErrnoException) => {
      const stale = request.reusedSocket && statusCode === null && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      finish(err.message || err.code || 'connection failed', false, stale);
    });
    const timer = setTimeout(() => finish(timedOut(settings.timeoutSeconds)), Math.max(0, deadline - performance.now()));
    request.end(body);
  });
}
