import type { Logger } from 'pino';
import type { User } from '../auth/capabilities.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The authenticated caller; undefined for the anonymous visitor. */
      user?: User;
      /** The request id (X-Request-Id), given by the caller or made (http/request-log.ts). */
      id: string;
      /** Lines about this request, each naming it (http/request-log.ts). */
      log: Logger;
    }
  }
}

export {};
