import type { Knex } from 'knex';
import { isRole, type Role, type User } from './capabilities.js';
import { digestsEqual, generateSecret, hashSecret, MIN_SECRET_LENGTH, normaliseSecret } from './secrets.js';
import { utcNow } from '../db/dates.js';

/** A problem the command-line tool reports to its user (duplicate login, unknown role...). */
export class UserError extends Error {}

interface UserRow {
  id: number;
  login: string;
  role: string;
}

function toUser(row: UserRow): User {
  if (!isRole(row.role)) throw new Error(`user ${row.id} has an unknown role`);
  return { id: Number(row.id), login: row.login, role: row.role };
}

/** All Knex for users and their application passwords. */
export class UserRepository {
  constructor(private readonly db: Knex) {}

  async findByLogin(login: string): Promise<User | undefined> {
    const row = await this.db<UserRow>('users').where({ login }).first();
    return row ? toUser(row) : undefined;
  }

  async findById(id: number): Promise<User | undefined> {
    const row = await this.db<UserRow>('users').where({ id }).first();
    return row ? toUser(row) : undefined;
  }

  async list(): Promise<Array<User & { secrets: number }>> {
    const rows = await this.db('users as u')
      .leftJoin('secrets as s', 's.user_id', 'u.id')
      .groupBy('u.id', 'u.login', 'u.role')
      .orderBy('u.id')
      .select('u.id', 'u.login', 'u.role')
      .count({ secrets: 's.id' });
    return rows.map((row) => ({ ...toUser(row as UserRow), secrets: Number(row.secrets) }));
  }

  /** Creates a user with a first secret (generated unless given); returns the secret once. */
  async add(login: string, role: string, chosenSecret?: string): Promise<{ user: User; secret: string; secretId: number }> {
    if (!/^[A-Za-z0-9._@-]{1,60}$/.test(login)) {
      throw new UserError('LOGIN must be 1-60 characters: letters, digits, ".", "_", "@" or "-"');
    }
    if (!isRole(role)) throw new UserError(`unknown role "${role}": use administrator, editor, author, contributor or subscriber`);
    const secret = checkSecret(chosenSecret);
    return this.db.transaction(async (trx) => {
      if (await trx('users').where({ login }).first()) throw new UserError(`a user with the login "${login}" already exists`);
      const [id] = await trx('users').insert({ login, role, created_at: utcNow() });
      const secretId = await insertSecret(trx, Number(id), secret);
      return { user: { id: Number(id), login, role: role as Role }, secret, secretId };
    });
  }

  async remove(login: string): Promise<void> {
    const deleted = await this.db('users').where({ login }).delete();
    if (deleted === 0) throw new UserError(`no user with the login "${login}"`);
  }

  async addSecret(login: string, chosenSecret?: string): Promise<{ secret: string; secretId: number }> {
    const user = await this.requireUser(login);
    const secret = checkSecret(chosenSecret);
    const secretId = await insertSecret(this.db, user.id, secret);
    return { secret, secretId };
  }

  /** Revokes every secret of the user (`all`), or the newest one. Returns how many were revoked. */
  async revokeSecrets(login: string, all: boolean): Promise<number> {
    const user = await this.requireUser(login);
    if (all) return this.db('secrets').where({ user_id: user.id }).delete();
    const newest = await this.db('secrets').where({ user_id: user.id }).orderBy('id', 'desc').first('id');
    if (!newest) throw new UserError(`the user "${login}" has no secret to revoke`);
    return this.db('secrets').where({ id: newest.id }).delete();
  }

  /** The user a Bearer secret belongs to. */
  async authenticateSecret(secret: string): Promise<User | undefined> {
    const hash = hashSecret(secret);
    const rows = await this.db('secrets as s').join('users as u', 'u.id', 's.user_id').where('s.hash', hash).distinct('u.id', 'u.login', 'u.role').limit(2);
    // A secret chosen by two users identifies neither of them.
    return rows.length === 1 ? toUser(rows[0]) : undefined;
  }

  /** The user for Basic `login:secret`; the same answer whether the login or the secret was wrong. */
  async authenticateLogin(login: string, secret: string): Promise<User | undefined> {
    const hash = hashSecret(secret);
    const rows = await this.db('secrets as s').join('users as u', 'u.id', 's.user_id').where('u.login', login).select('u.id', 'u.login', 'u.role', 's.hash');
    let match: UserRow | undefined;
    // Compare against every secret of the user so the time taken does not depend on which one matches.
    for (const row of rows) if (digestsEqual(row.hash, hash)) match = row;
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
