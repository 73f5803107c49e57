// One primary's link to one follower member: every slot copy that member holds of our slots
// (DESIGN.md §8 "Replication"). A copy goes unknown -> syncing (copy-sync.ts) -> streaming, and
// separately out -> joining -> in of the slot's in-sync set. Writes wait (until()) for every copy
// that is joining or in the set; a copy leaves the set only by a map transaction (IsrWriter), and
// only then do writes stop waiting for it. A refusal, a closed link or the copy leaving the map
// answers the writes waiting for it `unavailable` or `moved`: it never counts as an ack.
import type { Logger } from '../obs/logger.js';
import { MailcueError } from '../errors/registry.js';
import type { ShardClient } from '../rpc/shard-client.js';
import type { ShardStore } from '../storage/shard-store.js';
import { readReplicated } from '../storage/slot-data.js';
import { CopySync } from './copy-sync.js';
import type { IsrWriter } from './isr-writer.js';
import type { LeaderEpochs } from './leader-epochs.js';
import { BATCH_BYTES, type CopyOwner, type InSync, type SlotCopy } from './slot-copy.js';

/** A follower that has not applied a batch by then has stopped answering: it leaves the in-sync set. */
const APPLY_TIMEOUT_MS = 2000;
/** A failed change of the in-sync set is tried again this long after. */
const RETRY_MS = 500;

interface AckWaiter {
  /** slot -> sequence number the follower must reach. */
  pending: Map<number, number>;
  resolve(): void;
  reject(err: Error): void;
}

/** What a link needs of its primary. */
export interface LinkContext {
  readonly store: ShardStore;
  readonly log: Logger;
  readonly isr: IsrWriter;
  readonly epochs: LeaderEpochs;
  clientFor(id: string): ShardClient;
}

export class FollowerLink implements CopyOwner {
  readonly copies = new Map<number, SlotCopy>();
  /** Streaming slots with entries the follower has not applied yet. */
  private readonly behind = new Set<number>();
  /** Copies joining or in the in-sync set that are not streaming: writes wait for them. */
  private readonly blocking = new Set<number>();
  private readonly waiters = new Set<AckWaiter>();
  private wakeUp: (() => void) | null = null;
  private closed = false;
  /** The last call failed: nothing is streamed until a copy is synced again. */
  down = false;
  readonly client: ShardClient;
  readonly sync: CopySync;

  constructor(readonly id: string, readonly ctx: LinkContext) {
    this.client = ctx.clientFor(id);
    this.sync = new CopySync(this);
    void this.stream();
  }

  follow(slot: number, epoch: number, inIsr: boolean): void {
    const copy = this.copies.get(slot);
    if (copy && copy.epoch === epoch) {
      // The map is the truth about the set; a join of ours in flight stays joining until it lands.
      if (inIsr && copy.isr !== 'in') this.setIsr(slot, copy, 'in');
      else if (!inIsr && copy.isr === 'in' && !copy.busy) {
        // Taken out by the controller (the follower restarted, or was gone): what it holds is checked
        // afresh before it may join again.
        this.setIsr(slot, copy, 'out');
        this.lost(slot, copy, null);
      }
      return;
    }
    if (copy) this.rejectSlot(slot, moved(slot));
    const fresh: SlotCopy = { state: 'unknown', epoch, acked: 0, isr: inIsr ? 'in' : 'out', joinAt: 0, busy: false };
    this.copies.set(slot, fresh);
    this.behind.delete(slot);
    this.mark(slot, fresh);
    this.sync.queue(slot);
    this.wake();
  }

  /** The copy left the map: writes waiting for it are not acknowledged. */
  unfollow(slot: number): void {
    this.copies.delete(slot);
    this.behind.delete(slot);
    this.blocking.delete(slot);
    this.rejectSlot(slot, new MailcueError('unavailable', `Slot ${slot}: a copy left the cluster map before it acknowledged`, { slot, retry_after_s: 1 }));
    this.settle();
  }

  /** An entry was logged for the slot. */
  appended(slot: number): void {
    if (this.copies.get(slot)?.state !== 'streaming') return;
    this.behind.add(slot);
    this.wake();
  }

