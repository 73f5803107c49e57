// Replication (DESIGN.md §8): a cluster shard streams the oplog of every slot it is primary of to
// the slot's followers, and keeps its own follower copies in step with the map. One FollowerLink
// per follower member carries all the slots that member copies from us:
//   unknown -> syncing (the follower's position, then the tail or a fresh snapshot) -> streaming.
// With MAILCUE_REPLICATION_ACK=all a command that wrote is answered only after every live
// follower has applied the entries of the slots it follows up to that moment (barrier()).
import type { SlotView } from '../cluster/slot-view.js';
import type { Durability } from '../contract/results.js';
import { MailcueError } from '../errors/registry.js';
import type { Logger } from '../obs/logger.js';
import { MemberClients } from '../rpc/member-clients.js';
import type { ShardClient } from '../rpc/shard-client.js';
import type { TlsMaterial } from '../rpc/tls.js';
import type { ShardStore } from '../storage/shard-store.js';
import { dropSlot, readReplicated, readSlotPage, slotIsEmpty } from '../storage/slot-data.js';

/** A follower that has not applied a batch by then counts as gone until it answers again. */
const APPLY_TIMEOUT_MS = 2000;
const RETRY_MS = 1000;
/** Bounded stream messages (DESIGN.md §7). */
const BATCH_BYTES = 1024 * 1024;
/** Slot copies one link checks or makes at once. */
const SYNC_CONCURRENCY = 8;
/** Empty slots copied in one call. */
const EMPTY_BATCH = 512;

type CopyState = 'unknown' | 'syncing' | 'streaming';

interface SlotCopy {
  state: CopyState;
  /** The primary's epoch the copy is made at. */
  epoch: number;
  /** The last entry the follower applied. */
  acked: number;
}

interface AckWaiter {
  /** slot -> sequence number the follower must reach. */
  pending: Map<number, number>;
  resolve(): void;
}

export interface ReplicationHooks {
  /** Slots this shard just became primary of from a follower copy: caches built elsewhere must go. */
  gained(slots: number[]): void;
}

class FollowerLink {
  readonly copies = new Map<number, SlotCopy>();
  /** Streaming slots with entries the follower has not applied yet. */
  private readonly behind = new Set<number>();
  private readonly toSync: number[] = [];
  /** Sync workers waiting for a slot to check. */
  private idleSyncers: (() => void)[] = [];
  private readonly waiters = new Set<AckWaiter>();
  private wakeUp: (() => void) | null = null;
  private closed = false;
  private down = false;
  private client: ShardClient;

  constructor(readonly id: string, private readonly r: Replicator) {
    this.client = r.clientFor(id);
    void this.stream();
    void this.syncLoop();
  }

  follow(slot: number, epoch: number): void {
    const copy = this.copies.get(slot);
    if (copy && copy.epoch === epoch) return;
    this.copies.set(slot, { state: 'unknown', epoch, acked: 0 });
    this.behind.delete(slot);
    this.queueSync(slot);
    this.wake();
  }

  unfollow(slot: number): void {
    this.copies.delete(slot);
    this.behind.delete(slot);
    this.settle();
  }

  /** An entry was logged for the slot. */
  appended(slot: number): void {
    if (this.copies.get(slot)?.state !== 'streaming') return;
    this.behind.add(slot);
    this.wake();
  }

  /** Resolves once the follower applied what is logged now, or is gone; null if it already has. */
  until(): Promise<void> | null {
    if (this.down || this.behind.size === 0) return null;
    const pending = new Map<number, number>();
    for (const slot of this.behind) pending.set(slot, this.r.store.oplog.seq(slot));
    return new Promise((resolve) => this.waiters.add({ pending, resolve }));
  }

  /** Replication lag of each slot copy, in entries (status and metrics). */
  lag(): Map<number, number> {
    const out = new Map<number, number>();
    for (const [slot, copy] of this.copies) out.set(slot, copy.state === 'streaming' ? this.r.store.oplog.seq(slot) - copy.acked : -1);
    return out;
  }

  get empty(): boolean {
    return this.copies.size === 0;
  }

