// Removes the messages of deleted inboxes in bounded batches (issue 37). Deleting an inbox takes
// its record away in one small transaction and leaves a tombstone; the messages, their digests and
// their share of raw sources and attachments then go RECLAIM_BATCH at a time, one transaction per
// event turn, so reads of other inboxes on the same shard wait at most one batch. The tombstone
// goes with the last batch; a shard that stops halfway resumes from the tombstones it holds.
import type { ShardStore } from '../storage/shard-store.js';

/**
 * Messages removed per transaction: small enough that one batch holds the shard's thread for a few
 * ms. At 200 a concurrent reader of another inbox saw p99 76-82 ms (`npm run bench -- --quick --only
 * delete-large-inbox`); at 50, 43-44 ms, the deletion taking 1 s instead of 0.6 s for 5,000 messages.
 */
export const RECLAIM_BATCH = 50;

export class InboxReclaimer {
  private readonly queue = new Set<string>();
  private readonly done = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  private running: Promise<void> | null = null;
  private closed = false;
  /** Messages removed so far (metrics, tests). */
  removed = 0;

  constructor(private readonly store: ShardStore) {}

  /** Every tombstone this shard holds goes on the queue (at start, in embedded mode). */
  resume(): void {
    for (const t of this.store.inboxes.tombstones.all()) this.add(t.address);
  }

  /** Queues the removal of a deleted inbox's messages. */
  add(address: string): void {
    if (this.closed) return;
    this.queue.add(address);
    this.running ??= this.run().finally(() => {
      this.running = null;
      if (this.queue.size > 0 && !this.closed) this.add(this.queue.values().next().value!);
    });
  }

  /** Resolves once the address's tombstone is gone (its removal is moved to the front of the queue). */
  finish(address: string): Promise<void> {
    if (!this.store.inboxes.tombstones.get(address)) return Promise.resolve();
    let entry = this.done.get(address);
    if (!entry) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.done.set(address, (entry = { promise, resolve }));
    }
    // First in line: the request that waits for it is served before older deletions.
    this.queue.delete(address);
    const rest = [...this.queue];
    this.queue.clear();
    this.queue.add(address);
    for (const a of rest) this.queue.add(a);
    this.add(address);
    return entry.promise;
  }

  get pending(): number {
    return this.queue.size;
  }

  /** Stops after the batch in progress; the tombstones left resume on the next start. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }

  private async run(): Promise<void> {
    while (this.queue.size > 0 && !this.closed) {
      const address = this.queue.values().next().value!;
      const gone = await this.batch(address);
      if (gone) {
        this.queue.delete(address);
        const waiting = this.done.get(address);
        this.done.delete(address);
        waiting?.resolve();
      }
    }
  }

  /** One transaction: a batch of the inbox's messages, or, when none is left, its tombstone. True once gone. */
  private async batch(address: string): Promise<boolean> {
    const { store } = this;
    return store.transaction(() => {
      if (!store.inboxes.tombstones.get(address)) return true;
      // A new inbox of that address exists only once the old one's messages are gone (create waits).
      const removed = store.messages.removeInboxBatch(address, RECLAIM_BATCH);
      this.removed += removed;
      if (removed > 0) return false;
      store.inboxes.tombstones.remove(address);
      return true;
    });
  }
}
