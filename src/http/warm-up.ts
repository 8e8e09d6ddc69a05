import http from 'node:http';
import type { OperationInfo } from '../openapi/document.js';

/**
 * The first request of each operation anyone may call, sent by the service to itself before it
 * logs `listening` (docs/limits.md "Known gaps"): express-openapi-validator compiles an operation's
 * request validator on the operation's first request, and the operation's own code runs for the
 * first time, about 150 ms of the event loop on this machine; after this the first client pays
 * neither. Path parameters are `0` (no such record: 404), and a query parameter with a number,
 * boolean or list of values is given one it refuses (400), so no operation does the work of a real
 * answer; the validator compiles all the same. Operations that need credentials answer 401 before
 * the validator compiles theirs: their first request pays it (documented there).
 */
export async function warmUpOperations(base: string, operations: OperationInfo[]): Promise<void> {
  for (const op of operations) {
    if (op.method !== 'GET' || !op.allowsAnonymous) continue;
    const refused = op.parameters.find(
      (p) => (p.in === 'query' && ['integer', 'number', 'boolean'].includes(String(p.schema?.type))) || (p.in === 'query' && Array.isArray(p.schema?.enum)),
    );
    const query = refused ? `?${encodeURIComponent(refused.name)}=%01` : '';
    await getOnce(`${base}${op.path.replace(/\{[^}]+\}/g, '0')}${query}`);
  }
}

/**
 * One GET whose answer is read and dropped; resolves however it ends. Over node:http, not the global
 * `fetch`: the first `fetch` of a process loads undici and compiles its WebAssembly HTTP parser, which
 * took the resident peak up by about 40 MB for a second and kept 19 MB (docs/performance.md "Memory").
 * `agent: false`: a connection of its own, closed after the answer (none left in the global pool).
 */
export function getOnce(url: string): Promise<void> {
  return new Promise((resolve) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        res.on('close', resolve);
      })
      .on('error', () => resolve());
  });
}
