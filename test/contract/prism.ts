import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/openapi/document.js';

/**
 * Stoplight Prism (`@stoplight/prism-cli`) as a validating proxy between a client and the running
 * service, the way client teams put it in their CI (docs/testing.md "Prism proxy battery").
 */

/** Where Prism is: PRISM_BIN, else the project's own install. */
export function prismBinary(): string | undefined {
  const candidates = [process.env.PRISM_BIN, path.join(projectRoot(), 'node_modules', '.bin', 'prism')];
  return candidates.find((file): file is string => file !== undefined && file !== '' && fs.existsSync(file));
}

/** One Prism violation, as its `sl-violations` header lists them. */
export interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

export interface PrismProxy {
  /** Prism's URL: the document's paths are routed from its root (`/events`), forwarded under the namespace. */
  url: string;
  close: () => Promise<void>;
}

/** A free TCP port on 127.0.0.1, for a Prism of this run. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Writes the document the service serves at `/doc` (what a client team downloads) to a file and
 * starts `prism proxy FILE NAMESPACE_URL --errors=false`: Prism forwards every request, answers with
 * the service's answer, and names what the document does not allow in an `sl-violations` header.
 */
export async function startPrismProxy(binary: string, namespaceUrl: string): Promise<PrismProxy> {
  const served = await fetch(`${namespaceUrl}/doc`);
  if (served.status !== 200) throw new Error(`GET /doc answered ${served.status}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-proxy-'));
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, await served.text());
  const port = await freePort();
  const child: ChildProcess = spawn(binary, ['proxy', file, namespaceUrl, '--port', String(port), '--host', '127.0.0.1', '--errors=false'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start within 60 s:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with ${code}:\n${output}`));
    });
  });
  // Keep reading, so a full pipe never blocks Prism.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Sent {
  label: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  violations: Violation[];
}

export interface Request {
  method?: string;
  /** Relative to the namespace: `/events?per_page=2`. */
  path: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** A form body as it goes on the wire (`title=A&tags=a&tags=b`). */
  form?: string;
  /** Any other body, with its media type (`text/calendar`). */
  text?: { type: string; body: string };
}

/** Sends one request through Prism and returns the service's answer with Prism's violations. */
export async function throughPrism(proxy: PrismProxy, request: Request, label = `${request.method ?? 'GET'} ${request.path}`): Promise<Sent> {
  const headers: Record<string, string> = { ...request.headers };
  let body: string | undefined;
  if (request.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.form !== undefined) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = request.form;
  } else if (request.text !== undefined) {
    headers['Content-Type'] = request.text.type;
    body = request.text.body;
  }
  // node:http, not fetch: fetch adds `Cache-Control: no-cache` to a request with `If-None-Match`
  // (the Fetch standard's cache mode), which is not the request this battery means to send.
  const res = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(`${proxy.url}${request.path}`, { method: request.method ?? 'GET', headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, text: Buffer.concat(chunks).toString('utf8') }));
      answer.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  const listed = res.headers['sl-violations'];
  return { label, status: res.status, headers: res.headers, text: res.text, violations: typeof listed === 'string' ? (JSON.parse(listed) as Violation[]) : [] };
}

/** Every violation of the answers, one line each, naming the request. */
export function describeViolations(sent: Sent[]): string[] {
  return sent.flatMap((s) => s.violations.map((v) => `${s.label} (${s.status}): ${v.location.join('.')}: ${v.message}`));
}
