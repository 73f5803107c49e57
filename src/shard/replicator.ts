// Replication (DESIGN.md §8): a cluster shard streams the oplog of every slot it is primary of to
// the slot's followers (one FollowerLink per follower member), and keeps its own follower copies in
// step with the map. With MAILCUE_REPLICATION_ACK=all a command that wrote is answered only after
// every copy in the slots' in-sync sets applied what was logged up to that moment (barrier());
// a copy that fails leaves the set by a map transaction first (follower-link.ts).
import type { SlotGuard } from '../cluster/slot-guard.js';
import type { SlotView } from '../cluster/slot-view.js';
import type { Durability } from '../contract/results.js';
import { MailcueError } from '../errors/registry.js';
import type { Logger } from '../obs/logger.js';
import { MemberClients } from '../rpc/member-clients.js';
import type { ShardClient } from '../rpc/shard-client.js';
import type { TlsMaterial } from '../rpc/tls.js';
import type { ShardStore } from '../storage/shard-store.js';
import { dropSlot } from '../storage/slot-data.js';
import { FollowerLink } from './follower-link.js';
import type { IsrWriter } from './isr-writer.js';
import { LeaderEpochs } from './leader-epochs.js';
import type { SlotLocks } from './slot-locks.js';

const RETRY_MS = 500;

export interface ReplicationHooks {
  /** Slots this shard just became primary of from a follower copy: caches built elsewhere must go. */
  gained(slots: number[]): void;
}

export class Replicator implements Durability {
  /** Oplog entries logged since start (a command that changes it wrote something). */
  writes = 0;
  readonly epochs: LeaderEpochs;
  private readonly links = new Map<string, FollowerLink>();
  private readonly members: MemberClients;
  private readonly dropping = new Set<number>();
  /** In-sync members without a live lease, leaving the set: writes wait for that. */
  private readonly orphans = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    readonly store: ShardStore,
    private readonly view: SlotView,
    private readonly guard: SlotGuard,
    tls: TlsMaterial | null,
    readonly log: Logger,
    readonly isr: IsrWriter,
    /** Drops and copies of one slot run one at a time (shared with the slot endpoint). */
    readonly locks: SlotLocks,
    private readonly hooks: ReplicationHooks,
  ) {
    this.members = new MemberClients(view, tls);
    this.epochs = new LeaderEpochs(store);
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

  /** Resolves once every in-sync copy applied what is logged now; rejects when one could not; null when nothing waits. */
  barrier(): Promise<void> | null {
    let waits: Promise<void>[] | null = null;
    for (const link of this.links.values()) {
      const w = link.until();
      if (w) (waits ??= []).push(w);
    }
    for (const w of this.orphans.values()) (waits ??= []).push(w);
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
    const wanted = new Map<string, Map<number, { epoch: number; inIsr: boolean }>>();
    const gained: number[] = [];
    const own = new Set(this.store.oplog.replicaSlots());
    for (const e of this.view.map) {
      if (e.primary === this.guard.self) {
        // Named primary at the epoch this process started at: not served (nor copied from) until the controller bumps it.
        if (!this.guard.mayServe(e.slot)) continue;
        const began = this.epochs.get(e.slot);
        if (own.has(e.slot) || !began || began.epoch !== e.epoch) this.took(e.slot, e.epoch, own.has(e.slot), began?.epoch, gained);
        for (const f of e.followers) {
          if (f === this.guard.self) continue;
          if (!wanted.has(f)) wanted.set(f, new Map());
          wanted.get(f)!.set(e.slot, { epoch: e.epoch, inIsr: e.isr.includes(f) });
        }
        for (const m of e.isr) if (m !== this.guard.self && !this.view.member(m)) this.orphan(e.slot, e.epoch, m);
      } else if (e.primary !== null && !e.followers.includes(this.guard.self) && (own.has(e.slot) || this.store.oplog.seq(e.slot) > 0)) {
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
      for (const [slot, { epoch, inIsr }] of slots) link.follow(slot, epoch, inIsr);
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

  /** This shard serves the slot at a new epoch: where the epoch began is recorded; a follower copy becomes the log. */
  private took(slot: number, epoch: number, fromCopy: boolean, lastEpoch: number | undefined, gained: number[]): void {
    const position = fromCopy ? this.store.oplog.position(slot) : undefined;
    const from = position ?? (lastEpoch !== undefined ? { epoch: lastEpoch, seq: this.store.oplog.seq(slot) } : undefined);
    this.epochs.began(slot, epoch, from).catch((err: unknown) => this.log.warn({ err: String(err), slot }, 'recording where the epoch began failed'));
    if (fromCopy) {
      // Promoted (failover) or handed the slot by a move: the log goes on from the copy's position.
      void this.store.oplog.clearPosition(slot);
      gained.push(slot);
    }
  }

  /** An in-sync member without a live lease leaves the set before any write is acknowledged without it. */
  private orphan(slot: number, epoch: number, member: string): void {
    const key = `${slot}/${member}`;
    if (this.orphans.has(key)) return;
    const p = this.isr.shrink(slot, epoch, member).finally(() => this.orphans.delete(key));
    this.orphans.set(key, p);
    p.catch(() => setTimeout(() => this.follow(), RETRY_MS).unref());
  }

  /** This shard no longer serves or copies the slot: its records, log and position go. */
  private drop(slot: number): void {
    if (this.dropping.has(slot)) return;
    this.dropping.add(slot);
    void this.locks.run(slot, async () => {
      // The map may have named it a follower again while the drop waited its turn.
      const e = this.view.entry(slot);
      if (e.primary === this.guard.self || e.followers.includes(this.guard.self)) return;
      await this.store.oplog.clearPosition(slot);
      const removed = await dropSlot(this.store, slot, false);
      await this.store.transaction(() => {
        this.store.oplog.clearSlot(slot);
        void this.store.oplog.clearPosition(slot);
      });
      this.log.info({ slot, records: removed }, 'dropped a slot this shard no longer serves or copies');
    }).catch((err: unknown) => this.log.error({ err, slot }, 'dropping a copy failed')).finally(() => this.dropping.delete(slot));
  }

  close(): void {
    this.stopped = true;
    this.store.oplog.onAppend = null;
    for (const link of this.links.values()) link.close();
    this.links.clear();
    this.isr.close();
    this.members.close();
  }
}
