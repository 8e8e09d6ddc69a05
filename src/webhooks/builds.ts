import type { User } from '../auth/capabilities.js';
import type { Urls } from '../core/urls.js';
import { changesOfRows, feedRowsAfter } from '../records/change-feed.js';
import { historyAt, type ChangeRow, type Histories } from '../repositories/changes.js';
import type { Repositories } from '../repositories/registry.js';
import type { WebhookRow } from '../repositories/webhook-rows.js';
import { isoOfUtc, messageId, viewerOf, type Message } from './messages.js';
import { typesOf } from './records.js';

/**
 * The messages of a webhook's next changes, each change built once for every webhook that sees it
 * alike (docs/webhooks.md "Delivery at scale"). A message's body depends only on the change and on
 * who reads it (`public` webhooks read as nobody, `owner` ones as their owner), never on the webhook:
 * its id, which names the webhook, is a header. So a change's body, built by the feed itself
 * (records/change-feed.ts), is kept a short while under (viewer, position) and every webhook of that
 * viewer sends the same bytes. A position names one version of one record (a record changed again
 * moves to a later position), so a kept body is the one a webhook building it itself at that moment
 * would have sent.
 */

/** What a message is before it is a webhook's: everything but the id. */
interface Draft extends Omit<Message, 'id'> {
  /** The feed history the change was made in (messages.ts messageId). */
  history: string;
}

/**
 * The next thing to do for a webhook: send these messages in order, or move past changes of other
 * types (`skipTo`). With messages, `skipTo` is where the webhook may move once all of them are
 * delivered and none of its types follows (`hasMore` false): past the other types' changes read
 * beyond them, in the same transaction that records the turn.
 */
export type Batch = { kind: 'messages'; messages: Message[]; hasMore: boolean; skipTo: number } | { kind: 'caught-up'; skipTo: number };

/** How long a built change is kept, and how many at most (a few seconds of a busy feed, for every viewer). */
const KEEP_MS = 30_000;
const MAX_KEPT = 5_000;

export class MessageBuilder {
  private readonly kept = new Map<string, { draft: Promise<Draft>; builtMs: number }>();
  /** The feed's histories, read again when the feed's history is no longer theirs (a restore). */
  private histories: Histories | undefined;
  /** Changes built, and changes served from what was kept (tests and the benchmark read them). */
  readonly counts = { built: 0, shared: 0 };

  constructor(private readonly urls: Urls) {}

  /**
   * Up to `limit` messages of the webhook's types after its position, up to the committed position
   * `upTo`, in feed order; or, when none of its types follows, the position to skip to.
   */
  async next(repositories: Repositories, webhook: WebhookRow, feed: { upTo: number; history: string }, limit: number): Promise<Batch> {
    const page = await feedRowsAfter(repositories, webhook.position, { types: typesOf(webhook.types), limit, upTo: feed.upTo });
    if (page.rows.length === 0) return { kind: 'caught-up', skipTo: page.position };
    const viewer = await viewerOf(repositories, webhook);
    if (this.histories?.current !== feed.history) this.histories = await repositories.changes.histories();
    const histories = this.histories;
    const drafts = await Promise.all(this.draftsOf(repositories, viewer, histories, page.rows));
    const messages = drafts.map(({ history, ...draft }) => ({ ...draft, id: messageId(webhook.id, draft.position, history) }));
    return { kind: 'messages', messages, hasMore: page.hasMore, skipTo: page.position };
  }

  private draftsOf(repositories: Repositories, viewer: User | undefined, histories: Histories, rows: ChangeRow[]): Array<Promise<Draft>> {
    const now = Date.now();
    this.forgetOld(now);
    const who = viewer ? `${viewer.id}:${viewer.role}` : '-';
    const keyOf = (row: ChangeRow) => `${who}@${row.seq}`;
    const missing = rows.filter((row) => {
      const kept = this.kept.get(keyOf(row));
      return kept === undefined || now - kept.builtMs > KEEP_MS;
    });
    this.counts.shared += rows.length - missing.length;
    if (missing.length > 0) {
      this.counts.built += missing.length;
      const built = this.build(repositories, viewer, histories, missing);
      missing.forEach((row, i) => {
        const key = keyOf(row);
        const draft = built.then((list) => list[i]);
        // A failed build is not kept: the next webhook builds it again.
        draft.catch(() => this.kept.get(key)?.draft === draft && this.kept.delete(key));
        this.kept.delete(key);
        this.kept.set(key, { draft, builtMs: now });
      });
    }
    return rows.map((row) => this.kept.get(keyOf(row))!.draft);
  }

  private async build(repositories: Repositories, viewer: User | undefined, histories: Histories, rows: ChangeRow[]): Promise<Draft[]> {
    const changes = await changesOfRows(repositories, viewer, this.urls, rows);
    return rows.map((row, i): Draft => {
      const change = changes[i];
      // The history the change was made in, not the current one: after a restore, a change the copy
      // held is sent again under the id it had before (docs/webhooks.md "Guarantees").
      const history = historyAt(histories, row.seq);
      const type = `${change.type}.${change.action === 'delete' ? 'deleted' : 'updated'}`;
      // The timestamp is the change's, not the attempt's: every attempt at a message carries the same body.
      const body = JSON.stringify({ type, timestamp: isoOfUtc(row.changedUtc), data: change });
      return { type, body, position: row.seq, cursor: change.cursor, changedUtc: row.changedUtc, history };
    });
  }

  private forgetOld(now: number): void {
    // The map is in insertion order, so the oldest come first.
    for (const [key, entry] of this.kept) {
      if (this.kept.size <= MAX_KEPT && now - entry.builtMs <= KEEP_MS) break;
      this.kept.delete(key);
    }
  }
}