  /** Resolves once every copy that counts (joining or in sync) applied what is logged now; null if all have. */
  until(): Promise<void> | null {
    let pending: Map<number, number> | null = null;
    const need = (slot: number) => {
      const copy = this.copies.get(slot);
      if (!copy || copy.isr === 'out') return;
      const seq = this.ctx.store.oplog.seq(slot);
      if (copy.state === 'streaming' && copy.acked >= seq) return;
      (pending ??= new Map()).set(slot, seq);
    };
    for (const slot of this.behind) need(slot);
    for (const slot of this.blocking) need(slot);
    if (!pending) return null;
    const p = pending;
    return new Promise((resolve, reject) => this.waiters.add({ pending: p, resolve, reject }));
  }

  /** Replication lag of each slot copy, in entries (status and metrics; -1 while it is being made). */
  lag(): Map<number, number> {
    const out = new Map<number, number>();
    for (const [slot, copy] of this.copies) out.set(slot, copy.state === 'streaming' ? this.ctx.store.oplog.seq(slot) - copy.acked : -1);
    return out;
  }

  get empty(): boolean {
    return this.copies.size === 0;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    this.down = true;
    // Nothing of a closed link may change the in-sync set later: a join retried from here once the
    // member was back (as a follower, copied afresh by a new link) put a stale copy in the set.
    this.copies.clear();
    this.behind.clear();
    this.blocking.clear();
    const err = new MailcueError('unavailable', `The link to follower ${this.id} closed before it acknowledged`, { retry_after_s: 1 });
    for (const w of this.waiters) w.reject(err);
    this.waiters.clear();
    this.wake();
    this.sync.close();
  }

  /** A copy became current (synced, or acked the whole log): it streams, and joins the set once caught up. */
  streaming(slot: number, copy: SlotCopy): void {
    if (this.copies.get(slot) !== copy) return;
    copy.state = 'streaming';
    this.mark(slot, copy);
    if (copy.acked < this.ctx.store.oplog.seq(slot)) this.appended(slot);
    this.caughtUp(slot, copy);
    this.settle();
  }

  /** The copy is no longer known to match (refused, or the follower failed): it leaves the set, then syncs again. */
  lost(slot: number, copy: SlotCopy, why: MailcueError | null): void {
    if (this.copies.get(slot) !== copy) return;
    copy.state = 'unknown';
    this.behind.delete(slot);
    this.mark(slot, copy);
    if (why) this.rejectSlot(slot, why);
    if (copy.isr !== 'out') this.leave(slot, copy);
    this.sync.queue(slot);
  }

  /** The follower failed or timed out: every copy leaves the set and is checked again later. */
  fail(err: unknown): void {
    if (this.closed) return;
    if (!this.down) this.ctx.log.warn({ follower: this.id, err: String(err) }, 'follower unreachable; it leaves the in-sync sets before any write is acknowledged without it');
    this.down = true;
    for (const [slot, copy] of this.copies) if (copy.state !== 'unknown' || copy.isr !== 'out') this.lost(slot, copy, null);
  }

  private setIsr(slot: number, copy: SlotCopy, isr: InSync): void {
    copy.isr = isr;
    this.mark(slot, copy);
    this.settle();
  }

  private mark(slot: number, copy: SlotCopy): void {
    if (copy.isr !== 'out' && copy.state !== 'streaming') this.blocking.add(slot);
    else this.blocking.delete(slot);
  }

  /** Out of the set by a map transaction; until it commits, writes keep waiting for the copy. */
  private leave(slot: number, copy: SlotCopy): void {
    if (copy.busy) return;
    copy.busy = true;
    this.ctx.isr.shrink(slot, copy.epoch, this.id).then(
      () => {
        copy.busy = false;
        if (this.copies.get(slot) === copy) this.setIsr(slot, copy, 'out');
      },
      (err: MailcueError) => {
        copy.busy = false;
        if (this.copies.get(slot) !== copy || this.closed) return;
        // Not out yet: the writes that wait for it are not acknowledged; the set is changed again shortly.
        this.rejectSlot(slot, err);
        if (err.code === 'moved') return;
        setTimeout(() => { if (!this.closed && this.copies.get(slot) === copy && copy.isr !== 'out' && copy.state !== 'streaming') this.leave(slot, copy); }, RETRY_MS).unref();
      },
    );
  }

