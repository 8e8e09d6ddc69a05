import type { User } from '../auth/capabilities.js';
import { canEditRecord, canReadRecord } from '../auth/permissions.js';
import { RestError } from '../http/errors.js';
import { passwordMatches } from './passwords.js';
import type { PostRow } from './repository.js';

/**
 * The single-record read rules shared by events, venues and organizers (contract §4-§5): trashed
 * records only for editors (403 `{type}-no-longer-available`), others the read rule (403
 * `{type}-not-accessible`), then the password unless the caller may edit the record (403
 * `{type}-password-protected`).
 */
export function assertSingleRead(user: User | undefined, row: PostRow, label: string, password: string | undefined): void {
  if (!canReadRecord(user, row)) {
    if (row.status === 'trash') throw new RestError(403, `${label}-no-longer-available`, `This ${label} is no longer available`);
    throw new RestError(403, `${label}-not-accessible`, `The requested ${label} is not accessible`);
  }
  if (row.password !== null && !canEditRecord(user, row) && !passwordMatches(row.password, password)) {
    throw new RestError(403, `${label}-password-protected`, `The requested ${label} is not accessible without a password`);
  }
}
