import type { User } from '../auth/capabilities.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The authenticated caller; undefined for the anonymous visitor. */
      user?: User;
    }
  }
}

export {};
