/**
 * How logins and e-mail addresses are compared: WordPress stores them in a case-insensitive
 * collation, so `Admin`, `ADMIN` and `admin` name one user, and so do `Ann@Example.org` and
 * `ann@example.org`. The keys are the lower-case forms, stored beside the values and indexed.
 */

/** The key a login is found by. Logins are ASCII (see UserRepository.add), so this is exact. */
export function loginKey(login: string): string {
  return login.toLowerCase();
}

/** The key an e-mail address is found by. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}
