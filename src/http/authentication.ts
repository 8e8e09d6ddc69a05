import type { Request, RequestHandler } from 'express';
import type { UserRepository } from '../repositories/users.js';
import { invalidCredentials } from '../core/errors.js';

/**
 * Finds who is calling. `Authorization: Basic base64(login:secret)` (WordPress application-password
 * clients) or `Authorization: Bearer secret`. No header: the anonymous visitor. Credentials that are
 * present but wrong: 401 `rest_invalid_credentials`, whatever the operation, with the same answer
 * whether the login or the secret was wrong. Whether the operation needs a user at all is decided
 * later, by the document's security requirements (see app.ts).
 */
export function authenticate(users: UserRepository, onFailure: (req: Request) => void = () => {}, onSuccess: (req: Request) => void = () => {}): RequestHandler {
  return async (req, _res, next) => {
    const header = req.get('authorization');
    if (!header) return next();
    const match = /^(Basic|Bearer)\s+(.+)$/i.exec(header.trim());
    if (!match) {
      onFailure(req);
      return next(invalidCredentials());
    }
    const [, scheme, credentials] = match;
    try {
      if (scheme.toLowerCase() === 'bearer') {
        req.user = await users.authenticateSecret(credentials.trim());
      } else {
        const decoded = Buffer.from(credentials.trim(), 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        if (colon > 0) req.user = await users.authenticateLogin(decoded.slice(0, colon), decoded.slice(colon + 1));
      }
    } catch (err) {
      return next(err);
    }
    if (req.user) onSuccess(req);
    else onFailure(req);
    next(req.user ? undefined : invalidCredentials());
  };
}
