// Retention (DESIGN §7 "Storage is governed"): each shard deletes the messages of the inboxes it
// serves once they are older than the inbox's retention (its own, or its plan's when shorter or
// unset). Message ids sort by arrival, so what is too old is the front of each inbox's range. It
// goes in bounded batches, each a small transaction of its own, and the sweep yields to the event
// loop between them, so reads and deliveries never wait behind a large deletion.
import type { Config } from '../config/config.js';
import type { InboxRecord, MessageRecord } from '../contract/model.js';
import type { ShardStore } from '../storage/shard-store.js';
import { positionAt } from '../util/ids.js';
import { withoutMessages } from './inbox-storage.js';

/** Messages deleted per transaction. */
export const RETENTION_BATCH = 100;
/** Inbox records read per page while the sweep looks for old messages. */
const INBOX_PAGE = 500;

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Seconds the inbox keeps a message: the shorter of its own and its plan's; null: unknown plan (kept). */
export function retentionOf(config: Config, inbox: InboxRecord): number | null {
  if (!inbox.plan) return null;
  const plan = config.plans[inbox.plan].retentionSeconds;
  return inbox.retention != null ? Math.min(inbox.retention, plan) : plan;
}

export class Retention {
  /** Cluster mode: only the slots this shard is primary of are swept (followers get the deletions by the oplog). */
  owns: (slot: number) => boolean = () => true;
  /** Told after a batch removed messages of an inbox (the account's change feed). */
  readonly changed: ((accountId: string, address: string) => void)[] = [];
  private running: Promise<number> | null = null;
  private stopped = false;
  /** Transactions the last sweeps ran (tests check the batches stay bounded). */
  batches = 0;

  constructor(
    private readonly config: Config,
    private readonly store: ShardStore,
    private readonly now: () => number,
    private readonly slotOf: (address: string) => number,
  ) {}

  /** One pass over every inbox; answers how many messages went. A pass already running is joined. */
  sweep(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  /** Ends a running pass after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }

  private async pass(): Promise<number> {
    let removed = 0;
    for (const page of this.store.inboxes.pages(INBOX_PAGE)) {
      for (const inbox of page) {
        const seconds = retentionOf(this.config, inbox);
        if (this.stopped) return removed;
        if (seconds === null || inbox.message_count === 0 || !this.owns(this.slotOf(inbox.address))) continue;
        removed += await this.trim(inbox.address, positionAt(this.now() - seconds * 1000));
      }
      await yieldTurn();
    }
    return removed;
  }

  /** Deletes the inbox's messages older than `cutoff`, a batch per transaction. */
  private async trim(address: string, cutoff: string): Promise<number> {
    const { store } = this;
    let removed = 0;
    for (;;) {
      let accountId: string | null = null;
      const gone = await store.transaction(() => {
        const inbox = store.inboxes.get(address);
        if (!inbox) return [] as MessageRecord[];
        const old = store.messages.olderThan(address, cutoff, RETENTION_BATCH);
        if (old.length === 0) return old;
        for (const m of old) store.messages.remove(address, m.id);
        store.inboxes.update(withoutMessages(inbox, old));
        accountId = inbox.account_id;
        return old;
      });
      this.batches++;
      removed += gone.length;
      if (accountId !== null) for (const hook of this.changed) hook(accountId, address);
      if (gone.length < RETENTION_BATCH || this.stopped) return removed;
      await yieldTurn();
    }
  }
}
