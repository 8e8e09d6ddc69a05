import type { Knex } from 'knex';
import { isRole, type Role, type User } from '../auth/capabilities.js';
import { generateSecret, hashSecret, MIN_SECRET_LENGTH, normaliseSecret } from '../auth/secrets.js';
import { sameSecret } from '../auth/constant-time.js';
import { emailKey, loginKey } from '../auth/login-keys.js';
import { isEmail } from '../text/fields.js';
import { inTransaction, requireTransaction } from '../db/transactions.js';
import { utcNow } from '../dates/storage.js';

/** A problem the command-line tool reports to its user (duplicate login, unknown role...). */
export class UserError extends Error {}

interface UserRow {
  id: number;
  login: string;
  role: string;
}

/** A user row found by a login or e-mail address, and how it matched. */
interface CandidateRow extends UserRow {
  login_key: string | null;
  email_key: string | null;
}

/**
 * The one user a login names, as WordPress finds it (`get_user_by('login')`, then by e-mail for an
 * address): the exact login first, then the login in any case, then the e-mail address. A name that
 * matches several users at the first level that matches names nobody.
 */
function pickUser<T extends CandidateRow>(rows: T[], given: string): T[] {
  const levels: Array<(row: T) => boolean> = [
    (row) => row.login === given,
    (row) => row.login_key === loginKey(given),
    (row) => row.email_key !== null && row.email_key === emailKey(given),
  ];
  for (const matches of levels) {
    const ids = new Set(rows.filter(matches).map((row) => Number(row.id)));
    if (ids.size === 1) return rows.filter((row) => Number(row.id) === [...ids][0]);
    if (ids.size > 1) return [];
  }
  return [];
}

function toUser(row: UserRow): User {
  if (!isRole(row.role)) throw new Error(`user ${row.id} has an unknown role`);
  return { id: Number(row.id), login: row.login, role: row.role };
}

/** All Knex for users and their application passwords. */
export class UserRepository {
  constructor(private readonly db: Knex) {}

  /** The user a login names: exactly, or in any case, or by e-mail address (see pickUser). */
  async findByLogin(login: string): Promise<User | undefined> {
    const [row] = pickUser(await this.candidates(this.db('users as u'), login).select('u.id', 'u.login', 'u.role', 'u.login_key', 'u.email_key'), login);
    return row ? toUser(row) : undefined;
  }

  /** Users whose login, login key or e-mail key could be what was typed: one indexed query. */
  private candidates(query: Knex.QueryBuilder, given: string): Knex.QueryBuilder {
    return query.where((w) => {
      w.where('u.login', given).orWhere('u.login_key', loginKey(given));
      if (isEmail(given.trim())) w.orWhere('u.email_key', emailKey(given));
    });
  }

  async findById(id: number): Promise<User | undefined> {
    const row = await this.db<UserRow>('users').where({ id }).first();
    return row ? toUser(row) : undefined;
  }

  async list(): Promise<Array<User & { email: string | null; secrets: number }>> {
    const rows = await this.db('users as u')
      .leftJoin('secrets as s', 's.user_id', 'u.id')
      .groupBy('u.id', 'u.login', 'u.role', 'u.email')
      .orderBy('u.id')
      .select('u.id', 'u.login', 'u.role', 'u.email')
      .count({ secrets: 's.id' });
    return rows.map((row) => ({ ...toUser(row as UserRow), email: ((row as Record<string, unknown>).email as string | null) ?? null, secrets: Number(row.secrets) }));
  }

  /**
   * Creates a user with a first secret (generated unless given) and, optionally, an e-mail address
   * to log in with; returns the secret once. Logins and addresses are unique in any case.
   */
  async add(login: string, role: string, chosenSecret?: string, email?: string): Promise<{ user: User; email: string | null; secret: string; secretId: number }> {
    if (!/^[A-Za-z0-9._@-]{1,60}$/.test(login)) {
      throw new UserError('LOGIN must be 1-60 characters: letters, digits, ".", "_", "@" or "-"');
    }
    if (!isRole(role)) throw new UserError(`unknown role "${role}": use administrator, editor, author, contributor or subscriber`);
    const address = email === undefined ? null : email.trim();
    if (address !== null && (address.length > 100 || !isEmail(address))) throw new UserError(`"${email}" is not an e-mail address (at most 100 characters)`);
    const secret = checkSecret(chosenSecret);
    return inTransaction(this.db, async (trx) => {
      const taken = await trx('users').where({ login }).orWhere('login_key', loginKey(login)).first('login');
      if (taken) throw new UserError(`a user with the login "${taken.login}" already exists (logins are case-insensitive)`);
      if (address !== null && (await trx('users').where('email_key', emailKey(address)).first('id'))) {
        throw new UserError(`a user with the e-mail address "${address}" already exists`);
      }
      const [id] = await trx('users').insert({
        login,
        login_key: loginKey(login),
        email: address,
        email_key: address === null ? null : emailKey(address),
        role,
        created_at: utcNow(),
      });
      const secretId = await insertSecret(trx, Number(id), secret);
      return { user: { id: Number(id), login, role: role as Role }, email: address, secret, secretId };
    });
  }