  close(): void {
    this.closed = true;
    this.down = true;
    this.settle();
    this.wake();
    for (const resume of this.idleSyncers.splice(0)) resume();
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

  private settle(): void {
    for (const w of this.waiters) {
      if (!this.down) {
        for (const [slot, seq] of w.pending) {
          const copy = this.copies.get(slot);
          if (!copy || copy.state !== 'streaming' || copy.acked >= seq) w.pending.delete(slot);
        }
        if (w.pending.size > 0) continue;
      }
      this.waiters.delete(w);
      w.resolve();
    }
  }

  /** The follower failed or timed out: writes stop waiting for it; every copy is checked again later. */
  private fail(err: unknown): void {
    if (this.closed) return;
    if (!this.down) this.r.log.warn({ follower: this.id, err: String(err) }, 'follower unreachable; writes no longer wait for it');
    this.down = true;
    this.behind.clear();
    this.settle();
    for (const [slot, copy] of this.copies) {
      copy.state = 'unknown';
      if (!this.toSync.includes(slot)) this.queueSync(slot);
    }
  }

  private async stream(): Promise<void> {
    const { store } = this.r;
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
          if (!copy || copy.epoch !== b.epoch) continue;
          if (refused.includes(b.slot)) {
            copy.state = 'unknown';
            this.behind.delete(b.slot);
            this.queueSync(b.slot);
            continue;
          }
          copy.acked = Math.max(copy.acked, b.entries.at(-1)!.seq);
          if (copy.acked >= store.oplog.seq(b.slot)) this.behind.delete(b.slot);
        }
        this.settle();
      } catch (err) {
        this.fail(err);
      }
    }
  }

  private queueSync(slot: number): void {
    this.toSync.push(slot);
    const idle = this.idleSyncers;
    this.idleSyncers = [];
    for (const resume of idle) resume();
  }

  /** Checks the copy again shortly, unless it was replaced meanwhile. */
  private retrySoon(slot: number, copy: SlotCopy): void {
    setTimeout(() => { if (this.copies.get(slot) === copy) this.queueSync(slot); }, RETRY_MS / 4).unref();
  }

  /** Copies are checked and made a few slots at a time, so a new follower's commits batch. */
  private async syncLoop(): Promise<void> {
    await Promise.all(Array.from({ length: SYNC_CONCURRENCY }, () => this.syncWorker()));
  }

  private async syncWorker(): Promise<void> {
    while (!this.closed) {
      if (await this.syncEmpty()) continue;
      const slot = this.toSync.shift();
      if (slot === undefined) {
        await new Promise<void>((resolve) => this.idleSyncers.push(resolve));
        continue;
      }
      const copy = this.copies.get(slot);
      if (!copy || copy.state !== 'unknown') continue;
      try {
        await this.sync(slot, copy);
        this.down = false;
      } catch (err) {
        copy.state = 'unknown';
        if (err instanceof MailcueError && err.code === 'moved') {
          // The follower's map does not show it as this slot's follower yet: ask again shortly.
          this.retrySoon(slot, copy);
        } else {
          this.fail(err);
          await new Promise((r) => setTimeout(r, RETRY_MS).unref());
        }
      }
    }
  }

  /**
   * Slots that hold nothing yet on this primary (every slot of a fresh cluster) are copied in one
   * call, hundreds at once, instead of one snapshot each. True if it took any.
   */
  private async syncEmpty(): Promise<boolean> {
    const batch: { slot: number; epoch: number; copy: SlotCopy }[] = [];
    for (let i = 0; i < this.toSync.length && batch.length < EMPTY_BATCH; ) {
      const slot = this.toSync[i]!;
      const copy = this.copies.get(slot);
      if (copy && copy.state === 'unknown' && slotIsEmpty(this.r.store, slot)) {
        batch.push({ slot, epoch: copy.epoch, copy });
        this.toSync.splice(i, 1);
      } else {
        i++;
      }
    }
    if (batch.length === 0) return false;
    for (const b of batch) b.copy.state = 'syncing';
    try {
      const { refused } = await this.client.call({ type: 'slot.resync_empty', slots: batch.map(({ slot, epoch }) => ({ slot, epoch })) }, { timeoutMs: 30_000 });
      for (const { slot, copy } of batch) {
        if (this.copies.get(slot) !== copy) continue;
        if (refused.includes(slot)) {
          copy.state = 'unknown';
          this.retrySoon(slot, copy);
          continue;
        }
        copy.acked = 0;
        copy.state = 'streaming';
        // Written to since the check: the tail follows.
        if (this.r.store.oplog.seq(slot) > 0) this.appended(slot);
      }
      this.down = false;
    } catch (err) {
      for (const { copy } of batch) copy.state = 'unknown';
      this.fail(err);
    }
    return true;
  }

  /** Resumes the follower's copy from its position, or sends a fresh snapshot. */
  private async sync(slot: number, copy: SlotCopy): Promise<void> {
    const { store } = this.r;
    copy.state = 'syncing';
    const timeout = { timeoutMs: 30_000 };
    const position = await this.client.call({ type: 'slot.position', slot }, timeout);
    if (position && position.epoch === copy.epoch && position.seq >= 0 && store.oplog.covers(slot, position.seq)) {
      copy.acked = position.seq;
    } else {
      const seq = store.oplog.seq(slot);
      // Everything up to `seq` is committed before the first page is read; later entries follow as the tail.
      await store.committed();
      let cursor: Parameters<typeof readSlotPage>[2] = null;
      let first = true;
      do {
        const page = readSlotPage(store, slot, cursor, BATCH_BYTES);
        await this.client.call({ type: 'slot.resync', slot, epoch: copy.epoch, records: page.records, first, done: page.next === null ? seq : null }, timeout);
        first = false;
        cursor = page.next;
      } while (cursor !== null);
      copy.acked = seq;
    }
    if (this.copies.get(slot) !== copy) return;
    copy.state = 'streaming';
    if (copy.acked < store.oplog.seq(slot)) this.appended(slot);
  }
}