  /** A streaming copy that holds the whole log joins: first writes wait for it, then the map says so. */
  private caughtUp(slot: number, copy: SlotCopy): void {
    if (this.closed || this.copies.get(slot) !== copy || copy.state !== 'streaming' || copy.busy || copy.isr === 'in') return;
    const seq = this.ctx.store.oplog.seq(slot);
    if (copy.isr === 'out') {
      if (copy.acked < seq) return;
      copy.isr = 'joining';
      copy.joinAt = seq;
    }
    if (copy.acked < copy.joinAt) return;
    copy.busy = true;
    this.ctx.isr.expand(slot, copy.epoch, this.id).then(
      () => {
        copy.busy = false;
        if (this.copies.get(slot) === copy && copy.isr === 'joining') this.setIsr(slot, copy, 'in');
      },
      (err: Error) => {
        copy.busy = false;
        this.ctx.log.warn({ slot, follower: this.id, err: String(err) }, 'joining the in-sync set failed; asking again');
        // It stays joining (writes keep waiting for it, as the map may hold it already); asked again shortly.
        setTimeout(() => this.caughtUp(slot, copy), RETRY_MS).unref();
      },
    );
  }

  private rejectSlot(slot: number, err: Error): void {
    for (const w of this.waiters) {
      if (!w.pending.has(slot)) continue;
      this.waiters.delete(w);
      w.reject(err);
    }
  }

  private settle(): void {
    for (const w of this.waiters) {
      for (const [slot, seq] of w.pending) {
        const copy = this.copies.get(slot);
        if (!copy || copy.isr === 'out' || (copy.state === 'streaming' && copy.acked >= seq)) w.pending.delete(slot);
      }
      if (w.pending.size > 0) continue;
      this.waiters.delete(w);
      w.resolve();
    }
  }

  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  /** Until an entry is logged for a streaming copy (or the link closes). */
  private sleep(): Promise<void> {
    return new Promise((resolve) => (this.wakeUp = resolve));
  }

  private async stream(): Promise<void> {
    const { store } = this.ctx;
    while (!this.closed) {
      if (this.behind.size === 0 || this.down) {
        await this.sleep();
        continue;
      }
      const batches: { slot: number; epoch: number; entries: ReturnType<typeof readReplicated> }[] = [];
      let bytes = 0;
      let uncommitted = false;
      for (const slot of this.behind) {
        const copy = this.copies.get(slot)!;
        const entries = readReplicated(store, slot, copy.acked, BATCH_BYTES - bytes);
        if (entries.length === 0) {
          // Logged in a transaction that has not committed yet, or nothing left to send.
          if (store.oplog.seq(slot) > copy.acked) uncommitted = true;
          else this.behind.delete(slot);
          continue;
        }
        batches.push({ slot, epoch: copy.epoch, entries });
        for (const e of entries) bytes += 64 + (e.value instanceof Uint8Array ? e.value.byteLength : 256);
        if (bytes >= BATCH_BYTES) break;
      }
      if (batches.length === 0) {
        if (uncommitted) await store.committed();
        continue;
      }
      try {
        const { refused } = await this.client.call({ type: 'slot.replicate', batches }, { timeoutMs: APPLY_TIMEOUT_MS });
        for (const b of batches) {
          const copy = this.copies.get(b.slot);
          if (!copy || copy.epoch !== b.epoch || copy.state !== 'streaming') continue;
          if (refused.includes(b.slot)) {
            this.lost(b.slot, copy, new MailcueError('unavailable', `Slot ${b.slot}: follower ${this.id} refused the write`, { slot: b.slot, retry_after_s: 1 }));
            continue;
          }
          copy.acked = Math.max(copy.acked, b.entries.at(-1)!.seq);
          if (copy.acked >= store.oplog.seq(b.slot)) this.behind.delete(b.slot);
          this.caughtUp(b.slot, copy);
        }
        this.settle();
      } catch (err) {
        this.fail(err);
      }
    }
  }
}

function moved(slot: number): MailcueError {
  return new MailcueError('moved', `Slot ${slot} changed epoch before the write was acknowledged`, { slot, retry_after_s: 1 });
}