  /**
   * Creates a user without any secret, in the caller's transaction (an import's author: it can log
   * in only once an administrator gives it one with `cli secret add`). `id`: the id it must have
   * (an import keeping a source's ids), free as the caller checked. The login must be free.
   */
  async addWithoutSecret(login: string, role: Role, id?: number): Promise<User> {
    const trx = requireTransaction(this.db);
    const [inserted] = await trx('users').insert({ login, login_key: loginKey(login), email: null, email_key: null, role, created_at: utcNow(), ...(id && { id }) });
    return { id: id ?? Number(inserted), login, role };
  }

  async remove(login: string): Promise<void> {
    const user = await this.requireUser(login);
    await inTransaction(this.db, (trx) => trx('users').where({ id: user.id }).delete());
  }

  async addSecret(login: string, chosenSecret?: string): Promise<{ secret: string; secretId: number }> {
    const user = await this.requireUser(login);
    const secret = checkSecret(chosenSecret);
    const secretId = await inTransaction(this.db, (trx) => insertSecret(trx, user.id, secret));
    return { secret, secretId };
  }

  /** Revokes every secret of the user (`all`), or the newest one. Returns how many were revoked. */
  async revokeSecrets(login: string, all: boolean): Promise<number> {
    const user = await this.requireUser(login);
    return inTransaction(this.db, async (trx) => {
      if (all) return trx('secrets').where({ user_id: user.id }).delete();
      const newest = await trx('secrets').where({ user_id: user.id }).orderBy('id', 'desc').first('id');
      if (!newest) throw new UserError(`the user "${login}" has no secret to revoke`);
      return trx('secrets').where({ id: newest.id }).delete();
    });
  }

  /** The user a Bearer secret belongs to. */
  async authenticateSecret(secret: string): Promise<User | undefined> {
    const hash = hashSecret(secret);
    const rows = await this.db('secrets as s').join('users as u', 'u.id', 's.user_id').where('s.hash', hash).distinct('u.id', 'u.login', 'u.role').limit(2);
    // A secret chosen by two users identifies neither of them.
    return rows.length === 1 ? toUser(rows[0]) : undefined;
  }

  /**
   * The user for Basic `login:secret`, the login in any case or the user's e-mail address (as
   * WordPress's application passwords accept it); the same answer whether the login or the secret
   * was wrong.
   */
  async authenticateLogin(login: string, secret: string): Promise<User | undefined> {
    const hash = hashSecret(secret);
    const found = await this.candidates(this.db('secrets as s').join('users as u', 'u.id', 's.user_id'), login).select(
      'u.id',
      'u.login',
      'u.role',
      'u.login_key',
      'u.email_key',
      's.hash',
    );
    const rows = pickUser(found as Array<CandidateRow & { hash: string }>, login);
    let match: UserRow | undefined;
    // Compare against every secret of the user so the time taken does not depend on which one matches.
    for (const row of rows) if (sameSecret(row.hash, hash)) match = row;
    return match ? toUser(match) : undefined;
  }

  private async requireUser(login: string): Promise<User> {
    const user = await this.findByLogin(login);
    if (!user) throw new UserError(`no user with the login "${login}"`);
    return user;
  }
}

function checkSecret(chosen: string | undefined): string {
  if (chosen === undefined) return generateSecret();
  if (normaliseSecret(chosen).length < MIN_SECRET_LENGTH) {
    throw new UserError(`the secret is too short: at least ${MIN_SECRET_LENGTH} characters (spaces do not count)`);
  }
  return chosen;
}

async function insertSecret(db: Knex, userId: number, secret: string): Promise<number> {
  const [id] = await db('secrets').insert({ user_id: userId, hash: hashSecret(secret), created_at: utcNow() });
  return Number(id);
}