export class Replicator implements Durability {
  /** Oplog entries logged since start (a command that changes it wrote something). */
  writes = 0;
  private readonly links = new Map<string, FollowerLink>();
  private readonly members: MemberClients;
  private readonly dropping = new Set<number>();
  private stopped = false;

  constructor(
    readonly store: ShardStore,
    private readonly view: SlotView,
    private readonly self: string,
    tls: TlsMaterial | null,
    readonly log: Logger,
    private readonly hooks: ReplicationHooks,
  ) {
    this.members = new MemberClients(view, tls);
    store.oplog.onAppend = (slot) => {
      this.writes++;
      for (const link of this.links.values()) link.appended(slot);
    };
    view.listeners.push(() => this.follow());
    this.follow();
  }

  clientFor(id: string): ShardClient {
    const client = this.members.get(id);
    if (!client) throw new MailcueError('unavailable', `member ${id} is not in the cluster`);
    return client;
  }

  /** Resolves once every live follower applied what is logged now; null when nothing waits. */
  barrier(): Promise<void> | null {
    let waits: Promise<void>[] | null = null;
    for (const link of this.links.values()) {
      const w = link.until();
      if (w) (waits ??= []).push(w);
    }
    if (!waits) return null;
    return waits.length === 1 ? waits[0]! : Promise.all(waits).then(() => undefined);
  }

  /** Per follower: the largest lag of its copies in entries (-1: a copy is still being made). */
  lagByFollower(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [id, link] of this.links) {
      let max = 0;
      for (const lag of link.lag().values()) max = lag < 0 || max < 0 ? -1 : Math.max(max, lag);
      out[id] = max;
    }
    return out;
  }

  /** Per slot and follower: the lag in entries (metrics). */
  lagBySlot(): { slot: number; follower: string; lag: number }[] {
    const out: { slot: number; follower: string; lag: number }[] = [];
    for (const [follower, link] of this.links) for (const [slot, lag] of link.lag()) out.push({ slot, follower, lag });
    return out;
  }

  /** Brings links and this shard's own copies in line with the map. */
  private follow(): void {
    if (this.stopped) return;
    const wanted = new Map<string, Map<number, number>>();
    const gained: number[] = [];
    const own = new Set(this.store.oplog.replicaSlots());
    for (const e of this.view.map) {
      if (e.primary === this.self) {
        if (own.has(e.slot)) {
          // Promoted (failover) or handed the slot by a move: the log goes on from the copy's position.
          void this.store.oplog.clearPosition(e.slot);
          gained.push(e.slot);
        }
        for (const f of e.followers) {
          if (f === this.self) continue;
          if (!wanted.has(f)) wanted.set(f, new Map());
          wanted.get(f)!.set(e.slot, e.epoch);
        }
      } else if (e.primary !== null && !e.followers.includes(this.self) && (own.has(e.slot) || this.store.oplog.seq(e.slot) > 0)) {
        // Neither primary nor follower any more (moved away, or an old primary back after a failover):
        // what it holds of the slot, unacknowledged tail included, goes.
        this.drop(e.slot);
      }
    }
    if (gained.length > 0) this.hooks.gained(gained);
    for (const [id, slots] of wanted) {
      if (!this.view.member(id)) continue;
      let link = this.links.get(id);
      if (!link) {
        try {
          link = new FollowerLink(id, this);
        } catch {
          continue;
        }
        this.links.set(id, link);
      }
      for (const [slot, epoch] of slots) link.follow(slot, epoch);
    }
    for (const [id, link] of this.links) {
      const slots = wanted.get(id);
      for (const slot of [...link.copies.keys()]) if (!slots?.has(slot)) link.unfollow(slot);
      if (link.empty || !this.view.member(id)) {
        link.close();
        this.links.delete(id);
      }
    }
  }

  /** This shard no longer serves or copies the slot: its records, log and position go. */
  private drop(slot: number): void {
    if (this.dropping.has(slot)) return;
    this.dropping.add(slot);
    void (async () => {
      await this.store.oplog.clearPosition(slot);
      const removed = await dropSlot(this.store, slot, false);
      await this.store.transaction(() => this.store.oplog.clearSlot(slot));
      this.log.info({ slot, records: removed }, 'dropped a slot this shard no longer serves or copies');
    })().catch((err: unknown) => this.log.error({ err, slot }, 'dropping a copy failed')).finally(() => this.dropping.delete(slot));
  }

  close(): void {
    this.stopped = true;
    this.store.oplog.onAppend = null;
    for (const link of this.links.values()) link.close();
    this.links.clear();
    this.members.close();
  }
}
