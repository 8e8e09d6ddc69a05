import type { Knex } from 'knex';
import { inWriteTransaction, Repositories } from '../repositories/registry.js';
import type { RecordOutcome, SourceAuthor } from './records.js';

/** What a login may hold (repositories/users.ts `add`). */
const LOGIN = /^[A-Za-z0-9._@-]{1,60}$/;

/**
 * The local user each source author becomes (docs/importing.md "Authors"): the user an earlier import
 * of this source made or matched, else the user with the author's login, else a new user with that
 * login, role `author` and no secret (it cannot log in until an administrator gives it one), keeping
 * the source's id when the source keeps ids and the id is free.
 */
export class AuthorResolver {
  keepIds = false;
  private readonly known = new Map<string, number | undefined>();

  constructor(
    private readonly db: Knex,
    private readonly sourceKey: string,
    private readonly dryRun: boolean,
    private readonly tell: (outcome: RecordOutcome) => void,
  ) {}

  /** The local user of a source author (undefined: no author, or a dry run that would create one). */
  async localId(author: SourceAuthor | undefined): Promise<number | undefined> {
    if (!author) return undefined;
    if (this.known.has(author.sourceId)) return this.known.get(author.sourceId);
    const id = await this.resolve(author);
    this.known.set(author.sourceId, id);
    return id;
  }

  private async resolve(author: SourceAuthor): Promise<number | undefined> {
    const reads = new Repositories(this.db);
    const origin = await reads.importOrigins.find(this.sourceKey, 'user', author.sourceId);
    if (origin && (await reads.users.findById(origin.localId))) {
      this.tell({ kind: 'user', sourceId: author.sourceId, action: 'unchanged', localId: origin.localId });
      return origin.localId;
    }
    const login = loginOf(author);
    const existing = await reads.users.findByLogin(login);
    if (this.dryRun) {
      this.tell({ kind: 'user', sourceId: author.sourceId, action: existing ? 'unchanged' : 'created', localId: existing?.id });
      return existing?.id;
    }
    const wanted = Number(author.sourceId);
    const keep = this.keepIds && Number.isSafeInteger(wanted) && (await reads.importOrigins.freeIds('users', [wanted])).has(wanted);
    const id = await inWriteTransaction(this.db, async (repositories) => {
      const user = existing ?? (await repositories.users.addWithoutSecret(login, 'author', keep ? wanted : undefined));
      await repositories.importOrigins.save(this.sourceKey, { kind: 'user', sourceId: author.sourceId, localId: user.id, fingerprint: login, created: !existing });
      return user.id;
    });
    this.tell({ kind: 'user', sourceId: author.sourceId, action: existing ? 'unchanged' : 'created', localId: id });
    return id;
  }
}

/** The author's login made one this service takes: other characters become `-`, at most 60. */
function loginOf(author: SourceAuthor): string {
  const cleaned = author.login.replace(/[^A-Za-z0-9._@-]+/g, '-').slice(0, 60);
  return LOGIN.test(cleaned) ? cleaned : `author-${author.sourceId}`.slice(0, 60);
}
