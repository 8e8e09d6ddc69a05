import http from 'node:http';
import https from 'node:https';

/** What one BAN came to: acknowledged (2xx), or why not. */
export interface BanResult {
  ok: boolean;
  /** The cache's status, or null when it did not answer. */
  statusCode: number | null;
  error?: string;
}

/**
 * Sends `BAN /` with `X-Ban-Url: <pattern>` to the cache at `purgeUrl` (docs/caching.md "Making
 * writes visible at once"). Never throws: a refused connection, a timeout (the whole exchange within
 * `timeoutMs`) or a non-2xx status is a failed result, which the purger retries.
 */
export function sendBan(purgeUrl: string, pattern: string, timeoutMs: number): Promise<BanResult> {
  const target = new URL('/', purgeUrl);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: BanResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = client.request(target, { method: 'BAN', headers: { 'X-Ban-Url': pattern, 'Content-Length': '0' }, agent: false }, (res) => {
      // The answer's body says nothing the status does not; it is read to the end and dropped.
      res.resume();
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        finish(status >= 200 && status < 300 ? { ok: true, statusCode: status } : { ok: false, statusCode: status, error: `the cache answered ${status}` });
      });
      res.on('error', (err) => finish({ ok: false, statusCode: status(res), error: err.message }));
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, statusCode: null, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (err) => finish({ ok: false, statusCode: null, error: err.message }));
    req.end();
  });
}

function status(res: http.IncomingMessage): number | null {
  return res.statusCode ?? null;
}
