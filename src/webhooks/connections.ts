import http from 'node:http';
import https from 'node:https';
import { LRUCache } from 'lru-cache';

/**
 * Connections kept open to receivers between messages (docs/webhooks.md "Delivery at scale"): one
 * keep-alive agent per destination (scheme, host and port), so consecutive messages to a receiver
 * reuse its connection instead of a new TCP (and TLS) handshake each. A socket is never shared
 * between destinations. Every new connection still resolves through the sender's checked `lookup`
 * (core/outbound.ts `checkedLookup`), which the sender passes with each request, so the
 * address check runs on every address a socket connects to. An agent idle for IDLE_MS is closed,
 * and at most MAX_AGENTS are kept (the least recently used goes first; a cache of `lru-cache`).
 */

/**
 * Sockets one destination may have open at once: one per webhook in flight (a webhook has at most one
 * message in flight, and there are at most 100), so that no message waits in the agent's queue behind
 * other webhooks' (its wait would count against its timeout and mark it slow).
 */
const SOCKETS_PER_DESTINATION = 100;
/** An idle connection is closed after this long (receivers close theirs after ~5 s by default; Node honours their `Keep-Alive: timeout`). */
const FREE_SOCKET_MS = 4_000;
const IDLE_MS = 60_000;
const MAX_AGENTS = 200;

export class ReceiverConnections {
  /** One agent per destination: the least recently used goes past MAX_AGENTS, and any idle for IDLE_MS, each closed as it goes. */
  private readonly agents = new LRUCache<string, http.Agent>({
    max: MAX_AGENTS,
    ttl: IDLE_MS,
    updateAgeOnGet: true,
    ttlAutopurge: true,
    dispose: (agent) => agent.destroy(),
  });
  /** Closed with its loop: an attempt cut off by that is not tried again. */
  closed = false;

  /** The agent for `target`'s destination, made on first use. */
  agentFor(target: URL): http.Agent {
    const key = `${target.protocol}//${target.host}`;
    const known = this.agents.get(key);
    if (known) return known;
    const options = { keepAlive: true, maxSockets: SOCKETS_PER_DESTINATION, maxFreeSockets: SOCKETS_PER_DESTINATION, timeout: FREE_SOCKET_MS, scheduling: 'lifo' as const };
    const agent = target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    this.agents.set(key, agent);
    return agent;
  }

  /** Closes every connection (a delivery loop stopping). */
  close(): void {
    this.closed = true;
    this.agents.clear();
  }
}
