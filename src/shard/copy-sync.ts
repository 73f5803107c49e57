// Making a follower's copy of a slot current (DESIGN.md §8): from the follower's position when the
// copy is this primary's at this epoch; from the same position when it was made in the epoch this
// primary took the slot over from and ends at or before the entry the epoch began at (truncation by
// leader epoch, Kafka KIP-101: nothing to truncate, the follower adopts the new epoch); otherwise a
// fresh snapshot, which replaces whatever the copy held beyond that point. Slots that hold nothing
// yet on the primary (a fresh cluster) are copied hundreds in one call.
import { MailcueError } from '../errors/registry.js';
import { readSlotPage, slotIsEmpty } from '../storage/slot-data.js';
import { BATCH_BYTES, type CopyOwner, type SlotCopy } from './slot-copy.js';

const RETRY_MS = 1000;
/** Slot copies one link checks or makes at once. */
const SYNC_CONCURRENCY = 8;
/** Empty slots copied in one call. */
const EMPTY_BATCH = 512;
const CALL_MS = 30_000;

export class CopySync {
  private readonly toSync: number[] = [];
  private readonly queued = new Set<number>();
  /** Sync workers waiting for a slot to check. */
  private idle: (() => void)[] = [];
  private closed = false;

  constructor(private readonly link: CopyOwner) {
    void Promise.all(Array.from({ length: SYNC_CONCURRENCY }, () => this.worker()));
  }

  queue(slot: number): void {
    if (!this.queued.has(slot)) {
      this.queued.add(slot);
      this.toSync.push(slot);
    }
    for (const resume of this.idle.splice(0)) resume();
  }

  close(): void {
    this.closed = true;
    for (const resume of this.idle.splice(0)) resume();
  }

  private take(): number | undefined {
    const slot = this.toSync.shift();
    if (slot !== undefined) this.queued.delete(slot);
    return slot;
  }

  /** Checks the copy again after `ms`, unless it was replaced (or made) meanwhile. */
  private retrySoon(slot: number, copy: SlotCopy, ms = RETRY_MS / 4): void {
    setTimeout(() => { if (this.link.copies.get(slot) === copy && copy.state === 'unknown') this.queue(slot); }, ms).unref();
  }

  private async worker(): Promise<void> {
    while (!this.closed && !this.link.isClosed) {
      if (await this.syncEmpty()) continue;
      const slot = this.take();
      if (slot === undefined) {
        await new Promise<void>((resolve) => this.idle.push(resolve));
        continue;
      }
      const copy = this.link.copies.get(slot);
      if (!copy || copy.state !== 'unknown') continue;
      try {
        copy.state = 'syncing';
        await this.sync(slot, copy);
        this.link.down = false;
        this.link.streaming(slot, copy);
      } catch (err) {
        if (this.link.copies.get(slot) === copy) copy.state = 'unknown';
        if (err instanceof MailcueError && err.code === 'moved') {
          // The follower's map does not show it as this slot's follower yet: ask again shortly.
          this.retrySoon(slot, copy);
        } else {
          // The link's failure puts back only copies that were syncing, streaming or in the set: this
          // one (unknown now, and perhaps outside the set) is tried again here, or it would never be.
          this.link.fail(err);
          this.retrySoon(slot, copy, RETRY_MS);
          await new Promise((r) => setTimeout(r, RETRY_MS).unref());
        }
      }
    }
  }

  /** Slots empty on this primary, copied in one call. True if it took any. */
  private async syncEmpty(): Promise<boolean> {
    const { store } = this.link.ctx;
    const batch: { slot: number; epoch: number; copy: SlotCopy }[] = [];
    for (let i = 0; i < this.toSync.length && batch.length < EMPTY_BATCH; ) {
      const slot = this.toSync[i]!;
      const copy = this.link.copies.get(slot);
      if (copy && copy.state === 'unknown' && slotIsEmpty(store, slot)) {
        batch.push({ slot, epoch: copy.epoch, copy });
        this.toSync.splice(i, 1);
        this.queued.delete(slot);
      } else {
        i++;
      }
    }
    if (batch.length === 0) return false;
    for (const b of batch) b.copy.state = 'syncing';
    try {
      const { refused } = await this.link.client.call({ type: 'slot.resync_empty', slots: batch.map(({ slot, epoch }) => ({ slot, epoch })) }, { timeoutMs: CALL_MS });
      this.link.down = false;
      for (const { slot, copy } of batch) {
        if (this.link.copies.get(slot) !== copy) continue;
        if (refused.includes(slot)) {
          copy.state = 'unknown';
          this.retrySoon(slot, copy);
          continue;
        }
        copy.acked = 0;
        this.link.streaming(slot, copy);
      }
    } catch (err) {
      for (const { slot, copy } of batch) if (this.link.copies.get(slot) === copy) copy.state = 'unknown';
      this.link.fail(err);
      // Each is tried again after a pause (not at once: the worker would spin on an unreachable follower).
      for (const { slot, copy } of batch) this.retrySoon(slot, copy, RETRY_MS);
      await new Promise((r) => setTimeout(r, RETRY_MS).unref());
    }
    return true;
  }

  private async sync(slot: number, copy: SlotCopy): Promise<void> {
    const { store, epochs } = this.link.ctx;
    const timeout = { timeoutMs: CALL_MS };
    const position = await this.link.client.call({ type: 'slot.position', slot }, timeout);
    if (position && position.seq >= 0 && store.oplog.covers(slot, position.seq)) {
      if (position.epoch === copy.epoch) {
        copy.acked = position.seq;
        return;
      }
      const began = epochs.get(slot);
      if (began && began.epoch === copy.epoch && began.prev === position.epoch && position.seq <= began.start) {
        // Made in the epoch this primary took over from, and ending where ours still matches it.
        const adopted = await this.link.client.call({ type: 'slot.adopt', slot, epoch: copy.epoch, from: { epoch: position.epoch, seq: position.seq } }, timeout);
        if (adopted) {
          copy.acked = position.seq;
          return;
        }
      }
    }
    const seq = store.oplog.seq(slot);
    // Everything up to `seq` is committed before the first page is read; later entries follow as the tail.
    await store.committed();
    let cursor: Parameters<typeof readSlotPage>[2] = null;
    let first = true;
    do {
      const page = readSlotPage(store, slot, cursor, BATCH_BYTES);
      await this.link.client.call({ type: 'slot.resync', slot, epoch: copy.epoch, records: page.records, first, done: page.next === null ? seq : null }, timeout);
      first = false;
      cursor = page.next;
    } while (cursor !== null);
    copy.acked = seq;
  }
}
